"""gpuassist-gui pauses the garbage collector for its start-up; the app must turn it back on."""

from __future__ import annotations

import gc

from gpuassist.ui.app import resume_collector


def test_the_collector_comes_back_with_the_startup_objects_frozen() -> None:
    assert gc.isenabled()
    gc.disable()
    try:
        resume_collector()
        assert gc.isenabled()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.enable()


def test_resuming_an_enabled_collector_changes_nothing() -> None:
    frozen = gc.get_freeze_count()
    resume_collector()
    assert gc.isenabled() and gc.get_freeze_count() == frozen
