"""The environment table, shown under the target selector (issue 5 item 2): every Python environment on the
machine with its torch, the cross-environment findings as cards, and "Use as target" (or a double-click) to
diagnose that interpreter. A thin view of :class:`gpuassist.wizard.environments.Environments`; the scan
runs on a worker started by the main window.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpuassist.findings import OK_COLOUR, Finding, Severity
from gpuassist.ui.cards import FindingCard, ScrollBody, clear_layout, plain_tip
from gpuassist.ui.style import MUTED
from gpuassist.wizard.environments import COLUMNS, LEGEND, TORCH_COLUMN, Environments, TableRow

TONE_COLOURS = {
    "gpu": OK_COLOUR,
    "cpu": Severity.WARNING.colour,
    "copies": Severity.WARNING.colour,
    "error": Severity.ERROR.colour,
}


class EnvironmentsPanel(QFrame):
    """Table on the left, findings on the right; the header says what was found and offers the actions."""

    target_picked = Signal(str)
    rescan_requested = Signal()
    close_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("envsPanel")
        self.rows: list[TableRow] = []
        self.cards: list[FindingCard] = []
        self.pickable = True
        self.scanning = False  # the table is being built
        self.running = False  # a wizard run is going: the target must not change under it
        self.asking = False  # the window asks which interpreter the user's code runs: one click on a row picks it
        lay = QVBoxLayout(self)
        lay.setContentsMargins(12, 8, 12, 10)
        lay.setSpacing(6)
        self.ask_label = QLabel("")
        self.ask_label.setObjectName("askTarget")
        self.ask_label.setWordWrap(True)
        self.ask_label.setTextFormat(Qt.TextFormat.PlainText)
        self.ask_label.setStyleSheet(
            "QLabel#askTarget { background: #fff8e1; color: #5d4200; padding: 4px 8px; "
            "border: 1px solid #f0d890; border-radius: 4px; }"
        )
        self.ask_label.setVisible(False)
        lay.addWidget(self.ask_label)
        head = QHBoxLayout()
        title = QLabel("Python environments on this machine")
        title.setObjectName("sectionTitle")
        self.status = QLabel("")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setObjectName("explanation")
        self.use_button = QPushButton("Use as target")
        self.use_button.setObjectName("primary")
        self.use_button.setToolTip("Diagnose the selected interpreter (double-click a row does the same)")
        self.use_button.clicked.connect(self._use_selected)
        self.rescan_button = QPushButton("Rescan")
        self.rescan_button.setToolTip("Look for interpreters again and ask each one about its torch")
        self.rescan_button.clicked.connect(self.rescan_requested.emit)
        hide = QPushButton("Hide")
        hide.clicked.connect(self.close_requested.emit)
        head.addWidget(title)
        head.addSpacing(10)
        head.addWidget(self.status, 1)
        for b in (self.use_button, self.rescan_button, hide):
            head.addWidget(b)
        lay.addLayout(head)

        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("envsTable")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setWordWrap(False)
        self.table.setShowGrid(False)
        self.table.setAlternatingRowColors(True)
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        for c in range(len(COLUMNS)):
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(len(COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self.table.cellDoubleClicked.connect(lambda row, _col: self._pick(row))
        self.table.cellClicked.connect(lambda row, _col: self._pick(row) if self.asking else None)

        self.findings_box = ScrollBody()
        self.findings_lay = QVBoxLayout(self.findings_box)
        self.findings_lay.setContentsMargins(0, 0, 4, 0)
        self.findings_lay.setSpacing(8)
        self.findings_scroll = QScrollArea()
        self.findings_scroll.setObjectName("pageScroll")
        self.findings_scroll.setWidgetResizable(True)
        self.findings_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.findings_scroll.setWidget(self.findings_box)
        self.findings_scroll.setMinimumWidth(360)
        self.findings_scroll.setVisible(False)  # shown when there is something to say
        self.split = QSplitter(Qt.Orientation.Horizontal)
        self.split.addWidget(self.table)
        self.split.addWidget(self.findings_scroll)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 2)
        self.split.setChildrenCollapsible(False)
        lay.addWidget(self.split, 1)
        self.legend = QLabel(LEGEND)
        self.legend.setObjectName("explanation")
        lay.addWidget(self.legend)
        self._update_buttons()

    # -- states -----------------------------------------------------------------------------------------
    def show_scanning(self, answered: int = 0) -> None:
        self.scanning = True
        self.status.setText(
            "Looking for interpreters and asking each one about its torch…"
            + (f" {answered} answered so far" if answered else "")
        )
        self._update_buttons()

    def show_message(self, text: str) -> None:
        """Nothing to list (a report without a table, or a failed scan): say why."""
        self.scanning = False
        self.status.setText(text)
        self.table.setRowCount(0)
        self.rows = []
        self._set_findings([])
        self._update_buttons()

    def show_environments(self, envs: Environments, findings: list[Finding], *, note: str = "") -> None:
        self.scanning = False
        self.pickable = envs.pickable
        self.rows = envs.table()
        verdict = "" if findings or not self.rows else "; no problem across them"
        self.status.setText(envs.summary() + verdict + (f" — {note}" if note else ""))
        self.rescan_button.setVisible(envs.pickable)
        self.use_button.setVisible(envs.pickable)
        # Filled as one change: with its columns sized to their contents, each setItem made the header measure
        # every row again (a 40 ms stall of the event loop at the end of each Run all, 10 environments).
        header = self.table.horizontalHeader()
        modes = [header.sectionResizeMode(c) for c in range(len(COLUMNS))]
        for c in range(len(COLUMNS)):
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.Fixed)
        self.table.setUpdatesEnabled(False)
        self.table.setRowCount(len(self.rows))
        bold = QFont(self.table.font())
        bold.setBold(True)
        for r, row in enumerate(self.rows):
            for c, text in enumerate(row.cells):
                item = QTableWidgetItem(text)
                item.setToolTip(plain_tip(row.tooltip))
                if c == 0:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                if c == TORCH_COLUMN and row.tone in TONE_COLOURS:
                    item.setForeground(QColor(TONE_COLOURS[row.tone]))
                elif c >= TORCH_COLUMN + 3:
                    item.setForeground(QColor(MUTED))
                if row.is_target or (c == TORCH_COLUMN and row.tone == "copies"):
                    item.setFont(bold)
                self.table.setItem(r, c, item)
        for c, mode in enumerate(modes):
            header.setSectionResizeMode(c, mode)
        self.table.setUpdatesEnabled(True)
        target = next((r for r, row in enumerate(self.rows) if row.is_target), None)
        if target is not None:
            self.table.selectRow(target)
        self._set_findings(findings)
        self._update_buttons()

    def _set_findings(self, findings: list[Finding]) -> None:
        """Cards beside the table; without findings the table takes the whole width (the status line says
        that nothing is wrong across the environments)."""
        clear_layout(self.findings_lay)
        self.cards = []
        for f in findings:
            card = FindingCard(f)
            self.cards.append(card)
            self.findings_lay.addWidget(card)
        self.findings_lay.addStretch(1)
        was = self.findings_scroll.isVisibleTo(self)
        self.findings_scroll.setVisible(bool(findings))
        if findings and not was:
            total = max(1, self.split.width())
            self.split.setSizes([int(total * 0.58), total - int(total * 0.58)])

    def set_asking(self, text: str | None) -> None:
        """Ask which interpreter the user's code runs (``text`` says what was guessed and why): one click on
        a row picks it. None: stop asking."""
        self.asking = bool(text)
        self.ask_label.setText(text or "")
        self.ask_label.setVisible(self.asking)

    # -- picking ------------------------------------------------------------------------------------------
    def set_running(self, running: bool) -> None:
        """A wizard run is going: the target cannot change until it ends."""
        if running != self.running:
            self.running = running
            self._update_buttons()

    def _selected(self) -> int | None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        return rows[0].row() if rows else None

    def _update_buttons(self) -> None:
        row = self._selected()
        ok = row is not None and row < len(self.rows) and self.rows[row].usable and not self.rows[row].is_target
        self.use_button.setEnabled(bool(ok) and self.pickable and not self.scanning and not self.running)
        self.rescan_button.setEnabled(not self.scanning)

    def _use_selected(self) -> None:
        row = self._selected()
        if row is not None:
            self._pick(row)

    def _pick(self, row: int) -> None:
        if (
            self.scanning
            or self.running
            or not self.pickable
            or not (0 <= row < len(self.rows))
            or not self.rows[row].usable
        ):
            return
        self.target_picked.emit(self.rows[row].python)
