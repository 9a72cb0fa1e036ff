"""The wizard's vocabulary: a step, its result and its status — plain data, no Qt.

A step is one page of the wizard. Its ``run`` is an ordinary function ``run(context, on_event, cancel)``
returning a :class:`StepResult`; the GUI calls it on a worker thread, tests call it directly. New steps
(the runtime tests) plug in by providing such a function; nothing else needs to change.
"""

from __future__ import annotations

import copy
import shlex
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from gpuassist.findings import OK_COLOUR, OK_ICON, Finding, Severity
from gpuassist.monitor import Monitor
from gpuassist.probe.events import Event, Routed
from gpuassist.report.model import Report

if TYPE_CHECKING:  # start-up: the audit run's engine loads when a run is asked for
    from gpuassist.audit.run import Bound, BoundJson


# ---- events: what a step emits while it runs, and what the flow emits around the steps ---------------------


class AuditReadEvent(Routed):
    """The script step starts reading the user's file (the static audit)."""

    event: Literal["audit"]
    message: str


class ScriptRunEvent(Routed):
    """The script step starts running the user's script (``gpuassist audit --run`` in the app)."""

    event: Literal["script_run"]
    script: str  # the file's name
    python: str
    cwd: str
    bound: BoundJson
    display: str  # the command line as shown (secrets scrubbed)


class _StepEventRequired(TypedDict):
    event: Literal["step"]
    step: str
    status: str  # "start", or the step's final StepStatus value


class StepEvent(_StepEventRequired, total=False):
    """The flow starts a step, or a step ended (or was decided without running: skipped, offered)."""

    reason: str  # why it ended so (StepResult.reason)
    title: str  # on start


#: What a step emits: the script-run protocol's events (probe, runtime test, audit run) and its own.
StepOwnEvent = Event | AuditReadEvent | ScriptRunEvent
OnEvent = Callable[[StepOwnEvent], None]
#: What :meth:`gpuassist.wizard.flow.Flow.execute` emits: its step events, and each step's own events with
#: ``step`` set to the step that emitted them (:func:`routed`).
FlowEvent = StepEvent | StepOwnEvent
OnFlowEvent = Callable[[FlowEvent], None]


def routed(event: StepOwnEvent, step: str) -> StepOwnEvent:
    """A copy of a step's event that names the step it came from."""
    out = copy.copy(event)
    out["step"] = step
    return out


class StepStatus(str, Enum):
    """Where a step stands. Finished statuses mirror the worst finding's severity (or ok)."""

    PENDING = "pending"
    RUNNING = "running"
    OK = "ok"
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"
    SKIPPED = "skipped"  # a step it depends on failed
    UNAVAILABLE = "unavailable"  # cannot run here / in this version (reason says why)
    CANCELLED = "cancelled"
    OFFERED = "offered"  # Run all left it out: the diagnosis already answered what it would measure

    @property
    def finished(self) -> bool:
        return self not in (StepStatus.PENDING, StepStatus.RUNNING, StepStatus.OFFERED)

    @property
    def failed(self) -> bool:
        """A dependent step cannot trust this one's outcome."""
        return self in (StepStatus.ERROR, StepStatus.SKIPPED, StepStatus.UNAVAILABLE, StepStatus.CANCELLED)

    @property
    def icon(self) -> str:
        if self.value in ("error", "warning", "info"):
            return Severity(self.value).icon
        return {
            "ok": OK_ICON,
            "pending": "–",
            "running": "…",
            "skipped": "⤼",
            "unavailable": "○",
            "cancelled": "■",
            "offered": "▷",
        }[self.value]

    @property
    def colour(self) -> str:
        """One colour per outcome everywhere (docs/architecture.md §7): severities come from findings.Severity."""
        if self.value in ("error", "warning", "info"):
            return Severity(self.value).colour
        return {"ok": OK_COLOUR, "running": "#1565c0"}.get(self.value, "#6b7280")

    @property
    def label(self) -> str:
        return {
            "pending": "not run yet",
            "running": "running",
            "ok": "passed",
            "info": "passed (notes)",
            "warning": "warning",
            "error": "problem found",
            "skipped": "skipped",
            "unavailable": "not available",
            "cancelled": "stopped",
            "offered": "not run (offered)",
        }[self.value]

    @classmethod
    def from_findings(cls, findings: list[Finding]) -> StepStatus:
        worst = min((f.severity for f in findings), key=lambda s: s.rank, default=None)
        return cls.OK if worst is None else cls(worst.value)


