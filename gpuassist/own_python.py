"""The Python gpuassist itself runs in, and the interpreter to diagnose when none was named.

Installed from a clone, pip, pipx or uv, gpuassist runs in a Python interpreter (``sys.executable``). In
the app bundle (packaging/, PyInstaller) it is frozen: ``sys.executable`` is the bundle's own program,
which cannot run the probe scripts, so there the fallback target is the Python the user's shell finds.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping


def is_frozen() -> bool:
    """True in the app bundle (PyInstaller sets ``sys.frozen``)."""
    return bool(getattr(sys, "frozen", False))


def own_python() -> str | None:
    """This process's interpreter when it is a Python that can run a script; None in the bundle."""
    if is_frozen() or not sys.executable:
        return None
    return sys.executable


def path_python(env: Mapping[str, str] | None = None) -> str | None:
    """``python3`` (else ``python``) on the PATH of ``env`` (default: this process's)."""
    search = (os.environ if env is None else env).get("PATH", os.defpath)
    for name in ("python3", "python"):
        found = shutil.which(name, path=search)
        if found:
            return found
    return None


def fallback_python(env: Mapping[str, str] | None = None) -> str:
    """The interpreter to run when none was asked for: this one, or in the bundle the PATH's Python
    (``python3`` by name when there is none, so the probe reports it as not found)."""
    return own_python() or path_python(env) or "python3"
