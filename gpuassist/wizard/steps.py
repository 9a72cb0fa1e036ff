"""The seven steps of the wizard and the functions that run them.

Environment, Driver and Wheel share one diagnosis (probe + host collection, :func:`diagnose_live`, or a
scenario replayed with its recorded timing) and each shows the findings whose ``step`` is theirs.
Device placement, DataLoader sweep and CNN benchmark call ``gpuassist.runtime.run_placement`` /
``run_sweep`` / ``run_bench`` in the target interpreter; on a simulated machine they replay the scenario's
recorded run of that test with its timing (:func:`gpuassist.sim.runtime_events`) through the same facts
path, and a scenario without a recording says so — never a made-up result.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gpuassist.findings import Finding, Severity
from gpuassist.report.model import Report
from gpuassist.step_table import BY_ID, SUMMARY
from gpuassist.wizard.flow import Flow, split_report
from gpuassist.wizard.model import OnEvent, RunRequestError, Step, StepContext, StepResult, StepStatus

if TYPE_CHECKING:  # start-up: the runtime engines load when a runtime step first runs
    from gpuassist.runtime.common import RuntimeResult

# Lazy imports: start-up. Each step's runner imports its engine (diagnosis, runtime tests, scenarios,
# audit) when the step first runs; the window imports this module to list the steps.

RUNTIME_TESTS = {"placement": "placement", "dataloader": "sweep", "benchmark": "bench"}  # step → runtime test


# -- the shared diagnosis ----------------------------------------------------------------------------------


def run_diagnosis(ctx: StepContext, on_event: OnEvent, cancel: threading.Event) -> Report | None:
    """One probe run + host collection for the target (or a scenario replay); None when cancelled."""
    if ctx.scenario is not None:
        from gpuassist.probe.runner import replay_events
        from gpuassist.sim import load_scenario, probe_events, simulate

        scenario = load_scenario(ctx.scenario)
        replay_events(probe_events(scenario.data.get("probe") or {}), on_event, speed=ctx.replay_speed, cancel=cancel)
        return None if cancel.is_set() else simulate(ctx.scenario)
    from gpuassist.diagnose import diagnose_live
    from gpuassist.envs.target import described

    choice = described(ctx.target, ctx.target_reason, ctx.target_explicit) if ctx.target else None
    report = diagnose_live(ctx.target, on_event=on_event, cancel=cancel, choice=choice)
    return None if cancel.is_set() else report


def diagnosis_step(step_id: str) -> Callable[[StepContext, OnEvent, threading.Event], StepResult]:
    def run(ctx: StepContext, on_event: OnEvent, cancel: threading.Event) -> StepResult:
        report = run_diagnosis(ctx, on_event, cancel)
        if report is None:
            return StepResult(StepStatus.CANCELLED, reason="stopped before the diagnosis finished")
        ctx.diagnosis = report
        result = split_report(report, step_id)
        result.report = report
        return result

    return run


# -- the runtime tests -------------------------------------------------------------------------------------


def runtime_available(step_id: str) -> Callable[[StepContext], str | None]:
    def available(ctx: StepContext) -> str | None:
        if ctx.scenario is not None:
            from gpuassist.sim import runtime_tests

            if RUNTIME_TESTS[step_id] not in runtime_tests(ctx.scenario):
                return (
                    f"not recorded for this simulated machine: scenario {ctx.scenario} holds its diagnosis but "
                    f"no {BY_ID[step_id].title if step_id in BY_ID else step_id} run"
                )
        return None

    return available


def replay_runtime(ctx: StepContext, step_id: str, on_event: OnEvent, cancel: threading.Event) -> RuntimeResult:
    """A simulated machine's recorded run of the step's test, streamed with its timing (times
    ``ctx.replay_speed``) and turned into facts exactly as a live run's events are."""
    from gpuassist.probe.runner import replay_events
    from gpuassist.runtime import replay
    from gpuassist.sim import load_scenario, runtime_events

    test = RUNTIME_TESTS[step_id]
    events = runtime_events(load_scenario(str(ctx.scenario)), test) or []
    played = replay_events(events, on_event, speed=ctx.replay_speed, cancel=cancel)
    return replay(test, played.events)


