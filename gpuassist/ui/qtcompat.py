"""Refuse Qt bindings that would crash the interpreter, with one clear line instead of an abort.

PySide6 6.12.0 hands out ``None``/``True``/``False`` without owning a reference (``Signal.emit()``,
``QObject.property()`` of a missing name, much of pyqtgraph's drawing path). On CPython < 3.12 these
singletons are reference-counted, so a running app eventually frees one and aborts ("Fatal Python
error: bool_dealloc"). 6.11 and earlier are sound, and pyproject.toml excludes 6.12.0; this check covers
an environment that got the bad release anyway.
"""

from __future__ import annotations

import sys

import PySide6
from PySide6.QtCore import QObject, Signal


class _Probe(QObject):
    ping = Signal()


def leaking_singletons(calls: int = 16) -> list[str]:
    """Names of the singletons these bindings lose references to (empty when they are sound)."""
    if sys.implementation.name != "cpython" or sys.version_info >= (3, 12):
        return []  # immortal singletons: a refcount bug cannot free them
    probe = _Probe()
    before = (sys.getrefcount(None), sys.getrefcount(True))
    for _ in range(calls):
        probe.ping.emit()
        probe.property("gpuassist-missing")
    after = (sys.getrefcount(None), sys.getrefcount(True))
    return [name for name, b, a in zip(("None", "True"), before, after, strict=True) if a <= b - calls // 2]


def unsound_bindings_message() -> str | None:
    """The one line to show when the installed PySide6 would crash the app, else None."""
    leaking = leaking_singletons()
    if not leaking:
        return None

    return (
        f"PySide6 {PySide6.__version__} loses references to {' and '.join(leaking)} and would crash Python "
        f"{sys.version_info.major}.{sys.version_info.minor}; install another release: "
        "python -m pip install 'PySide6-Essentials!=6.12.0'"
    )
