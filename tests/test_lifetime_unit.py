"""gpuassist.lifetime and the in-target scripts' lifetime guard, piece by piece (fast; the end-to-end cases
with a hanging target are in test_lifetime.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import psutil
import pytest

from gpuassist import interrupts, lifetime
from gpuassist.probe import channel

posix = pytest.mark.skipif(os.name == "nt", reason="POSIX signals")


@posix
def test_sigterm_and_sighup_become_an_interrupt_with_the_shells_status() -> None:
    for sig, status in ((signal.SIGTERM, 143), (signal.SIGHUP, 129)):
        with pytest.raises(interrupts.Terminated) as caught, interrupts.terminate_as_interrupt():
            os.kill(os.getpid(), sig)
            time.sleep(5)  # the handler raises before this ends
        assert isinstance(caught.value, KeyboardInterrupt)
        assert interrupts.exit_status(caught.value) == status
    assert interrupts.exit_status(KeyboardInterrupt()) == 130
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # restored on the way out


@posix
def test_a_signal_ignored_on_purpose_stays_ignored() -> None:
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with interrupts.terminate_as_interrupt():
            assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN  # nohup gpuassist …
    finally:
        signal.signal(signal.SIGHUP, previous)


@posix
@pytest.mark.slow
def test_leftovers_of_a_run_are_found_by_their_marker_and_killed() -> None:
    run_id = "test-run-marker"
    env = {**os.environ, **lifetime.run_environment(run_id)}
    mine = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], env=env, start_new_session=True)
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    try:
        deadline = time.monotonic() + 10
        while mine.pid not in {p.pid for p in lifetime.leftovers(run_id)} and time.monotonic() < deadline:
            time.sleep(0.05)
        assert lifetime.reap_run(run_id, grace=0.5) >= 1
        assert mine.wait(timeout=5) is not None
        assert other.poll() is None  # a process of no run is left alone
    finally:
        for p in (mine, other):
            p.kill()
            p.wait(timeout=5)


GUARDED = textwrap.dedent("""
    import os, runpy, sys, time
    ch = runpy.run_path(sys.argv[1])
    ch["guard_lifetime"](with_group=len(sys.argv) > 2)
    print("guarded", flush=True)
    time.sleep(60)
""")


@posix
@pytest.mark.slow
def test_a_script_whose_host_is_already_gone_exits_at_once() -> None:
    env = {**os.environ, channel.PARENT_ENV: "1"}  # not our pid: the host that started it has gone
    p = subprocess.run(
        [sys.executable, "-c", GUARDED, channel.__file__],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert p.returncode == 70 and "guarded" not in p.stdout


@posix
@pytest.mark.slow
def test_a_script_stops_at_its_own_overall_limit() -> None:
    env = {**os.environ, channel.OVERALL_ENV: "1"}
    started = time.monotonic()
    p = subprocess.run(
        [sys.executable, "-c", GUARDED, channel.__file__],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert p.returncode != 0 and time.monotonic() - started < 20
    assert "Timeout" in p.stderr  # faulthandler's dump: where it was


@posix
@pytest.mark.slow
@pytest.mark.parametrize("with_group", [False, True])
def test_a_script_dies_with_its_host_even_by_sigkill(with_group: bool) -> None:
    host = textwrap.dedent("""
        import os, subprocess, sys
        env = dict(os.environ, GPUASSIST_PARENT_PID=str(os.getpid()))
        p = subprocess.Popen([sys.executable, "-c", sys.argv[1], sys.argv[2], *sys.argv[3:]], env=env,
                             start_new_session=True, stdout=subprocess.PIPE, text=True)
        assert p.stdout.readline().strip() == "guarded"
        print(p.pid, flush=True)
        import time; time.sleep(60)
    """)
    extra = ["group"] if with_group else []
    proc = subprocess.Popen(
        [sys.executable, "-c", host, GUARDED, channel.__file__, *extra], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        script = int(proc.stdout.readline())
        proc.kill()  # SIGKILL: the host cannot clean anything up
        proc.wait(timeout=10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                if psutil.Process(script).status() == psutil.STATUS_ZOMBIE:
                    break
            except psutil.NoSuchProcess:
                break
            time.sleep(0.05)
        else:
            psutil.Process(script).kill()
            raise AssertionError("the script outlived its host")
    finally:
        proc.kill()
