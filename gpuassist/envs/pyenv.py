"""Which Python a pyenv shim starts, read from pyenv's own files instead of running the shim.

A shim (``~/.pyenv/shims/python``) is a bash script that asks ``pyenv`` which version to run. Running it
would run bash and pyenv from a discovery that promises to run only Pythons; pyenv's choice is written in
files anyway, in this order: ``$PYENV_VERSION`` (``pyenv shell``), the nearest ``.python-version`` from
the working directory up (``pyenv local``), ``$PYENV_ROOT/version`` (``pyenv global``), else ``system``
(the next one on PATH after the shims).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from gpuassist.files import read_head

VERSION_FILE_LIMIT = 4096


@dataclass(frozen=True)
class PyenvVersion:
    """pyenv's selected versions (``names``, first wins) and where that was set (``source``: ``shell``,
    ``local``, ``global`` or ``default``; ``file``: the file that said so)."""

    names: tuple[str, ...]
    source: str
    file: str | None = None


def root(env: Mapping[str, str], home: str) -> str:
    return env.get("PYENV_ROOT") or os.path.join(home, ".pyenv")


def shim_dirs(env: Mapping[str, str], home: str) -> list[str]:
    base = root(env, home)
    return [os.path.join(base, "shims"), os.path.join(base, "plugins", "pyenv-virtualenv", "shims")]


def is_shim(path: str, env: Mapping[str, str], home: str) -> bool:
    directory = os.path.dirname(os.path.abspath(path))
    return any(os.path.abspath(d) == directory for d in shim_dirs(env, home))


def in_use(env: Mapping[str, str], home: str) -> bool:
    """pyenv answers ``python`` in this shell: its shims directory is on PATH."""
    dirs = {os.path.abspath(d) for d in shim_dirs(env, home)}
    return any(os.path.abspath(p) in dirs for p in env.get("PATH", "").split(os.pathsep) if p)


def _read_names(path: str) -> tuple[str, ...]:
    text = read_head(path, VERSION_FILE_LIMIT).decode("utf-8", "replace")  # a FIFO cannot hang it
    names = [w for line in text.splitlines() for w in line.split("#", 1)[0].split()]
    return tuple(n for n in names if n and ".." not in n and "/" not in n)


def local_version_file(cwd: str, stop: str | None = None) -> str | None:
    """The nearest ``.python-version`` from ``cwd`` up (``pyenv local``)."""
    here = os.path.abspath(cwd)
    while True:
        candidate = os.path.join(here, ".python-version")
        if os.path.isfile(candidate):
            return candidate
        up = os.path.dirname(here)
        if up == here or (stop is not None and here == os.path.abspath(stop)):
            return None
        here = up


def selected(env: Mapping[str, str], home: str, cwd: str) -> PyenvVersion:
    if env.get("PYENV_VERSION"):
        names = tuple(n for n in env["PYENV_VERSION"].replace(":", " ").split() if n)
        return PyenvVersion(names, "shell")
    local = local_version_file(cwd)
    if local:
        names = _read_names(local)
        if names:
            return PyenvVersion(names, "local", local)
    global_file = os.path.join(root(env, home), "version")
    names = _read_names(global_file)
    if names:
        return PyenvVersion(names, "global", global_file)
    return PyenvVersion(("system",), "default")


def version_python(name: str, program: str, env: Mapping[str, str], home: str) -> str | None:
    """``$PYENV_ROOT/versions/NAME/bin/PROGRAM`` when it exists (NAME may be a pyenv-virtualenv)."""
    path = os.path.join(root(env, home), "versions", name, "bin", program)
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


def _system(program: str, env: Mapping[str, str], home: str) -> str | None:
    shims = {os.path.abspath(d) for d in shim_dirs(env, home)}
    for directory in env.get("PATH", "").split(os.pathsep):
        if not directory or os.path.abspath(directory) in shims:
            continue
        path = os.path.join(directory, program)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def resolve_shim(shim: str, env: Mapping[str, str], home: str, cwd: str) -> tuple[str | None, PyenvVersion]:
    """The interpreter ``shim`` would start (None: none of the selected versions has that program)."""
    program = os.path.basename(shim)
    chosen = selected(env, home, cwd)
    for name in chosen.names:
        found = _system(program, env, home) if name == "system" else version_python(name, program, env, home)
        if found:
            return found, chosen
    return None, chosen
