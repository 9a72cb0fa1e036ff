"""The wizard flow as data (issue 4, item 1): dependencies, skips, re-runs, target changes, navigation,
cancel — without Qt — and the real flow on this machine and on scenarios, checked against the CLI's engine."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from gpuassist.findings import Finding, Severity
from gpuassist.wizard import (
    SUMMARY,
    Flow,
    Step,
    StepContext,
    StepResult,
    StepStatus,
    build_flow,
)
from gpuassist.wizard.steps import run_summary

DATA = Path(__file__).parent / "data"


def finding(fid: str, sev: Severity, step: str) -> Finding:
    return Finding(fid, sev, fid.replace("_", " "), "why", "do this", step=step)


class Recorder:
    """Step functions that return scripted results and remember each call."""

    def __init__(self, results: dict[str, StepResult]) -> None:
        self.results = results
        self.calls: list[str] = []

    def fn(self, sid: str) -> Any:
        def run(ctx: StepContext, on_event: Any, cancel: threading.Event) -> StepResult:
            self.calls.append(sid)
            on_event(
                {
                    "event": "progress",
                    "stage": sid,
                    "done": 1,
                    "total": 1,
                    "message": f"{sid} done",
                    "t": 0.0,
                    "rt": 0.0,
                }
            )
            return self.results.get(sid, StepResult(StepStatus.OK))

        return run


def toy_flow(results: dict[str, StepResult], available: dict[str, str] | None = None) -> tuple[Flow, Recorder]:
    rec = Recorder(results)
    avail = available or {}

    def av(sid: str) -> Any:
        return lambda ctx: avail.get(sid)

    steps = [
        Step("environment", "Environment", "", rec.fn("environment")),
        Step("driver", "Driver", "", rec.fn("driver"), uses_target=False),
        Step("wheel", "Wheel type", "", rec.fn("wheel"), depends_on=("environment",)),
        Step(
            "placement", "Device placement", "", rec.fn("placement"), depends_on=("wheel",), available=av("placement")
        ),
        Step("benchmark", "CNN benchmark", "", rec.fn("benchmark"), depends_on=("placement",)),
        Step(SUMMARY, "Summary", "", run_summary, uses_target=False),
    ]
    flow = build_flow(StepContext(target="/usr/bin/python3"), steps)
    return flow, rec


def test_run_all_skips_dependents_of_a_failed_step_and_says_why() -> None:
    wheel_error = StepResult(StepStatus.ERROR, [finding("cpu_only_build", Severity.ERROR, "wheel")])
    flow, rec = toy_flow({"wheel": wheel_error})
    events: list[dict[str, Any]] = []
    flow.execute(None, events.append)
    assert rec.calls == ["environment", "driver", "wheel"]
    assert flow.state("placement").status is StepStatus.SKIPPED
    assert flow.state("placement").reason == "skipped because Wheel type found a problem"
    assert flow.state("benchmark").status is StepStatus.SKIPPED
    assert flow.state("benchmark").reason == "skipped because Device placement was skipped"
    assert flow.state(SUMMARY).status is StepStatus.ERROR
    starts = [e["step"] for e in events if e["event"] == "step" and e["status"] == "start"]
    assert starts == ["environment", "driver", "wheel", SUMMARY]
    progress = [e for e in events if e["event"] == "progress"]
    assert {e["step"] for e in progress} == {"environment", "driver", "wheel"}


def test_unavailable_step_reason_and_its_dependents() -> None:
    flow, rec = toy_flow({}, available={"placement": "not available in this version: no runtime tests"})
    flow.execute(None)
    assert flow.state("placement").status is StepStatus.UNAVAILABLE
    assert flow.state("placement").reason == "not available in this version: no runtime tests"
    assert flow.state("benchmark").reason == "skipped because Device placement is not available"
    assert "placement" not in rec.calls and "benchmark" not in rec.calls


def test_running_one_step_runs_its_unfinished_dependencies_first_then_only_itself() -> None:
    flow, rec = toy_flow({})
    assert flow.plan(["benchmark"]) == ["environment", "wheel", "placement", "benchmark"]
    flow.execute(["benchmark"])
    assert rec.calls == ["environment", "wheel", "placement", "benchmark"]
    rec.calls.clear()
    flow.execute(["benchmark"])  # re-run one step: its dependencies are done
    assert rec.calls == ["benchmark"]
    assert flow.state("driver").status is StepStatus.PENDING


def test_changing_the_target_invalidates_what_depends_on_it() -> None:
    flow, rec = toy_flow({})
    flow.execute(None)
    rerun = flow.set_target("/opt/conda/bin/python")
    # driver is about the host, not the interpreter: it keeps its result
    assert rerun == ["environment", "wheel", "placement", "benchmark", SUMMARY]
    assert flow.state("driver").status is StepStatus.OK
    assert flow.state("wheel").status is StepStatus.PENDING
    assert flow.state("wheel").note == "the target interpreter changed"
    assert flow.context.target == "/opt/conda/bin/python"
    assert flow.set_target("/opt/conda/bin/python") == []  # same target: nothing to do
    rec.calls.clear()
    flow.execute(rerun)
    assert rec.calls == ["environment", "wheel", "placement", "benchmark"]


def test_choosing_the_target_before_anything_ran_leaves_the_steps_simply_not_run() -> None:
    """The app chooses its target after the first frame: the pages said "Needs to run again: the target
    interpreter changed" on a fresh start, where nothing had run."""
    flow, _ = toy_flow({})
    assert flow.set_target("/opt/conda/bin/python") == []
    assert all(flow.state(i).note == "" for i in flow.ids)


