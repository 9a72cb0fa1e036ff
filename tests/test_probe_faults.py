"""Every way the target interpreter can fail, reproduced for real: each must become an outcome (facts),
never an exception, a hang, or a leftover process. Limits are short so the suite stays fast."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import psutil
import pytest

from gpuassist.facts import Facts, NotCollected
from gpuassist.probe.runner import (
    FAULT_ENV,
    ProbeResult,
    StageLimits,
    facts_from_events,
    parse_fault_traceback,
    run_probe,
)
from gpuassist.report.build import build_report

pytestmark = pytest.mark.slow

SHORT = StageLimits(startup=2.0, stages={"accel_init": 2.0, "smoke": 2.0}, grace=0.5)


def env_with(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in (FAULT_ENV, "PYTHONPATH")}
    env.update(extra)
    return env


def script(tmp_path: Path, name: str, body: str, mode: int = 0o755) -> Path:
    path = tmp_path / name
    path.write_text(body)
    path.chmod(mode)
    return path


def assert_nothing_left(result: ProbeResult) -> None:
    """No child of ours, and nobody left in the probe's process group."""
    assert psutil.Process().children(recursive=True) == []
    hello = [e for e in result.events if e["event"] == "hello"]
    if hello:
        assert not psutil.pid_exists(hello[0]["pid"])
    assert [t for t in threading.enumerate() if t.name.startswith("gpuassist-probe")] == []


def assert_replays(result: ProbeResult) -> None:
    assert facts_from_events(result.events) == result.facts


@pytest.fixture(scope="session")
def venvs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two throwaway venvs (no pip: fast): one whose torch import raises OSError, one with no torch."""
    root = tmp_path_factory.mktemp("venvs")
    made: dict[str, Path] = {}
    for name in ("broken", "empty"):
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / name)], check=True, timeout=120)
        made[name] = root / name / "bin" / "python"
    purelib = subprocess.run(
        [str(made["broken"]), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.strip()
    sp = Path(purelib)
    (sp / "torch").mkdir(parents=True)
    (sp / "torch" / "__init__.py").write_text('raise OSError("libtorch_cpu.so: cannot open shared object file")\n')
    meta = sp / "torch-2.5.1+cu124.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1+cu124\n")
    (meta / "INSTALLER").write_text("pip\n")
    return made


def test_missing_path(tmp_path: Path) -> None:
    result = run_probe(str(tmp_path / "nope" / "python"))
    f = result.facts
    assert f["probe.outcome"] == "interpreter_not_found"
    assert f["probe.error"] == "it does not exist"
    assert f["probe.python"] == str(tmp_path / "nope" / "python")
    assert isinstance(f["torch.version"], NotCollected) and isinstance(f["python.executable"], NotCollected)
    assert_replays(result)


def test_not_executable_and_directory_and_unknown_name(tmp_path: Path) -> None:
    plain = script(tmp_path, "python", "#!/bin/sh\n", mode=0o644)
    assert run_probe(str(plain)).facts["probe.error"] == "it is not executable"
    assert run_probe(str(tmp_path)).facts["probe.error"] == "it is a directory, not a program"
    nameless = run_probe("no-such-python-gpuassist", env=env_with(PATH=str(tmp_path)))
    assert nameless.facts["probe.outcome"] == "interpreter_not_found"
    assert "not found on PATH" in nameless.facts["probe.error"]


def test_program_that_is_not_a_python(tmp_path: Path) -> None:
    chatty = script(tmp_path, "chatty", "#!/bin/sh\necho 'I am not python'\necho 'usage: chatty' >&2\nexit 2\n")
    for exe in (chatty, Path("/bin/true")):
        result = run_probe(str(exe), limits=SHORT)
        f = result.facts
        assert f["probe.outcome"] == "interpreter_not_found", exe
        assert "without running the probe" in f["probe.error"]
        assert_nothing_left(result)
    assert "usage: chatty" in run_probe(str(chatty), limits=SHORT).facts["probe.error"]
    no_format = script(tmp_path, "binary", "\x7fELF garbage")
    assert run_probe(str(no_format)).facts["probe.outcome"] == "interpreter_not_found"


def test_python_too_old_for_the_probe_is_named_with_its_version(tmp_path: Path) -> None:
    """Python 2.7 / 3.6 cannot even parse the probe; the verdict must be "too old for PyTorch", never
    "not a Python". The fake answers the runner's version query the way an old CPython does."""
    old = script(
        tmp_path,
        "python3.6",
        '#!/bin/sh\nif [ "$1" = "-c" ]; then printf 3.6.15; exit 0; fi\n'
        'echo "  File \\"$3\\", line 31" >&2\necho "SyntaxError: future feature annotations is not '
        'defined" >&2\nexit 1\n',
    )
    result = run_probe(str(old), limits=SHORT)
    f = result.facts
    assert f["probe.outcome"] == "python_too_old"
    assert f["python.version"] == "3.6.15" and "needs Python 3.8" in f["probe.error"]
    assert_nothing_left(result)
    assert_replays(result)

    ids = [x.id for x in build_report(Facts(f), source="live").findings]
    assert "no_wheel_for_platform" in ids and "interpreter_not_found" not in ids

    liar = script(tmp_path, "liar", '#!/bin/sh\nif [ "$1" = "-c" ]; then echo not-a-version; fi\nexit 1\n')
    assert run_probe(str(liar), limits=SHORT).facts["probe.outcome"] == "interpreter_not_found"


