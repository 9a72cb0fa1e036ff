"""The Your script step's optional run, without Qt: the request, when a script cannot be run, real runs of tiny
scripts on this CPU through the flow (merged with the static audit as `gpuassist audit --run` merges them),
Stop keeping what was measured, the run's band on the monitor, the progress line, and the run's numbers in
words and tables (recorded CUDA streams included)."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Any

import psutil
import pytest

from gpuassist.audit.run import load_recording, run_report
from gpuassist.audit.run_blocks import run_blocks
from gpuassist.facts import Facts
from gpuassist.report.blocks import Absent, Code, KeyValues, Table, block_texts
from gpuassist.wizard import StepContext, StepStatus, build_flow
from gpuassist.wizard.display import looks_raw, show, step_blocks
from gpuassist.wizard.model import RunRequest, RunRequestError
from gpuassist.wizard.script_run import RunMarks, RunProgress, run_unavailable

DATA = Path(__file__).parent / "data" / "audit_run"
RECORDINGS = sorted(DATA.glob("*.json"))

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def texts(blocks: list[Any]) -> list[str]:
    return [t for b in blocks for t in block_texts(b) if t]


def run_flow(script: Path, request: RunRequest, **kwargs: Any) -> tuple[Any, list[dict[str, Any]]]:
    """The real flow's script step on ``script`` with ``request``; returns the flow and the events it sent."""
    flow = build_flow(StepContext(**kwargs))
    flow.set_script(str(script))
    flow.set_script_run(request)
    events: list[dict[str, Any]] = []
    flow.execute(["script"], events.append)
    return flow, events


@pytest.fixture(scope="module")
def train() -> tuple[Any, list[dict[str, Any]]]:
    return run_flow(DATA / "train_cpu.py", RunRequest("--epochs 1", steps=3, seconds=60))


# ---- the request and when a script cannot run -----------------------------------------------------------


def test_the_arguments_split_like_a_shell_and_the_limits_are_checked() -> None:
    assert RunRequest('--data "my data" --lr=0.1').args() == ("--data", "my data", "--lr=0.1")
    with pytest.raises(RunRequestError, match="No closing quotation"):
        RunRequest('--name "unfinished').args()
    bound = RunRequest(steps=20, seconds=60).bound()
    assert (bound.steps, bound.seconds) == (20, 60.0)
    assert RunRequest(steps=None, seconds=45).bound().steps is None
    with pytest.raises(RunRequestError, match="step limit"):
        RunRequest(steps=0).bound()
    with pytest.raises(RunRequestError, match="time limit"):
        RunRequest(seconds=0).bound()


