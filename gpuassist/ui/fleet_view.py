"""The fleet view: a folder of nodes' reports as one read-only window (nodes × findings).

What a cluster admin reads, top to bottom: the headline (how many nodes, how many with errors, how many
missing), the root causes with their node counts (select one: the table shows only its nodes and its
shared fix below), the nodes × findings table (one row per node, one column per finding id, the
severity icon where a node has it), then the outliers (facts where a node differs from the majority) and
the reports that were missing or unreadable. Double-clicking a node opens its own report in the main
window. The merge itself is :mod:`gpuassist.fleet` (Qt-free), run on a worker so a large folder never
blocks the UI.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMenu,
    QPlainTextEdit,
    QSplitter,
    QTableView,
    QTabWidget,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gpuassist.findings import OK_COLOUR, OK_ICON, Severity
from gpuassist.fleet import SourceNotes, iter_entries, merge
from gpuassist.fleet.merge import Cancelled, FleetResult, NodeRow
from gpuassist.fleet.render import headline, names, render
from gpuassist.report.node import node_key
from gpuassist.ui.style import MUTED
from gpuassist.ui.workers import WorkerHandle, start_worker

Index = QModelIndex | QPersistentModelIndex
FIXED_COLUMNS = ("Node", "Verdict")


def severity_icon(severity: str) -> str:
    return OK_ICON if severity == "ok" else Severity(severity).icon


def severity_colour(severity: str) -> str:
    return OK_COLOUR if severity == "ok" else Severity(severity).colour


class FleetTableModel(QAbstractTableModel):
    """Rows: nodes; columns: name, verdict, then one per finding id (the groups' order)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[NodeRow] = []
        self.ids: list[str] = []
        self.titles: dict[str, str] = {}
        self.severity: dict[str, str] = {}
        self.members: list[frozenset[str]] = []

    def set_result(self, result: FleetResult) -> None:
        self.beginResetModel()
        self.rows = result.nodes
        self.ids = [g.id for g in result.groups]
        self.titles = {g.id: g.title for g in result.groups}
        self.severity = {g.id: g.severity for g in result.groups}
        self.members = [frozenset(r.findings) for r in self.rows]
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(FIXED_COLUMNS) + len(self.ids)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if section < len(FIXED_COLUMNS):
            return FIXED_COLUMNS[section] if role == Qt.ItemDataRole.DisplayRole else None
        fid = self.ids[section - len(FIXED_COLUMNS)]
        if role == Qt.ItemDataRole.DisplayRole:
            return fid
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{self.titles[fid]} ({self.severity[fid]})"
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row, col = self.rows[index.row()], index.column()
        if col == 0:
            if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                return row.name if role == Qt.ItemDataRole.DisplayRole else f"{row.name}\nfrom {row.source}"
            return None
        if col == 1:
            if role == Qt.ItemDataRole.DisplayRole:
                return f"{severity_icon(row.worst)} {row.verdict}"
            if role == Qt.ItemDataRole.ForegroundRole:
                return QBrush(QColor(severity_colour(row.worst)))
            return None
        fid = self.ids[col - len(FIXED_COLUMNS)]
        present = fid in self.members[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return severity_icon(self.severity[fid]) if present else ""
        if role == Qt.ItemDataRole.ForegroundRole and present:
            return QBrush(QColor(severity_colour(self.severity[fid])))
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignCenter)
        if role == Qt.ItemDataRole.ToolTipRole and present:
            return f"{row.name}: {self.titles[fid]}"
        if role == Qt.ItemDataRole.UserRole:
            return present
        return None


class NodeFilter(QSortFilterProxyModel):
    """Only the nodes that have one finding id, or only some named nodes (an outlier's); None: every node."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.finding: str | None = None
        self.names: frozenset[str] | None = None

    def show_finding(self, finding: str | None) -> None:
        self._change(finding, None)

    def show_names(self, names: frozenset[str] | None) -> None:
        self._change(None, names)

    def _change(self, finding: str | None, names: frozenset[str] | None) -> None:
        if not hasattr(self, "beginFilterChange"):  # PySide6 < 6.10
            self.finding, self.names = finding, names
            self.invalidateFilter()
            return
        self.beginFilterChange()  # invalidateFilter() is deprecated from 6.10 on
        self.finding, self.names = finding, names
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        model = self.sourceModel()
        assert isinstance(model, FleetTableModel)
        if self.names is not None:
            return model.rows[source_row].name in self.names
        if self.finding is None:
            return True
        return self.finding in model.members[source_row]


class FleetWindow(QMainWindow):
    """A read-only window over a merged folder of reports."""

    def __init__(self, open_report: Callable[[str], Any] | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowFlag(Qt.WindowType.Window, True)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, False)
        self.open_report = open_report
        self.result: FleetResult | None = None
        self.worker: WorkerHandle | None = None
        self.folder = ""
        self.setWindowTitle("gpuassist — fleet")
        self.resize(1200, 780)

        central = QWidget()

        central.setObjectName("central")
        lay = QVBoxLayout(central)
        lay.setContentsMargins(12, 10, 12, 10)
        self.headline = QLabel("Open a folder of reports")
        self.headline.setObjectName("fleetHeadline")
        font = QFont(self.headline.font())
        font.setPointSizeF(font.pointSizeF() * 1.35)
        font.setBold(True)
        self.headline.setFont(font)
        self.subline = QLabel("")
        self.subline.setObjectName("fleetSubline")
        self.subline.setStyleSheet(f"color: {MUTED};")
        self.subline.setWordWrap(True)
        self.export_button = QToolButton()
        self.export_button.setText("Export  ▾")
        self.export_button.setToolTip("The fleet verdict for a ticket: the same as gpuassist fleet --format")
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.export_button)
        for fmt, text in (("html", "HTML…"), ("markdown", "Markdown…"), ("json", "JSON (gpuassist.fleet/1)…")):
            menu.addAction(text, functools.partial(self.export_dialog, fmt))
        self.export_button.setMenu(menu)
        self.export_button.setEnabled(False)
        head = QHBoxLayout()
        head.addWidget(self.headline, 1)
        head.addWidget(self.export_button)
        lay.addLayout(head)
        lay.addWidget(self.subline)

        self.groups = QTreeWidget()

        self.groups.setObjectName("fleetGroups")
        self.groups.setHeaderLabels(["Root causes and other findings", "nodes"])
        self.groups.setRootIsDecorated(False)
        self.groups.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.groups.header().setStretchLastSection(False)
        self.groups.itemSelectionChanged.connect(self._on_group)

        self.model = FleetTableModel(self)
        self.filter = NodeFilter(self)
        self.filter.setSourceModel(self.model)
        self.table = QTableView()
        self.table.setObjectName("fleetTable")
        self.table.setModel(self.filter)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)  # by node name until a header is clicked
        self.table.setAlternatingRowColors(True)
        self.table.doubleClicked.connect(self._on_node_activated)

        top = QSplitter(Qt.Orientation.Horizontal)
        top.addWidget(self.groups)
        top.addWidget(self.table)
        top.setSizes([380, 820])

        self.fix = QPlainTextEdit()

        self.fix.setObjectName("fleetFix")
        self.fix.setReadOnly(True)
        self.fix.setPlaceholderText("Select a root cause to see its nodes and the fix they share.")
        self.fix.setFont(QFont("monospace"))
        self.outliers = QTreeWidget()
        self.outliers.setObjectName("fleetOutliers")
        self.outliers.setHeaderLabels(["Fact", "Majority", "Differs on"])
        self.outliers.setRootIsDecorated(False)
        self.outliers.setWordWrap(True)
        self.outliers.itemSelectionChanged.connect(self._on_outlier)
        self.missing = QTreeWidget()
        self.missing.setObjectName("fleetMissing")
        self.missing.setHeaderLabels(["Report", "Why"])
        self.missing.setRootIsDecorated(False)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("fleetTabs")
        self.tabs.addTab(self.fix, "Shared fix")
        self.tabs.addTab(self.outliers, "Outliers")
        self.tabs.addTab(self.missing, "Missing / unreadable")

        body = QSplitter(Qt.Orientation.Vertical)
        body.addWidget(top)
        body.addWidget(self.tabs)
        body.setSizes([470, 260])
        lay.addWidget(body, 1)
        self.setCentralWidget(central)

    # -- loading ----------------------------------------------------------------------------------------------
    def load(self, folder: str) -> bool:
        """Read and merge every report in ``folder`` on a worker; the window fills in when it is done."""
        if self.worker is not None:
            return False
        self.folder = folder
        self.setWindowTitle(f"gpuassist — fleet: {os.path.basename(os.path.normpath(folder)) or folder}")
        self.headline.setText(f"Reading the reports in {folder} …")
        key = node_key(os.environ)

        def work(emit: Callable[[int], None], cancel: threading.Event) -> FleetResult | None:
            notes = SourceNotes()
            try:
                return merge(
                    iter_entries([folder], None, notes),
                    key=key,
                    notes=notes,
                    cancel=cancel,
                    progress=emit,
                )
            except Cancelled:
                return None

        def progress(read: int) -> None:  # reports read so far
            self.headline.setText(f"Reading the reports in {folder} … {read}")

        def returned(result: FleetResult | None) -> None:
            if result is not None:
                self.show_result(result)

        def errored(message: str) -> None:
            self.headline.setText(f"Could not read {folder}: {message}")

        def done() -> None:
            self.worker = None

        self.worker = start_worker(work, on_progress=progress, on_returned=returned, on_errored=errored, on_done=done)
        return True

    def show_result(self, result: FleetResult) -> None:
        self.result = result
        self.export_button.setEnabled(True)
        severity, line = headline(result)
        self.headline.setText(f"{severity_icon(severity)} Fleet: {line}")
        self.headline.setStyleSheet(f"color: {severity_colour(severity)};")
        notes = [f"{self.folder}" if self.folder else ""]
        if result.pseudonymous:
            notes.append("node names are pseudonyms (the reports were redacted)")
        if any(n.simulated for n in result.nodes):
            notes.append("SIMULATED reports included")
        if result.duplicates:
            notes.append(f"more than one report from {names(result.duplicates, 5)}")
        self.subline.setText(" · ".join(n for n in notes if n))
        self.model.set_result(result)
        self.filter.show_finding(None)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        self.table.setColumnWidth(1, 300)
        # the name column fits the longest name once (not re-measured per filter; 100k rows stay cheap)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        longest = max((r.name for r in result.nodes), key=len, default="Node")
        self.table.setColumnWidth(0, self.table.fontMetrics().horizontalAdvance(longest) + 36)
        self._fill_groups(result)
        self._fill_outliers(result)
        self._fill_missing(result)
        first = self.groups.topLevelItem(1)
        if first is not None and result.groups[0].root_cause:
            self.groups.setCurrentItem(first)

    def _fill_groups(self, result: FleetResult) -> None:
        self.groups.clear()
        everyone = QTreeWidgetItem([f"All nodes with a report ({len(result.nodes)})", str(len(result.nodes))])
        everyone.setData(0, Qt.ItemDataRole.UserRole, None)
        self.groups.addTopLevelItem(everyone)
        for g in result.groups:
            label = f"{severity_icon(g.severity)} {g.title}" + ("" if g.root_cause else "  (explained / info)")
            item = QTreeWidgetItem([label, str(len(g.nodes))])
            item.setData(0, Qt.ItemDataRole.UserRole, g.id)
            item.setForeground(0, QBrush(QColor(severity_colour(g.severity) if g.root_cause else MUTED)))
            item.setToolTip(0, f"{g.id}\n{names(g.nodes, 30)}")
            self.groups.addTopLevelItem(item)

    def _fill_outliers(self, result: FleetResult) -> None:
        self.outliers.clear()
        for o in result.outliers:
            major = f"{o.majority[0]} ({o.majority[1]} of {o.known})" if o.majority else "no majority"
            differing = frozenset(n for _, nodes in o.others for n in nodes)
            differs = "\n".join(f"{v}: {names(n, 8)}" for v, n in o.others[:8])
            item = QTreeWidgetItem([o.label, major, differs])
            item.setData(0, Qt.ItemDataRole.UserRole, differing)
            item.setToolTip(0, "Select to show only the nodes that differ")
            self.outliers.addTopLevelItem(item)
        for col, width in ((0, 190), (1, 300)):
            self.outliers.setColumnWidth(col, width)
        self.tabs.setTabText(1, f"Outliers ({len(result.outliers)})")

    def _fill_missing(self, result: FleetResult) -> None:
        self.missing.clear()
        for u in result.unreadable:
            self.missing.addTopLevelItem(
                QTreeWidgetItem(
                    [
                        os.path.relpath(u.label, self.folder)
                        if self.folder and u.label.startswith(self.folder)
                        else u.label,
                        u.error,
                    ]
                )
            )
        for m in result.missing:
            self.missing.addTopLevelItem(QTreeWidgetItem([m, "expected, no report"]))
        self.missing.setColumnWidth(0, 260)
        count = len(result.unreadable) + len(result.missing)
        self.tabs.setTabText(2, f"Missing / unreadable ({count})")

    # -- interaction ------------------------------------------------------------------------------------------
    def _on_group(self) -> None:
        items = self.groups.selectedItems()
        if not items:
            return  # cleared for an outlier's selection, which sets the filter itself
        self.outliers.clearSelection()
        finding = items[0].data(0, Qt.ItemDataRole.UserRole)
        self.filter.show_finding(finding)
        group = next((g for g in self.result.groups if g.id == finding), None) if self.result else None
        if group is None:
            self.fix.setPlainText("")
            return
        head = f"{group.title}\n{group.id} · {len(group.nodes)} node{'s' if len(group.nodes) != 1 else ''}"
        variants = (
            f"\n({group.fix_variants} node-specific variant(s) of this fix: open a node's report)"
            if group.fix_variants
            else ""
        )
        self.fix.setPlainText(f"{head}{variants}\n\n{group.fix or 'No fix: this is for information.'}")
        self.tabs.setCurrentIndex(0)

    def _on_outlier(self) -> None:
        """An outlier selected: the table shows only the nodes that differ on it."""
        items = self.outliers.selectedItems()
        if not items:
            return
        self.groups.clearSelection()
        self.filter.show_names(items[0].data(0, Qt.ItemDataRole.UserRole))

    def _on_node_activated(self, index: QModelIndex) -> None:
        row = self.model.rows[self.filter.mapToSource(index).row()]
        if row.path and self.open_report is not None:
            self.open_report(row.path)
        elif not row.path:
            self.statusBar().showMessage(
                f"{row.name}'s report is one of many in {row.source}: it has no file of its own to open"
            )

    # -- export -----------------------------------------------------------------------------------------------
    def export_dialog(self, fmt: str) -> None:
        suffix = {"html": "html", "markdown": "md", "json": "json"}[fmt]
        path, _ = QFileDialog.getSaveFileName(
            self, "Export the fleet verdict", f"fleet.{suffix}", f"{fmt.upper()} (*.{suffix})"
        )
        if path:
            self.export_to(fmt, path)

    def export_to(self, fmt: str, path: str) -> bool:
        """The same HTML / Markdown / JSON as `gpuassist fleet --format`, for a ticket."""
        if self.result is None:
            return False
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(render(self.result, fmt))
        except OSError as exc:
            self.statusBar().showMessage(f"Cannot write {path}: {exc.strerror or exc}")
            return False
        self.statusBar().showMessage(f"Exported to {path}")
        return True

    def shutdown(self, budget: float = 2.0) -> bool:
        if self.worker is None:
            return True
        self.worker.cancel()
        return self.worker.wait(budget)

    def closeEvent(self, event: Any) -> None:
        self.shutdown()
        event.accept()
