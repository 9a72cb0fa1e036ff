"""The wizard as data: steps, who depends on whom, statuses, navigation, and running a plan.

Everything a page shows (status, reason, findings) comes from :meth:`Flow.state`; everything a button
does (Run all, run one step, Back/Next, change target, open a report) is a method here, so the whole
wizard is tested without a GUI. :meth:`Flow.execute` runs on a worker thread in the app; state is
guarded by a lock and read as copies.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from gpuassist.facts import Facts
from gpuassist.findings import Finding, Severity
from gpuassist.report.model import Report, step_summaries
from gpuassist.step_table import BY_ID, REPORT_STEP_IDS, SUMMARY
from gpuassist.wizard.model import (
    FlowEvent,
    OnFlowEvent,
    Step,
    StepContext,
    StepOwnEvent,
    StepResult,
    StepStatus,
    routed,
)

log = logging.getLogger(__name__)

# Why Run all does not run the benchmarks after a blocking diagnosis (the step's "Run this step" runs it).
OFFER_NOTE = (
    "not run: the diagnosis already answered the question ({cause}), so this would measure the CPU "
    "only. Press Run this step to measure it anyway"
)
EARLY_NOTE = "the diagnosis already found this from the GPU's readings at rest; run the step to measure it"


@dataclass(frozen=True)
class StepState:
    """A snapshot of one step for display."""

    step: Step
    status: StepStatus = StepStatus.PENDING
    result: StepResult | None = None
    note: str = ""  # why it is pending again ("the target changed"), or the blocked reason
    findings: list[Finding] = field(default_factory=list)

    @property
    def reason(self) -> str:
        return (self.result.reason if self.result and self.result.reason else "") or self.note


class Flow:
    """Electrum-style wizard flow: an ordered list of steps with dependencies and a cursor."""

    def __init__(self, steps: Sequence[Step], context: StepContext | None = None) -> None:
        ids = [s.id for s in steps]
        if len(set(ids)) != len(ids):
            raise ValueError("step ids must be unique")
        for s in steps:
            for d in s.depends_on:
                if d not in ids or ids.index(d) >= ids.index(s.id):
                    raise ValueError(f"step {s.id} depends on {d}, which must be an earlier step")
        self.steps = list(steps)
        self.context = context or StepContext()
        self.index = 0
        self.source = "simulated" if self.context.simulated else "live"  # or "report"
        self.loaded_report: Report | None = None
        self._lock = threading.RLock()
        self._states: dict[str, StepState] = {s.id: StepState(s) for s in steps}
        self._report_cache: tuple[tuple[Any, ...], Report | None] | None = None

    # -- lookup ---------------------------------------------------------------------------------------
    def step(self, step_id: str) -> Step:
        return self._states[step_id].step

    def state(self, step_id: str) -> StepState:
        with self._lock:
            return self._states[step_id]

    def states(self) -> list[StepState]:
        with self._lock:
            return [self._states[s.id] for s in self.steps]

    @property
    def ids(self) -> list[str]:
        return [s.id for s in self.steps]

    @property
    def running(self) -> str | None:
        with self._lock:
            return next((s.step.id for s in self._states.values() if s.status is StepStatus.RUNNING), None)

    @property
    def interactive(self) -> bool:
        """False for a reopened report: there is nothing to run, only to read."""
        return self.source != "report"

    # -- navigation (Back / Next / click in the list) --------------------------------------------------
    @property
    def current(self) -> Step:
        return self.steps[self.index]

    @property
    def can_back(self) -> bool:
        return self.index > 0

    @property
    def can_next(self) -> bool:
        return self.index < len(self.steps) - 1

    def go_back(self) -> Step:
        self.index = max(0, self.index - 1)
        return self.current

    def go_next(self) -> Step:
        self.index = min(len(self.steps) - 1, self.index + 1)
        return self.current

    def go(self, step_id: str) -> Step:
        self.index = self.ids.index(step_id)
        return self.current

    # -- dependencies ---------------------------------------------------------------------------------
    def dependencies(self, step_id: str) -> list[str]:
        """All steps ``step_id`` needs, transitively, in flow order."""
        need: set[str] = set()
        todo = list(self.step(step_id).depends_on)
        while todo:
            d = todo.pop()
            if d not in need:
                need.add(d)
                todo.extend(self.step(d).depends_on)
        return [i for i in self.ids if i in need]

    def dependents(self, step_id: str) -> list[str]:
        """All steps that need ``step_id``, transitively, in flow order (the summary needs everything)."""
        out = [i for i in self.ids if step_id in self.dependencies(i)]
        if step_id != SUMMARY and SUMMARY in self._states and SUMMARY not in out:
            out.append(SUMMARY)
        return out

    def blocked_reason(self, step_id: str) -> tuple[StepStatus, str] | None:
        """(SKIPPED | UNAVAILABLE, why) when the step cannot run now, else None. A failed dependency is
        named first: it is the reason that holds on any machine (no point measuring GPU placement with a
        CPU-only torch, whether or not this step could run here)."""
        step = self.step(step_id)
        with self._lock:
            for d in step.depends_on:
                st = self._states[d]
                if st.status.failed:
                    verb = {
                        StepStatus.ERROR: "found a problem",
                        StepStatus.SKIPPED: "was skipped",
                        StepStatus.UNAVAILABLE: "is not available",
                        StepStatus.CANCELLED: "was stopped",
                    }[st.status]
                    return StepStatus.SKIPPED, f"skipped because {st.step.title} {verb}"
        why = step.available(self.context)
        if why:
            return StepStatus.UNAVAILABLE, why
        return None

    def plan(self, step_ids: Iterable[str] | None = None) -> list[str]:
        """What to run for a request: the steps asked for plus their dependencies not yet finished, in
        flow order. ``None`` = Run all."""
        if step_ids is None:
            return [s.id for s in self.steps if not (s.optional and s.available(self.context))]
        wanted: set[str] = set()
        with self._lock:
            for sid in step_ids:
                wanted.add(sid)
                wanted.update(d for d in self.dependencies(sid) if not self._states[d].status.finished)
        return [i for i in self.ids if i in wanted]

    # -- changing what is diagnosed -------------------------------------------------------------------
    def invalidate(self, step_id: str, note: str) -> list[str]:
        """Reset ``step_id`` and everything depending on it; returns the ids that had a result."""
        had: list[str] = []
        with self._lock:
            for sid in [step_id, *self.dependents(step_id)]:
                st = self._states[sid]
                if st.status.finished:
                    had.append(sid)
                # "needs to run again" only where something ran: a step never run is simply not run yet
                self._states[sid] = StepState(st.step, note=note if st.status.finished else st.note)
        return had

    def set_target(self, target: str | None, *, reason: str = "", explicit: bool = True) -> list[str]:
        """Diagnose another interpreter (``reason``: why, shown in the report; ``explicit``: the user chose
        it): steps that use the target (and their dependents) go back to pending. Returns the ids that had
        results, i.e. what the UI re-runs."""
        if target == self.context.target:
            self.context.target_reason = reason or self.context.target_reason
            self.context.target_explicit = explicit
            return []
        self.context.target = target
        self.context.target_reason = reason
        self.context.target_explicit = explicit
        self.context.diagnosis = None
        had: list[str] = []
        for s in self.steps:
            result = self.state(s.id).result
            if s.uses_target or (result is not None and result.used_target):
                had += [i for i in self.invalidate(s.id, "the target interpreter changed") if i not in had]
        return [i for i in self.ids if i in had]

    def set_script(self, path: str | None) -> list[str]:
        """Audit another script or notebook (the optional script step); returns what to run again."""

        if "script" not in self._states or path == self.context.script:
            return []
        self.context.script = path
        had_result = self.state("script").status.finished
        self.invalidate("script", "another script was chosen" if had_result else "")
        return ["script"] if path else []

    def set_script_run(self, request: Any) -> None:
        """Whether the script step also runs the script, and how (a
        :class:`~gpuassist.wizard.script_run.RunRequest`, or None for the static audit alone). Read when the
        step next runs; what is shown stays until then (it says what ran)."""

        with self._lock:
            self.context.script_run = request

    # -- results --------------------------------------------------------------------------------------
    def _set(self, step_id: str, status: StepStatus, result: StepResult | None = None, note: str = "") -> None:
        with self._lock:
            st = self._states[step_id]
            findings = list(result.findings) if result else []
            self._states[step_id] = StepState(st.step, status, result, note, findings)

    def record(self, step_id: str, result: StepResult) -> None:
        """Store a result; a shared diagnosis report also fills in the other steps of its group, and shows
        a not-yet-run step what the diagnosis already found for it (a PCIe link at x1 read from NVML at
        idle belongs to Device placement, which measures it when it runs)."""
        self._set(step_id, result.status, result)
        step = self.step(step_id)
        if result.report is not None and step.group:
            for sib in self.steps:
                if sib.group == step.group and sib.id != step_id:
                    self._set(sib.id, *_split(result.report, sib.id, result.seconds))
            with self._lock:
                for other in self.steps:
                    st = self._states[other.id]
                    if other.group != step.group and st.status is StepStatus.PENDING:
                        early = [f for f in result.report.findings if f.step == other.id]
                        self._states[other.id] = StepState(other, note=EARLY_NOTE if early else st.note, findings=early)

    def execute(
        self,
        step_ids: Iterable[str] | None,
        on_event: OnFlowEvent | None = None,
        cancel: threading.Event | None = None,
    ) -> list[str]:
        """Run a plan (see :meth:`plan`) on the calling thread; returns the ids that ran or were decided.

        Emits ``{"event": "step", "step": id, "status": "start" | <final status>}`` around each step and
        forwards the step's own events with ``"step"`` added. Never raises for a step's failure.
        """
        cancel = cancel or threading.Event()

        def ignore(event: FlowEvent) -> None:
            pass

        emit = on_event or ignore
        done: list[str] = []
        refreshed_groups: set[str] = set()
        for sid in self.plan(step_ids):
            step = self.step(sid)
            if cancel.is_set():
                break
            if step.group and step.group in refreshed_groups:
                done.append(sid)  # filled in by the shared run a moment ago
                emit({"event": "step", "step": sid, "status": self.state(sid).status.value})
                continue
            blocked = self.blocked_reason(sid)
            if blocked is not None:
                self._set(sid, blocked[0], StepResult(blocked[0], reason=blocked[1]))
                done.append(sid)
                emit({"event": "step", "step": sid, "status": blocked[0].value, "reason": blocked[1]})
                continue
            # Run all: a benchmark that can only measure the CPU is offered, not run
            cause = self.blocking_cause() if step_ids is None and step.measures_gpu else None
            if cause is not None:
                note = OFFER_NOTE.format(cause=cause.title)
                self._set(sid, StepStatus.OFFERED, StepResult(StepStatus.OFFERED, reason=note), note=note)
                done.append(sid)
                emit({"event": "step", "step": sid, "status": StepStatus.OFFERED.value, "reason": note})
                continue
            self._set(sid, StepStatus.RUNNING)
            emit({"event": "step", "step": sid, "status": "start", "title": step.title})

            def forward(ev: StepOwnEvent, sid: str = sid) -> None:
                emit(routed(ev, sid))

            started = time.perf_counter()
            try:
                result = step.run(self.context, forward, cancel)
            except Exception as exc:  # a broken step is a result on its page, never a crash
                log.exception("step %s failed", sid)
                result = StepResult(
                    StepStatus.ERROR, reason=f"this step failed unexpectedly: {type(exc).__name__}: {exc}"
                )
            if result.seconds is None:
                result = replace(result, seconds=round(time.perf_counter() - started, 3))
            # a step that says itself it was stopped keeps what it measured until then (the script's run)
            if cancel.is_set() and result.status not in (StepStatus.UNAVAILABLE, StepStatus.CANCELLED):
                result = StepResult(StepStatus.CANCELLED, reason="stopped before it finished")
            self.record(sid, result)
            self.report()  # judged here, on the worker: the UI thread then finds it ready
            if result.report is not None and step.group:
                refreshed_groups.add(step.group)
            done.append(sid)
            emit({"event": "step", "step": sid, "status": result.status.value, "reason": result.reason})
        # whatever was left running by a cancel is stopped, not "running" forever
        with self._lock:
            for sid, st in list(self._states.items()):
                if st.status is StepStatus.RUNNING:
                    self._states[sid] = StepState(
                        st.step, StepStatus.CANCELLED, StepResult(StepStatus.CANCELLED, reason="stopped")
                    )
        return done

    def blocking_cause(self) -> Finding | None:
        """The diagnosis' error that settles the question (no GPU, a CPU-only build, a driver too old, no
        usable GPU): PyTorch cannot use any accelerator, so a benchmark can only measure the CPU."""
        report = self.report()
        if report is None or report.facts.value("cuda.available") or report.facts.value("mps.available"):
            return None
        diagnosis_steps = {s.id for s in self.steps if s.group}
        return next((f for f in report.findings if f.severity is Severity.ERROR and f.step in diagnosis_steps), None)

    def offered(self) -> list[str]:
        """The steps Run all offered instead of running (see :meth:`blocking_cause`)."""
        with self._lock:
            return [s.id for s in self.steps if self._states[s.id].status is StepStatus.OFFERED]

    # -- the report every export and the summary page are made of -------------------------------------
    def set_environments(self, facts: dict[str, Any] | None) -> None:
        """The machine's environment table (``envs.*`` facts, :mod:`gpuassist.envs`): part of the report, so
        the cross-environment findings are judged with the diagnosis (None: forget it)."""
        with self._lock:
            self.context.envs_facts = dict(facts) if facts else None

    def report(self) -> Report | None:
        """One Report for everything run so far (None before anything produced facts or findings).

        The diagnosis, the runtime measurements and the environment table are judged together by the rules,
        as the CLI would judge the same facts: a measured PCIe link replaces the guess from idle readings,
        and a finding two sources would both raise appears once."""
        if self.loaded_report is not None:
            return self.loaded_report
        with self._lock:
            states = [self._states[s.id] for s in self.steps]
            envs = self.context.envs_facts
            key = (*states, self.context.diagnosis, envs)
            cached = self._report_cache
            if (
                cached is not None
                and len(cached[0]) == len(key)
                and all(a is b for a, b in zip(cached[0], key, strict=True))
            ):
                return cached[1]
        report = self._build_report(states, envs)
        with self._lock:
            self._report_cache = (key, report)
        return report

    def _build_report(self, states: list[StepState], envs: dict[str, Any] | None) -> Report | None:
        base = next((st.result.report for st in states if st.result and st.result.report), None)
        if base is None:
            base = self.context.diagnosis
        if base is None and not any(st.findings for st in states if st.status.finished):
            return None
        known = set(REPORT_STEP_IDS)
        ran = {
            st.step.id
            for st in states
            if st.step.id in known
            and st.status.finished
            and st.status not in (StepStatus.SKIPPED, StepStatus.UNAVAILABLE, StepStatus.CANCELLED)
        }
        shared_ids = {s.id for s in self.steps if s.group}
        measured = [
            st for st in states if st.result is not None and st.step.id not in shared_ids and st.status.finished
        ]
        facts = Facts(dict(base.facts.items()) if base else {})
        meta: dict[str, Any] = dict(base.meta) if base else {}
        for st in measured:
            facts.update(st.result.facts if st.result else {})
        if envs and base is not None:
            facts.update(envs)
        if base is not None and (envs or any(st.result and st.result.facts for st in measured)):
            # Start-up: the rules (~150 ms) load with the first judged report, not with the window.
            from gpuassist.report.build import build_report

            judged = build_report(facts, source=str(meta.get("source", "live")), meta=meta, ran=ran)
            findings = list(judged.findings)
            meta = judged.meta
            # findings no rule makes (the script audit's, at lines of the user's code) are kept as found
            made = {(f.id, f.step) for f in findings}
            extra = [f for st in measured for f in st.findings if (f.id, f.step) not in made]
            if extra:  # in the same order as the rest: a broken line of code can be the verdict
                from gpuassist.rules import order_findings  # start-up: see build_report above

                findings = order_findings(findings + extra)
        else:  # nothing new to judge: the diagnosis as it was, plus findings of steps without facts
            findings = list(base.findings) if base else []
            findings += sorted((f for st in measured for f in st.findings), key=lambda f: f.severity.rank)
        steps = step_summaries(findings, ran)
        for entry in steps:
            known_state = self._states.get(entry["id"])
            if known_state is not None and known_state.status in (
                StepStatus.SKIPPED,
                StepStatus.UNAVAILABLE,
                StepStatus.CANCELLED,
                StepStatus.OFFERED,
            ):
                entry["note"] = known_state.reason
                if known_state.status is StepStatus.OFFERED:
                    entry["status"] = "offered"
        return Report(facts, findings, steps, {}, meta)

    def key_facts(self, step_id: str) -> list[tuple[str, str]]:
        """(label, shown value) of the facts a step's page lists, from the report so far; keys nobody
        collected are left out (a paste may not say everything)."""
        if self.state(step_id).status in (StepStatus.PENDING, StepStatus.RUNNING):
            return []
        report = self.report()
        if report is None:
            return []
        # Start-up: the facts-in-words table loads with the first finished step.
        from gpuassist.wizard.display import show

        wanted = BY_ID[step_id].key_facts if step_id in BY_ID else ()
        return [(label, show(key, report.facts[key])) for label, key in wanted if key in report.facts]

    def details(self, step_id: str) -> list[Any]:
        """What the step's page shows under its findings (:mod:`gpuassist.wizard.display` blocks: tables of
        the measurements, what is absent and why), from the report so far."""
        if self.state(step_id).status in (StepStatus.PENDING, StepStatus.RUNNING):
            return []
        report = self.report()
        if report is None:
            return []
        # Start-up: the display blocks load with the first finished step.
        from gpuassist.wizard.display import step_blocks

        return step_blocks(step_id, report.facts, self.key_facts(step_id))

    def summary_status(self) -> StepStatus:
        """The Summary's status is its verdict's (one colour per step everywhere: the sidebar icon and the
        headline agree), once anything has been judged."""
        with self._lock:
            finished = [st for st in self._states.values() if st.step.id != SUMMARY and st.status.finished]
        if not any(st.status.value in ("error", "warning", "info", "ok") for st in finished):
            return StepStatus.PENDING
        report = self.report()
        if report is None:
            return StepStatus.OK
        # Start-up: the renderers load with the first judged report.
        from gpuassist.report.render import verdict

        return StepStatus(verdict(report).severity)

    # -- reading a report (support engineer) ----------------------------------------------------------
    def load_report(self, report: Report) -> None:
        """Show a report made elsewhere: every step's status and findings as recorded, nothing to run."""
        self.source = "report"
        self.loaded_report = report
        recorded = {s.get("id"): s for s in report.steps}
        for s in self.steps:
            if s.id == SUMMARY:
                continue
            mine = [f for f in report.findings if f.step == s.id]
            entry = recorded.get(s.id) or {}
            status_text = str(entry.get("status", "not_run"))
            said = [key for _, key in BY_ID[s.id].key_facts if key in report.facts] if s.id in BY_ID else []
            if mine:
                status = StepStatus.from_findings(mine)
            elif status_text == "ok" or (status_text == "not_run" and said and s.group):
                status = StepStatus.OK  # nothing wrong in what the input says about it (a paste's driver)
            else:
                status = StepStatus.UNAVAILABLE
            reason = (
                ""
                if status is not StepStatus.UNAVAILABLE
                else str(
                    entry.get("note") or "this step is not in the report (it was not run, or the input could not tell)"
                )
            )
            self._set(s.id, status, StepResult(status, mine, reason=reason))
        if SUMMARY in self._states:
            self._set(SUMMARY, self.summary_status(), StepResult(self.summary_status(), report=None))


def _split(report: Report, step_id: str, seconds: float | None) -> tuple[StepStatus, StepResult]:
    mine = [f for f in report.findings if f.step == step_id]
    status = StepStatus.from_findings(mine)
    return status, StepResult(status, mine, seconds=seconds)


def split_report(report: Report, step_id: str) -> StepResult:
    """The part of a shared diagnosis that belongs to one step (its findings, by ``Finding.step``)."""
    return _split(report, step_id, None)[1]