def runtime_step(step_id: str) -> Callable[[StepContext, OnEvent, threading.Event], StepResult]:
    """Run ``gpuassist.runtime.<fn>`` in the target and judge its facts with the rules, together with the
    diagnosis's host facts (``runtime_report``), keeping the findings that belong to this step."""

    def run(ctx: StepContext, on_event: OnEvent, cancel: threading.Event) -> StepResult:
        from gpuassist import runtime

        measure = {"placement": runtime.run_placement, "dataloader": runtime.run_sweep, "benchmark": runtime.run_bench}[
            step_id
        ]
        if ctx.scenario is not None:
            measured = replay_runtime(ctx, step_id, on_event, cancel)
        else:
            measured = measure(ctx.target, on_event=on_event, cancel=cancel)
        if cancel.is_set():
            return StepResult(StepStatus.CANCELLED, reason="stopped before it finished")
        host = dict(ctx.diagnosis.facts.items()) if ctx.diagnosis is not None else {}
        report = runtime.runtime_report([measured], host)
        result = StepResult(StepStatus.OK, list(report.findings), dict(report.facts.items()))
        result.findings = [f for f in result.findings if f.step == step_id]
        result.status = StepStatus.from_findings(result.findings)
        test = RUNTIME_TESTS[step_id]
        outcome = result.facts.get(f"{test}.outcome")
        if outcome not in (None, "ok", "cancelled"):
            # measurements missing is never "passed": say how the test ended (the page shows the details;
            # a crash or hang is also an error finding, rules/runtime_outcome.py)
            error = str(result.facts.get(f"{test}.error") or "").strip()
            result.status = StepStatus.ERROR
            result.reason = f"the test did not complete ({str(outcome).replace('_', ' ')})" + (
                f": {error}" if error else ""
            )
        return result

    return run


# -- the user's script (static audit, gpuassist.audit; optionally its instrumented run) ---------------------


def script_available(ctx: StepContext) -> str | None:
    if not ctx.script:
        return "no script chosen yet: choose the training script or notebook your code runs (.py or .ipynb)"
    return None


