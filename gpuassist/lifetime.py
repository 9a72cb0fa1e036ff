"""No process outlives gpuassist (design §2: every subprocess dies with us).

Three locks, each for a way a process could be left behind:

- every in-target script (probe, runtime tests, audit run) watches its parent and has an overall limit of
  its own (``gpuassist/probe/channel.py``, :func:`guard_lifetime`): when gpuassist is killed outright
  (SIGKILL, a crash), the kernel kills the script (Linux) or its watchdog does;
- SIGTERM and SIGHUP stop gpuassist like Ctrl+C (:mod:`gpuassist.interrupts`), so the CLI's and the app's
  cancellation paths (stop the runs, kill their process groups, report) run for them too;
- a run's descendants carry a marker in their environment (:data:`RUN_ID_ENV`); whatever is still alive
  with it when the run ends, even a daemon that left the process group with ``setsid``, is killed
  (:func:`reap_run`). On Linux the ``gpuassist`` command (short-lived) is a child subreaper, so such
  orphans become its children, are found among its descendants instead of the whole process table, and
  whatever is left is killed when it exits (:func:`reap_descendants`). The app is not a subreaper: in a
  long session, orphans that end on their own would stay zombies; its runs' leftovers are found by the
  marker in the process table.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import sys

import psutil

log = logging.getLogger(__name__)

RUN_ID_ENV = "GPUASSIST_RUN_ID"  # inherited by every descendant of a run: how its leftovers are recognised
PARENT_ENV = "GPUASSIST_PARENT_PID"  # the script checks it still has this parent (it may have died already)
OVERALL_ENV = "GPUASSIST_OVERALL_SECONDS"  # the script's own last-resort limit
PR_SET_CHILD_SUBREAPER = 36
GRACE = 1.0  # SIGTERM → SIGKILL for leftovers

_subreaper = False


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux ≥ 3.4); False where unsupported."""
    global _subreaper
    if _subreaper:
        return True
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        _subreaper = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        _subreaper = False
    return _subreaper


def run_environment(run_id: str) -> dict[str, str]:
    """Variables a run's script gets: the marker its descendants inherit, and this process's id (the script
    checks it still has that parent)."""
    return {RUN_ID_ENV: run_id, PARENT_ENV: str(os.getpid())}


def _carries(proc: psutil.Process, run_id: str) -> bool:
    try:
        return bool(proc.environ().get(RUN_ID_ENV) == run_id)
    except (psutil.Error, OSError):
        return False


def leftovers(run_id: str) -> list[psutil.Process]:
    """Processes of run ``run_id`` still alive: among this process's descendants when it is a subreaper
    (orphans come back to it), else among all processes of this user."""
    me = psutil.Process()
    try:
        if _subreaper:
            pool = me.children(recursive=True)
        else:
            uid = os.getuid() if hasattr(os, "getuid") else None
            pool = [
                p
                for p in psutil.process_iter(["uids"])
                if p.pid != me.pid and (uid is None or (p.info.get("uids") and p.info["uids"].real == uid))
            ]
    except (psutil.Error, OSError):
        return []
    return [p for p in pool if _carries(p, run_id)]


def kill_all(procs: list[psutil.Process], grace: float = GRACE) -> int:
    """SIGTERM, then SIGKILL after ``grace`` seconds for those still alive; reaps them. Returns how many."""
    if not procs:
        return 0
    for p in procs:
        with contextlib.suppress(psutil.Error, OSError):
            p.terminate()
    _, alive = psutil.wait_procs(procs, timeout=grace)
    for p in alive:
        with contextlib.suppress(psutil.Error, OSError):
            p.kill()
    psutil.wait_procs(alive, timeout=grace)
    return len(procs)


def reap_run(run_id: str, grace: float = GRACE) -> int:
    """Kill whatever run ``run_id`` left behind (e.g. a ``setsid`` daemon of the user's script)."""
    found = leftovers(run_id)
    if found:
        log.info("run %s left %d process(es) behind; killing them", run_id, len(found))
    return kill_all(found, grace)


def descendant_pids() -> set[int]:
    try:
        return {p.pid for p in psutil.Process().children(recursive=True)}
    except (psutil.Error, OSError):
        return set()


def reap_descendants(grace: float = GRACE, *, exclude: set[int] | None = None) -> int:
    """Kill every process still descending from this one, but those in ``exclude`` (the CLI's last act:
    nothing it started, directly or through an orphaned grandchild it adopted as subreaper, outlives it)."""
    try:
        procs = [p for p in psutil.Process().children(recursive=True) if p.pid not in (exclude or set())]
    except (psutil.Error, OSError):
        return 0
    return kill_all(procs, grace)
