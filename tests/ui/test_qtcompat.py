"""The installed Qt bindings must not lose references to None/True/False (PySide6 6.12.0 does, which
aborts Python < 3.12 after a minute of emits and redraws); the app refuses such bindings."""

from __future__ import annotations

import gc
import sys

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, Signal

from gpuassist.ui import qtcompat


class Emitter(QObject):
    changed = Signal(int)


def test_installed_bindings_keep_singleton_references_through_emits_and_redraws(qtbot: object) -> None:
    assert qtcompat.leaking_singletons() == [] and qtcompat.unsound_bindings_message() is None
    e = Emitter()
    got: list[int] = []
    e.changed.connect(got.append)
    plot = pg.PlotWidget()
    curve = plot.plot([0.0, 1.0], [0.0, 1.0])
    x = np.arange(600.0)
    gc.collect()  # a collection during the loop would free unrelated references to the singletons
    gc.disable()
    try:
        before = [sys.getrefcount(o) for o in (None, True, False)]
        for i in range(2000):
            e.changed.emit(i)
            if i % 10 == 0:
                curve.setData(x, x)
        after = [sys.getrefcount(o) for o in (None, True, False)]
    finally:
        gc.enable()
    assert len(got) == 2000
    assert all(a > b - 50 for a, b in zip(after, before, strict=True)), (before, after)
    plot.deleteLater()
