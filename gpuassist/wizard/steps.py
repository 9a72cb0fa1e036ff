"""The seven steps of the wizard and the functions that run them.

Environment, Driver and Wheel share one diagnosis (probe + host collection, :func:`diagnose_live`, or a
scenario replayed with its recorded timing) and each shows the findings whose ``step`` is theirs.
Device placement, DataLoader sweep and CNN benchmark call ``gpuassist.runtime.run_placement`` /
``run_sweep`` / ``run_bench`` in the target interpreter; on a simulated machine they replay the scenario's
recorded run of that test with its timing (:func:`gpuassist.sim.runtime_events`) through the same facts
path, and a scenario without a recording says so — never a made-up result.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import threading
from collections.abc import Callable
from typing import Any

from gpuassist.findings import Finding, Severity
from gpuassist.report.model import STEPS, Report
from gpuassist.wizard.flow import SUMMARY, Flow, split_report
from gpuassist.wizard.model import SCRIPT_KEY, OnEvent, Step, StepContext, StepResult, StepStatus

# Lazy imports: start-up. Each step's runner imports its engine (diagnosis, runtime tests, scenarios,
# audit) when the step first runs; the window imports this module to list the steps.

QUESTIONS = {sid: q for sid, _, q in STEPS}
QUESTIONS["script"] = "Does your own code keep work off the GPU?"

EXPLANATIONS = {
    "environment": "Finds out which Python and which torch the target interpreter really uses, by running a "
                   "small probe inside it — the app's own Python is often not the one your script runs.",
    "driver": "Checks that an NVIDIA GPU is present and that its driver is loaded, answering, and new "
              "enough: without a working driver no build of torch can use the GPU.",
    "wheel": "Checks that the installed torch was built with CUDA for this GPU and driver, and that it "
             "initialises CUDA and runs a small test on every device.",
    "placement": "Moves tensors and a small model to the device and back, to confirm work really lands on "
                 "the GPU and to measure how fast host↔device copies are.",
    "dataloader": "Tries DataLoader settings (workers, pinned memory, batch size) to find one that keeps "
                  "the device busy instead of waiting for data.",
    "benchmark": "Times a small CNN training step on each device, with warm-up and device synchronisation "
                 "done right, so the numbers compare fairly.",
    "script": "Optional: reads your training script or notebook (without running it) for code that keeps "
              "work off the GPU — a model or batch never moved, a DataLoader without workers, a sync every "
              "step — and shows the line to change. If you allow it, it also runs the script for a few steps "
              "and measures what it really does.",
    SUMMARY: "The verdict: the root cause first, with its fix, then everything found, ready to export as "
             "a report for yourself or a support ticket.",
}
RUNTIME_FUNCS = {"placement": "run_placement", "dataloader": "run_sweep", "benchmark": "run_bench"}
RUNTIME_TESTS = {"placement": "placement", "dataloader": "sweep", "benchmark": "bench"}  # step → runtime test


# -- the shared diagnosis ----------------------------------------------------------------------------------

def run_diagnosis(ctx: StepContext, on_event: OnEvent, cancel: threading.Event) -> Report | None:
    """One probe run + host collection for the target (or a scenario replay); None when cancelled."""
    if ctx.scenario is not None:
        from gpuassist.probe.runner import replay_events
        from gpuassist.sim import load_scenario, probe_events, simulate

        scenario = load_scenario(ctx.scenario)
        replay_events(probe_events(scenario.data.get("probe") or {}), on_event, speed=ctx.replay_speed,
                      cancel=cancel)
        return None if cancel.is_set() else simulate(ctx.scenario)
    from gpuassist.diagnose import diagnose_live

    report = diagnose_live(ctx.target, on_event=on_event, cancel=cancel)
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


# -- the runtime tests (another package; plugged in when present) -----------------------------------------

def runtime_available(step_id: str) -> Callable[[StepContext], str | None]:
    def available(ctx: StepContext) -> str | None:
        if importlib.util.find_spec("gpuassist.runtime") is None:
            return "not available in this version: the runtime tests (gpuassist.runtime) are not installed"
        if ctx.scenario is not None:
            from gpuassist.report.model import STEP_TITLES
            from gpuassist.sim import runtime_tests

            if RUNTIME_TESTS[step_id] not in runtime_tests(ctx.scenario):
                return (f"not recorded for this simulated machine: scenario {ctx.scenario} holds its diagnosis but "
                        f"no {STEP_TITLES.get(step_id, step_id)} run")
        return None

    return available


def replay_runtime(ctx: StepContext, step_id: str, on_event: OnEvent, cancel: threading.Event) -> Any:
    """A simulated machine's recorded run of the step's test, streamed with its timing (times
    ``ctx.replay_speed``) and turned into facts exactly as a live run's events are."""
    from gpuassist.probe.runner import replay_events
    from gpuassist.runtime import replay
    from gpuassist.sim import load_scenario, runtime_events

    test = RUNTIME_TESTS[step_id]
    events = runtime_events(load_scenario(str(ctx.scenario)), test) or []
    played = replay_events(events, on_event, speed=ctx.replay_speed, cancel=cancel)
    return replay(test, played.events)


def coerce_result(value: Any) -> StepResult:
    """Accept what a runtime function returns: a StepResult, a Report, an object or dict with
    ``findings`` (and ``facts``)."""
    if isinstance(value, StepResult):
        return value
    if isinstance(value, Report):
        return StepResult(StepStatus.from_findings(value.findings), list(value.findings), dict(value.facts.items()))
    if isinstance(value, dict):
        findings, facts = value.get("findings"), value.get("facts")
    else:
        findings, facts = getattr(value, "findings", None), getattr(value, "facts", None)
    items = [f if isinstance(f, Finding) else Finding.from_json(f) for f in (findings or [])]
    return StepResult(StepStatus.from_findings(items), items, dict(facts or {}))


