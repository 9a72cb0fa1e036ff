"""Widgets for the Qt-free page blocks of :mod:`gpuassist.wizard.display` (tables, key/value lists, a line to
copy, "not measured: why", a small plot). One function per block kind; no wording is decided here."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFrame, QGridLayout, QHBoxLayout, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from gpuassist.report.blocks import Absent, Block, Code, KeyValues, Series, Table
from gpuassist.ui.cards import plain_label, wrap_label
from gpuassist.ui.style import mono_font

SERIES_COLOURS = ["#1a73e8", "#6b7280", "#2e7d32", "#ef6c00", "#6a1b9a"]


def _card(title: str) -> tuple[QFrame, QVBoxLayout]:
    box = QFrame()
    box.setObjectName("card")
    lay = QVBoxLayout(box)
    lay.setContentsMargins(14, 10, 14, 12)
    lay.setSpacing(8)
    head = plain_label(title, "evidenceHeader")
    lay.addWidget(head)
    return box, lay


def key_values(block: KeyValues) -> QFrame:
    box, lay = _card(block.title)
    grid = QGridLayout()
    grid.setHorizontalSpacing(16)
    grid.setVerticalSpacing(5)
    for row, (label, value) in enumerate(block.rows):
        key = plain_label(label, "evidenceKey")
        val = wrap_label(value, "factValue")
        val.setFont(mono_font())
        grid.addWidget(key, row, 0, Qt.AlignmentFlag.AlignBaseline)
        grid.addWidget(val, row, 1, Qt.AlignmentFlag.AlignBaseline)
    grid.setColumnStretch(1, 1)
    lay.addLayout(grid)
    if block.note:
        lay.addWidget(wrap_label(block.note, "explanation"))
    return box


def table(block: Table) -> QFrame:
    box, lay = _card(block.title)
    inner = QWidget()
    inner.setObjectName("table")
    grid = QGridLayout(inner)
    grid.setContentsMargins(0, 0, 0, 0)
    grid.setHorizontalSpacing(0)
    grid.setVerticalSpacing(0)
    right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
    left = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
    for c, name in enumerate(block.columns):
        th = plain_label(name, "th")
        th.setAlignment(right if c in block.numeric else left)
        grid.addWidget(th, 0, c)
    for r, row in enumerate(block.rows, 1):
        hi = block.highlight is not None and r - 1 == block.highlight
        for c, text in enumerate(row):
            td = plain_label(text, "tdHi" if hi else "td")
            td.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            if c in block.numeric:
                td.setAlignment(right)
            else:
                td.setAlignment(left)
                td.setWordWrap(len(text) > 40)
            if hi and c == 0:
                td.setToolTip("the chosen / fastest row")
            grid.addWidget(td, r, c)
    # columns stay compact and packed to the left; a long text column (errors, operator names) takes what
    # is left over; the spare width goes to an empty last column
    wide = [c for c in range(len(block.columns)) if any(len(row[c]) > 40 for row in block.rows if c < len(row))]
    for c in range(len(block.columns)):
        grid.setColumnStretch(c, 1 if c in wide else 0)
    if not wide:
        grid.setColumnStretch(len(block.columns), 1)
    lay.addWidget(inner)
    if block.note:
        lay.addWidget(wrap_label(block.note, "explanation"))
    return box


def code(block: Code) -> QFrame:
    box = QFrame()
    box.setObjectName("card")
    lay = QVBoxLayout(box)
    lay.setContentsMargins(14, 10, 14, 12)
    lay.setSpacing(8)
    head = QHBoxLayout()
    title = plain_label(block.title, "evidenceHeader")
    copy = QPushButton("Copy")
    copy.setToolTip("Copy to the clipboard")

    def do_copy() -> None:
        QGuiApplication.clipboard().setText(block.text)
        copy.setText("Copied ✓")

    copy.clicked.connect(do_copy)
    head.addWidget(title)
    head.addStretch(1)
    head.addWidget(copy)
    lay.addLayout(head)
    text = wrap_label(block.text, "fix")
    text.setFont(mono_font())
    lay.addWidget(text)
    if block.note:
        lay.addWidget(wrap_label(block.note, "explanation"))
    box.setProperty("copy_button", copy)
    return box


def absent(block: Absent) -> QFrame:
    box = QFrame()
    box.setObjectName("absent")
    lay = QVBoxLayout(box)
    lay.setContentsMargins(14, 8, 14, 10)
    lay.setSpacing(3)
    head = plain_label(block.title, "evidenceHeader")
    lay.addWidget(head)
    lay.addWidget(wrap_label(block.text, "explanation"))
    return box


def series(block: Series) -> QFrame:
    # Start-up: pyqtgraph's plot widgets load with the first chart block, after the window is shown.
    import pyqtgraph as pg

    box, lay = _card(block.title)
    plot = pg.PlotWidget(background="w")
    plot.setMinimumHeight(190)
    plot.setMaximumHeight(240)
    plot.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
    item = plot.getPlotItem()
    item.hideButtons()
    item.setMenuEnabled(False)
    item.setMouseEnabled(x=False, y=False)
    item.showGrid(x=True, y=True, alpha=0.15)
    item.setLabel("bottom", block.x_label)
    item.setLabel("left", block.y_label)
    item.getAxis("left").setWidth(56)
    legend = item.addLegend(offset=(10, 8))
    if block.log_x:
        item.setLogMode(x=True, y=False)
    for i, (name, points) in enumerate(block.lines.items()):
        colour = SERIES_COLOURS[i % len(SERIES_COLOURS)]
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        item.plot(
            xs,
            ys,
            pen=pg.mkPen(colour, width=2),
            symbol="o",
            symbolSize=6,
            symbolBrush=colour,
            symbolPen=None,
            name=name,
        )
    legend.setLabelTextColor("#1f2933")
    lay.addWidget(plot)
    return box


def widget_for(block: Block) -> QWidget:
    if isinstance(block, Table):
        return table(block)
    if isinstance(block, KeyValues):
        return key_values(block)
    if isinstance(block, Code):
        return code(block)
    if isinstance(block, Absent):
        return absent(block)
    return series(block)
