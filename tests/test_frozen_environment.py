"""packaging/frozen_environment.py: the frozen app hands the user's own environment to what it starts
(PyInstaller deletes VIRTUAL_ENV and points LD_LIBRARY_PATH and QT_PLUGIN_PATH at the bundle)."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("frozen_environment", ROOT / "packaging" / "frozen_environment.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def frozen(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> ModuleType:
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path / "bundle" / "_internal"), raising=False)
    for key in ("LD_LIBRARY_PATH", "LD_LIBRARY_PATH_ORIG", "DYLD_LIBRARY_PATH", "VIRTUAL_ENV", "QT_PLUGIN_PATH"):
        monkeypatch.delenv(key, raising=False)
    return load()


def test_the_users_library_path_comes_back(frozen: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LD_LIBRARY_PATH", f"{sys._MEIPASS}:/opt/mine")  # type: ignore[attr-defined]
    monkeypatch.setenv("LD_LIBRARY_PATH_ORIG", "/opt/mine")
    frozen.restore_user_environment({})
    assert os.environ["LD_LIBRARY_PATH"] == "/opt/mine" and "LD_LIBRARY_PATH_ORIG" not in os.environ


def test_the_bundles_library_path_goes(frozen: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LD_LIBRARY_PATH", sys._MEIPASS)  # type: ignore[attr-defined]
    frozen.restore_user_environment({})
    assert "LD_LIBRARY_PATH" not in os.environ


def test_virtual_env_comes_back_from_the_initial_environment(frozen: ModuleType) -> None:
    frozen.restore_user_environment({"VIRTUAL_ENV": "/home/a/proj/.venv"})
    assert os.environ["VIRTUAL_ENV"] == "/home/a/proj/.venv"


def test_qt_variables_go_to_qt_not_to_children(frozen: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QT_PLUGIN_PATH", "/bundle/PySide6/Qt/plugins")
    assert frozen.take_qt_variables({}) == ["/bundle/PySide6/Qt/plugins"]
    assert "QT_PLUGIN_PATH" not in os.environ
    monkeypatch.setenv("QT_PLUGIN_PATH", "/bundle/PySide6/Qt/plugins")
    frozen.take_qt_variables({"QT_PLUGIN_PATH": "/usr/lib/qt/plugins"})
    assert os.environ["QT_PLUGIN_PATH"] == "/usr/lib/qt/plugins"


def test_initial_environment_reads_this_process(frozen: ModuleType) -> None:
    initial = frozen.initial_environment()
    if initial is None:
        pytest.skip("no /proc/self/environ on this system")
    assert "PATH" in initial
