"""A one-line check run with ``python -c`` and what it printed, read as the same facts as the REPL's.

The commonest check people paste is a shell line and its output, not an interactive session:

    $ python3 -c "import torch; print(torch.__version__); print(torch.cuda.is_available())"
    2.4.0
    False

Each ``print(...)`` writes one line, its arguments separated by single spaces, so the k-th output line is the k-th
print and, when it holds as many words as the print has arguments, each word is one argument's value. Only the plain
expressions whose printed form is one word are read (a version, ``None``, ``True``/``False``, a count); anything else
(an f-string, a device name with spaces) leaves the check unread rather than guessed.
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
    r"^\s*(?:[$#>%]|\S+@\S+[:$#]|\[[^\]\n]{1,100}\]\s?[$#%]|>>>|Traceback|File \"|\w+Error\b|\(\w[\w.-]*\)\s)"
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


def python_c_facts(lines: list[str], sources: dict[str, tuple[int, str]]) -> dict[str, Any]:
    """torch's version, CUDA build, availability and device count from ``python -c "...print(...)..."`` and its
    output lines; the last such check in the text wins (a re-run after a change)."""
    facts: dict[str, Any] = {}
    for no, raw in enumerate(lines, start=1):
        line = raw[:MAX_LINE]
        if "-c" not in line or "print" not in line:
            continue
        m = PYTHON_C.search(line)
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
    if "torch.version" in facts and "+" in str(facts["torch.version"]):
        tag = str(facts["torch.version"]).partition("+")[2]
        if tag == "cpu":
            facts.setdefault("torch.cuda_build", None)
        elif re.fullmatch(r"cu\d{3,4}", tag):
            facts.setdefault("torch.cuda_build", f"{tag[2:-1]}.{tag[-1]}")
    return facts
