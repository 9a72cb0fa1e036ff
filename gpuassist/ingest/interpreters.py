"""CUDA works in one Python and not in another: the text shows torch.cuda.is_available() answering True in one place
(a terminal, the conda env the user checked) and False in another (a Jupyter kernel, an IDE's interpreter, the
app's own venv). The machine, the driver and at least one torch build are fine; the program runs in the other
interpreter, whose torch is a CPU build or missing CUDA (wrong_interpreter_or_kernel).

The evidence space: both answers in the text (inline "prints True" / "returns False", or the REPL's next line), and
either two different interpreter paths (sys.executable, `which python`, a path ending in python/python.exe) or
the two places named, one a shell (terminal, command prompt, PowerShell, the Python REPL) and the other a
separate interpreter (Jupyter/IPython kernel, notebook, PyCharm, VS Code, Spyder, an app's venv). Before/after
stories ("False, then after reinstalling True") name no second place and are not read.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE, repl_answer

# An answer of is_available(): on its line ("... prints True", "-> False", "it's True") or alone on the next line (a
# REPL).
ANSWER = re.compile(
    r"(?:is_available\(\)\)?[`'\"]{0,2}|\b(?:prints?|printed|returns?|returned|gives?|gave|shows?|showed|outputs?|"
    r"says|said|get|got|is|(?:it|that|this)['\u2019]s)|->|=+|:)\s*[`'\"*]{0,2}(?P<answer>True|False|true|false)\b"
)
SHELL_PLACE = re.compile(
    r"\b(?:terminal|shell|command[ -]line|command prompt|cmd(?:\.exe)?|console|powershell|bash|python -c|repl|"
    r"python interpreter|interactive python|anaconda prompt)\b",
    re.IGNORECASE,
)
OTHER_PLACE = re.compile(
    r"\b(?:jupyter(?:lab)?|notebooks?|ipynb|ipython kernel|kernel|pycharm|vs ?code|visual studio code|spyder|"
    r"the ide|my ide|in the ide)\b",
    re.IGNORECASE,
)
# An interpreter path anywhere in a line: /home/u/miniconda3/envs/dl/bin/python, C:\Python311\python.exe.
INTERPRETER_PATH = re.compile(
    r"((?:[A-Za-z]:)?(?:[\\/][^\\/\s'\"`,;()]+)+[\\/]python(?:\d(?:\.\d+)?)?(?:\.exe)?)(?![\w.\\/-])"
)


def _answers(lines: list[str]) -> tuple[int | None, int | None]:
    """The first line answering True and the first answering False (either may be None)."""
    true_at = false_at = None
    cut = [line[:MAX_LINE] for line in lines]
    for no, line in enumerate(cut, start=1):
        found: list[str] = []
        if "is_available" in line or SHELL_PLACE.search(line) or OTHER_PLACE.search(line):
            found = [m.group("answer").lower() for m in ANSWER.finditer(line)]
        if "is_available" in line and no < len(cut) and (alone := repl_answer(cut[no])) is not None:
            found.append(str(alone).lower())
        if "true" in found and true_at is None:
            true_at = no
        if "false" in found and false_at is None:
            false_at = no
    return true_at, false_at


def cuda_differs_between_interpreters(lines: list[str]) -> Match | None:
    """is_available() True in one interpreter and False in another that the text names (or shows by path): the
    program's interpreter is not the one with the CUDA build. A verdict when two interpreter paths are shown, a
    likely cause when only the two places are named."""
    if not any("is_available" in line[:MAX_LINE] for line in lines):
        return None
    true_at, false_at = _answers(lines)
    if true_at is None or false_at is None:
        return None
    paths = {
        re.sub(r"[\\/]+", "/", m.group(1)).lower(): no
        for no, line in enumerate(lines, start=1)
        for m in INTERPRETER_PATH.finditer(line[:MAX_LINE])
    }
    if len(paths) >= 2:
        no = sorted(paths.values())[1]
        return Match("wrong_interpreter_or_kernel", no, lines[no - 1].strip()[:500], True, 0.85)
    text = " ".join(line[:MAX_LINE] for line in lines[:2000])
    if SHELL_PLACE.search(text) and OTHER_PLACE.search(text):
        return Match("wrong_interpreter_or_kernel", false_at, lines[false_at - 1].strip()[:500], False, 0.85)
    return None
