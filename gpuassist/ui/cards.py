"""Finding cards: severity (colour + icon), plain explanation, the fix with Copy, evidence that expands.

A card renders one :class:`~gpuassist.findings.Finding` and nothing else; the words come from the rules.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QObject, QSize, Qt, Signal
from PySide6.QtGui import QFontMetrics, QGuiApplication
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gpuassist.findings import Action, Finding
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

    def __init__(
        self, finding: Finding, parent: QWidget | None = None, *, embedded: bool = False, fix_first: bool = False
    ) -> None:
        super().__init__(parent)
        self.finding = finding
        self.setObjectName("embeddedCard" if embedded else "card")
        colour = finding.severity.colour
        if not embedded:
            self.setStyleSheet(
                f"QFrame#card {{ border: 1px solid {BORDER}; border-left: 5px solid {colour}; "
                f"border-radius: 6px; background: white; }}"
            )
        outer = QVBoxLayout(self)
        if embedded:
            outer.setContentsMargins(0, 4, 0, 0)
        else:
            outer.setContentsMargins(14, 10, 14, 12)
        outer.setSpacing(8)
        if not embedded:
            outer.addLayout(self._head(finding, colour))
        self._body(finding, outer, fix_first=fix_first)

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

    def _body(self, finding: Finding, outer: QVBoxLayout, *, fix_first: bool = False) -> None:
        """``fix_first``: the verdict's card puts what to do above why (the first action above the fold)."""
        if finding.explanation and not fix_first:
            outer.addWidget(wrap_label(finding.explanation, "explanationText"))

        actions = finding.actions
        self.copy_buttons: list[QPushButton] = []
        if actions:
            fix_label = QLabel("Fix")
            fix_label.setObjectName("fixLabel")
            outer.addWidget(fix_label)
            options = sorted({a.option for a in actions})
            for n in options:
                if len(options) > 1:
                    head = QLabel(
                        f"Option {options.index(n) + 1} of {len(options)}" + ("" if n == options[-1] else " — or")
                    )
                    head.setObjectName("optionLabel")
                    outer.addWidget(head)
                for action in (a for a in actions if a.option == n):
                    outer.addWidget(self._action_block(action))
        if finding.explanation and fix_first:
            why = QLabel("Why")
            why.setObjectName("fixLabel")
            outer.addWidget(why)
            outer.addWidget(wrap_label(finding.explanation, "explanationText"))

        self.diagnose_button: QPushButton | None = None
        hub = card_actions()
        offered = offered_interpreter(finding, hub.target) if hub.enabled else None
        if offered:
            self.diagnose_button = QPushButton("Diagnose this one")
            self.diagnose_button.setObjectName("primary")
            self.diagnose_button.setToolTip(f"Make {offered} the target and run the diagnosis on it")
            self.diagnose_button.clicked.connect(lambda: card_actions().diagnose_requested.emit(offered))
            outer.addWidget(self.diagnose_button, 0, Qt.AlignmentFlag.AlignLeft)

        self.evidence_box: QWidget | None = None
        if finding.evidence:
            from gpuassist.wizard.display import fact_label, show  # start-up: facts in words, with the first card

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
                key = plain_label(fact_label(ev.fact), "evidenceKey")  # words; the raw key stays in the JSON
                key.setToolTip(ev.fact)
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

    def _action_block(self, action: Action) -> QWidget:
        """Prose (title, note) as text, the runnable part in its own box with its own Copy."""
        box = QWidget()
        lay = QVBoxLayout(box)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(3)
        head = QHBoxLayout()
        head.addWidget(wrap_label(action.title, "actionTitle"), 1)
        if action.text:
            button = QPushButton("Copy")
            button.setToolTip("Copy these commands" if action.commands else "Copy this code")
            button.clicked.connect(lambda _=False, a=action, b=button: self.copy_action(a, b))
            head.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
            self.copy_buttons.append(button)
        lay.addLayout(head)
        if action.text:
            block = QPlainTextEdit(action.text)
            block.setObjectName("fixBlock")
            block.setReadOnly(True)
            block.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)  # one command is one line, never two
            block.setFont(mono_font())
            metrics = QFontMetrics(block.font())
            lines = action.text.split("\n")
            frame = int(2 * block.document().documentMargin() + 2 * block.frameWidth())
            widest = max(metrics.horizontalAdvance(line) for line in lines)
            # room for a horizontal scroll bar only when a line may be wider than the card
            bar = block.horizontalScrollBar().sizeHint().height() if widest > 60 * metrics.averageCharWidth() else 0
            block.setFixedHeight(len(lines) * metrics.lineSpacing() + frame + bar)
            block.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
            lay.addWidget(block)
        if action.note:
            lay.addWidget(wrap_label(action.note, "actionNote"))
        return box

    @property
    def copy_button(self) -> QPushButton:
        """The first block's Copy (a card's main action)."""
        return self.copy_buttons[0]

    def copy_fix(self) -> None:
        """Copy the first runnable block (never the prose, never two alternatives at once)."""
        first = next((a for a in self.finding.actions if a.text), None)
        if first is not None:
            self.copy_action(first, self.copy_button)

    def copy_action(self, action: Action, button: QPushButton) -> None:
        QGuiApplication.clipboard().setText(action.text)
        button.setText("Copied ✓")
