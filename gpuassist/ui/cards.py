"""Finding cards: severity (colour + icon), plain explanation, the fix with Copy, evidence that expands.

A card renders one :class:`~gpuassist.findings.Finding` and nothing else; the words come from the rules.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QObject, QSize, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gpuassist.findings import Finding
from gpuassist.ui.style import BORDER, mono_font
from gpuassist.wizard.retarget import offered_interpreter


class CardActions(QObject):
    """What a card can ask of the window, wherever the card is shown (step pages, summary, the environment
    table): "Diagnose this one" on a finding that blames the interpreter. The window sets ``target`` (the
    interpreter diagnosed now) and ``enabled`` (a live session: not a report, not a simulation)."""

    diagnose_requested = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.target: str | None = None
        self.enabled = False


_ACTIONS: list[CardActions] = []


def card_actions() -> CardActions:
    """The one relay the window listens to (made on first use, once a QApplication exists)."""
    if not _ACTIONS:
        _ACTIONS.append(CardActions())
    return _ACTIONS[0]


def plain_label(text: str = "", name: str = "") -> QLabel:
    """A label that shows its text as it is: report data (a finding id, a fact key, a GPU name read from a
    reopened report) is never interpreted as rich text (``<img src=file://…>``, links, markup)."""
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    if name:
        label.setObjectName(name)
    return label


def plain_tip(text: str) -> str:
    """A tooltip that shows ``text`` as it is: Qt renders a tooltip that looks like markup as rich text, so
    report data is escaped inside an explicit rich-text wrapper."""
    return f"<qt>{html.escape(text)}</qt>" if text else ""


def wrap_label(text: str, name: str = "", *, selectable: bool = True, rich: bool = False) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if name:
        label.setObjectName(name)
    label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
    return label


def clear_layout(layout: QLayout) -> None:
    """Remove and delete everything in ``layout`` (nested layouts too)."""
    while layout.count():
        item = layout.takeAt(0)
        if item is None:
            break
        w = item.widget()
        inner = item.layout()
        if w is not None:
            w.hide()  # out of the layout it would keep painting at its old place until deleted
            w.deleteLater()
        elif inner is not None:
            clear_layout(inner)


class ScrollBody(QWidget):
    """The widget inside a page's scroll area. Its height is what its content needs at the width it has
    (height-for-width), not the sum of the wrapped labels' minimum heights, which Qt computes for an
    arbitrary narrow width and which would leave a tall blank area to scroll through under the content."""

    def minimumSizeHint(self) -> QSize:
        return QSize(super().minimumSizeHint().width(), 0)


class FindingCard(QFrame):
    """One finding. ``compact`` (summary page, secondary findings) starts with the evidence collapsed and
    leaves out nothing else: the fix is the point of a card."""

    def __init__(self, finding: Finding, parent: QWidget | None = None, *, embedded: bool = False) -> None:
        super().__init__(parent)
        self.finding = finding
        self.setObjectName("embeddedCard" if embedded else "card")
        colour = finding.severity.colour
        if not embedded:
            self.setStyleSheet(f"QFrame#card {{ border: 1px solid {BORDER}; border-left: 5px solid {colour}; "
                               f"border-radius: 6px; background: white; }}")
        outer = QVBoxLayout(self)
        if embedded:
            outer.setContentsMargins(0, 4, 0, 0)
        else:
            outer.setContentsMargins(14, 10, 14, 12)
        outer.setSpacing(8)
        if not embedded:
            outer.addLayout(self._head(finding, colour))
        self._body(finding, outer)

    def _head(self, finding: Finding, colour: str) -> QHBoxLayout:
        head = QHBoxLayout()
        head.setSpacing(8)
        icon = QLabel(finding.severity.icon)
        icon.setStyleSheet(f"color: {colour}; font-size: 14pt; font-weight: 700;")
        icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        title = wrap_label(finding.title, "cardTitle")
        ident = plain_label(f"{finding.severity.value} · {finding.id}", "cardId")
        ident.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        head.addWidget(icon, 0, Qt.AlignmentFlag.AlignTop)
        head.addWidget(title, 1)
        head.addWidget(ident, 0, Qt.AlignmentFlag.AlignTop)
        return head

    def _body(self, finding: Finding, outer: QVBoxLayout) -> None:
        if finding.explanation:
            outer.addWidget(wrap_label(finding.explanation, "explanationText"))

        if finding.fix:
            fix_head = QHBoxLayout()
            fix_label = QLabel("Fix")
            fix_label.setObjectName("fixLabel")
            self.copy_button = QPushButton("Copy")
            self.copy_button.setToolTip("Copy the fix to the clipboard")
            self.copy_button.clicked.connect(self.copy_fix)
            fix_head.addWidget(fix_label)
            fix_head.addStretch(1)
            fix_head.addWidget(self.copy_button)
            outer.addLayout(fix_head)
            fix = wrap_label(finding.fix, "fix")
            fix.setFont(mono_font())
            outer.addWidget(fix)

        self.diagnose_button: QPushButton | None = None
        actions = card_actions()
        offered = offered_interpreter(finding, actions.target) if actions.enabled else None
        if offered:
            self.diagnose_button = QPushButton("Diagnose this one")
            self.diagnose_button.setObjectName("primary")
            self.diagnose_button.setToolTip(f"Make {offered} the target and run the diagnosis on it")
            self.diagnose_button.clicked.connect(lambda: card_actions().diagnose_requested.emit(offered))
            outer.addWidget(self.diagnose_button, 0, Qt.AlignmentFlag.AlignLeft)

        self.evidence_box: QWidget | None = None
        if finding.evidence:
            from gpuassist.wizard.display import show  # start-up: facts in words load with the first card

            self.toggle = QToolButton()
            self.toggle.setObjectName("evidenceToggle")
            self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            self.toggle.setArrowType(Qt.ArrowType.RightArrow)
            self.toggle.setText(f"Evidence ({len(finding.evidence)})")
            self.toggle.setCheckable(True)
            self.toggle.setAutoRaise(True)
            self.toggle.toggled.connect(self.set_evidence_visible)
            outer.addWidget(self.toggle, 0, Qt.AlignmentFlag.AlignLeft)
            box = QWidget()
            grid = QGridLayout(box)
            grid.setContentsMargins(18, 0, 0, 0)
            grid.setHorizontalSpacing(14)
            grid.setVerticalSpacing(4)
            for row, ev in enumerate(finding.evidence):
                key = plain_label(ev.fact, "evidenceKey")
                key.setFont(mono_font())
                key.setAlignment(Qt.AlignmentFlag.AlignTop)
                key.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
                value = wrap_label(show(ev.fact, ev.value), "evidenceValue")
                value.setFont(mono_font())
                grid.addWidget(key, row, 0, Qt.AlignmentFlag.AlignTop)
                grid.addWidget(value, row, 1)
            grid.setColumnStretch(1, 1)
            box.setVisible(False)
            outer.addWidget(box)
            self.evidence_box = box

    def set_evidence_visible(self, visible: bool) -> None:
        if self.evidence_box is not None:
            self.evidence_box.setVisible(visible)
            self.toggle.setArrowType(Qt.ArrowType.DownArrow if visible else Qt.ArrowType.RightArrow)
            if self.toggle.isChecked() != visible:
                self.toggle.setChecked(visible)

    def copy_fix(self) -> None:
        QGuiApplication.clipboard().setText(self.finding.fix)
        self.copy_button.setText("Copied ✓")
