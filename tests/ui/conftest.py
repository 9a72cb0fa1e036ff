"""Qt test setup: offscreen platform, no modal dialogs, isolated settings, and a guard that FAILS any test
leaving a thread, a worker QThread or a child process running (docs/architecture.md §4, §6)."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["GPUASSIST_NO_DIALOGS"] = "1"
os.environ.setdefault("GPUASSIST_RUNTIME_SIZE", "tiny")  # the runtime steps' smallest preset: same code path

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest


def _threads() -> set[threading.Thread]:
    # _DummyThread: the Python shadow of a foreign (Qt) thread, never removed by Python; worker QThreads
    # are checked through gpuassist.ui.workers.LIVE_THREADS instead.
    return {t for t in threading.enumerate() if not isinstance(t, threading._DummyThread)}  # type: ignore[attr-defined]


@pytest.fixture(autouse=True)
def no_leaks() -> Iterator[None]:
    from gpuassist.ui import workers

    before = _threads()
    me = psutil.Process()
    yield
    leftover_threads = [t.name for t in _threads() - before if t.is_alive()]
    leftover_workers = len(workers.LIVE_THREADS)
    children = [p for p in me.children(recursive=True) if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    names = [f"{p.pid} {' '.join(p.cmdline()[:3])}" for p in children]
    for p in children:  # do not poison the next test
        p.kill()
    assert not leftover_threads, f"test left threads running: {leftover_threads}"
    assert not leftover_workers, f"test left {leftover_workers} worker QThread(s) running"
    assert not names, f"test left child processes running: {names}"


@pytest.fixture
def settings(tmp_path: Path) -> Any:
    """Isolated settings in which this test venv's interpreter (it has the CPU torch) was chosen before, so a
    window diagnoses the same interpreter on every machine and does not open the environment table to ask;
    tests of the default choice use ``fresh_settings``."""
    import sys

    from PySide6.QtCore import QSettings

    from gpuassist.ui.main_window import remembered_key

    s = QSettings(str(tmp_path / "gpuassist.ini"), QSettings.Format.IniFormat)
    s.setValue(remembered_key(), sys.executable)
    return s


@pytest.fixture
def fresh_settings(tmp_path: Path) -> Any:
    """Settings of a first start: nothing chosen yet."""
    from PySide6.QtCore import QSettings

    return QSettings(str(tmp_path / "fresh.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def make_window(qtbot: Any, settings: Any) -> Iterator[Any]:
    """make_window(*argv) → a shown MainWindow built like `gpuassist-gui ARGV`; closed (and every thread
    joined) at teardown, before the leak check."""
    from gpuassist.ui.app import build_window, parse_args

    made: list[Any] = []

    def make(*argv: str) -> Any:
        window = build_window(parse_args(argv), settings)
        qtbot.addWidget(window)
        window.show()
        made.append(window)
        return window

    yield make
    for w in made:
        w.close()
        deadline = time.monotonic() + 3
        while w.monitor.running and time.monotonic() < deadline:
            time.sleep(0.01)