def test_shell_script_that_segfaults(tmp_path: Path) -> None:
    result = run_probe(str(script(tmp_path, "segv-python", "#!/bin/sh\nkill -SEGV $$\n")), limits=SHORT)
    f = result.facts
    assert f["probe.outcome"] == "crashed"
    assert f["probe.signal"] == "SIGSEGV"
    assert f["probe.failed_stage"] == "startup"
    assert f["probe.returncode"] == -11
    assert_nothing_left(result)
    assert_replays(result)


def test_shell_script_that_hangs(tmp_path: Path) -> None:
    result = run_probe(str(script(tmp_path, "hang-python", "#!/bin/sh\nsleep 600\n")), limits=SHORT)
    f = result.facts
    assert f["probe.outcome"] == "timeout"
    assert f["probe.failed_stage"] == "startup"
    assert f["probe.limit_seconds"] == 2.0
    assert_nothing_left(result)  # `sleep` was in the process group too
    assert_replays(result)


def test_python_segfault_inside_a_stage_names_it_and_keeps_the_traceback() -> None:
    result = run_probe(env=env_with(**{FAULT_ENV: "segv:accel_init"}), limits=SHORT)
    f = result.facts
    assert f["probe.outcome"] == "crashed"
    assert f["probe.signal"] == "SIGSEGV"
    assert f["probe.failed_stage"] == "accel_init"
    assert f["probe.fault_traceback"].startswith("Fatal Python error: Segmentation fault")
    assert "probe_script.py" in f["probe.fault_traceback"]
    stages = {s["stage"]: s["status"] for s in f["probe.stages"]}
    assert stages["build"] == "ok" and stages["accel_init"] == "crashed" and stages["smoke"] == "skipped"
    assert isinstance(f["torch.version"], str)  # facts of finished stages are kept
    assert isinstance(f["cuda.available"], NotCollected)
    assert "SIGSEGV" in f["cuda.available"].reason
    assert_nothing_left(result)
    assert_replays(result)


def test_python_hang_inside_a_stage_is_stopped_with_its_stack() -> None:
    result = run_probe(env=env_with(**{FAULT_ENV: "hang:accel_init"}), limits=SHORT)
    f = result.facts
    assert f["probe.outcome"] == "timeout"
    assert f["probe.failed_stage"] == "accel_init"
    assert f["probe.limit_seconds"] == 2.0
    assert "in inject" in (f["probe.fault_traceback"] or "")  # faulthandler dumped it on SIGTERM
    timed_out = next(s for s in f["probe.stages"] if s["stage"] == "accel_init")
    assert timed_out["status"] == "timeout" and timed_out["limit"] == 2.0 and timed_out["seconds"] >= 2.0
    assert_nothing_left(result)
    assert_replays(result)


def test_exception_in_a_stage_is_a_failed_stage_not_a_failed_probe() -> None:
    result = run_probe(env=env_with(**{FAULT_ENV: "raise:devices"}), limits=SHORT)
    f = result.facts
    assert f["probe.outcome"] == "ok"
    devices = next(s for s in f["probe.stages"] if s["stage"] == "devices")
    assert devices["status"] == "failed" and "injected fault" in devices["error"]
    assert isinstance(f["devices"], NotCollected) and "injected fault" in f["devices"].reason
    assert f["smoke"][-1]["device"] == "cpu"  # later stages still ran


