"""SIGTERM and SIGHUP stop gpuassist the way Ctrl+C does (issue #12: no process outlives gpuassist).

Python turns SIGINT into KeyboardInterrupt, and every cancellation path (the CLI's runs, the app's close)
already handles that. SIGTERM (``kill``, a logout, a container stop) and SIGHUP (the terminal closed)
would instead end the process at once, skipping them and leaving the runs' processes behind. Here they
become :class:`Terminated`, a KeyboardInterrupt (CLI), or a call that closes the window (app); and
:func:`run_cancellable` runs the CLI's work on a worker thread so that an interrupt in the main thread
cancels it and waits for its processes to be stopped, instead of abandoning them. A signal
ignored on purpose (``nohup``) stays ignored. Standard library only: the app installs this before its
window shows (start-up budget).
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any, TypeVar

CANCEL_WAIT = 15.0  # seconds an interrupted command waits for its runs to stop before it goes on anyway
T = TypeVar("T")


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived: stop like Ctrl+C, exit with 128 + the signal's number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_status(self) -> int:
        return 128 + self.signum


def exit_status(interrupt: KeyboardInterrupt) -> int:
    """130 for Ctrl+C, 143 for SIGTERM, 129 for SIGHUP (the shell's convention)."""
    return interrupt.exit_status if isinstance(interrupt, Terminated) else 130


def _raise_terminated(signum: int, _frame: FrameType | None) -> None:
    raise Terminated(signum)


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """While inside: SIGTERM and SIGHUP raise :class:`Terminated` in the main thread (like Ctrl+C raises
    KeyboardInterrupt), so cleanup code runs for them. Outside the main thread it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous: dict[int, Any] = {}
    for name in ("SIGTERM", "SIGHUP"):
        num = getattr(signal, name, None)
        if num is None:
            continue
        if signal.getsignal(num) == signal.SIG_IGN:
            continue  # `nohup gpuassist …`: the user asked for that signal to be ignored
        with contextlib.suppress(OSError, ValueError):
            previous[num] = signal.signal(num, _raise_terminated)
    try:
        yield
    finally:
        for num, handler in previous.items():
            with contextlib.suppress(OSError, ValueError, TypeError):
                signal.signal(num, handler)


def install_qt_handlers(on_signal: Callable[[int], None]) -> Callable[[], None]:
    """For the app: SIGINT, SIGTERM and SIGHUP call ``on_signal`` (close the window) in the main thread.
    Returns a function that restores the previous handlers. Python runs signal handlers only between
    bytecodes, so the caller keeps the interpreter ticking (a Qt timer) while the event loop runs."""
    previous: dict[int, Any] = {}

    def handler(signum: int, _frame: FrameType | None) -> None:
        on_signal(signum)

    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        num = getattr(signal, name, None)
        if num is None:
            continue
        if signal.getsignal(num) == signal.SIG_IGN:
            continue  # ignored on purpose (nohup, a background job without job control)
        with contextlib.suppress(OSError, ValueError):
            previous[num] = signal.signal(num, handler)

    def restore() -> None:
        for num, old in previous.items():
            with contextlib.suppress(OSError, ValueError, TypeError):
                signal.signal(num, old)

    return restore


def run_cancellable(work: Callable[[threading.Event], T], *, keep_result: bool = False, wait: float = CANCEL_WAIT) -> T:
    """Run ``work(cancel)`` on a worker thread while this (main) thread waits for it, so Ctrl+C, SIGTERM
    and SIGHUP land here: they set ``cancel`` and wait for the work to stop its processes (the runner kills
    their process groups) before the interrupt goes on. ``keep_result``: an interrupted run still returns
    what it gathered (``audit --run`` reports what the script did until then)."""
    cancel, done = threading.Event(), threading.Event()
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["result"] = work(cancel)
        except BaseException as exc:  # re-raised on the main thread
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name="gpuassist-work", daemon=True).start()
    interrupted: KeyboardInterrupt | None = None
    deadline: float | None = None
    while not done.is_set():
        try:
            done.wait(0.2)  # an Event, not Thread.join: a join interrupted by Ctrl+C can lose track of it
        except KeyboardInterrupt as exc:
            interrupted = interrupted or exc
            cancel.set()
            deadline = deadline or time.monotonic() + wait
        if deadline is not None and time.monotonic() > deadline:
            break  # the processes are still reaped on the way out (lifetime.reap_descendants)
    if interrupted is not None and not (keep_result and "result" in box):
        raise interrupted
    if "error" in box:
        raise box["error"]
    result: T = box["result"]
    return result
