"""The wizard's pages: thin views of a :class:`~gpuassist.wizard.StepState` (all logic is in the wizard).

Each step page reads, top to bottom: title and status (the verdict for this step), the question it
answers and why, progress while it runs, the reason when it was skipped or is unavailable, then the
finding cards, worst first. The summary page leads with the verdict and the root cause's fix.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gpuassist.findings import OK_COLOUR, OK_ICON
from gpuassist.report.model import Report
from gpuassist.step_table import BY_ID
from gpuassist.ui.cards import FindingCard, ScrollBody, clear_layout, plain_label, wrap_label
from gpuassist.wizard import StepState, StepStatus
from gpuassist.wizard.model import StepOwnEvent
from gpuassist.wizard.script_run import RunProgress

if TYPE_CHECKING:  # the page blocks load with the first page that shows measurements (start-up budget)
    from gpuassist.report.blocks import Block

STAGE_NAMES = {
    # the probe (Environment, Driver, Wheel)
    "interpreter": "Starting the target interpreter",
    "torch_dist": "Finding the installed torch",
    "import_torch": "import torch",
    "build": "Reading how torch was built",
    "accel_init": "Initialising CUDA",
    "devices": "Listing devices",
    "smoke": "Running a small test on each device",
    "libraries": "Checking which CUDA libraries were loaded",
    # the runtime tests
    "default_device": "Checking where new tensors land",
    "correctness": "Comparing results on each device with the CPU",
    "mismatch": "Reproducing a device-mismatch error",
    "bandwidth": "Measuring host ↔ device copy bandwidth",
    "transfer": "Timing the copy of each batch",
    "setup": "Timing the model step and the data loading",
    "search": "Trying DataLoader settings",
    "cpu": "Training step on the CPU",
    "scaling": "Batch-size scaling",
    "accelerators": "Variants on the accelerator (AMP, channels_last, …)",
    "profile": "Profiling one training step",
}
PROGRESS_STEPS = 1000


def status_chip(status: StepStatus) -> QLabel:
    chip = QLabel(f"{status.icon}  {status.label}")
    chip.setObjectName("statusChip")
    chip.setStyleSheet(f"background: {status.colour};")
    return chip


def note_box(text: str) -> QFrame:
    box = QFrame()
    box.setObjectName("note")
    lay = QVBoxLayout(box)
    lay.setContentsMargins(12, 8, 12, 8)
    lay.addWidget(wrap_label(text, "noteText"))
    return box


def _clock(seconds: float) -> str:
    m, sec = divmod(round(seconds), 60)
    return f"{m}:{sec:02d}"


CARD_BATCH = 30  # cards built at once; a report with thousands of findings shows "Show N more"


def add_finding_cards(layout: QVBoxLayout, cards: list[FindingCard], findings: list[Any]) -> None:
    """A card per finding, the first :data:`CARD_BATCH` now and the rest behind a "Show N more" button,
    so a report with thousands of findings opens in a moment (a card costs milliseconds of UI thread)."""
    for f in findings[:CARD_BATCH]:
        card = FindingCard(f)
        cards.append(card)
        layout.addWidget(card)
    rest = findings[CARD_BATCH:]
    if not rest:
        return
    more = QPushButton(f"Show {min(len(rest), CARD_BATCH)} more ({len(rest)} not shown)")
    more.setObjectName("moreFindings")

    def show_more() -> None:
        more.hide()
        layout.removeWidget(more)
        more.deleteLater()
        add_finding_cards(layout, cards, rest)

    more.clicked.connect(show_more)
    layout.addWidget(more)


class Progress(QWidget):
    """Progress bar + the stage in progress, fed by the probe's (or a runtime test's) events."""

    def __init__(self) -> None:
        super().__init__()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(4)
        self.bar = QProgressBar()
        self.bar.setTextVisible(False)
        self.stage = QLabel("Starting…")
        self.stage.setTextFormat(Qt.TextFormat.PlainText)  # stage names and paths from the target
        self.stage.setObjectName("explanation")
        lay.addWidget(self.bar)
        lay.addWidget(self.stage)
        self.stages: list[str] = []
        self.done = 0
        self.text = ""
        self.count = ""
        self.started = time.monotonic()
        self.clock = QTimer(self)  # elapsed / remaining time moves even while one trial takes long
        self.clock.setInterval(1000)
        self.clock.timeout.connect(self._show)
        self.reset()

    def reset(self) -> None:
        self.stages, self.done, self.current, self.runtime = [], 0, "", False
        self.bar.setRange(0, 0)  # busy until the probe says how many stages there are
        self.started = time.monotonic()
        self.count = ""
        self._set_text("Starting…")

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        self.clock.start()

    def hideEvent(self, event: Any) -> None:
        super().hideEvent(event)
        self.clock.stop()

    def _set_text(self, text: str) -> None:
        self.text = text
        self._show()

    def _show(self) -> None:
        """The stage, "n of m" of its measurements, and the time taken and (from the bar) still to go."""
        elapsed = time.monotonic() - self.started
        timing = f"{_clock(elapsed)} elapsed"
        if self.bar.maximum() > 0:
            fraction = self.bar.value() / self.bar.maximum()
            if 0.05 <= fraction < 1.0 and elapsed >= 2:
                timing += f", about {_clock(elapsed * (1 - fraction) / fraction)} left"
        self.stage.setText(f"{self.text}{' · ' + self.count if self.count else ''} · {timing}")

    def _stage_text(self, name: str, detail: str = "") -> str:
        pos = self.stages.index(name) + 1 if name in self.stages else 0
        where = f" (stage {pos} of {len(self.stages)})" if pos else ""
        return f"{STAGE_NAMES.get(name, name)}{': ' + detail if detail else '…'}{where}"

    def _set_fraction(self, stages_done: float) -> None:
        if self.stages:
            self.bar.setRange(0, PROGRESS_STEPS)
            self.bar.setValue(int(PROGRESS_STEPS * min(1.0, stages_done / len(self.stages))))

    def on_event(self, ev: StepOwnEvent) -> None:
        """Probe and runtime-test events: stages move the bar, a runtime test's progress lines move it
        within its stage and name what is being measured."""
        if ev["event"] == "launch":
            self.reset()
            self._set_text(f"Starting {ev['python']}")
        elif ev["event"] == "hello":
            self.stages = list(ev["stages"])
            self.runtime = bool(ev.get("test"))
            self._set_fraction(0)
        elif ev["event"] == "stage":
            name = ev["stage"]
            if ev["status"] == "start":
                self.current = name
                self.count = ""
                self._set_text(self._stage_text(name))
            else:
                self.done += 1
                self._set_fraction(self.done)
        elif ev["event"] == "progress":
            total, done = ev["total"], ev["done"]
            name = ev["stage"] or self.current
            message = ev["message"]
            if message and message != "done":
                self._set_text(self._stage_text(name, message))
            if total > 0:
                self.count = f"{min(done + 1, total)} of {total}"
                self._set_fraction(self.done + min(1.0, (done + 1) / total))
                self._show()
        elif ev["event"] in ("done", "exit"):
            self._set_fraction(len(self.stages))
            self._set_text("Judging the measurements…" if self.runtime else "Checking the host and applying the rules…")
        elif ev["event"] == "killed":
            self._set_text(f"Stopping the {'test' if self.runtime else 'probe'} ({ev['reason']})…")


class ScriptProgress(Progress):
    """The Your script page's bar and line: reading the file, then (when asked) the run of the script, its
    steps and seconds against the limit (the words come from :class:`~gpuassist.wizard.script_run.RunProgress`)."""

    def __init__(self) -> None:

        self.model = RunProgress()
        super().__init__()

    def reset(self) -> None:
        super().reset()
        self.model.reset()

    def on_event(self, ev: StepOwnEvent) -> None:
        if not self.model.on_event(ev):
            return
        fraction = self.model.fraction
        if fraction is None:
            self.bar.setRange(0, 0)
        else:
            self.bar.setRange(0, PROGRESS_STEPS)
            self.bar.setValue(int(PROGRESS_STEPS * fraction))
        self._set_text(self.model.text)


class StepPage(QWidget):
    """One wizard step."""

    run_requested = Signal(str)
    back_requested = Signal()
    next_requested = Signal()

    def __init__(
        self, step_id: str, title: str, explanation: str, number: int, total: int, *, progress: Progress | None = None
    ) -> None:
        super().__init__()
        self.step_id = step_id
        self.run_words = ("Run this step", "Run again")  # the run button before and after a run
        outer, self.body = scrolling_body(self)
        outer.setSpacing(0)

        head = QHBoxLayout()
        self.title = QLabel(title)
        self.title.setObjectName("pageTitle")
        self.chip = status_chip(StepStatus.PENDING)
        step_of = QLabel(f"Step {number} of {total}")
        step_of.setObjectName("stepOf")
        head.addWidget(self.title)
        head.addSpacing(10)
        head.addWidget(self.chip, 0, Qt.AlignmentFlag.AlignVCenter)
        head.addStretch(1)
        head.addWidget(step_of)
        self.body.addLayout(head)
        question = BY_ID[step_id].question if step_id in BY_ID else None
        if question:
            self.body.addWidget(wrap_label(question, "question", selectable=False))
        self.explanation_label = wrap_label(explanation, "explanation", selectable=False)
        self.body.addWidget(self.explanation_label)
        self.header_slot = QVBoxLayout()  # what a step needs chosen before it runs (the script to audit)
        self.body.addLayout(self.header_slot)
        self.progress = progress or Progress()
        self.progress.setVisible(False)
        self.body.addWidget(self.progress)
        self.pending_hint = ""  # what to do before this step can run, shown instead of "Not run yet"
        self.content = QVBoxLayout()
        self.content.setSpacing(10)
        self.body.addLayout(self.content)
        self.body.addStretch(1)

        nav = QWidget()
        nav.setObjectName("nav")
        nav_lay = QHBoxLayout(nav)
        nav_lay.setContentsMargins(24, 8, 24, 12)
        self.back = QPushButton("◀  Back")
        self.run = QPushButton("Run this step")
        self.next = QPushButton("Next  ▶")
        self.back.clicked.connect(self.back_requested.emit)
        self.next.clicked.connect(self.next_requested.emit)
        self.run.clicked.connect(lambda: self.run_requested.emit(self.step_id))
        nav_lay.addWidget(self.back)
        nav_lay.addStretch(1)
        nav_lay.addWidget(self.run)
        nav_lay.addWidget(self.next)
        outer.addWidget(nav)
        self.back.setEnabled(number > 1)
        self.next.setEnabled(number < total)
        self.cards: list[FindingCard] = []
        self.blocks: list[Block] = []
        self.status = StepStatus.PENDING
        self.rendered: StepState | None = None
        self.rendered_interactive = True

    def set_compact(self, compact: bool) -> None:
        """Tighter margins on a short screen (the compact layout)."""
        self.body.setContentsMargins(*((16, 8, 16, 8) if compact else (24, 18, 24, 18)))
        self.explanation_label.setVisible(not compact)

    def set_chip(self, status: StepStatus) -> None:
        self.status = status
        self.chip.setText(f"{status.icon}  {status.label}")
        self.chip.setStyleSheet(f"background: {status.colour};")

    def needs_render(self, state: StepState, interactive: bool) -> bool:
        """False when the page already shows this very state (re-rendering tables on every event of a
        run would cost the UI thread tens of milliseconds each time)."""
        return self.rendered is not state or self.rendered_interactive is not interactive

    def run_text(self, status: StepStatus) -> str:
        if status is StepStatus.UNAVAILABLE:
            return "Check again"
        return self.run_words[0] if status in (StepStatus.PENDING, StepStatus.OFFERED) else self.run_words[1]

    def update_buttons(self, *, busy: bool, interactive: bool) -> None:
        self.run.setVisible(interactive)
        self.run.setEnabled(not busy)

    def _add_cards(self, findings: list[Any]) -> None:
        add_finding_cards(self.content, self.cards, sorted(findings, key=lambda f: f.severity.rank))

    def _demonstrations(self, demos: list[Any]) -> QWidget:
        holder, self.demo_toggle = collapsed_cards(
            "What this error looks like (reproduced on purpose, not a fault of this machine)", demos, self.cards
        )
        return holder

    def show_running(self, shared_with: str | None = None) -> None:
        self.rendered = None
        clear_layout(self.content)
        self.cards = []
        self.set_chip(StepStatus.RUNNING)
        self.progress.reset()
        self.progress.setVisible(True)
        if shared_with:
            self.content.addWidget(
                note_box(f"Runs together with {shared_with}: one probe of the target interpreter answers all three.")
            )

    def show_state(self, state: StepState, *, busy: bool, interactive: bool, blocks: list[Block] | None = None) -> None:
        """Render a finished (or pending) step; ``busy`` = some step is running (buttons disabled)."""
        if state.status is StepStatus.RUNNING:
            return
        self.rendered, self.rendered_interactive = state, interactive
        self.progress.setVisible(False)
        clear_layout(self.content)
        self.cards = []
        self.set_chip(state.status)
        self.run.setVisible(interactive)
        self.run.setEnabled(not busy)
        self.run.setText(self.run_text(state.status))
        if state.status is StepStatus.OFFERED:
            self.content.addWidget(note_box(state.reason[:1].upper() + state.reason[1:] + "."))
            return
        if state.status is StepStatus.PENDING:
            text = self.pending_hint or f"Not run yet. Press {self.run_words[0]}, or Run all ▶ at the top."
            if state.findings:  # what the diagnosis already found for this step
                text = "Not measured yet: " + state.note + "."
            elif state.note:
                text = f"Needs to run again: {state.note}. " + text
            self.content.addWidget(note_box(text))
            self._add_cards(state.findings)
            return
        if state.reason:
            self.content.addWidget(note_box(state.reason[0].upper() + state.reason[1:]))
        if state.status is StepStatus.OK and not state.findings:
            self.content.addWidget(note_box("✔  Nothing to fix here."))
        seconds = state.result.seconds if state.result else None
        from gpuassist.report.tiers import is_demonstration  # start-up: with the first finished step

        demos = [f for f in state.findings if is_demonstration(f)]
        self._add_cards([f for f in state.findings if not is_demonstration(f)])
        if blocks:  # (a pending step returned above)
            # Start-up: block widgets load with the first measured step.
            from gpuassist.ui.blocks import widget_for

            for block in blocks:
                self.content.addWidget(widget_for(block))
        self.blocks = list(blocks or [])
        if demos:  # the mismatch reproduced on purpose: below the measurements, closed
            self.content.addWidget(self._demonstrations(demos))
        if seconds is not None and state.status not in (StepStatus.SKIPPED, StepStatus.UNAVAILABLE):
            took = QLabel(f"Took {seconds:.1f} s.")
            took.setObjectName("explanation")
            self.content.addWidget(took)


MEASURED_STEPS = ("placement", "dataloader", "benchmark", "script")  # findings measured by running something


class SummaryPage(QWidget):
    """Verdict first, then the root cause and its fix, the rest, and the exports."""

    export_requested = Signal(str)  # html | markdown | json | csv
    run_offered_requested = Signal()  # run the benchmarks Run all offered instead of running
    back_requested = Signal()
    redact_changed = Signal(bool)

    def __init__(self, number: int, total: int) -> None:
        super().__init__()
        self.step_id = "summary"
        outer, self.body = scrolling_body(self)

        head = QHBoxLayout()
        title = QLabel("Summary")
        title.setObjectName("pageTitle")
        step_of = QLabel(f"Step {number} of {total}")
        step_of.setObjectName("stepOf")
        head.addWidget(title)
        head.addStretch(1)
        head.addWidget(step_of)
        self.body.addLayout(head)
        self.content = QVBoxLayout()
        self.content.setSpacing(10)
        self.body.addLayout(self.content)
        self.body.addStretch(1)

        bar = QWidget()
        bar_lay = QHBoxLayout(bar)
        bar_lay.setContentsMargins(24, 8, 24, 12)
        back = QPushButton("◀  Back")
        back.clicked.connect(self.back_requested.emit)
        bar_lay.addWidget(back)
        bar_lay.addStretch(1)
        self.redact = QCheckBox("Redact names")
        self.redact.setChecked(True)
        self.redact.setToolTip(
            "Hide home directory, user and host names in exported reports. Secrets, tokens and "
            "GPU serials are always removed."
        )
        self.redact.toggled.connect(self.redact_changed.emit)
        bar_lay.addWidget(self.redact)
        bar_lay.addSpacing(6)
        export = QLabel("Export:")
        export.setObjectName("stepOf")
        bar_lay.addWidget(export)
        self.export_buttons: dict[str, QPushButton] = {}
        for fmt, text in (("html", "HTML…"), ("markdown", "Markdown…"), ("json", "JSON…")):  # CSV: the monitor
            b = QPushButton(text)
            b.clicked.connect(lambda _=False, fmt=fmt: self.export_requested.emit(fmt))
            bar_lay.addWidget(b)
            self.export_buttons[fmt] = b
        self.export_buttons["html"].setObjectName("primary")
        outer.addWidget(bar)
        self.verdict_headline = ""
        self.usable_text = ""
        self.rendered_key: Any = None
        self.cards: list[FindingCard] = []

    def show_report(self, report: Report | None, states: list[StepState], *, context_line: str) -> None:
        clear_layout(self.content)
        self.cards = []
        for b in self.export_buttons.values():
            b.setEnabled(report is not None)
        if report is None:
            self.verdict_headline = ""
            self.content.addWidget(
                note_box(
                    "Nothing has been diagnosed yet. Press Run all ▶ at the top, or open "
                    "a report or paste collect_env output to read someone else's."
                )
            )
            return
        from gpuassist.report.render import verdict  # start-up: not needed before there is a report
        from gpuassist.report.tiers import tiers
        from gpuassist.wizard.display import usable_line

        v = verdict(report)
        self.verdict_headline = v.headline
        self.usable_text = usable_line(report) or ""
        tier = tiers(list(report.findings))
        top = tier.problem
        # One box, read first and once: whether the GPU is usable (when the verdict is about speed), the
        # headline, where it comes from, then (with a root cause) its fix, explanation and evidence inside
        # the same box — the first action above the fold, no second heading repeating the headline.
        box = QFrame()
        box.setObjectName("verdict")
        box.setStyleSheet(f"QFrame#verdict {{ border-left: 6px solid {v.colour}; }}")
        lay = QGridLayout(box)
        lay.setContentsMargins(16, 12, 16, 14)
        lay.setHorizontalSpacing(12)
        lay.setVerticalSpacing(6)
        row = 0
        if self.usable_text:
            usable = wrap_label(f"{OK_ICON}  {self.usable_text}. What the measurements found:", "usableLine")
            usable.setStyleSheet(f"color: {OK_COLOUR}; font-weight: 600;")
            lay.addWidget(usable, row, 1, 1, 2)
            row += 1
        icon = plain_label(v.icon)
        icon.setStyleSheet(f"color: {v.colour}; font-size: 22pt; font-weight: 700;")
        headline = wrap_label(v.headline, "verdictHeadline")
        headline.setStyleSheet(f"color: {v.colour};")
        lay.addWidget(icon, row, 0, Qt.AlignmentFlag.AlignTop)
        lay.addWidget(headline, row, 1)
        if top is not None:
            ident = plain_label(f"{top.severity.value} · {top.id}", "cardId")
            lay.addWidget(ident, row, 2, Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignRight)
        missing = [str(m) for m in report.meta.get("missing_facts") or []]
        if missing:  # a paste that left things out: the verdict covers only what was there
            context_line += "\nNot in the input, so not judged: " + ", ".join(missing)
        lay.addWidget(wrap_label(context_line, "explanation"), row + 1, 1, 1, 2)
        if top is not None:
            card = FindingCard(top, embedded=True, fix_first=True)
            self.cards.append(card)
            lay.addWidget(card, row + 2, 1, 1, 2)
        elif v.detail:
            lay.addWidget(wrap_label(v.detail, "verdictDetail"), row + 2, 1, 1, 2)
        lay.setColumnStretch(1, 1)
        self.content.addWidget(box)
        offered = [st for st in states if st.status is StepStatus.OFFERED]
        if offered:
            self.content.addWidget(self._offer(offered))
        measured = [f for f in tier.measured if f.step in MEASURED_STEPS]
        others = [f for f in tier.measured if f.step not in MEASURED_STEPS]
        for title, items in (
            ("Worth fixing on this machine (measured)" if top is not None else "Measured on this machine", measured),
            ("Also found", others),
        ):
            if items:
                self.content.addWidget(self._section(title))
                add_finding_cards(self.content, self.cards, items)
        if tier.tips:
            self.content.addWidget(
                self._collapsed(f"Tips ({len(tier.tips)}) — general advice, not checked against your code", tier.tips)
            )
        self._steps_overview(states)

    def set_compact(self, compact: bool) -> None:
        self.body.setContentsMargins(*((16, 8, 16, 8) if compact else (24, 18, 24, 18)))

    def _offer(self, offered: list[StepState]) -> QFrame:
        """The benchmarks Run all left out, and the button that runs them anyway."""
        box = QFrame()
        box.setObjectName("card")
        lay = QHBoxLayout(box)
        lay.setContentsMargins(14, 8, 14, 8)
        names = ", ".join(st.step.title for st in offered)
        lay.addWidget(
            wrap_label(
                f"Not run: {names}. The verdict above already answers the question; these would measure the CPU only.",
                "explanation",
            ),
            1,
        )
        self.offer_button = QPushButton("Run them anyway")
        self.offer_button.clicked.connect(self.run_offered_requested.emit)
        lay.addWidget(self.offer_button, 0, Qt.AlignmentFlag.AlignVCenter)
        return box

    def _collapsed(self, title: str, findings: list[Any]) -> QWidget:
        """A section that starts closed (tips): one click shows its cards."""
        holder, self.tips_toggle = collapsed_cards(title, findings, self.cards)
        return holder

    def _steps_overview(self, states: list[StepState]) -> None:
        """Every step in one line each: its status and what it found (or why it did not run)."""
        self.content.addWidget(self._section("Steps"))
        grid_box = QFrame()
        grid_box.setObjectName("card")
        grid = QGridLayout(grid_box)
        grid.setContentsMargins(14, 10, 14, 10)
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(6)
        for row, st in enumerate(s for s in states if s.step.id != "summary"):
            icon_l = QLabel(st.status.icon)
            icon_l.setStyleSheet(f"color: {st.status.colour}; font-weight: 700;")
            icon_l.setAlignment(Qt.AlignmentFlag.AlignCenter)
            name = plain_label(st.step.title)
            what = st.status.label
            if st.status is StepStatus.PENDING and st.step.optional:
                what = "optional, not run"
            elif st.findings:
                worst = sorted(st.findings, key=lambda f: f.severity.rank)
                what += f" — {worst[0].title}" + (f" (+{len(worst) - 1} more)" if len(worst) > 1 else "")
            elif st.reason:
                what = st.reason if st.reason.startswith(what) else f"{what} — {st.reason}"
            grid.addWidget(icon_l, row, 0, Qt.AlignmentFlag.AlignTop)
            grid.addWidget(name, row, 1, Qt.AlignmentFlag.AlignTop)
            grid.addWidget(wrap_label(what, "explanation"), row, 2)
        grid.setColumnStretch(2, 1)
        self.content.addWidget(grid_box)

    @staticmethod
    def _section(text: str) -> QLabel:
        label = QLabel(text)
        label.setObjectName("sectionTitle")
        return label


def collapsed_cards(title: str, findings: list[Any], cards: list[FindingCard]) -> tuple[QWidget, QToolButton]:
    """A section of finding cards that starts closed behind a toggle titled ``title`` (tips,
    demonstrations); the cards are appended to ``cards`` as the page's others are."""
    holder = QWidget()
    lay = QVBoxLayout(holder)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.setSpacing(8)
    toggle = QToolButton()
    toggle.setObjectName("sectionToggle")
    toggle.setText(title)
    toggle.setCheckable(True)
    toggle.setAutoRaise(True)
    toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    toggle.setArrowType(Qt.ArrowType.RightArrow)
    inner = QWidget()
    inner_lay = QVBoxLayout(inner)
    inner_lay.setContentsMargins(0, 0, 0, 0)
    inner_lay.setSpacing(8)
    for f in findings:
        card = FindingCard(f)
        cards.append(card)
        inner_lay.addWidget(card)
    inner.setVisible(False)

    def flip(on: bool) -> None:
        inner.setVisible(on)
        toggle.setArrowType(Qt.ArrowType.DownArrow if on else Qt.ArrowType.RightArrow)

    toggle.toggled.connect(flip)
    lay.addWidget(toggle, 0, Qt.AlignmentFlag.AlignLeft)
    lay.addWidget(inner)
    return holder, toggle


def scrolling_body(page: QWidget) -> tuple[QVBoxLayout, QVBoxLayout]:
    """``page``'s outer layout (the scroll area first; a caller adds its bar below) and the layout of its
    content inside the scroll area (step pages and Summary alike): text wraps, only the height scrolls."""
    outer = QVBoxLayout(page)
    outer.setContentsMargins(0, 0, 0, 0)
    scroll = QScrollArea()
    scroll.setObjectName("pageScroll")
    scroll.setWidgetResizable(True)
    scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    body = ScrollBody()
    body.setObjectName("pageBody")
    layout = QVBoxLayout(body)
    layout.setContentsMargins(24, 18, 24, 18)
    layout.setSpacing(10)
    scroll.setWidget(body)
    outer.addWidget(scroll, 1)
    return outer, layout