def test_a_step_that_raises_becomes_an_error_result_and_the_run_goes_on() -> None:
    flow, _ = toy_flow({})

    def boom(ctx: StepContext, on_event: Any, cancel: threading.Event) -> StepResult:
        raise RuntimeError("disk on fire")

    flow.steps[1] = Step("driver", "Driver", "", boom, uses_target=False)
    flow._states["driver"] = flow._states["driver"].__class__(flow.steps[1])
    flow.execute(None)
    st = flow.state("driver")
    assert st.status is StepStatus.ERROR
    assert st.reason == "this step failed unexpectedly: RuntimeError: disk on fire"
    assert flow.state("benchmark").status is StepStatus.OK


def test_cancel_stops_the_plan_and_marks_the_running_step_cancelled() -> None:
    cancel = threading.Event()
    flow, _ = toy_flow({})

    def slow(ctx: StepContext, on_event: Any, c: threading.Event) -> StepResult:
        cancel.set()  # the user pressed Stop while this step ran
        return StepResult(StepStatus.OK)

    flow.steps[2] = Step("wheel", "Wheel type", "", slow, depends_on=("environment",))
    flow._states["wheel"] = flow._states["wheel"].__class__(flow.steps[2])
    ran = flow.execute(None, cancel=cancel)
    assert ran == ["environment", "driver", "wheel"]
    assert flow.state("wheel").status is StepStatus.CANCELLED
    assert flow.state("placement").status is StepStatus.PENDING
    assert flow.running is None


def test_navigation_back_and_next() -> None:
    flow, _ = toy_flow({})
    assert flow.current.id == "environment" and not flow.can_back and flow.can_next
    assert flow.go_next().id == "driver"
    assert flow.go("benchmark").id == "benchmark"
    assert flow.go_next().id == SUMMARY and not flow.can_next
    assert flow.go_next().id == SUMMARY
    assert flow.go_back().id == "benchmark"


def test_dependencies_must_point_backwards() -> None:
    def noop(ctx: StepContext, on_event: Any, cancel: threading.Event) -> StepResult:
        return StepResult(StepStatus.OK)

    with pytest.raises(ValueError, match="must be an earlier step"):
        Flow([Step("a", "A", "", noop, depends_on=("b",)), Step("b", "B", "", noop)])


