"""A one-line check run with ``python -c`` and what it printed, read as the same facts as the REPL's.

The commonest check people paste is a shell line and its output, not an interactive session:

    $ python3 -c "import torch; print(torch.__version__); print(torch.cuda.is_available())"
    2.4.0
    False

Each ``print(...)`` writes one line, its arguments separated by single spaces, so the k-th output line is the k-th
print and, when it holds as many words as the print has arguments, each word is one argument's value. Only the plain
expressions whose printed form is one word are read (a version, ``None``, ``True``/``False``, a count); anything else
(an f-string, a device name with spaces) leaves the check unread rather than guessed.

The same program typed at an interactive prompt prints the same lines, so a ``>>>`` or IPython ``In [n]:`` line
with ``print(...)`` calls is read the same way (``>>> import torch; print(torch.__version__,
torch.cuda.is_available())`` then ``2.3.1+cpu False``); and a tuple of those expressions, which the prompt echoes
as a tuple (``In [1]: torch.__version__, torch.cuda.is_available()`` then ``Out[1]: ('2.3.1+cpu', False)``), is
one value per expression.
"""

from __future__ import annotations

import re
from typing import Any

from gpuassist.ingest.lines import MAX_LINE, note_source

# The command line: an optional prompt, a python interpreter (python, python3, python3.10, py, a path to one), -c and
# its quoted program.
PYTHON_C = re.compile(
    r"""(?:^|[\s$#>:;&|])(?:\S*/)?(?:python(?:\d(?:\.\d+)?)?|py)\s+-c\s+(?P<q>["'])(?P<code>.{1,1000}?)(?P=q)"""
)
# The same program typed at a Python or IPython prompt.
REPL_PROGRAM = re.compile(r"^\s*(?:>>>|In \[\d+\]:)\s*(?P<code>[^\n]{0,1000}?\bprint\([^\n]{0,1000})$")
# A tuple of torch expressions at a prompt ("import torch; " may come first) and the tuple it echoes on the next line.
EXPR = r"torch\.[\w.]+(?:\(\))?"
REPL_TUPLE = re.compile(
    rf"^\s*(?:>>>|In \[\d+\]:)\s*(?:import torch\s*;\s*)?\(?\s*(?P<exprs>{EXPR}(?:\s*,\s*{EXPR})+)\s*,?\s*\)?\s*;?\s*$"
)
TUPLE_ECHO = re.compile(r"^\s*(?:Out\[\d+\]:\s*)?\((?P<values>[^()\n]{1,400})\)\s*$")
PRINT = re.compile(r"\bprint\(\s*(?P<args>[^()]*(?:\([^()]*\)[^()]*)*)\)")
# An expression this reader understands, and the fact its printed value states.
READABLE = {
    "torch.__version__": "torch.version",
    "torch.version.cuda": "torch.cuda_build",
    "torch.cuda.is_available()": "cuda.available",
    "torch.cuda.device_count()": "cuda.device_count",
}
# A line that is not the program's output: the next prompt or command, a traceback, a warning.
NOT_OUTPUT = re.compile(
    r"^\s*(?:[$#>%]|\S+@\S+[:$#]|\[[^\]\n]{1,100}\]\s?[$#%]|>>>|In \[\d+\]:|\.\.\.(?:\s|$)|Traceback|File \"|"
    r"\w+Error\b|\(\w[\w.-]*\)\s)"
)
# What Python writes to stderr between the prints without ending the output: a warning ("...: UserWarning: CUDA
# initialization: ...") and the source line it quotes under it ("  return torch._C._cuda_getDeviceCount() > 0").
WARNING = re.compile(r"\w*Warning: |^\s+(?:return |warnings\.warn\()")
# What a Slurm launcher writes to stderr around the job's output, never the program's print: srun's and salloc's
# "job N queued and waiting for resources", "job N has been allocated resources", "Granted job allocation N",
# "Nodes gpu01 are ready for job", "error: gpu01: task 0: Exited with exit code 1" (src/srun, src/salloc).
LAUNCHER_STATUS = re.compile(r"^\s*(?:srun|salloc)(?:\.exe)?: ")
MAX_OUTPUT_LINES = 12


