"""No process outlives gpuassist (issue #12, item 1), with real processes: the reproduction "orphaned probe"
(Ctrl+C, SIGTERM, SIGHUP, SIGKILL while the target hangs in ``import torch``), descendants that leave the
process group (``setsid``), a crashed runtime test as a finding, Ctrl+C on ``envs``, and the app closing on
SIGTERM.

The target is this interpreter with a planted ``torch`` package first on PYTHONPATH that records its pid,
optionally starts a ``setsid`` daemon, then hangs (or crashes). Every process a test starts is killed at
the end whatever happens, so a failing test leaves nothing behind either.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not sys.platform.startswith("linux"), reason="POSIX signals")]

GA = [sys.executable, "-m", "gpuassist.cli"]

HANGING_TORCH = """
import os, subprocess, sys, time
mark = os.environ["GA_TEST_MARK"]
if os.environ.get("GA_TEST_DAEMON"):
    d = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)"], start_new_session=True)
    open(os.path.join(mark, "%d.daemon" % d.pid), "w").close()
open(os.path.join(mark, "%d.probe" % os.getpid()), "w").close()
if os.environ.get("GA_TEST_CRASH"):
    import ctypes
    ctypes.string_at(0)
time.sleep(10 ** 6)
"""


@pytest.fixture
def planted(tmp_path: Path, clean_env) -> Iterator[tuple[dict[str, str], Path]]:  # type: ignore[no-untyped-def]
    site = tmp_path / "site"
    (site / "torch").mkdir(parents=True)
    (site / "torch" / "__init__.py").write_text(HANGING_TORCH)
    mark = tmp_path / "mark"
    mark.mkdir()
    env = clean_env(PYTHONPATH=str(site), GA_TEST_MARK=str(mark), GPUASSIST_RUNTIME_SIZE="tiny")
    yield env, mark
    for f in mark.iterdir():  # whatever a failed test left behind
        with contextlib.suppress(psutil.Error, ValueError):
            psutil.Process(int(f.stem)).kill()


def _pids(mark: Path, kind: str, timeout: float = 90.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [int(f.stem) for f in mark.glob(f"*.{kind}")]
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"no {kind} started within {timeout} s")


def _gone(pid: int, timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.1)
    return False


def _start(args: list[str], env: dict[str, str], cwd: Path | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        args, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )


def _stop(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(Exception):
        proc.communicate(timeout=10)


@pytest.mark.parametrize(
    ("sig", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGKILL, -9)]
)
def test_no_probe_outlives_diagnose_whatever_stops_it(
    planted: tuple[dict[str, str], Path], sig: int, status: int
) -> None:
    env, mark = planted
    if sig != signal.SIGKILL:
        env = {**env, "GA_TEST_DAEMON": "1"}
    proc = _start([*GA, "diagnose", "--python", sys.executable], env)
    try:
        probe = _pids(mark, "probe")[0]
        proc.send_signal(sig)
        proc.communicate(timeout=30)
        assert proc.returncode == status
        assert _gone(probe), "the probe outlived gpuassist"
        if sig != signal.SIGKILL:  # a setsid daemon of the target: reaped as the run's leftover
            assert all(_gone(d) for d in _pids(mark, "daemon", 5)), "a setsid descendant outlived gpuassist"
    finally:
        _stop(proc)


def test_a_crashed_runtime_test_is_an_error_finding_exit_1(planted: tuple[dict[str, str], Path]) -> None:
    env, _ = planted
    p = subprocess.run(
        [*GA, "bench", "--python", sys.executable, "--format", "json"],
        env={**env, "GA_TEST_CRASH": "1"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert p.returncode == 1, p.stderr
    report = json.loads(p.stdout)
    crashed = [f for f in report["findings"] if f["id"] == "probe_crashed"]
    assert crashed and crashed[0]["severity"] == "error" and crashed[0]["step"] == "benchmark"
    assert "SIGSEGV" in crashed[0]["title"]
    assert report["steps"][-1]["status"] == "error"
    text = subprocess.run(
        [*GA, "bench", "--python", sys.executable],
        env={**env, "GA_TEST_CRASH": "1"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    ).stdout
    assert "crashed (SIGSEGV in stage import_torch)" in text and "No problem found" not in text


def test_a_hung_runtime_test_stopped_by_sigterm_leaves_nothing(planted: tuple[dict[str, str], Path]) -> None:
    env, mark = planted
    proc = _start([*GA, "placement", "--python", sys.executable], {**env, "GA_TEST_DAEMON": "1"})
    try:
        script = _pids(mark, "probe")[0]
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
        assert proc.returncode == 143
        assert _gone(script)
        assert all(_gone(d) for d in _pids(mark, "daemon", 5))
    finally:
        _stop(proc)


def test_a_setsid_daemon_of_an_audited_script_is_reaped(tmp_path: Path, clean_env) -> None:  # type: ignore[no-untyped-def]
    mark = tmp_path / "mark"
    mark.mkdir()
    script = tmp_path / "train.py"
    script.write_text(
        "import os, subprocess, sys\n"
        "d = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(1000)'], "
        "start_new_session=True)\n"
        f"open(os.path.join({str(mark)!r}, '%d.daemon' % d.pid), 'w').close()\nprint('done')\n"
    )
    p = subprocess.run(
        [*GA, "audit", "--run", "--seconds", "20", "--", sys.executable, str(script)],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    daemons = _pids(mark, "daemon", 1)
    try:
        assert p.returncode in (0, 1), p.stderr
        assert all(_gone(d, 5) for d in daemons), "the script's setsid daemon outlived the audit"
    finally:
        for d in daemons:
            with contextlib.suppress(psutil.Error):
                psutil.Process(d).kill()


def test_ctrl_c_on_envs_returns_promptly(tmp_path: Path, clean_env) -> None:  # type: ignore[no-untyped-def]
    mark = tmp_path / "mark"
    mark.mkdir()
    slow = tmp_path / "bin" / "python3"
    slow.parent.mkdir()
    slow.write_text(f"#!/bin/sh\ntouch {mark}/$$.probe\nexec sleep 1000\n")
    slow.chmod(0o755)
    proc = _start([*GA, "envs", "--python", str(slow), "--timeout", "120"], clean_env(), cwd=tmp_path)
    try:
        started = _pids(mark, "probe")
        time.sleep(0.5)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
        assert time.monotonic() - sent < 10, "Ctrl+C waited for the interpreter's time limit"
        assert proc.returncode == 130
        assert all(_gone(pid) for pid in started)
    finally:
        _stop(proc)


def test_the_app_closes_on_sigterm_and_its_probe_dies(planted: tuple[dict[str, str], Path]) -> None:
    env, mark = planted
    env = {
        **env,
        "QT_QPA_PLATFORM": "offscreen",
        "GPUASSIST_NO_DIALOGS": "1",
        "XDG_STATE_HOME": str(mark.parent),
        "XDG_CONFIG_HOME": str(mark.parent),
    }
    proc = _start([sys.executable, "-m", "gpuassist.gui_entry", "--python", sys.executable, "--run"], env)
    try:
        probe = _pids(mark, "probe", 120)[0]
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
        assert proc.returncode == 143
        assert _gone(probe), "the probe outlived the app"
    finally:
        _stop(proc)


def test_a_crashed_runtime_step_in_the_app_is_an_error_finding_for_screen_and_exports(tmp_path: Path) -> None:
    import threading

    from gpuassist.findings import Severity
    from gpuassist.wizard import StepContext, StepStatus
    from gpuassist.wizard.steps import runtime_step

    broken = tmp_path / "python"
    broken.write_text("#!/bin/sh\necho 'Segmentation fault' >&2\nkill -SEGV $$\n")
    broken.chmod(0o755)
    result = runtime_step("placement")(StepContext(target=str(broken)), lambda ev: None, threading.Event())
    assert result.status is StepStatus.ERROR
    crashed = [f for f in result.findings if f.id == "probe_crashed"]
    assert crashed and crashed[0].severity is Severity.ERROR and crashed[0].step == "placement"
