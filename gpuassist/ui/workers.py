"""Background workers: run a blocking function on a QThread, report back through queued signals.

Why: the probe subprocess, host collection and the runtime tests block for seconds; the UI thread must
keep drawing (budget: event-loop latency p99 < 50 ms). Cancel is cooperative: the function receives a
``threading.Event`` that the probe runner polls (it then kills the probe's process group).

Every started QThread is kept in :data:`LIVE_THREADS` until it has finished, so nothing is destroyed
while running and tests can check that no worker outlives the window.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import TypeVar, cast

from PySide6.QtCore import QObject, Qt, QThread, Signal, Slot

log = logging.getLogger(__name__)

E = TypeVar("E")  # the events the function emits (typed where they are made: wizard.model, probe.events)
R = TypeVar("R")  # what the function returns
#: ``fn(emit, cancel)``. The worker itself only carries its events and value (as objects) from one thread to
#: the other: :func:`start_worker` ties their types to the callbacks.
WorkFn = Callable[[Callable[[object], None], threading.Event], object]
LIVE_THREADS: dict[QThread, WorkerHandle] = {}  # thread → handle (keeps worker and relay alive)


def one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


class Worker(QObject):
    """Runs ``fn(emit, cancel)`` once. Signals arrive on the receiver's (UI) thread.

    Python objects travel through ``events`` (a thread-safe queue) and ``value``, not as signal
    arguments: PySide6 6.12 mis-counts references of Python objects sent through queued ``Signal(object)``
    connections (the fact dicts' True/False were freed, aborting the interpreter). Signals only say
    "look now".
    """

    started = Signal()
    progress = Signal()  # new events in ``events``
    returned = Signal()  # ``value`` holds fn's return value
    errored = Signal(str)  # one line, never a traceback
    done = Signal()  # after returned/errored, always

    def __init__(self, fn: WorkFn) -> None:
        super().__init__()
        self.fn = fn
        self.cancel = threading.Event()
        self.events: queue.SimpleQueue[object] = queue.SimpleQueue()
        self.value: object = None

    def post(self, event: object) -> None:
        """Called on the worker thread for each event."""
        self.events.put(event)
        self.progress.emit()

    @Slot()
    def run(self) -> None:
        self.started.emit()
        try:
            self.value = self.fn(self.post, self.cancel)
        except Exception as exc:  # shown as one line; the traceback goes to the log
            log.exception("worker failed")
            self.errored.emit(one_line(exc))
        else:
            self.returned.emit()
        finally:
            self.done.emit()


class WorkerHandle:
    """A started worker: cancel it, wait for it, ask whether it still runs."""

    def __init__(self, thread: QThread, worker: Worker) -> None:
        self.thread = thread
        self.worker = worker
        self.relay: QObject | None = None

    @property
    def running(self) -> bool:
        return self.thread in LIVE_THREADS

    def cancel(self) -> None:
        self.worker.cancel.set()

    def wait(self, timeout: float) -> bool:
        """Block up to ``timeout`` s for the thread to end (used on close); True when it ended."""
        deadline = time.monotonic() + timeout
        ok = self.thread.wait(max(1, int(timeout * 1000)))
        if ok:
            _forget(self.thread)
        return ok and time.monotonic() <= deadline + 0.05


def _forget(thread: QThread) -> None:
    LIVE_THREADS.pop(thread, None)


class _Relay(QObject):
    """Lives on the UI thread: worker signals connected to its slots are queued to the UI thread (a plain
    lambda has no thread affinity and could run on the worker thread)."""

    def __init__(
        self,
        thread: QThread,
        worker: Worker,
        on_progress: Callable[[object], None] | None,
        on_returned: Callable[[object], None] | None,
        on_errored: Callable[[str], None] | None,
        on_done: Callable[[], None] | None,
    ) -> None:
        super().__init__()
        self.qthread = thread
        self.worker = worker
        self.cbs = (on_progress, on_returned, on_errored, on_done)

    @Slot()
    def progress(self) -> None:
        while True:
            try:
                event = self.worker.events.get_nowait()
            except queue.Empty:
                return
            if self.cbs[0] is not None:
                self.cbs[0](event)

    @Slot()
    def returned(self) -> None:
        self.progress()  # every event before the result
        if self.cbs[1] is not None:
            self.cbs[1](self.worker.value)

    @Slot(str)
    def errored(self, message: str) -> None:
        if self.cbs[2] is not None:
            self.cbs[2](message)

    @Slot()
    def finished(self) -> None:
        self.progress()
        self.qthread.wait()  # returns at once: the thread emitted finished on its way out
        _forget(self.qthread)
        if self.cbs[3] is not None:
            self.cbs[3]()


def start_worker(
    fn: Callable[[Callable[[E], None], threading.Event], R],
    *,
    on_progress: Callable[[E], None] | None = None,
    on_returned: Callable[[R], None] | None = None,
    on_errored: Callable[[str], None] | None = None,
    on_done: Callable[[], None] | None = None,
) -> WorkerHandle:
    """Start ``fn`` on a new QThread; callbacks run on the calling (UI) thread, ``on_done`` last.
    ``on_progress`` gets each event ``fn`` emitted, ``on_returned`` its value."""
    thread = QThread()
    thread.setObjectName("gpuassist-worker")
    worker = Worker(fn)
    worker.moveToThread(thread)
    # the queue and value hold exactly what fn emitted and returned: hand them back with their types
    progress = cast("Callable[[object], None] | None", on_progress)
    returned = cast("Callable[[object], None] | None", on_returned)
    relay = _Relay(thread, worker, progress, returned, on_errored, on_done)
    handle = WorkerHandle(thread, worker)
    handle.relay = relay
    worker.progress.connect(relay.progress)
    worker.returned.connect(relay.returned)
    worker.errored.connect(relay.errored)
    thread.started.connect(worker.run)
    # direct: the QThread object lives on the UI thread, which may be blocked in wait() on close
    worker.done.connect(thread.quit, Qt.ConnectionType.DirectConnection)
    thread.finished.connect(relay.finished)
    LIVE_THREADS[thread] = handle
    thread.start()
    return handle