def run_script_audit(ctx: StepContext, on_event: OnEvent, cancel: threading.Event) -> StepResult:
    """The static audit of the chosen file (read in this process, never run); when the user asked for it
    (``StepContext.script_run``), also its bounded, instrumented run in the target
    interpreter, whose findings are merged with the static ones as ``gpuassist audit --run`` merges them."""
    from gpuassist.audit import AuditInputError, audit_paths
    from gpuassist.wizard.script_run import run_script, run_unavailable

    path = str(ctx.script)
    request = ctx.script_run
    why_not_run = run_unavailable(ctx, path) if request is not None else None
    on_event({"event": "audit", "message": f"Reading {os.path.basename(path)}"})
    notes: list[str] = []
    try:
        static = audit_paths([path])
    except AuditInputError as exc:
        if request is None or why_not_run:
            return StepResult(StepStatus.ERROR, reason=str(exc))
        static = None  # it does not parse: the run reports the SyntaxError at its line, as the CLI does
        notes.append(str(exc))
    facts: dict[str, Any] = {"audit.script": path}
    findings: list[Finding] = []
    if static is not None:
        findings = static.to_findings()
        notes += [n for f in static.files for n in f.notes]
        facts.update({"audit.files": [f.to_json() for f in static.files], "audit.summary": static.counts()})
    status: StepStatus | None = None
    ran = False
    if request is not None and why_not_run:
        notes.insert(0, f"not run: {why_not_run}")
    elif request is not None:
        try:
            run = run_script(ctx, path, request, static, on_event, cancel)
        except RunRequestError as exc:
            return StepResult(StepStatus.ERROR, _short_titles(findings, path), facts, reason=f"not run: {exc}")
        ran = True
        findings = run.findings
        facts.update(run.facts)
        if cancel.is_set():  # what it measured until the stop is kept (the CLI's Ctrl+C does the same)
            return StepResult(
                StepStatus.CANCELLED,
                _short_titles(findings, path),
                facts,
                used_target=True,
                reason="you stopped the run of the script; what it measured until then is below",
            )
        notes.insert(0, f"ran it: {run.ending}" if run.ending else "ran it")
        explained = any(f.severity is Severity.ERROR for f in findings)
        if run.outcome != "ok" and not explained:
            status = StepStatus.ERROR  # measurements missing is never "passed"
            error = str(run.facts.get("run.error") or "").strip()
            notes[0] = f"the run did not complete ({run.outcome.replace('_', ' ')})" + (f": {error}" if error else "")
        elif run.failure and not explained:  # the script failed by itself: what it measured is not a training run
            status = StepStatus.ERROR
            if run.failure != run.ending:
                notes[0] += f"; {run.failure}"
    findings = _short_titles(findings, path)
    if status is None:
        status = StepStatus.from_findings(findings)
        if not findings and static is not None and not ran and any(not f.audited for f in static.files):
            status = StepStatus.UNAVAILABLE
    return StepResult(status, findings, facts, reason="; ".join(notes), used_target=ran)


def _short_titles(findings: list[Finding], path: str) -> list[Finding]:
    """ "train.py:24:9: ..." reads better on a card than the whole path (it is in the facts)."""
    for f in findings:
        if f.title.startswith(path + ":"):
            f.title = os.path.basename(path) + f.title[len(path) :]
    return findings


# -- the summary --------------------------------------------------------------------------------------------


def run_summary(ctx: StepContext, on_event: OnEvent, cancel: threading.Event) -> StepResult:
    status = ctx.summary_status() if ctx.summary_status is not None else StepStatus.PENDING
    if status is StepStatus.PENDING:
        return StepResult(StepStatus.UNAVAILABLE, reason="nothing has been run yet")
    return StepResult(status)


def _words(step_id: str) -> tuple[str, str]:
    """A step's title and explanation, from the one step table."""
    info = BY_ID[step_id]
    return info.title, info.explanation


def build_steps() -> list[Step]:
    steps = [
        Step("environment", *_words("environment"), diagnosis_step("environment"), group="diagnosis"),
        Step("driver", *_words("driver"), diagnosis_step("driver"), group="diagnosis", uses_target=False),
        Step("wheel", *_words("wheel"), diagnosis_step("wheel"), group="diagnosis"),
        Step(
            "placement",
            *_words("placement"),
            runtime_step("placement"),
            depends_on=("environment", "wheel"),
            available=runtime_available("placement"),
            measures_gpu=True,
        ),
        Step(
            "dataloader",
            *_words("dataloader"),
            runtime_step("dataloader"),
            depends_on=("environment",),
            available=runtime_available("dataloader"),
            measures_gpu=True,
        ),
        Step(
            "benchmark",
            *_words("benchmark"),
            runtime_step("benchmark"),
            depends_on=("placement",),
            available=runtime_available("benchmark"),
            measures_gpu=True,
        ),
        Step(
            "script", *_words("script"), run_script_audit, uses_target=False, available=script_available, optional=True
        ),
        Step(SUMMARY, *_words(SUMMARY), run_summary, uses_target=False),
    ]
    return steps


def build_flow(context: StepContext | None = None, steps: list[Step] | None = None) -> Flow:
    """The wizard as the app uses it."""
    flow = Flow(steps if steps is not None else build_steps(), context)
    flow.context.summary_status = flow.summary_status
    return flow
