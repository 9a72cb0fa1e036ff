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
    rf"^\s*[`'\"]?{_PATH}[\\/]+(?:Scripts|bin|condabin)[\\/]+(?P<tool>conda|mamba|micromamba|pip3?)(?:\.exe|\.bat)?"
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
# Where pip says torch already is ("Requirement already satisfied: torch in c:\users\u\anaconda3\lib\site-packages
# (2.1.0)", pip's resolver) or where `pip show torch` puts it ("Location: /home/u/venv/lib/python3.10/site-packages").
_SITE = r"(?P<path>(?:[A-Za-z]:)?[\\/][^\n()]*?)[\\/]+lib[\\/]+(?:python\d(?:\.\d+)?[\\/]+)?(?:site|dist)-packages\b"
TORCH_SITE = re.compile(
    rf"(?:Requirement already satisfied:\s*(?:py)?torch\b[^\n]*?\bin|^\s*Location:)\s+{_SITE}", re.I
)
SHOW_TORCH = re.compile(r"^\s*Name:\s*torch\s*$", re.IGNORECASE)
# A traceback frame in the running interpreter's own library (site-packages, or the stdlib of a POSIX layout).
FRAME = re.compile(
    r"File \"(?P<path>(?:[A-Za-z]:)?[\\/][^\"]*?)[\\/]+lib[\\/]+"
    r"(?:python\d(?:\.\d+)?[\\/]+|(?:site|dist)-packages[\\/])",
    re.IGNORECASE,
)
# The user site (~/.local/lib/pythonX.Y, %APPDATA%\Python\PythonXY) is on the path of every interpreter of its version.
USER_SITE = re.compile(r"[\\/]\.local(?:[\\/]|$)|appdata[\\/]roaming[\\/]python", re.IGNORECASE)
TORCH_MISSING = re.compile(r"No module named [`'\"]?torch\b|ModuleNotFoundError\b[^\n]*\btorch\b", re.IGNORECASE)


def _root(path: str) -> str:
    """The installation root of an interpreter's directory: one level up from bin/Scripts. Debian's /usr/local
    packages are on the system Python's path, so /usr/local is /usr."""
    norm = re.sub(r"[\\/]+", "/", path).rstrip("/").lower()
    norm = re.sub(r"/(?:scripts|bin)$", "", norm)
    return "/usr" if norm == "/usr/local" else norm


def _running(cut: list[str]) -> tuple[int, str] | None:
    """The interpreter that runs: the first bare interpreter path (where/which/sys.executable), else the first
    traceback frame inside an installation's lib directory."""
    for no, line in enumerate(cut, start=1):
        if m := INTERPRETER.match(line):
            return no, _root(m.group(1))
    for no, line in enumerate(cut, start=1):
        if (m := FRAME.search(line)) and not USER_SITE.search(m.group("path")):
            return no, _root(m.group("path"))
    return None


def _installers(cut: list[str]) -> list[tuple[str, bool]]:
    """(root, manages environments) of every installer the text resolves: conda's root holds its envs; pip and a
    site-packages belong to one Python."""
    show = any(SHOW_TORCH.match(line) for line in cut)
    out: list[tuple[str, bool]] = []
    for line in cut:
        if m := INSTALLER.match(line):
            out.append((_root(m.group(1)), m.group("tool").lower() in ("conda", "mamba", "micromamba")))
        elif (m := PIP_VERSION.search(line)) or (
            (m := TORCH_SITE.search(line)) and (show or "Requirement" in line) and not USER_SITE.search(m.group("path"))
        ):
            out.append((_root(m.group("path")), False))
    return out


def installer_of_another_python(lines: list[str]) -> Match | None:
    """The interpreter that runs is not the one an installer the text resolves fills, and torch is missing there:
    the installer filled the other Python. Cites the interpreter's line."""
    cut = [line[:MAX_LINE] for line in lines]
    if not any(TORCH_MISSING.search(line) for line in cut):
        return None
    running = _running(cut)
    if running is None:
        return None
    no, runs = running
    for root, manages_envs in _installers(cut):
        if runs != root and not (manages_envs and runs.startswith(root + "/")):
            return Match("wrong_interpreter_or_kernel", no, lines[no - 1].strip()[:500], True, 0.85)
    return None