def test_what_cannot_be_run_from_here_says_why(tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text("print(1)\n")
    assert run_unavailable(StepContext(), str(script)) is None
    assert "simulated" in str(run_unavailable(StepContext(scenario="healthy-linux-rtx4090"), str(script)))
    assert "nbconvert --to script" in str(run_unavailable(StepContext(), str(tmp_path / "nb.ipynb")))
    assert "does not exist" in str(run_unavailable(StepContext(), str(tmp_path / "gone.py")))
    assert run_unavailable(StepContext(), None) == "choose a script first"


def test_a_run_asked_for_on_a_simulated_machine_is_not_run_and_the_page_says_so(tmp_path: Path) -> None:
    flow = build_flow(StepContext(scenario="healthy-linux-rtx4090", replay_speed=0))
    flow.set_script(str(DATA / "train_cpu.py"))
    flow.set_script_run(RunRequest(steps=3))
    flow.execute(["script"])
    st = flow.state("script")
    assert st.reason.startswith("not run: not on a simulated machine")
    assert st.result is not None and not any(k.startswith("run.") for k in st.result.facts)
    assert [f.id for f in st.findings] == ["workload_left_on_cpu"]  # the static audit still read it


def test_arguments_that_cannot_be_split_are_one_line_on_the_page() -> None:
    flow, _ = run_flow(DATA / "train_cpu.py", RunRequest('--name "unfinished', steps=3))
    st = flow.state("script")
    assert st.status is StepStatus.ERROR and st.reason.startswith("not run: the arguments cannot be split")
    assert [f.id for f in st.findings] == ["workload_left_on_cpu"]


# ---- a real run on this CPU -------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_bounded_run_in_the_script_folder_with_its_numbers_on_the_page(train: Any) -> None:
    flow, events = train
    st = flow.state("script")
    assert st.status is StepStatus.WARNING and st.reason == "ran it: stopped after 3 steps, as asked"
    facts = st.result.facts
    assert facts["run.outcome"] == "ok" and facts["run.stop"]["steps"] == 3
    assert facts["run.command"]["args"] == ["--epochs", "1"]
    assert facts["run.command"]["cwd"] == str(DATA)  # the script's own folder
    assert facts["run.command"]["python"] == sys.executable  # the target (the app's own Python here)
    assert st.result.used_target
    # the static audit's finding is still there (no GPU here, so the run itself blames nothing)
    assert [f.id for f in st.findings] == ["workload_left_on_cpu"]
    assert st.findings[0].title.startswith("train_cpu.py:9:")
    blocks = flow.details("script")
    titles = [b.title for b in blocks]
    assert titles[:3] == ["What was read", "How it ran", "Where the operators ran"]
    for expected in (
        "Matrix multiplications, convolutions, attention",
        "Lines that make the host wait for the device",
        "Steps: waiting for data vs computing",
        "DataLoaders",
        "First forward pass",
        "What the script printed (last lines)",
    ):
        assert expected in titles
    shown = texts(blocks)
    assert not [t for t in shown if looks_raw(t)]
    how = next(b for b in blocks if b.title == "How it ran")
    assert isinstance(how, KeyValues)
    rows = dict(how.rows)
    assert rows["Working folder"] == str(DATA) and rows["Arguments"] == "--epochs 1"
    assert rows["Stop after"] == "3 optimizer steps or 60 s, whichever comes first"
    assert rows["GPUs offered to the script"].startswith("none")
    ops = next(b for b in blocks if b.title == "Where the operators ran")
    assert isinstance(ops, Table) and ops.rows[0][0] == "cpu" and ops.rows[0][2] == "100 %"
    waits = next(b for b in blocks if b.title == "Lines that make the host wait for the device")
    assert isinstance(waits, Table) and waits.rows[0][0] == "train_cpu.py:19" and waits.rows[0][5].startswith("no")
    steps = next(b for b in blocks if b.title.startswith("Steps"))
    assert isinstance(steps, KeyValues) and dict(steps.rows)["Steps done"] == "3 optimizer steps (SGD)"
    # events: reading, the run announced with its folder and limit, then the runner's own
    kinds = [e.get("event") for e in events]
    assert kinds.index("audit") < kinds.index("script_run") < kinds.index("hello")
    announced = next(e for e in events if e.get("event") == "script_run")
    assert announced["cwd"] == str(DATA) and announced["bound"] == {"seconds": 60.0, "steps": 3}


@pytest.mark.slow
def test_the_run_joins_the_report_and_its_exports(train: Any) -> None:
    from gpuassist.report.render import render

    flow, _ = train
    report = flow.report()
    assert report is not None
    assert report.facts.value("run.outcome") == "ok" and "audit.files" in report.facts
    assert [f.id for f in report.findings if f.step == "script"] == ["workload_left_on_cpu"]
    data = json.loads(render(report, "json"))
    assert data["facts"]["run.steps"]["count"] == 3
    for fmt in ("markdown", "html"):
        text = render(report, fmt)
        assert "run.ops" in text and "run.first_forward" in text and "train_cpu.py:9:9" in text


@pytest.mark.slow
def test_the_runs_findings_are_merged_with_the_static_ones_as_the_cli_does(capsys: pytest.CaptureFixture[str]) -> None:
    from gpuassist.cli import main

    script = DATA / "device_mismatch.py"
    flow, _ = run_flow(script, RunRequest(steps=2))
    st = flow.state("script")
    assert main(["audit", "--run", "--format", "json", "--steps", "2", "--", sys.executable, str(script)]) == 1
    cli = json.loads(capsys.readouterr().out)
    assert [(f.id, f.severity.value) for f in st.findings] == [(f["id"], f["severity"]) for f in cli["findings"]]
    assert st.status is StepStatus.ERROR
    error = st.findings[0]
    assert error.id == "tensors_on_different_devices" and error.title.startswith("device_mismatch.py:8")
    evidence = {e.fact: show(e.fact, e.value) for e in error.evidence}
    assert evidence["run.location"] == f"{script}:8"
    assert evidence["run.exception"].startswith("RuntimeError: ") and f"{script}:8" in evidence["run.exception"]
    assert not [v for v in evidence.values() if looks_raw(v) or "{'" in v]
    ending = dict(next(b for b in flow.details("script") if b.title == "How it ran").rows)["How it ended"]
    assert ending.startswith("the script raised an exception")


@pytest.mark.slow
def test_a_script_that_fails_by_itself_is_a_problem_with_its_line_on_the_page(tmp_path: Path) -> None:
    script = tmp_path / "fails.py"
    script.write_text("import torch\nx = torch.ones(2)\nraise ValueError('bad config')\n")
    flow, _ = run_flow(script, RunRequest(steps=3))
    st = flow.state("script")
    assert st.status is StepStatus.ERROR and not st.findings
    assert st.reason.startswith("ran it: the script raised an exception after ")
    assert "exception at fails.py:3 (`raise ValueError('bad config')`): ValueError: bad config" in st.reason


@pytest.mark.slow
def test_the_script_runs_in_its_own_folder(tmp_path: Path) -> None:
    (tmp_path / "settings.txt").write_text("lr=0.1\n")
    script = tmp_path / "reads_settings.py"
    script.write_text("import torch\nprint(open('settings.txt').read())\n")
    flow, _ = run_flow(script, RunRequest(steps=1))
    facts = flow.state("script").result.facts
    assert facts["run.stop"]["reason"] == "finished", facts["run.stderr_tail"]


@pytest.mark.slow
def test_stop_keeps_what_the_run_measured_and_leaves_no_process() -> None:
    flow = build_flow(StepContext())
    flow.set_script(str(DATA / "loader_wait.py"))
    flow.set_script_run(RunRequest(steps=200, seconds=60))
    cancel = threading.Event()

    def on_event(ev: dict[str, Any]) -> None:  # stop after a summary sent while it runs (every 2 s)
        if ev.get("key") == "run.snapshot" and ev["value"]["seconds"] >= 1:
            cancel.set()

    flow.execute(["script"], on_event, cancel)
    st = flow.state("script")
    assert st.status is StepStatus.CANCELLED and "what it measured until then is below" in st.reason
    facts = st.result.facts
    assert facts["run.outcome"] == "cancelled" and facts["run.steps"]["count"] >= 3
    titles = [b.title for b in flow.details("script")]
    assert "Where the operators ran" in titles and "How it ran" in titles
    assert not [p for p in psutil.Process().children(recursive=True) if p.status() != psutil.STATUS_ZOMBIE]


@pytest.mark.slow
def test_the_run_gets_its_own_band_on_the_monitor() -> None:
    from gpuassist.monitor import Monitor

    monitor = Monitor()
    monitor.start()
    try:
        flow, _ = run_flow(DATA / "train_cpu.py", RunRequest(steps=3), monitor=monitor)
    finally:
        monitor.stop()
    assert flow.state("script").status is StepStatus.WARNING
    marks = [(m.step, m.title) for m in monitor.snapshot().markers]
    assert marks == [("script", "Running train_cpu.py")]  # the script itself, not its set-up
    assert all(m.end is not None for m in monitor.snapshot().markers)


def test_run_marks_close_the_band_when_the_run_ends_without_saying_so() -> None:
    from gpuassist.monitor import Monitor

    monitor = Monitor()
    marks = RunMarks(monitor, "script", "Running train.py")
    marks.mark_start("run.setup", "Importing torch")  # the set-up stays in the step's own band
    assert not monitor.snapshot().markers
    marks.mark_start("run.script", "Your script")
    marks.close()  # e.g. the run was stopped before the script's end was reported
    (marker,) = monitor.snapshot().markers
    assert marker.title == "Running train.py" and marker.end is not None


@pytest.mark.slow
def test_a_new_target_makes_a_run_stale_but_not_a_static_audit(train: Any) -> None:
    flow, _ = train
    static = build_flow(StepContext())
    static.set_script(str(DATA / "train_cpu.py"))
    static.execute(["script"])
    assert static.set_target("/somewhere/else/python") == []  # reading a file does not depend on it
    ran = build_flow(StepContext())
    ran.set_script(str(DATA / "train_cpu.py"))
    ran.record("script", flow.state("script").result)
    assert ran.set_target("/somewhere/else/python") == ["script"]
    assert ran.state("script").note == "the target interpreter changed"


# ---- the progress line ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_progress_line_follows_the_run(train: Any) -> None:
    _, events = train
    progress = RunProgress()
    seen: list[tuple[float | None, str]] = []
    for ev in events:
        if progress.on_event(ev):
            seen.append((progress.fraction, progress.text))
    assert seen[0] == (None, "Reading train_cpu.py (read, not run)…")
    assert seen[1][1].startswith(f"Starting {sys.executable} in {DATA}")
    assert any(text.startswith("Importing torch") for _, text in seen)
    steps = [(f, t) for f, t in seen if t.startswith("Running train_cpu.py: ")]
    assert steps and steps[-1][1].startswith("Running train_cpu.py: 3 of 3 steps")
    assert steps[-1][0] == 1.0 and all(f is not None and 0 <= f <= 1 for f, _ in steps)
    assert seen[-1] == (1.0, "train_cpu.py stopped; judging what it did…")


def test_the_bar_moves_with_whichever_limit_comes_first() -> None:
    progress = RunProgress()
    progress.on_event(
        {"event": "script_run", "script": "t.py", "python": "py", "cwd": "/d", "bound": {"steps": 100, "seconds": 10.0}}
    )
    progress.on_event({"event": "progress", "stage": "script", "steps": 5, "seconds": 5.0})
    assert progress.fraction == 0.5 and progress.text == "Running t.py: 5 of 100 steps, 5 s of at most 10 s"
    progress.on_event({"event": "killed", "reason": "cancelled"})
    assert progress.text == "Stopping t.py (you stopped it)…"


# ---- the numbers of recorded GPU runs, in words ------------------------------------------------------------


@pytest.mark.parametrize("path", RECORDINGS, ids=[p.stem for p in RECORDINGS])
def test_recorded_gpu_runs_read_as_words_and_tables(path: Path) -> None:
    report = run_report(load_recording(path))
    blocks = run_blocks(report.facts)
    assert blocks[0].title == "How it ran"
    assert not [t for t in texts(blocks) if looks_raw(t)]
    for f in report.findings:
        for e in f.evidence:
            shown = show(e.fact, e.value)
            assert not looks_raw(shown) and "{'" not in shown, (e.fact, shown)


def test_a_gpu_run_shows_copies_waits_and_the_data_share() -> None:
    facts = run_report(load_recording(DATA / "cuda_sync_every_step.json")).facts
    blocks = {b.title: b for b in run_blocks(facts)}
    copies = blocks["Copies between devices"]
    assert isinstance(copies, Table) and copies.rows[0][:3] == ["host → device", "100", "75.0 MiB"]
    waits = blocks["Lines that make the host wait for the device"]
    assert isinstance(waits, Table)
    assert waits.rows[0][:6] == ["train.py:52", "calls nonzero()", "cuda:0", "100", "50 of 50", "yes"]
    how = blocks["How it ran"]
    assert isinstance(how, KeyValues) and dict(how.rows)["GPUs offered to the script"] == "cuda:0"
    starving = run_report(load_recording(DATA / "cuda_starving_loader.json"))
    steps = next(b for b in run_blocks(starving.facts) if b.title.startswith("Steps"))
    assert isinstance(steps, KeyValues) and dict(steps.rows)["Share of a step spent waiting for data"] == "65 %"
    evidence = {e.fact: show(e.fact, e.value) for f in starving.findings for e in f.evidence}
    assert evidence["run.data.wait_share"] == "65 % of each step"
    assert evidence["run.data.loader"].startswith("/home/alice/proj/train.py:40: batch 64, num_workers=0")


def test_without_a_run_nothing_is_added_and_a_crash_says_what_is_missing() -> None:
    assert run_blocks(Facts({"audit.script": "t.py"})) == []
    facts = Facts(
        {
            "run.command": {"script": "/p/t.py", "args": [], "cwd": "/p"},
            "run.bound": {"seconds": 30, "steps": None},
            "run.outcome": "crashed",
            "run.signal": "SIGSEGV",
        }
    )
    blocks = run_blocks(facts)
    assert [type(b) for b in blocks] == [KeyValues, Absent]
    assert isinstance(blocks[0], KeyValues)
    assert dict(blocks[0].rows)["How it ended"].startswith("the script crashed (SIGSEGV)")
    assert step_blocks("script", facts, []) == blocks
    assert not [b for b in blocks if isinstance(b, Code)]


def test_torch_compile_is_named_with_its_line_and_whether_it_compiled_under_the_instruments() -> None:
    facts = Facts(
        {
            "run.command": {"script": "/p/t.py", "args": [], "cwd": "/p"},
            "run.bound": {"seconds": 30},
            "run.outcome": "ok",
            "run.settings": {
                "cudnn_benchmark": False,
                "compile": {"calls": 2, "site": {"file": "/p/t.py", "line": 8}, "compiles_under_audit": False},
            },
        }
    )
    settings = next(b for b in run_blocks(facts) if b.title.startswith("Settings"))
    assert isinstance(settings, KeyValues)
    shown = dict(settings.rows)["torch.compile"]
    assert shown.startswith("called 2 times, first at t.py:8; this torch runs compiled code uncompiled")
    facts.update({"run.settings": {"compile": None}})
    settings = next(b for b in run_blocks(facts) if b.title.startswith("Settings"))
    assert isinstance(settings, KeyValues) and dict(settings.rows)["torch.compile"] == "not used"