def runtime_step(step_id: str) -> Callable[[StepContext, OnEvent, threading.Event], StepResult]:
    """Run ``gpuassist.runtime.<fn>`` in the target and judge its facts with the rules, together with the
    diagnosis's host facts (``runtime_report``), keeping the findings that belong to this step."""

    def run(ctx: StepContext, on_event: OnEvent, cancel: threading.Event) -> StepResult:
        module = importlib.import_module("gpuassist.runtime")
        fn = getattr(module, RUNTIME_FUNCS[step_id], None)
        if fn is None:
            return StepResult(StepStatus.UNAVAILABLE, reason=f"not available in this version: "
                                                             f"gpuassist.runtime has no {RUNTIME_FUNCS[step_id]}")
        if ctx.scenario is not None:
            value = replay_runtime(ctx, step_id, on_event, cancel)
        else:
            value = fn(ctx.target, on_event=on_event, cancel=cancel)
        if cancel.is_set():
            return StepResult(StepStatus.CANCELLED, reason="stopped before it finished")
        to_report = getattr(module, "runtime_report", None)
        if to_report is not None and hasattr(value, "test") and not hasattr(value, "findings"):
            host = dict(ctx.diagnosis.facts.items()) if ctx.diagnosis is not None else {}
            value = to_report([value], host)
        result = coerce_result(value)
        result.findings = [f for f in result.findings if f.step == step_id]
        result.status = StepStatus.from_findings(result.findings)
        test = RUNTIME_TESTS[step_id]
        outcome = result.facts.get(f"{test}.outcome")
        if outcome not in (None, "ok") and result.status is not StepStatus.ERROR:
            # measurements missing is never "passed": say how the test ended (the page shows the details)
            error = str(result.facts.get(f"{test}.error") or "").strip()
            result.status = StepStatus.ERROR
            result.reason = f"the test did not complete ({str(outcome).replace('_', ' ')})" + \
                (f": {error}" if error else "")
        return result

    return run


# -- the user's script (static audit, gpuassist.audit; optionally its instrumented run) ---------------------

def script_available(ctx: StepContext) -> str | None:
    if importlib.util.find_spec("gpuassist.audit") is None:
        return "not available in this version: the script audit (gpuassist.audit) is not installed"
    if not ctx.shared.get(SCRIPT_KEY):
        return "no script chosen yet: choose the training script or notebook your code runs (.py or .ipynb)"
    return None


def run_script_audit(ctx: StepContext, on_event: OnEvent, cancel: threading.Event) -> StepResult:
    """The static audit of the chosen file (read in this process, never run); when the user asked for it
    (:data:`~gpuassist.wizard.script_run.RUN_KEY`), also its bounded, instrumented run in the target
    interpreter, whose findings are merged with the static ones as ``gpuassist audit --run`` merges them."""
    from gpuassist.audit import AuditInputError, audit_paths
    from gpuassist.wizard.script_run import RUN_KEY, RunRequestError, run_script, run_unavailable

    path = str(ctx.shared.get(SCRIPT_KEY))
    request = ctx.shared.get(RUN_KEY)
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
            return StepResult(StepStatus.CANCELLED, _short_titles(findings, path), facts, used_target=True,
                              reason="you stopped the run of the script; what it measured until then is below")
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
    """"train.py:24:9: ..." reads better on a card than the whole path (it is in the facts)."""
    for f in findings:
        if f.title.startswith(path + ":"):
            f.title = os.path.basename(path) + f.title[len(path):]
    return findings


# -- the summary --------------------------------------------------------------------------------------------

def run_summary(ctx: StepContext, on_event: OnEvent, cancel: threading.Event) -> StepResult:
    flow = ctx.shared.get("flow")
    status = flow.summary_status() if isinstance(flow, Flow) else StepStatus.PENDING
    if status is StepStatus.PENDING:
        return StepResult(StepStatus.UNAVAILABLE, reason="nothing has been run yet")
    return StepResult(status)


def build_steps() -> list[Step]:
    titles = {sid: title for sid, title, _ in STEPS}
    steps = [
        Step("environment", titles["environment"], EXPLANATIONS["environment"], diagnosis_step("environment"),
             group="diagnosis"),
        Step("driver", titles["driver"], EXPLANATIONS["driver"], diagnosis_step("driver"),
             group="diagnosis", uses_target=False),
        Step("wheel", titles["wheel"], EXPLANATIONS["wheel"], diagnosis_step("wheel"), group="diagnosis"),
        Step("placement", titles["placement"], EXPLANATIONS["placement"], runtime_step("placement"),
             depends_on=("environment", "wheel"), available=runtime_available("placement"), measures_gpu=True),
        Step("dataloader", titles["dataloader"], EXPLANATIONS["dataloader"], runtime_step("dataloader"),
             depends_on=("environment",), available=runtime_available("dataloader"), measures_gpu=True),
        Step("benchmark", titles["benchmark"], EXPLANATIONS["benchmark"], runtime_step("benchmark"),
             depends_on=("placement",), available=runtime_available("benchmark"), measures_gpu=True),
        Step("script", "Your script", EXPLANATIONS["script"], run_script_audit, uses_target=False,
             available=script_available, optional=True),
        Step(SUMMARY, "Summary", EXPLANATIONS[SUMMARY], run_summary, uses_target=False),
    ]
    return steps


def build_flow(context: StepContext | None = None, steps: list[Step] | None = None) -> Flow:
    """The wizard as the app uses it."""
    flow = Flow(steps if steps is not None else build_steps(), context)
    flow.context.shared["flow"] = flow
    return flow
