"""The protocol stream of the scripts that run inside the target interpreter (probe, runtime tests, audit run),
and the few start-up chores and device helpers they share.

Standard library only, Python 3.8+, and it never imports gpuassist. Run as scripts, they load this file by
its path (``runpy.run_path``), not through ``sys.path``: a module of the same name in the user's project,
or one a ``sitecustomize`` imported first, can never stand in for it, and nothing is left in
``sys.modules`` under a name the user's code could import. Imported as part of the package
(host side, tests), they import ``gpuassist.probe.channel`` like any module.

One JSON object per line on a private duplicate of the original stdout, flushed by the write itself.
Once a :class:`Channel` exists, fd 1 points at stderr: whatever torch, a C library or the user's script
prints ends up there and cannot corrupt the stream. Sending is serialised by a lock, so a watchdog
thread and the main thread can both report without interleaving their lines.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
from typing import Any

T0 = time.perf_counter()


class Channel:
    """The protocol stream: a private duplicate of the original stdout (user output goes to stderr)."""

    def __init__(self, fd: int | None = None) -> None:
        if fd is None:
            with contextlib.suppress(Exception):
                sys.stdout.flush()  # output produced so far goes where it was headed
            fd = os.dup(1)  # not inheritable: child processes cannot write to it
            with contextlib.suppress(OSError):
                os.dup2(2, 1)  # from now on fd 1 (print, C printf) ends up on stderr
        self.fd = fd
        self.first = True
        self.lock = threading.Lock()

    def send(self, obj: dict[str, Any]) -> None:
        data = json.dumps(obj, default=repr, separators=(",", ":")) + "\n"
        with self.lock:
            if self.first:
                # a partial line printed before the channel existed must not swallow the first event
                data = "\n" + data
                self.first = False
            raw = data.encode("utf-8", "replace")
            while raw:
                n = os.write(self.fd, raw)
                raw = raw[n:]

    def t(self) -> float:
        """Seconds since the script started (this module is loaded first thing)."""
        return round(time.perf_counter() - T0, 4)


class NullChannel(Channel):
    """Keeps events in memory: lets stage functions run in-process (tests, benchmarks)."""

    def __init__(self) -> None:
        self.fd = -1
        self.first = False
        self.lock = threading.Lock()
        self.sent: list[dict[str, Any]] = []

    def send(self, obj: dict[str, Any]) -> None:
        self.sent.append(obj)



def sync(torch: Any, device: str) -> None:
    """Wait for the device: timing without it measures how fast work is queued, not done."""
    if device.startswith("cuda"):
        torch.cuda.synchronize(device)
    elif device == "mps":
        torch.mps.synchronize()
    elif device.startswith("xpu"):
        torch.xpu.synchronize(device)


def dump_stacks_on_sigterm() -> None:
    """The runner stops a hung script with SIGTERM: leave the Python stack of every thread on stderr first
    (faulthandler, chained to the default action). Not available on Windows."""
    import faulthandler
    import signal

    if hasattr(faulthandler, "register") and hasattr(signal, "SIGTERM"):
        with contextlib.suppress(Exception):
            faulthandler.register(signal.SIGTERM, all_threads=True, chain=True)


PARENT_ENV = "GPUASSIST_PARENT_PID"  # the host's pid (gpuassist.lifetime)
OVERALL_ENV = "GPUASSIST_OVERALL_SECONDS"  # this script's own last-resort limit
PR_SET_PDEATHSIG = 1


def guard_lifetime(default_overall: float = 600.0, *, with_group: bool = False) -> None:
    """This script never outlives gpuassist, nor runs forever: first thing in every in-target script.

    - the parent may already have died before this line: then it exits at once;
    - Linux, ``with_group`` false (the probe, the runtime tests): the kernel sends SIGKILL when the parent
      dies (``PR_SET_PDEATHSIG``), which works even while a native call (a wedged CUDA init) holds the GIL;
    - elsewhere, or ``with_group`` (the audit run, whose user script starts processes of its own): a
      watchdog thread checks every half second that the parent is still there, and when it is not kills
      this process group, the script's children included (an instant SIGKILL would leave them behind);
    - an overall limit (``GPUASSIST_OVERALL_SECONDS``, a little above the host's own) enforced by
      faulthandler's C watchdog thread, which dumps the stacks and exits without needing the GIL.
    The variables are removed from the environment, so the user's code and its children do not see them.
    """
    import faulthandler
    import signal

    expected = os.environ.pop(PARENT_ENV, "")
    overall_text = os.environ.pop(OVERALL_ENV, "")
    try:
        overall = float(overall_text) if overall_text else default_overall
    except ValueError:
        overall = default_overall
    kernel_watch = False
    if sys.platform.startswith("linux") and not with_group:
        with contextlib.suppress(Exception):
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            kernel_watch = libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    parent = os.getppid()
    if expected.isdigit() and int(expected) != parent and os.name != "nt":
        os._exit(70)  # the host is gone already: nobody would read us, nobody would stop us
    if 0 < overall < float("inf"):
        with contextlib.suppress(Exception):
            faulthandler.dump_traceback_later(overall, exit=True)
    if os.name == "nt" or kernel_watch:
        return
    me = os.getpid()

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getpid() != me:  # a forked child has no business here
                return
            if os.getppid() != parent:
                with contextlib.suppress(OSError):
                    if os.getpgid(0) == me:  # our own group (the host starts us in a new session)
                        os.killpg(0, signal.SIGKILL)
                os._exit(70)

    threading.Thread(target=watch, name="gpuassist-parent-watch", daemon=True).start()


def parse_limits(items: list[str], defaults: dict[str, float] | None = None) -> dict[str, float]:
    """``--limit STAGE=SECONDS`` arguments over ``defaults``; a malformed one is ignored (the host's limit
    still applies)."""
    limits = dict(defaults or {})
    for item in items:
        name, _, value = item.partition("=")
        with contextlib.suppress(ValueError):
            limits[name] = float(value)
    return limits
