"""Which discovered interpreters gpuassist may run (issue 12 item 2): nothing someone else planted.

Discovery finds interpreters in places other people can write to: a cloned repository's ``.venv``, a
shared project folder, ``/tmp``. Running one runs its code as the user. So an interpreter that gpuassist
found by itself (not one the user named with ``--python`` or picked) is run only when:

* its name, and the name of the file it resolves to, is a Python's (``python``, ``python3.12``, ``pypy3``);
* it is a program, not a script: a ``#!`` file named ``python`` runs whatever its first line names
  (``/bin/sh``, ``perl``), which is not a Python, so it is refused (pyenv's shims are read, not run:
  :mod:`gpuassist.envs.pyenv`);
* neither the file nor the directories from its environment's root down to it are owned by another user
  (only the user and root are trusted) or writable by everyone.

Everything here only reads file metadata and at most the first bytes of a file.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator, Sequence

from gpuassist.files import read_head

# python, python3.12, python3.13t, pypy3.10, python.exe; and `py`, the launcher that starts a Python
PYTHON_NAME = re.compile(r"^((python|pypy)(\d+(\.\d+)*)?[tdmu]?|py)(\.exe)?$", re.IGNORECASE)
HEAD_BYTES = 256


def is_python_name(path: str) -> bool:
    """``python``, ``python3``, ``python3.12``, ``python3.13t``, ``pypy3.10``, ``python.exe``."""
    return bool(PYTHON_NAME.match(os.path.basename(path)))


def _head(path: str) -> bytes:
    return read_head(path, HEAD_BYTES)  # a regular file only: a planted FIFO cannot hang the check


def shebang_program(path: str) -> str | None:
    """The program a ``#!`` file runs (``/usr/bin/env python3`` → ``python3``), None for a binary."""
    head = _head(path)
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if not words:
        return ""
    if os.path.basename(words[0]) == "env":
        rest = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        return rest[0] if rest else ""
    return words[0]


def not_a_python(path: str) -> str | None:
    """Why ``path`` is not a Python interpreter by its names and first bytes (None: it looks like one)."""
    real = os.path.realpath(path)
    if not is_python_name(path):
        return f"{os.path.basename(path)} is not a Python interpreter's name"
    if not is_python_name(real):
        return f"it resolves to {real}, which is not a Python interpreter's name"
    program = shebang_program(real)
    if program is not None and not is_python_name(program):
        return f"it is a script that runs {program or 'nothing'} (#!), not a Python interpreter"
    return None


def _owner_problem(path: str, trusted: Sequence[int]) -> str | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None  # missing: reported elsewhere, never run
    if st.st_uid not in trusted:
        return f"{path} belongs to another user (uid {st.st_uid})"
    if stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_IWOTH:
        return f"{path} is writable by everyone"
    if not stat.S_ISDIR(st.st_mode) and not stat.S_ISLNK(st.st_mode) and st.st_mode & stat.S_IWOTH:
        return f"{path} is writable by everyone"
    return None


def _chain(top: str, leaf: str) -> Iterator[str]:
    """``top``'s parent, ``top``, and every directory from ``top`` down to ``leaf`` (and ``leaf``); only
    ``leaf``'s directory and ``leaf`` when ``leaf`` is not inside ``top``."""
    top, leaf = os.path.abspath(top), os.path.abspath(leaf)
    if not (leaf + os.sep).startswith(top.rstrip(os.sep) + os.sep):
        yield from (os.path.dirname(leaf), leaf)
        return
    yield os.path.dirname(top)
    here = leaf
    below: list[str] = []
    while True:
        below.append(here)
        if here == top:
            break
        up = os.path.dirname(here)
        if up == here:
            break
        here = up
    yield from reversed(below)


def untrusted(python: str, root: str | None, trusted: Sequence[int] | None) -> str | None:
    """Why an interpreter gpuassist found by itself must not run (None: it may run).

    ``root``: its environment's directory (a venv, a conda env), checked with its parent and everything
    down to the executable; ``trusted``: owners allowed (the user and root); None: no ownership model
    (Windows)."""
    why = not_a_python(python)
    if why:
        return why
    if trusted is None:
        return None
    paths = list(_chain(root, python)) if root else [os.path.dirname(os.path.abspath(python)), python]
    real = os.path.realpath(python)
    if real != os.path.abspath(python):
        paths += [os.path.dirname(real), real]
    for path in dict.fromkeys(paths):
        problem = _owner_problem(path, trusted)
        if problem:
            return problem
    return None


def trusted_directory(path: str, trusted: Sequence[int] | None) -> bool:
    """A directory the upward walk may look into: owned by the user or root (any, without an owner model)."""
    if trusted is None:
        return True
    try:
        return os.stat(path).st_uid in trusted
    except OSError:
        return False


def world_writable(path: str) -> bool:
    try:
        return bool(os.stat(path).st_mode & stat.S_IWOTH)
    except OSError:
        return False
