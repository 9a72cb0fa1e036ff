"""The instrumented run (`gpuassist audit --run`): real runs of tiny scripts on this CPU, and the rules on
recorded CUDA streams (tests/data/audit_run/*.json, in the exact shape a live run emits)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from gpuassist.audit.run import (
    Bound,
    RunCommand,
    RunResult,
    RunUsageError,
    load_recording,
    parse_command,
    replay,
    run_audit,
    run_report,
    scrub_args,
)
from gpuassist.audit.run_blocks import summary_text
from gpuassist.audit.run_rules import RULES
from gpuassist.facts import Facts, NotCollected
from gpuassist.findings import Severity
from gpuassist.probe import audit_script
from gpuassist.report.model import Report
from gpuassist.rules import evaluate

DATA = Path(__file__).parent / "data" / "audit_run"
RECORDINGS = sorted(DATA.glob("*.json"))
PY = sys.executable
WIDE = 300  # columns of the terminal summary: no cell wraps

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def run(
    script: str, *, seconds: float | None = None, steps: int | None = None, args: tuple[str, ...] = (), **kwargs: Any
) -> RunResult:
    """A real run of tests/data/audit_run/SCRIPT in this interpreter, with short stop/kill margins."""
    command = parse_command([PY, str(DATA / script), *args])
    kwargs.setdefault("stop_grace", 1.0)
    kwargs.setdefault("kill_margin", 1.0)
    return run_audit(command, Bound.of(seconds, steps), **kwargs)


def findings(result: RunResult) -> dict[str, Any]:
    return {f.id: f for f in run_report(result).findings}


def line_of(site: Any) -> tuple[str, int]:
    return os.path.basename(site["file"]), site["line"]


# ---- live runs on this CPU ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def train() -> tuple[RunResult, list[dict[str, Any]]]:
    events: list[dict[str, Any]] = []
    return run("train_cpu.py", steps=3, on_event=events.append), events


@pytest.mark.slow
def test_a_bounded_training_run_counts_operators_and_stops_after_n_steps(train: Any) -> None:
    result, _ = train
    f = result.facts
    assert result.outcome == "ok"
    assert f["run.stop"]["reason"] == "steps" and f["run.stop"]["steps"] == 3 and not f["run.stop"]["forced"]
    assert f["run.steps"]["kind"] == "optimizer" and f["run.steps"]["optimizers"] == {"SGD": 1}
    ops = f["run.ops"]
    assert ops["by_device"] == {"cpu": ops["total"]} and ops["total"] > 50
    assert {c["op"] for c in ops["compute"]} >= {"aten::addmm", "aten::mm"}
    assert ops["data_loading"]["cpu"] > 0  # collate's stack ran inside the DataLoader, counted apart
    assert f["run.accelerators"]["devices"] == []  # the CPU build here
    assert f["run.exception"] is None and f["run.snapshot"]["final"] is True


@pytest.mark.slow
def test_item_every_step_is_attributed_to_its_line(train: Any) -> None:
    result, _ = train
    (item,) = [s for s in result.facts["run.syncs"] if s["kind"] == "item"]
    assert line_of(item["site"]) == ("train_cpu.py", 19)
    assert "loss.item()" in item["site"]["code"]
    assert item["device"] == "cpu" and item["count"] == item["steps"] == 2  # the 3rd step stopped before it


@pytest.mark.slow
def test_first_forward_and_loader_are_recorded(train: Any) -> None:
    f = train[0].facts
    ff = f["run.first_forward"]
    assert ff["module"] == "Sequential" and ff["param_devices"] == {"cpu": 8 * 16 + 16 + 16 + 1}
    assert ff["inputs"] == [{"device": "cpu", "shape": [8, 8], "dtype": "float32"}]
    assert line_of(ff["site"]) == ("train_cpu.py", 16)
    (loader,) = f["run.data"]["loaders"]
    assert line_of(loader["site"]) == ("train_cpu.py", 14)
    assert (loader["batch_size"], loader["num_workers"], loader["pin_memory"], loader["batches"]) == (8, 0, False, 3)


@pytest.mark.slow
def test_progress_and_stages_reach_the_caller(train: Any) -> None:
    _, events = train
    stages = [(e["stage"], e["status"]) for e in events if e["event"] == "stage"]
    assert stages == [("setup", "start"), ("setup", "end"), ("script", "start"), ("script", "end")]
    progress = [e for e in events if e["event"] == "progress"]
    assert progress and all(e["stage"] == "script" and e["total"] == 3 and 0 <= e["done"] <= 3 for e in progress)


@pytest.mark.slow
def test_a_cpu_only_run_is_not_blamed_for_leaving_the_gpu_idle(train: Any) -> None:
    report = run_report(train[0])
    assert report.findings == []
    text = summary_text(report.facts, width=WIDE)
    assert re.search(r"GPUs offered to the script +none: torch\.cuda\.is_available\(\) is False", text)
    assert "train_cpu.py:19" in text
    assert report.monitor["markers"][-1]["step"] == "run.script"  # the run's trace, with the script marked
    assert report.monitor["t"], "the live monitor sampled while the script ran"


@pytest.mark.slow
def test_replaying_the_events_gives_the_live_facts(train: Any) -> None:
    result, _ = train
    again = replay(json.loads(json.dumps(result.events)), result.command, result.bound)
    assert Facts(again.facts).to_json() == Facts(result.facts).to_json()


@pytest.mark.slow
def test_data_wait_is_measured_apart_from_compute() -> None:
    result = run("loader_wait.py", steps=4)
    data = result.facts["run.data"]
    assert data["steady_steps"] == 3
    # each batch sleeps 4 x 5 ms in __getitem__; the model step is microseconds
    assert data["steady_wait_seconds"] >= 3 * 4 * 0.005
    assert data["steady_wait_seconds"] / data["steady_step_seconds"] > 0.5
    assert run_report(result).findings == []  # on the CPU a slow loader starves no GPU


@pytest.mark.slow
def test_device_mismatch_becomes_an_error_at_the_users_line() -> None:
    result = run("device_mismatch.py", steps=3)
    exc = result.facts["run.exception"]
    assert exc["type"] == "RuntimeError" and "is not on the expected device" in exc["message"]
    assert line_of(exc["site"]) == ("device_mismatch.py", 8)
    assert result.facts["run.stop"]["reason"] == "error"
    f = findings(result)["tensors_on_different_devices"]
    assert f.severity is Severity.ERROR and "device_mismatch.py:8" in f.title
    assert "parameters were on meta and its inputs on cpu" in f.explanation
    assert "to_empty" in f.fix  # weights that were never loaded: moving the input to meta is no fix


@pytest.mark.slow
def test_a_chatty_script_cannot_corrupt_the_protocol() -> None:
    result = run("chatty.py", steps=3)
    f = result.facts
    assert result.outcome == "ok" and f["run.garbage_lines"] == 0
    assert f["run.stop"]["reason"] == "steps" and isinstance(f["run.ops"], dict)  # not "FORGED"
    assert "step done" in f["run.stderr_tail"]  # the script's own output is kept, on stderr


@pytest.mark.slow
def test_sys_exit_early_is_the_scripts_choice_not_an_error() -> None:
    result = run("early_exit.py", steps=3)
    stop = result.facts["run.stop"]
    assert (stop["reason"], stop["exit_code"]) == ("exit", 0)
    assert line_of(stop["site"]) == ("early_exit.py", 10)
    assert run_report(result).findings == []


@pytest.mark.slow
def test_grad_scaler_wait_is_told_apart_from_the_users_reads() -> None:
    result = run("scaler.py", steps=4)
    (sync,) = result.facts["run.syncs"]
    assert sync["kind"] == "grad_scaler" and sync["steps"] == 4
    assert line_of(sync["site"]) == ("scaler.py", 12)  # scaler.step(optimizer)


@pytest.mark.slow
@pytest.mark.parametrize("script", ["inference_loop.py", "tensor_loop.py"])
def test_seconds_bound_stops_a_loop_cleanly(script: str) -> None:
    result = run(script, seconds=1.0)
    stop = result.facts["run.stop"]
    assert stop["reason"] == "seconds" and not stop["forced"]  # a hook or an operator raised StopRun
    assert result.facts["run.ops"]["total"] > 100
    if script == "inference_loop.py":
        assert result.facts["run.steps"]["kind"] == "forward" and stop["steps"] > 10


@pytest.mark.slow
def test_module_mode_runs_like_python_dash_m(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(DATA)
    command = parse_command([PY, "-m", "inference_loop"])
    assert command.module and command.target == "inference_loop"
    result = run_audit(command, Bound.of(None, 5), stop_grace=1.0, kill_margin=1.0)
    assert result.facts["run.stop"]["reason"] == "steps" and result.facts["run.steps"]["count"] == 5
    assert line_of(result.facts["run.first_forward"]["site"]) == ("inference_loop.py", 8)


@pytest.mark.slow
def test_a_script_waiting_forever_is_ended_with_where_it_waited() -> None:
    result = run("hang_sleep.py", seconds=1.0)
    stop = result.facts["run.stop"]
    assert result.outcome == "ok" and stop["forced"] and stop["reason"] == "seconds"
    assert line_of(stop["stuck_at"][-1]) == ("hang_sleep.py", 8)
    f = findings(result)["probe_timeout"]
    assert f.severity is Severity.WARNING and "hang_sleep.py:8" in f.title


@pytest.mark.slow
def test_a_native_hang_holding_the_gil_is_killed_by_the_host() -> None:
    result = run("hang_native.py", seconds=1.0)
    assert result.outcome == "timeout" and result.facts["run.failed_stage"] == "script"
    assert 'hang_native.py", line 8' in result.facts["run.fault_traceback"]
    f = findings(result)["probe_timeout"]
    assert f.severity is Severity.ERROR and "hang_native.py:8" in f.title


@pytest.mark.slow
def test_a_crash_keeps_the_last_summary_and_names_the_line() -> None:
    result = run("crash.py", steps=10)
    assert result.outcome == "crashed" and result.facts["run.signal"] == "SIGSEGV"
    assert isinstance(result.facts["run.stop"], NotCollected)
    assert result.facts["run.snapshot"]["final"] is False
    assert result.facts["run.steps"]["count"] == 2  # sent by the watchdog before the crash
    f = findings(result)["probe_crashed"]
    assert f.severity is Severity.ERROR and "crash.py:16" in f.title


@pytest.mark.slow
def test_forked_workers_run_without_the_instruments_and_end_quietly() -> None:
    result = run("forked_workers.py", steps=3)
    f = result.facts
    assert f["run.stop"]["reason"] == "steps" and f["run.steps"]["count"] == 3
    tail = f["run.stderr_tail"]
    assert "pool: [1, 4, 9]" in tail
    assert "mode: NoneType" in tail and "mode: AuditMode" not in tail  # no dispatch mode left in a worker
    assert "Current thread" not in tail and "Thread 0x" not in tail  # the Pool's SIGTERM dumped no stack
    assert f["run.data"]["loaders"][0]["num_workers"] == 2 and f["run.data"]["batches"] >= 3


@pytest.mark.slow
def test_a_script_that_catches_the_stop_is_ended_and_told_so() -> None:
    result = run("swallows_stop.py", seconds=0.5)
    stop = result.facts["run.stop"]
    assert stop["forced"] and stop["reason"] == "seconds" and stop["stop_raised"] >= 1
    assert 0.5 <= stop["requested_at"] < stop["seconds"]
    assert "skipped a batch: StopRun" in result.facts["run.stderr_tail"]
    text = summary_text(run_report(result).facts, width=WIDE)
    assert re.search(r"How it ended +stopped after 0\.5 s, as asked", text)
    assert "it caught gpuassist's stop request" in text and "bare `except:`" in text
    assert "probe_timeout" not in findings(result)  # it was busy, not stuck


@pytest.mark.slow
def test_work_in_the_scripts_own_processes_is_not_called_a_hang() -> None:
    import psutil

    result = run("waits_for_processes.py", seconds=0.5)
    stop = result.facts["run.stop"]
    assert stop["forced"] and stop["child_processes"] == 1 and result.facts["run.steps"]["count"] == 0
    assert "probe_timeout" not in findings(result)
    assert "1 process the script started" in summary_text(run_report(result).facts, width=WIDE)
    worker = int(result.facts["run.stderr_tail"].split("worker pid ")[1].split()[0])
    with contextlib.suppress(psutil.NoSuchProcess):  # killed with the process group: gone once SIGKILL lands
        _, alive = psutil.wait_procs([psutil.Process(worker)], timeout=10)
        assert not alive or alive[0].status() == psutil.STATUS_ZOMBIE


@pytest.mark.slow
def test_os_exit_still_gets_the_final_summary() -> None:
    result = run("os_exit.py", seconds=20.0)
    stop = result.facts["run.stop"]
    assert result.outcome == "ok" and result.facts["run.snapshot"]["final"] is True
    assert (stop["reason"], stop["function"], stop["exit_code"], stop["steps"]) == ("exit", "os._exit", 3, 3)
    assert line_of(stop["site"]) == ("os_exit.py", 14)
    assert "the script called os._exit(3)" in summary_text(run_report(result).facts, width=WIDE)


@pytest.mark.slow
def test_a_loop_in_a_thread_is_stopped_there_and_said_to_be_unmeasured() -> None:
    result = run("trains_in_a_thread.py", steps=5)
    f = result.facts
    assert f["run.stop"]["reason"] == "steps" and not f["run.stop"]["forced"]  # the thread ended, then the script
    assert f["run.steps"]["count"] == f["run.steps"]["other_thread"] >= 5
    assert "StopRun" not in (f["run.stderr_tail"] or "")  # no traceback of gpuassist's stop from the thread
    assert "ran on another thread than the script's main one" in summary_text(run_report(result).facts, width=WIDE)


@pytest.mark.slow
def test_several_optimizers_make_one_step_per_iteration() -> None:
    f = run("two_optimizers.py", steps=3).facts
    assert f["run.stop"]["steps"] == 3 and f["run.steps"]["count"] == 3
    (logged,) = [s for s in f["run.syncs"] if line_of(s["site"]) == ("two_optimizers.py", 19)]
    # stopped at the third iteration's first optimizer step: the two before it logged, in each of their steps
    assert (logged["count"], logged["steps"]) == (4, 2)


@pytest.mark.slow
def test_a_new_optimizer_takes_over_the_step_count() -> None:
    f = run("two_optimizers.py", steps=6).facts  # 3 GAN iterations, then steps of the fine-tuning optimizer
    assert f["run.stop"]["reason"] == "steps" and not f["run.stop"]["forced"]
    assert f["run.steps"]["optimizers"] == {"SGD": 3}


@pytest.mark.slow
def test_torch_compile_compiles_under_the_instruments() -> None:
    result = run("compiled.py", seconds=20.0)
    f = result.facts
    assert f["run.stop"]["reason"] == "finished" and f["run.exception"] is None
    assert "graphs captured: 1" in f["run.stderr_tail"]  # Dynamo did not fall back to eager under the mode
    compiled = f["run.settings"]["compile"]
    assert compiled["calls"] == 1 and compiled["compiles_under_audit"] is True
    assert line_of(compiled["site"]) == ("compiled.py", 8)
    assert f["run.steps"]["count"] == 4 and f["run.first_forward"]["module"] == "OptimizedModule"


@pytest.mark.slow
def test_cancel_stops_the_run_within_seconds() -> None:
    cancel = threading.Event()

    def on_event(event: dict[str, Any]) -> None:
        if event.get("event") == "stage" and event.get("stage") == "script":
            cancel.set()

    result = run("tensor_loop.py", seconds=60.0, cancel=cancel, on_event=on_event)
    assert result.outcome == "cancelled"
    assert result.events[-1]["rt"] < 30


@pytest.mark.slow
def test_missing_interpreter_and_missing_torch() -> None:
    gone = run_audit(RunCommand("/nonexistent/python3", str(DATA / "train_cpu.py")), Bound.of(5.0))
    assert gone.outcome == "interpreter_not_found"
    import shutil

    system = shutil.which("python3", path="/usr/bin:/bin")
    if system is None or system == PY:
        pytest.skip("no second interpreter without torch here")
    result = run_audit(RunCommand(system, str(DATA / "train_cpu.py"), resolved=system), Bound.of(5.0))
    if isinstance(result.facts.get("run.torch"), dict) and "version" in result.facts["run.torch"]:
        pytest.skip(f"{system} has torch")
    f = findings(result)["torch_not_installed"]
    assert f.severity is Severity.ERROR and f"--python {system}" in f.fix


# ---- the rules on recorded CUDA streams ------------------------------------------------------------------


@pytest.mark.parametrize("path", RECORDINGS, ids=[p.stem for p in RECORDINGS])
def test_recording_gives_the_expected_findings(path: Path) -> None:
    expected = json.loads(path.read_text())["expected"]
    result = load_recording(path)
    report = run_report(result)
    assert "rule_errors" not in report.meta
    got = {f.id: f.severity.value for f in report.findings}
    assert got == expected
    if expected:
        assert report.findings[0].severity.value == min(expected.values(), key=lambda s: Severity(s).rank)
    assert all(f.step == "script" and f.evidence and f.fix for f in report.findings)
    text = summary_text(report.facts, width=WIDE)
    assert re.search(r"GPUs offered to the script +cuda:0", text)
    again = Report.from_json(json.loads(json.dumps(report.to_json())))
    assert [f.to_json() for f in again.findings] == [f.to_json() for f in report.findings]


def test_work_left_on_the_cpu_is_said_in_numbers() -> None:
    f = findings(load_recording(DATA / "cuda_left_on_cpu.json"))["workload_left_on_cpu"]
    assert f.title == "97% of operators ran on the CPU while cuda:0 was available"
    assert "parameters were on cpu" in f.explanation and "model.to(device)" in f.fix


def test_sync_every_step_names_the_line_and_the_count() -> None:
    f = findings(load_recording(DATA / "cuda_sync_every_step.json"))["host_device_sync_in_loop"]
    assert f.title == "train.py:52 calls nonzero() every step (100 times in 50 steps)"
    assert "train.py:48: calls .item()" in f.explanation and "train.py:60" not in f.explanation
    assert f.severity is Severity.WARNING  # 3 waits per step


def test_one_item_per_step_is_only_info() -> None:
    result = load_recording(DATA / "cuda_sync_every_step.json")
    facts = dict(result.facts)
    facts["run.syncs"] = [s for s in facts["run.syncs"] if s["kind"] == "item"]
    facts["run.steps"] = dict(facts["run.steps"], per_step=dict(facts["run.steps"]["per_step"], syncs=1))
    (f,) = [f for f in evaluate(Facts(facts), RULES).findings if f.id == "host_device_sync_in_loop"]
    assert f.severity is Severity.INFO and f.title.startswith("train.py:48 calls .item()")


def test_a_grad_scaler_wait_every_step_is_not_blamed_on_the_user() -> None:
    facts = dict(load_recording(DATA / "cuda_sync_every_step.json").facts)
    facts["run.syncs"] = [dict(s, kind="grad_scaler") for s in facts["run.syncs"]]
    assert [f.id for f in evaluate(Facts(facts), RULES).findings] == []


def test_mismatch_fix_points_at_the_forward_line() -> None:
    f = findings(load_recording(DATA / "cuda_mismatch.json"))["tensors_on_different_devices"]
    assert f.title == "train.py:43 mixes tensors on different devices"
    assert "parameters were on cuda:0 and its inputs on cpu" in f.explanation
    assert "before train.py:43: move every input" in f.fix


def test_starvation_uses_the_step_time_without_the_instruments() -> None:
    f = findings(load_recording(DATA / "cuda_starving_loader.json"))["dataloader_starvation"]
    # 0.26 s of 0.40 s per step, of which 500 ops x 6 µs were the instruments: 0.26 / 0.397
    assert f.title == "The training loop waits for data 65% of each step"
    assert "num_workers=0" in f.explanation and "pinned memory" in f.explanation
    assert "pin_memory=True" in f.fix


def test_the_recorded_gpu_trace_goes_into_the_report() -> None:
    report = run_report(load_recording(DATA / "cuda_perf_4gpu.json"))
    assert [g["index"] for g in report.monitor["gpus"]] == [0, 1, 2, 3]
    assert report.to_json()["monitor"]["markers"][1]["title"] == "Your script"


def test_no_accelerator_means_no_gpu_findings() -> None:
    """The same recorded behaviour without CUDA in the target: the script is not at fault."""
    for name in ("cuda_left_on_cpu.json", "cuda_sync_every_step.json", "cuda_starving_loader.json"):
        facts = dict(load_recording(DATA / name).facts)
        facts["run.accelerators"] = dict(
            facts["run.accelerators"], cuda_available=False, cuda_device_count=0, devices=[]
        )
        facts["run.ops"] = dict(facts["run.ops"], by_device={"cpu": facts["run.ops"]["total"]})
        facts["run.syncs"] = [dict(s, device="cpu") for s in facts["run.syncs"]]
        assert evaluate(Facts(facts), RULES).findings == [], name


def test_summary_shows_the_scripts_output_without_terminal_control_or_gpuassists_stack_dump() -> None:
    dump = [
        "Thread 0x00007f01 (most recent call first):",
        '  File "/tmp/lib.py", line 3 in wait',
        "",
        "Current thread 0x00007f02 (most recent call first):",
        '  File "/tmp/train.py", line 9 in <module>',
    ]
    output = ["epoch 1: 10%|\x1b[32m#\x1b[0m| 1/10\x1b[2K\x1b[1A", "\x1b]0;title\x07bytes \x00\x07\x9b here", ""]
    for tail in (output + dump, output + dump[1:]):  # the tail keeps the last lines: often not the dump's first
        facts = Facts(
            {
                "run.command": {"display": "python train.py"},
                "run.outcome": "cancelled",
                "run.error": "stopped by the user",
                "run.fault_traceback": "\n".join(dump),
                "run.stderr_tail": "\n".join(tail),
            }
        )
        text = summary_text(facts, width=WIDE)
        assert "What the script printed (last lines)\n  epoch 1: 10%|#| 1/10\n  bytes ??? here\n" in text
        assert "\x1b" not in text and "thread" not in text and "line 3" not in text and "line 9" not in text


@pytest.mark.parametrize(
    ("facts", "expected"),
    [
        (
            {
                "run.outcome": "ok",
                "run.torch": {"import_error": {"type": "ModuleNotFoundError", "message": "No module named 'torch'"}},
            },
            "not run: `import torch` fails in this interpreter (ModuleNotFoundError: No module named 'torch')",
        ),
        (
            {"run.outcome": "ok", "run.stop": {"reason": "exit", "exit_code": None, "seconds": 1.0, "steps": 3}},
            "the script called sys.exit() after 1.0 s (3 steps)",
        ),
        (
            {
                "run.outcome": "ok",
                "run.stop": {"reason": "steps", "seconds": 1.0, "steps": 1},
                "run.steps": {
                    "kind": "optimizer",
                    "count": 1,
                    "optimizers": {"SGD": 1},
                    "per_step": {"seconds": 0.02, "data_wait": 0.0, "ops": 10, "first_step_seconds": 0.02},
                },
            },
            "stopped after 1 step, as asked",
        ),
    ],
)
def test_summary_ending_words(facts: dict[str, Any], expected: str) -> None:
    text = summary_text(Facts({"run.command": {"display": "python t.py"}, **facts}), width=WIDE)
    assert re.search(r"How it ended +" + re.escape(expected), text)
    if facts.get("run.steps"):  # one step is all start-up: no "then ... each"
        assert re.search(r"The one step \(start-up included\) +20\.00 ms", text) and "(median)" not in text


# ---- the command after `--` ----------------------------------------------------------------------------


def test_parse_command_forms(tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text("print('hi')\n")
    env = {"PATH": os.path.dirname(PY)}
    c = parse_command(["python", "-u", "-X", "dev", "train.py", "--lr", "0.1"], cwd=str(tmp_path), env=env)
    assert (c.python, c.target, c.module, c.args, c.python_flags) == (
        "python",
        str(script),
        False,
        ("--lr", "0.1"),
        ("-u", "-X", "dev"),
    )
    assert c.display() == "python -u -X dev train.py --lr 0.1"
    m = parse_command(["python3.11", "-m", "pkg.train", "x"], cwd=str(tmp_path), env=env)
    assert (m.python, m.target, m.module, m.args) == ("python3.11", "pkg.train", True, ("x",))
    bare = parse_command(["train.py"], python=PY, cwd=str(tmp_path), env=env)
    assert bare.python == PY and bare.resolved == os.path.abspath(PY)
    script.write_text(f"#!{PY}\nprint('hi')\n")
    assert parse_command(["train.py"], cwd=str(tmp_path), env=env).python == PY  # the shebang's interpreter


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "nothing to run"),
        (["python"], "no script to run"),
        (["python", "-c", "print(1)"], "-c"),
        (["python", "missing.py"], "no such file"),
        (["python", "--version"], "unsupported interpreter option"),
        (["python", "-m"], "-m needs a module name"),
        (["ls", "-l"], "not a Python interpreter"),
    ],
)
def test_parse_command_errors_are_one_line(tmp_path: Path, argv: list[str], message: str) -> None:
    with pytest.raises(RunUsageError, match=message) as info:
        parse_command(argv, cwd=str(tmp_path), env={"PATH": "/usr/bin:/bin"})
    assert "\n" not in str(info.value)


def test_interpreter_given_twice_is_refused(tmp_path: Path) -> None:
    (tmp_path / "t.py").write_text("")
    with pytest.raises(RunUsageError, match="given twice"):
        parse_command(["python", "t.py"], python=PY, cwd=str(tmp_path))


def test_bound_and_secret_arguments() -> None:
    assert Bound.of() == Bound(30.0, None) and Bound.of(steps=5) == Bound(300.0, 5)
    with pytest.raises(RunUsageError):
        Bound.of(seconds=0)
    with pytest.raises(RunUsageError):
        Bound.of(steps=0)
    assert scrub_args(["--api-key", "abc", "--token=xyz", "--lr", "0.1", "--password"]) == [
        "--api-key",
        "<redacted>",
        "--token=<redacted>",
        "--lr",
        "0.1",
        "--password",
    ]


def test_docs_list_every_run_fact() -> None:
    doc = (Path(__file__).parents[1] / "docs" / "facts.md").read_text()
    section = doc.split("## Audit run facts", 1)[1].split("\n## ", 1)[0]
    keys = {k for stage in audit_script.STAGE_KEYS.values() for k in stage}
    keys |= set(replay([], RunCommand("python", "t.py"), Bound.of()).facts)
    assert all(f"`{k}`" in section for k in keys), sorted(k for k in keys if f"`{k}`" not in section)


def test_a_static_finding_on_the_same_line_becomes_one_finding_with_the_code_change(tmp_path: Path) -> None:
    from gpuassist.audit import audit_paths
    from gpuassist.audit.run import add_static_audit

    script = tmp_path / "train.py"
    script.write_text(
        "\n".join(
            [
                "import torch",
                "device = torch.device('cuda')",
                "model = torch.nn.Linear(4, 1).to(device)",
                "opt = torch.optim.SGD(model.parameters(), lr=0.1)",
                "total = 0.0",
                "for step in range(100):",
                "    x = torch.randn(8, 4, device=device)",
                "    loss = model(x).sum()",
                "    loss.backward()",
                "    opt.step()",
                "    total += loss.item()",
            ]
        )
        + "\n"
    )
    # .item() is on line 11, every step
    result = load_recording(DATA / "cuda_sync_every_step.json")
    facts = dict(result.facts)
    facts["run.syncs"] = [
        dict(s, site=dict(s["site"], file=str(script), line=11))
        for s in facts["run.syncs"]
        if s["kind"] == "item" and s["count"] == 50
    ]
    report = run_report(RunResult(result.command, result.bound, facts, result.events))
    static = audit_paths([str(script)])
    assert "host_device_sync_in_loop" in {f.id for f in static.findings}
    add_static_audit(report, static, str(tmp_path))
    (sync,) = [f for f in report.findings if f.id == "host_device_sync_in_loop"]
    assert "every step (50 times in 50 steps)" in sync.title  # the run's numbers
    assert "- " in sync.fix and "+ " in sync.fix  # the static audit's exact edit
    assert any(e.fact == "audit.location" for e in sync.evidence)


# ---- the command line ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_cli_audit_run_text_has_the_summary_and_the_static_fix(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpuassist.cli import main

    monkeypatch.chdir(Path(__file__).parents[1])
    code = main(["audit", "--run", "--steps", "3", "--", PY, "tests/data/audit_run/train_cpu.py"])
    out = capsys.readouterr().out
    assert code == 0  # the static audit's "never moved to a GPU" is a warning
    assert re.search(r"How it ended +stopped after 3 steps, as asked", out)
    assert "tests/data/audit_run/train_cpu.py:19" in out  # the .item() line, from the run
    assert "tests/data/audit_run/train_cpu.py:9:9" in out  # the model line, from the static audit


@pytest.mark.slow
def test_cli_audit_run_json_is_a_report_with_the_monitor_trace(capsys: pytest.CaptureFixture[str]) -> None:
    from gpuassist.cli import main

    code = main(["audit", "--run", "--format", "json", "--steps", "2", "--", PY, str(DATA / "device_mismatch.py")])
    data = json.loads(capsys.readouterr().out)
    assert code == 1
    assert data["schema"] == "gpuassist.report/1" and data["meta"]["source"] == "audit_run"
    assert data["findings"][0]["id"] == "tensors_on_different_devices"
    assert data["facts"]["run.exception"]["type"] == "RuntimeError"
    assert data["monitor"]["markers"] and data["monitor"]["t"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["audit", "--steps", "3", "x.py"], "go with --run"),
        (["audit", "--run", "--", "ls", "-l"], "not a Python interpreter"),
        (["audit", "--run", "--", "python", "missing.py"], "no such file"),
        (["audit", "--run", "--steps", "0", "--", "python", __file__], "at least 1"),
        (["audit", "--run", "--", "/nonexistent/python3", __file__], "cannot run /nonexistent/python3"),
        (
            ["audit", "--run", "python", "train.py", "--epochs", "2"],
            "--epochs 2: the script's own options go after `--`",
        ),
        (["audit", "x.py", "--bogus"], "unrecognized arguments: --bogus (see gpuassist audit --help)"),
    ],
)
def test_cli_audit_run_bad_usage_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    from gpuassist.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.slow
@pytest.mark.skipif(os.name == "nt", reason="POSIX signals")
def test_cli_ctrl_c_stops_the_script_and_still_reports() -> None:
    import signal
    import subprocess
    import time

    proc = subprocess.Popen(
        [PY, "-m", "gpuassist", "audit", "--run", "--seconds", "120", "--", PY, str(DATA / "tensor_loop.py")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        time.sleep(4)  # whether the script has started yet or not, Ctrl+C must end the run with a report
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert re.search(r"How it ended +stopped by the user", out)


@pytest.mark.slow
@pytest.mark.skipif(os.name == "nt", reason="POSIX process groups")
def test_when_gpuassist_is_killed_the_script_and_its_processes_end_too() -> None:
    import subprocess
    import time

    import psutil

    command = [
        PY,
        "-m",
        "gpuassist",
        "audit",
        "--run",
        "--seconds",
        "120",
        "--",
        PY,
        str(DATA / "waits_for_processes.py"),
    ]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    run: list[psutil.Process] = []
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not run:  # the audited script, once it has started its worker
            time.sleep(0.2)
            for child in psutil.Process(proc.pid).children():
                with contextlib.suppress(psutil.Error):
                    workers = child.children()
                    if "waits_for_processes.py" in " ".join(child.cmdline()) and workers:
                        run = [child, *workers]
        assert run
        proc.kill()  # no chance to clean up: the script's watchdog must notice and end its process group
        _, alive = psutil.wait_procs(run, timeout=10)
        assert [p for p in alive if p.status() != psutil.STATUS_ZOMBIE] == []
    finally:
        proc.kill()
        proc.wait(timeout=10)
        for leftover in run:  # a failure here must not leave them behind
            with contextlib.suppress(psutil.Error):
                leftover.kill()


def test_many_small_cpu_operators_beside_a_gpu_model_are_not_work_left_on_the_cpu() -> None:
    facts = dict(load_recording(DATA / "cuda_left_on_cpu.json").facts)
    facts["run.ops"] = dict(
        facts["run.ops"], compute=[{"op": "aten::convolution", "device": "cuda:0", "dtype": "float32", "count": 1000}]
    )
    assert "workload_left_on_cpu" not in {f.id for f in evaluate(Facts(facts), RULES).findings}
