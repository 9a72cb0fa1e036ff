"""The runtime tests for real on this CPU-only machine, in a subprocess of the dev interpreter, at the
"tiny" size: every CPU code path runs, results are checked against torch read separately, and the
event streams replay into the same facts. Accelerator paths are covered by test_runtime_recorded.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
import pytest

from gpuassist import cli
from gpuassist.facts import NotCollected
from gpuassist.probe import runtime_script
from gpuassist.runtime import run_bench, run_placement, run_sweep, runtime_facts_from_events, runtime_report
from gpuassist.runtime.common import RuntimeResult

pytestmark = pytest.mark.slow

CleanEnv = Callable[..., dict[str, str]]  # the clean_env fixture of tests/conftest.py


@pytest.fixture(scope="module")
def truth(clean_env: CleanEnv) -> dict[str, Any]:
    code = (
        "import json, torch; print(json.dumps({'version': torch.__version__, "
        "'available': torch.cuda.is_available(), 'count': torch.cuda.device_count(), "
        "'default': str(torch.ones(1).device)}))"
    )
    p = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True, env=clean_env()
    )
    return dict(json.loads(p.stdout.strip().splitlines()[-1]))


def run_collecting(fn: Any, env: dict[str, str], **kw: Any) -> tuple[RuntimeResult, list[dict[str, Any]]]:
    seen: list[dict[str, Any]] = []
    result = fn(size="tiny", on_event=seen.append, env=env, **kw)
    return result, seen


def assert_clean_run(result: RuntimeResult, seen: list[dict[str, Any]]) -> None:
    test = result.test
    assert result.outcome == "ok", result.facts.get(f"{test}.stderr_tail")
    assert [s["status"] for s in result.facts[f"{test}.stages"]] == ["ok"] * len(runtime_script.TESTS[test])
    assert seen == result.events  # every event reached the callback, in order
    assert runtime_facts_from_events(test, result.events) == result.facts  # a recording replays exactly
    assert psutil.Process().children(recursive=True) == []
    progress = [e for e in seen if e["event"] == "progress"]
    assert progress, "long stages report progress"
    assert all(0 <= e["done"] <= e["total"] and e["stage"] in runtime_script.TESTS[test] for e in progress)


@pytest.fixture(scope="module")
def placement(clean_env: CleanEnv) -> tuple[RuntimeResult, list[dict[str, Any]]]:
    return run_collecting(run_placement, clean_env())


def test_placement_on_this_machine(
    placement: tuple[RuntimeResult, list[dict[str, Any]]], truth: dict[str, Any]
) -> None:
    result, seen = placement
    assert_clean_run(result, seen)
    f = result.facts
    assert f["placement.torch"]["version"] == truth["version"]
    assert f["placement.cuda_available"] is truth["available"]
    assert f["placement.device_count"] == truth["count"]
    assert f["placement.default_device"]["tensor_device"] == truth["default"] == "cpu"
    cpu = next(c for c in f["placement.checks"] if c["device"] == "cpu")
    assert cpu["ok"] is True and cpu["tensor"]["max_abs_err"] == 0.0 and cpu["param_device"] == "cpu"
    mm = f["placement.mismatch"]
    assert mm["reproduced"] is True and mm["error_type"] == "RuntimeError"
    if not truth["available"]:
        # no accelerator: the meta device stands in, copy rows are skipped with a reason
        assert mm["stand_in"] is True and "meta" in mm["error_text"]
        assert f["bandwidth.rows"] == [] and f["bandwidth.peak"] == {}
        assert "no accelerator" in f["bandwidth.skipped"]
        assert isinstance(f["placement.transfer"], NotCollected)
    assert isinstance(f["bandwidth.host_memcpy_gbps"], float) and f["bandwidth.host_memcpy_gbps"] > 0


def test_placement_report_has_only_its_step(placement: tuple[RuntimeResult, list[dict[str, Any]]]) -> None:
    report = runtime_report([placement[0]], {})
    assert {f.step for f in report.findings} <= {"placement"}
    mismatch = next(f for f in report.findings if f.id == "tensors_on_different_devices")
    assert mismatch.severity.value == "info" and "model.to(device)" in mismatch.fix
    steps = {s["id"]: s["status"] for s in report.steps}
    assert steps["placement"] == "info" and steps["driver"] == "not_run" and steps["dataloader"] == "not_run"


def test_sweep_on_this_machine(clean_env: CleanEnv) -> None:
    result, seen = run_collecting(run_sweep, clean_env())
    assert_clean_run(result, seen)
    f = result.facts
    cfg = f["sweep.config"]
    assert cfg["device"] == "cpu" and cfg["batch_size"] == 8 and cfg["cpu_count"] == os.cpu_count()
    assert f["sweep.compute_seconds_per_batch"] > 0 and f["sweep.load_seconds_per_batch"] > 0
    default = f["sweep.default"]
    assert default["num_workers"] == 0 and default["pin_memory"] is False
    best = f["sweep.best"]
    assert best in f["sweep.trials"] and not best.get("aborted")
    complete = [t for t in f["sweep.trials"] if not t.get("aborted")]
    assert best["samples_per_s"] == max(t["samples_per_s"] for t in complete)
    assert f["sweep.speedup_vs_default"] == pytest.approx(best["samples_per_s"] / default["samples_per_s"], rel=1e-2)
    assert f["sweep.dataloader_line"] == runtime_script.loader_line(best, 8)
    assert f["sweep.dataloader_line"].startswith("DataLoader(dataset, batch_size=8, shuffle=True, num_workers=")
    assert f["sweep.bound"] in ("loader", "compute")
    assert all(s["num_workers"] > 0 and s["seconds"] >= 0 for s in f["sweep.worker_startup"])
    search = f["sweep.search"]
    assert search["mode"] == "adaptive" and search["adaptive"]["trials"] == len(f["sweep.trials"])
    assert search["adaptive"]["trials"] <= search["grid_size"]


def test_sweep_grid_measures_every_combination(clean_env: CleanEnv) -> None:
    result = run_sweep(size="tiny", mode="grid", env=clean_env(), sizes={"epochs": 1})
    assert result.ok
    f = result.facts
    # tiny: workers 0..2, no pinning on the CPU, persistent on/off, prefetch 2 → 1 + 2*2 combinations
    assert f["sweep.search"]["grid_size"] == 5 == len(f["sweep.trials"])
    keys = {runtime_script.cfg_key(t) for t in f["sweep.trials"]}
    assert len(keys) == 5 and not any(t.get("aborted") for t in f["sweep.trials"])


def test_bench_on_this_machine(clean_env: CleanEnv) -> None:
    result, seen = run_collecting(run_bench, clean_env())
    assert_clean_run(result, seen)
    f = result.facts
    cpu = f["bench.results"][0]
    assert cpu["device"] == "cpu" and cpu["variant"] == "fp32" and cpu["batch_size"] == 4
    assert cpu["images_per_s"] == pytest.approx(4 / cpu["step_ms"] * 1e3, rel=1e-3)
    assert f["bench.config"]["parameters"] > 10_000 and f["bench.config"]["input"] == [3, 32, 32]
    assert [(r["device"], r["batch_size"]) for r in f["bench.scaling"]] == [("cpu", 2), ("cpu", 4)]
    assert f["bench.variants"] == [] and f["bench.speedup"] == {}  # no accelerator here
    prof = f["bench.profile"]
    assert prof["device"] == "cpu" and prof["cpu_only_ops"] == []
    assert any("conv" in o["name"] for o in prof["top_cpu_ops"])
    assert "bench.gpu_samples" not in f  # NVML is not usable here: nothing sampled


def test_cancel_stops_the_sweep_and_its_workers(clean_env: CleanEnv) -> None:
    cancel = threading.Event()
    started = time.monotonic()

    def on_event(event: dict[str, Any]) -> None:
        if event["event"] == "progress" and event["stage"] == "search":
            cancel.set()  # the search is running DataLoader workers right now

    result = run_sweep(size="small", on_event=on_event, cancel=cancel, env=clean_env())
    assert result.outcome == "cancelled"
    assert result.facts["sweep.failed_stage"] == "search"
    assert isinstance(result.facts["sweep.best"], NotCollected)
    assert time.monotonic() - started < 60
    assert psutil.Process().children(recursive=True) == []
    hello = next(e for e in result.events if e["event"] == "hello")
    assert not psutil.pid_exists(hello["pid"])


def test_missing_interpreter_and_python_without_torch(clean_env: CleanEnv, tmp_path: Path) -> None:
    missing = run_placement(str(tmp_path / "nope"), size="tiny")
    assert missing.outcome == "interpreter_not_found"
    assert isinstance(missing.facts["placement.checks"], NotCollected)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "v")], check=True, timeout=120)
    bare = run_bench(str(tmp_path / "v" / "bin" / "python"), size="tiny", env=clean_env())
    assert bare.outcome == "ok"
    assert "ModuleNotFoundError" in bare.facts["bench.import_error"]
    stages = {s["stage"]: s["status"] for s in bare.facts["bench.stages"]}
    assert stages["import_torch"] == "failed" and stages["cpu"] == "skipped"
    assert isinstance(bare.facts["bench.results"], NotCollected)


def test_host_process_never_imports_torch(clean_env: CleanEnv) -> None:
    code = (
        "import sys\nfrom gpuassist.runtime import run_placement, runtime_report\n"
        "r = run_placement(size='tiny')\nrep = runtime_report([r], {})\n"
        "import gpuassist.cli, gpuassist.rules.runtime\n"
        "print(r.outcome, 'torch' in sys.modules)"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=clean_env())
    assert p.stdout.split() == ["ok", "False"], p.stderr


def test_cli_bench_json(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUASSIST_RUNTIME_SIZE", "tiny")
    rc = cli.main(["bench", "--format", "json", "--device", "cpu", "--python", sys.executable])
    out = capsys.readouterr().out
    data = json.loads(out)
    assert rc == 0 and data["schema"] == "gpuassist.report/1"
    assert data["facts"]["bench.outcome"] == "ok" and data["facts"]["bench.results"][0]["device"] == "cpu"
    steps = {s["id"]: s["status"] for s in data["steps"]}
    assert steps["benchmark"] == "ok" and steps["wheel"] == "not_run"
    assert data["meta"]["test"] == "bench" and data["meta"]["size"] == "tiny"


def test_cli_placement_text_and_bad_usage(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rc = cli.main(["placement", "--size", "tiny", "--python", sys.executable])
    out = capsys.readouterr().out
    assert rc == 0
    assert "Correctness on each device" in out and "What a device mismatch looks like" in out
    assert "tensors_on_different_devices" in out
    assert cli.main(["sweep", "--python", str(tmp_path / "missing")]) == 2
    assert "cannot run" in capsys.readouterr().err