def _split_args(args: str) -> list[str]:
    """The top-level, comma-separated arguments of a print call (a call's own commas stay inside it)."""
    parts, depth, cur = [], 0, ""
    for ch in args:
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        depth += ch in "([{"
        depth -= ch in ")]}"
        cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def _value(fact: str, word: str) -> Any:
    """The fact a printed word states, or ``...`` when the word is not a value of that fact."""
    if fact == "torch.version":
        return word if re.fullmatch(r"\d+\.\d+(?:\.\d+)?[\w.+]*", word) else ...
    if fact == "torch.cuda_build":
        if word == "None":
            return None
        return word if re.fullmatch(r"\d+\.\d+", word) else ...
    if fact == "cuda.available":
        return {"True": True, "False": False}.get(word, ...)
    return int(word) if word.isdigit() else ...


def _tuple_facts(lines: list[str], facts: dict[str, Any], sources: dict[str, tuple[int, str]]) -> None:
    """A prompt's tuple of torch expressions and the tuple echoed under it: each value read as its expression's
    fact (strings lose their quotes); a tuple of another length, or a value that is not one, is left unread."""
    for no, raw in enumerate(lines[:-1], start=1):
        line = raw[:MAX_LINE]
        asked = REPL_TUPLE.match(line)
        echoed = TUPLE_ECHO.match(lines[no][:MAX_LINE]) if asked else None
        if asked is None or echoed is None:
            continue
        exprs = [e.replace(" ", "") for e in _split_args(asked.group("exprs"))]
        values = [v.strip().strip("'\"") for v in echoed.group("values").split(",") if v.strip()]
        if len(exprs) != len(values):
            continue
        for expr, word in zip(exprs, values, strict=True):
            fact = READABLE.get(expr)
            value = ... if fact is None else _value(fact, word)
            if fact is not None and value is not ...:
                facts[fact] = value
                note_source(sources, fact, no, f"{line.strip()}  ->  {lines[no].strip()}")


def python_c_facts(lines: list[str], sources: dict[str, tuple[int, str]]) -> dict[str, Any]:
    """torch's version, CUDA build, availability and device count from ``python -c "...print(...)..."`` and its
    output lines; the last such check in the text wins (a re-run after a change)."""
    facts: dict[str, Any] = {}
    for no, raw in enumerate(lines, start=1):
        line = raw[:MAX_LINE]
        if "-c" not in line or "print" not in line:
            continue
        m = PYTHON_C.search(line) or REPL_PROGRAM.match(line)
        if m is None:
            continue
        prints = [_split_args(p.group("args")) for p in PRINT.finditer(m.group("code"))]
        if not prints:
            continue
        out = []
        for nxt in lines[no : no + MAX_OUTPUT_LINES]:
            text = nxt[:MAX_LINE].strip()
            if WARNING.search(nxt[:MAX_LINE]) or LAUNCHER_STATUS.match(nxt):
                continue
            if not text or NOT_OUTPUT.match(text):
                break
            out.append(text)
        if len(out) < len(prints):
            continue  # the output was not pasted (or a warning came between): nothing to pair it with
        for args, printed in zip(prints, out, strict=False):
            words = printed.split()
            if len(words) != len(args):
                continue
            for expr, word in zip(args, words, strict=True):
                fact = READABLE.get(expr.replace(" ", ""))
                if fact is None:
                    continue
                value = _value(fact, word)
                if value is ...:
                    continue
                facts[fact] = value
                note_source(sources, fact, no, f"{line.strip()}  ->  {printed}")
    _tuple_facts(lines, facts, sources)
    if "torch.version" in facts and "+" in str(facts["torch.version"]):
        tag = str(facts["torch.version"]).partition("+")[2]
        if tag == "cpu":
            facts.setdefault("torch.cuda_build", None)
        elif re.fullmatch(r"cu\d{3,4}", tag):
            facts.setdefault("torch.cuda_build", f"{tag[2:-1]}.{tag[-1]}")
    return facts