# -- the real steps --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_real_flow_on_this_machine_matches_the_cli_engine(
    monkeypatch: pytest.MonkeyPatch, cpu_only_machine: bool
) -> None:
    monkeypatch.setenv("GPUASSIST_RUNTIME_SIZE", "tiny")
    from gpuassist.diagnose import diagnose_live

    torch_before = "torch" in sys.modules
    cli = diagnose_live()
    flow = build_flow()
    stages: list[str] = []
    flow.execute(None, lambda e: stages.append(e.get("stage", "")) if e.get("event") == "stage" else None)
    assert "import_torch" in stages  # the real probe ran, streamed through the flow
    for sid in ("environment", "driver", "wheel"):
        expected = [f.id for f in cli.findings if f.step == sid]
        assert [f.id for f in flow.state(sid).findings] == expected
        assert flow.state(sid).status is StepStatus.from_findings(flow.state(sid).findings)
    # this CPU-only machine (docs/architecture.md §4): no NVIDIA GPU on Driver, a CPU-only wheel on Wheel
    if cpu_only_machine:  # elsewhere the comparison with the CLI above is the test
        assert flow.state("driver").status is StepStatus.ERROR
        assert [f.id for f in flow.state("driver").findings] == ["no_nvidia_gpu"]
        assert [f.id for f in flow.state("wheel").findings] == ["cpu_only_build"]
        assert flow.state("wheel").status is StepStatus.INFO
    report = flow.report()
    assert report is not None
    flow_ids, cli_ids = [f.id for f in report.findings], [f.id for f in cli.findings]
    assert flow_ids[:1] == cli_ids[:1]  # the root cause first; runtime findings may come between the rest
    assert [i for i in flow_ids if i in cli_ids] == cli_ids
    # the host never imports torch, even after a diagnosis (only checkable if no earlier test imported it)
    assert torch_before or "torch" not in sys.modules
    for sid in ("placement", "dataloader", "benchmark"):
        st = flow.state(sid)
        assert st.status is not StepStatus.PENDING
        if st.status is StepStatus.UNAVAILABLE:
            assert st.reason.startswith("not available")
        elif st.status is StepStatus.OFFERED:  # no usable GPU: a CPU-only measurement is offered, not run
            assert cli.findings[0].severity is Severity.ERROR and "anyway" in st.reason
        else:  # the runtime tests ran in the target and their facts joined the report
            assert st.status is StepStatus.from_findings(st.findings) and st.result is not None
            assert st.result.facts and set(st.result.facts) <= set(report.facts)
            assert all(f.step == sid for f in st.findings)
    facts = dict(flow.key_facts("wheel"))
    assert facts["torch"] == cli.facts["torch.version"]


@pytest.mark.slow
def test_the_three_diagnosis_steps_share_one_probe_run() -> None:
    flow = build_flow()
    launches: list[str] = []
    flow.execute(
        ["environment", "driver", "wheel"], lambda e: launches.append(e["step"]) if e.get("event") == "launch" else None
    )
    assert launches == ["environment"]
    launches.clear()
    flow.execute(["wheel"])  # re-running one of them refreshes all three from one new run
    assert flow.state("driver").status is StepStatus.ERROR


def scenario_names() -> list[str]:
    from gpuassist.sim import list_scenarios

    return [s.name for s in list_scenarios()]


