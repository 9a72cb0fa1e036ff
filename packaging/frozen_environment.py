"""Give the frozen gpuassist the environment the user started it with, before any of gpuassist runs.

PyInstaller changes the frozen process's environment, and everything gpuassist starts inherits it: the
probe in the user's Python, an audited training script, nvidia-smi. Its facts read it too. Found by the
bundle's tests, not assumed:

- the bootstrap deletes ``VIRTUAL_ENV``, yet the venv active in the user's shell is gpuassist's default
  target;
- the bootloader points ``LD_LIBRARY_PATH`` at the bundle's libraries (the user's value, if any, saved in
  ``LD_LIBRARY_PATH_ORIG``): the user's torch would load our libstdc++ and libz, and the report would show
  our path as theirs;
- the PySide6 runtime hook points ``QT_PLUGIN_PATH`` and ``QML2_IMPORT_PATH`` at the bundle's Qt: a
  user's own Qt program would load our plugins.

Standard library only: PyInstaller bundles it beside the entry scripts.
"""

from __future__ import annotations

import os
import sys

QT_VARIABLES = ("QT_PLUGIN_PATH", "QML2_IMPORT_PATH")


def initial_environment() -> dict[str, str] | None:
    """The environment the process was started with: Linux keeps it in /proc/self/environ, which later
    changes to the environment do not touch. None where there is no such file (macOS, Windows)."""
    try:
        with open("/proc/self/environ", "rb") as f:
            data = f.read()
    except OSError:
        return None
    env = {}
    for item in data.split(b"\0"):
        key, sep, value = item.partition(b"=")
        if sep:
            env[os.fsdecode(key)] = os.fsdecode(value)
    return env


def _set(key: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(key, None)
    else:
        os.environ[key] = value


def _without_bundle(value: str | None, bundle: str) -> str | None:
    """A search path with the bundle's folders taken out (None when nothing is left)."""
    if not value or not bundle:
        return value
    kept = [p for p in value.split(os.pathsep) if p and not os.path.abspath(p).startswith(bundle)]
    return os.pathsep.join(kept) or None


def restore_user_environment(initial: dict[str, str] | None = None) -> None:
    """Undo what the freezer did to ``os.environ`` (see the module docstring). The Qt variables are left
    to :func:`qt_plugin_path_for_app`, since Qt needs them until the application object exists."""
    initial = initial_environment() if initial is None else initial
    bundle = os.path.abspath(getattr(sys, "_MEIPASS", "") or "") if getattr(sys, "_MEIPASS", "") else ""
    for key in ("LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH"):
        saved = os.environ.pop(f"{key}_ORIG", None)
        if saved is not None:
            _set(key, saved)
        else:
            _set(key, _without_bundle(os.environ.get(key), bundle))
    if initial is not None and "VIRTUAL_ENV" in initial and "VIRTUAL_ENV" not in os.environ:
        os.environ["VIRTUAL_ENV"] = initial["VIRTUAL_ENV"]


def take_qt_variables(initial: dict[str, str] | None = None) -> list[str]:
    """The bundle's Qt plugin folders (to hand to Qt directly), with ``QT_PLUGIN_PATH`` and
    ``QML2_IMPORT_PATH`` put back to what the user had (or removed)."""
    initial = initial_environment() if initial is None else initial
    plugins = [p for p in os.environ.get("QT_PLUGIN_PATH", "").split(os.pathsep) if p]
    for key in QT_VARIABLES:
        _set(key, None if initial is None else initial.get(key))
    return plugins