@dataclass
class StepResult:
    """What one run of a step produced. ``reason`` explains SKIPPED / UNAVAILABLE / CANCELLED / crashes.

    ``report`` is set by steps that ran the shared diagnosis (Environment, Driver, Wheel): the flow uses
    it to fill in the sibling steps of that one run. ``used_target``: the result depends on the target
    interpreter even though the step's does not always (the script step, when it ran the script), so it is
    stale once the target changes.
    """

    status: StepStatus
    findings: list[Finding] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)
    reason: str = ""
    report: Report | None = None
    seconds: float | None = None
    used_target: bool = False  # this result came from the target although the step's usually does not


@dataclass
class StepContext:
    """What steps run against. ``target`` None = the interpreter running gpuassist; ``scenario`` set =
    a simulated machine (replayed with its recorded timing times ``replay_speed``). ``target_reason``: why
    that interpreter (:mod:`gpuassist.envs.target`); ``target_explicit``: the user chose it (only then may a
    fix aim at gpuassist's own environment)."""

    target: str | None = None
    target_reason: str = ""
    target_explicit: bool = True
    scenario: str | None = None
    replay_speed: float = 1.0
    diagnosis: Report | None = None
    #: The .py / .ipynb file the script step audits (None: none chosen yet).
    script: str | None = None
    #: Run that script too, bounded and instrumented (None: the static audit alone).
    script_run: RunRequest | None = None
    #: The app's live monitor: a run of the user's script gets its own band on it (None: headless).
    monitor: Monitor | None = None
    #: The ``envs.*`` facts of the last environment scan, joined to the report (None: not scanned).
    envs_facts: dict[str, Any] | None = None
    #: The flow's verdict status, for the summary step (set by ``build_flow``).
    summary_status: Callable[[], StepStatus] | None = None

    @property
    def simulated(self) -> bool:
        return self.scenario is not None


DEFAULT_STEPS = 20
DEFAULT_SECONDS = 60.0
MAX_STEPS = 100_000
MAX_SECONDS = 3600.0


class RunRequestError(ValueError):
    """The run cannot be asked for as typed; the message is the one line shown under the control."""


@dataclass(frozen=True)
class RunRequest:
    """What the user asked for: the script's arguments as typed (split like a shell would), and when the run
    is stopped — after ``steps`` optimizer steps (None: no step limit) or ``seconds`` at the latest."""

    args_text: str = ""
    steps: int | None = DEFAULT_STEPS
    seconds: float = DEFAULT_SECONDS

    def args(self) -> tuple[str, ...]:
        """The arguments as the script's ``sys.argv[1:]``; :class:`RunRequestError` when they cannot be split."""
        try:
            return tuple(shlex.split(self.args_text))
        except ValueError as exc:  # "No closing quotation", "No escaped character"
            raise RunRequestError(f"the arguments cannot be split like a shell would: {exc}") from None

    def bound(self) -> Bound:
        """The run's :class:`~gpuassist.audit.run.Bound` (whichever limit comes first)."""
        # Start-up: the audit run's engine loads when a run is asked for, not with the window.
        from gpuassist.audit.run import Bound, RunUsageError

        if self.steps is not None and not 1 <= self.steps <= MAX_STEPS:
            raise RunRequestError(f"the step limit must be between 1 and {MAX_STEPS:,}")
        if not 0 < self.seconds <= MAX_SECONDS:
            raise RunRequestError(f"the time limit must be between 1 and {MAX_SECONDS:,.0f} seconds")
        try:
            return Bound.of(self.seconds, self.steps)
        except RunUsageError as exc:
            raise RunRequestError(str(exc)) from None


StepFn = Callable[[StepContext, OnEvent, threading.Event], StepResult]


@dataclass(frozen=True)
class Step:
    """One wizard page. ``group``: steps filled in by one shared run (the diagnosis). ``uses_target``:
    changing the interpreter makes its result stale. ``available`` returns None or why it cannot run.
    ``optional``: Run all leaves it out while it is not available (the script audit before a script is
    chosen); asked for on its own, it says why it cannot run."""

    id: str
    title: str
    explanation: str
    run: StepFn
    depends_on: tuple[str, ...] = ()
    group: str | None = None
    uses_target: bool = True
    available: Callable[[StepContext], str | None] = field(default=lambda ctx: None)
    optional: bool = False
    measures_gpu: bool = False  # a benchmark of the GPU: Run all offers it instead when no GPU can be used
