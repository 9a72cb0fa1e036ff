"""The installer and the interpreter belong to two different Pythons: ``where python`` / ``which python`` answers a
Python.org (or system) install while ``where conda`` / ``which conda`` (or ``where pip``) answers another
installation, and ``import torch`` fails with "No module named 'torch'". The package went into the installer's
Python; the program runs the other one (wrong_interpreter_or_kernel), so reinstalling torch changes nothing.

The evidence space: a command's answer is a path on a line of its own (``where`` prints every match in PATH order,
the first one is what runs; ``which`` prints the first; ``Get-Command`` prints a Source column), the interpreter
named ``python``/``python3``/``python3.X`` (``.exe`` on Windows), the installers ``conda``/``mamba``/``pip``/
``pip3`` in that installation's ``Scripts`` (Windows) or ``bin`` (POSIX) directory, and ``pip --version``'s "from
<root>/lib/pythonX.Y/site-packages/pip (python X.Y)" (the layouts of CPython's Windows
installer, venv and conda: "Using Python on Windows", the venv docs' "bin (or Scripts on Windows)", conda's
"Installing on Windows"). An installation's root is the directory above ``Scripts``/``bin`` (a Windows CPython
keeps ``python.exe`` in the root itself). A conda environment lives under its installation's root (``<root>/envs/
<name>``), so an interpreter inside the installer's root is the same family and not read. Two interpreters with
different roots are read elsewhere (ingest/__init__.py's ``_two_interpreters_match``)."""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

# A line that is only a path (a `where`/`which` answer), optionally quoted or after a prompt.
_PATH = r"((?:[A-Za-z]:)?(?:[\\/]+[^\\/\t'\"`]+)+)"  # spaces allowed: "C:\\Program Files\\Python312"
INTERPRETER = re.compile(rf"^\s*[`'\"]?{_PATH}[\\/]+python(?:\d(?:\.\d+)?)?(?:\.exe)?[`'\"]?\s*$", re.IGNORECASE)
INSTALLER = re.compile(
    rf"^\s*[`'\"]?{_PATH}[\\/]+(?:Scripts|bin|condabin)[\\/]+(?:conda|mamba|micromamba|pip3?)(?:\.exe|\.bat)?"
    r"[`'\"]?\s*$",
    re.IGNORECASE,
)
# `pip --version` names the Python it installs into: "pip 23.0 from /home/u/venv/lib/python3.10/site-packages/pip
# (python 3.10)", "pip 21.2 from C:\\Python39\\lib\\site-packages\\pip (python 3.9)" (pip's own --version format).
PIP_VERSION = re.compile(
    r"\bpip \S+ from (?P<path>(?:[A-Za-z]:)?[\\/][^\n()]*?)[\\/]+lib[\\/]+(?:python\d(?:\.\d+)?[\\/]+)?"
    r"(?:site|dist)-packages[\\/]+pip\b[\\/]?\s*\(python \d",
    re.IGNORECASE,
)
TORCH_MISSING = re.compile(r"No module named [`'\"]?torch\b|ModuleNotFoundError\b[^\n]*\btorch\b", re.IGNORECASE)


def _root(path: str) -> str:
    """The installation root of an interpreter's directory: one level up from bin/Scripts."""
    norm = re.sub(r"[\\/]+", "/", path).rstrip("/").lower()
    return re.sub(r"/(?:scripts|bin)$", "", norm)


def installer_of_another_python(lines: list[str]) -> Match | None:
    """The first interpreter the text resolves lies outside the root of an installer it also resolves, and torch is
    missing: the installer filled the other Python. Cites the interpreter's line."""
    cut = [line[:MAX_LINE] for line in lines]
    if not any(TORCH_MISSING.search(line) for line in cut):
        return None
    interpreter = next(
        ((no, m.group(1)) for no, line in enumerate(cut, start=1) if (m := INTERPRETER.match(line))), None
    )
    if interpreter is None:
        return None
    runs = _root(interpreter[1])
    for line in cut:
        m = INSTALLER.match(line) or PIP_VERSION.search(line)
        if m is None:
            continue
        root = _root(m.group(1))
        if runs != root and not runs.startswith(root + "/"):
            no = interpreter[0]
            return Match("wrong_interpreter_or_kernel", no, lines[no - 1].strip()[:500], True, 0.85)
    return None
