"""A 32-bit Python read from a paste, in the forms it shows itself: the interpreter's banner ("[MSC v.1916 32 bit
(Intel)]"), the Windows installer's default folder for it ("Python37-32"), the launcher's "Python 3.7 (32-bit)".
A win32 wheel's name is not one of them: it says what the wheel is for, and pip refusing it means a 64-bit Python.
PyTorch has never published 32-bit wheels, so the platform rule (rules/interpreter.py) decides from this fact.
"""

from __future__ import annotations

import re
from typing import Any

from gpuassist.ingest.lines import MAX_LINE, note_source

# sys.platform is "win32" on 64-bit Windows too: only these forms say the interpreter itself is 32-bit.
PYTHON_32BIT = re.compile(
    r"\[MSC v\.\d+ 32 bit \((?:Intel|ARM)\)\]|[\\/]Python3\d{1,2}-32[\\/]|"
    r"\bPython 3\.\d+(?:\.\d+)? \(32-bit\)",
    re.IGNORECASE,
)


def python_arch_facts(lines: list[str], sources: dict[str, tuple[int, str]]) -> dict[str, Any]:
    """``python.machine`` = "x86" when the text shows a 32-bit Python."""
    for no, raw in enumerate(lines, start=1):
        if PYTHON_32BIT.search(raw[:MAX_LINE]):
            note_source(sources, "python.machine", no, raw)
            return {"python.machine": "x86"}
    return {}