@pytest.mark.parametrize(
    "name",
    scenario_names() or [pytest.param("none", marks=pytest.mark.skip(reason="no scenarios in sim/scenarios yet"))],
)
def test_flow_on_a_scenario_replays_the_diagnosis_and_its_recorded_runtime_tests(name: str) -> None:
    from gpuassist.sim import runtime_tests, simulate
    from gpuassist.wizard.steps import RUNTIME_TESTS

    expected = simulate(name)
    flow = build_flow(StepContext(scenario=name, replay_speed=0))
    events: list[dict[str, Any]] = []
    flow.execute(None, events.append)
    assert any(e.get("event") == "launch" for e in events)  # the recorded probe stream was replayed
    for sid in ("environment", "driver", "wheel"):
        assert [f.id for f in flow.state(sid).findings] == [f.id for f in expected.findings if f.step == sid]
    report = flow.report()
    assert report is not None and report.simulated
    diagnosis = ("environment", "driver", "wheel")
    assert [f.id for f in report.findings if f.step in diagnosis] == [
        f.id for f in expected.findings if f.step in diagnosis
    ]
    recorded = runtime_tests(name)
    for sid, test in RUNTIME_TESTS.items():
        st = flow.state(sid)
        if st.status is StepStatus.SKIPPED:  # a step it needs failed: says which
            assert st.reason.startswith("skipped because ")
        elif st.status is StepStatus.OFFERED:  # the diagnosis settled it: offered, not run (issue #16 item 1)
            cause = flow.blocking_cause()
            assert cause is not None and cause.title in st.reason and test in recorded
        elif test in recorded:  # replayed through the live facts path
            assert st.status.finished and st.status not in (StepStatus.UNAVAILABLE, StepStatus.CANCELLED)
            assert st.result is not None and st.result.facts[f"{test}.outcome"] == "ok"
        else:
            assert st.status is StepStatus.UNAVAILABLE and f"scenario {name}" in st.reason
        if not (st.result and st.result.facts):  # not measured: what the diagnosis found for it stays
            assert [f.id for f in report.findings if f.step == sid] == [
                f.id for f in expected.findings if f.step == sid
            ]


def test_a_reopened_report_shows_the_recorded_verdict_per_step() -> None:
    from gpuassist.ingest import load_text

    report = load_text((DATA / "pastes" / "pytorch-49325-windows-cpu-build.txt").read_text(), label="paste")
    flow = build_flow()
    flow.load_report(report)
    assert not flow.interactive
    assert flow.report() is report
    for sid in ("environment", "driver", "wheel"):
        mine = [f.id for f in report.findings if f.step == sid]
        assert [f.id for f in flow.state(sid).findings] == mine
        if mine:
            assert flow.state(sid).status is StepStatus.from_findings(flow.state(sid).findings)
    assert flow.state("benchmark").status is StepStatus.UNAVAILABLE
    assert "not in the report" in flow.state("benchmark").reason


@pytest.mark.slow
def test_a_runtime_test_that_could_not_measure_is_never_passed(tmp_path: Path) -> None:
    from gpuassist.wizard.steps import runtime_step

    broken = tmp_path / "python"
    broken.write_text("#!/bin/sh\necho 'Segmentation fault' >&2\nkill -SEGV $$\n")
    broken.chmod(0o755)
    result = runtime_step("placement")(StepContext(target=str(broken)), lambda ev: None, threading.Event())
    assert result.status is StepStatus.ERROR
    assert result.reason.startswith("the test did not complete (crashed)"), result.reason


def test_the_optional_script_step_waits_for_a_script_then_its_findings_join_the_report() -> None:
    script = Path(__file__).parent / "data" / "audit" / "broken_batches_on_cpu.py"
    flow = build_flow(StepContext(scenario="healthy-linux-rtx4090", replay_speed=0))
    assert "script" not in flow.plan(None)  # Run all leaves it out until a script is chosen
    flow.execute(None)
    assert flow.state("script").status is StepStatus.PENDING
    report = flow.report()
    assert report is not None and not any(f.step == "script" for f in report.findings)
    assert flow.set_script(str(script)) == ["script"]
    assert "script" in flow.plan(None)
    flow.execute(["script"])
    st = flow.state("script")
    assert st.status is StepStatus.ERROR and st.findings
    assert all(f.step == "script" and f.title.startswith(f"{script.name}:") for f in st.findings)
    assert st.result is not None and st.result.facts["audit.script"] == str(script)
    report = flow.report()
    assert report is not None
    ours = [f for f in report.findings if f.step == "script"]
    assert [f.id for f in ours] == [f.id for f in sorted(st.findings, key=lambda f: f.severity.rank)]
    assert report.findings[0] is ours[0]  # a line of code that keeps batches off the GPU is the verdict
    blocks = flow.details("script")
    assert blocks and blocks[0].title == "What was read"
    # a file that cannot be read is one line on the page, not a crash
    flow.set_script(str(script.with_name("no-such-file.py")))
    flow.execute(["script"])
    assert flow.state("script").status is StepStatus.ERROR
    assert "no such file" in flow.state("script").reason