def test_exit_in_the_middle_is_failed() -> None:
    result = run_probe(env=env_with(**{FAULT_ENV: "exit:build"}), limits=SHORT)
    f = result.facts
    assert f["probe.outcome"] == "failed"
    assert f["probe.failed_stage"] == "build"
    assert f["probe.returncode"] == 3
    assert_replays(result)


def test_venv_whose_torch_import_raises(venvs: dict[str, Path]) -> None:
    result = run_probe(str(venvs["broken"]), limits=SHORT, env=env_with())
    f = result.facts
    assert f["probe.outcome"] == "ok"
    assert f["python.env_kind"] == "venv"
    err = f["torch.import_error"]
    assert err["type"] == "OSError"
    assert "libtorch_cpu.so" in err["message"] and "torch/__init__.py" in err["traceback"]
    assert [(d["version"], d["local_tag"], d["installer"]) for d in f["torch.dists"]] == [
        ("2.5.1+cu124", "cu124", "pip")
    ]
    stages = {s["stage"]: s["status"] for s in f["probe.stages"]}
    assert stages["import_torch"] == "failed" and stages["build"] == "skipped"
    # "could not look", never "no CUDA in the build"
    assert isinstance(f["torch.cuda_build"], NotCollected) and "OSError" in f["torch.cuda_build"].reason
    assert_replays(result)


def test_venv_without_torch(venvs: dict[str, Path]) -> None:
    result = run_probe(str(venvs["empty"]), limits=SHORT, env=env_with())
    f = result.facts
    assert f["probe.outcome"] == "ok"
    assert f["torch.import_error"]["type"] == "ModuleNotFoundError"
    assert "No module named 'torch'" in f["torch.import_error"]["message"]
    assert f["torch.dists"] == []
    assert f["torch.spec_origin"] is None
    assert f["python.executable"] == str(venvs["empty"])


def test_cancel_mid_run_stops_the_probe_at_once() -> None:
    cancel = threading.Event()
    events: list[dict[str, Any]] = []

    def on_event(event: dict[str, Any]) -> None:
        events.append(event)
        if event.get("stage") == "import_torch" and event.get("status") == "start":
            cancel.set()  # torch is importing right now

    box: dict[str, ProbeResult] = {}
    worker = threading.Thread(target=lambda: box.setdefault("r", run_probe(on_event=on_event, cancel=cancel)))
    worker.start()
    worker.join(timeout=30)
    assert not worker.is_alive()
    f = box["r"].facts
    assert f["probe.outcome"] == "cancelled"
    assert f["probe.failed_stage"] == "import_torch"
    killed = next(e for e in events if e["event"] == "killed")
    exited = next(e for e in events if e["event"] == "exit")
    assert exited["rt"] - killed["rt"] < 1.5  # gone within the grace period, not after the import
    assert_nothing_left(box["r"])


def test_broken_callback_does_not_stop_the_run() -> None:
    def on_event(event: dict[str, Any]) -> None:
        raise ValueError("display bug")

    result = run_probe(on_event=on_event, stages=["interpreter"], env=env_with())
    assert result.facts["probe.outcome"] == "ok"


def test_overall_cap_applies_whatever_the_stage_limits() -> None:
    limits = StageLimits(stages={"accel_init": 60.0}, overall=3.0, grace=0.5)
    result = run_probe(env=env_with(**{FAULT_ENV: "hang:accel_init"}), limits=limits)
    assert result.facts["probe.outcome"] == "timeout"
    assert result.facts["probe.limit_seconds"] == 3.0
    assert_nothing_left(result)


def test_fault_traceback_parsing() -> None:
    crash = """some warning
Fatal Python error: Segmentation fault

Current thread 0x00007f (most recent call first):
  File "/x/probe_script.py", line 10 in stage_accel_init
  File "/x/probe_script.py", line 20 in run

Extension modules: numpy.core, torch._C (total: 2)
after the dump""".splitlines()
    text = parse_fault_traceback(crash)
    assert text is not None
    assert text.startswith("Fatal Python error: Segmentation fault")
    assert "line 10 in stage_accel_init" in text and "after the dump" not in text
    dump = """noise
Thread 0x0000aa (most recent call first):
  File "/x/a.py", line 1 in worker

Current thread 0x0000bb (most recent call first):
  File "/x/probe_script.py", line 5 in inject""".splitlines()
    text = parse_fault_traceback(dump)
    assert text is not None and text.startswith("Thread 0x0000aa") and text.endswith("line 5 in inject")
    assert parse_fault_traceback(["just", "stderr"]) is None
