"""What every reader of a pasted text shares: the bound on a line a regex may see, and where a fact was stated."""

from __future__ import annotations

import re

# A pasted line longer than this is cut before any regex sees it (a minified blob must not cost seconds).
MAX_LINE = 2000

# A REPL's or notebook's bare answer on the line after a call: ">>> torch.cuda.is_available()" then "True", or
# "Out[3]: False".
REPL_ANSWER = re.compile(r"^\s*(?:Out\[\d+\]:\s*)?(?P<value>True|False)\s*$")

# A shell prompt before a command, as the common shells print it: bash's Debian/Ubuntu default "user@host:~/dir$",
# the Red Hat/Rocky/CentOS default (most HPC login nodes) "[user@host dir]$", a bare "$ "/"# "/"% "/"> ", and a
# conda or venv "(env) " before any of them. Used where a command's line must be told from its output.
SHELL_PROMPT = r"(?:\([\w.-]{1,60}\)\s*)?(?:\[[^\]\n]{1,100}\]\s?[$#%]|[\w@.:~/-]*[$#%>])"

# A word boundary between ASCII letters/digits and anything else. Python's ``\b`` sees none between "Mac" and "で" or
# "torch" and "版本" (CJK characters are word characters), so a name written straight into Chinese or Japanese
# prose ("M1 Macで", "torch版本是2.0.1+cpu") would go unread.
ASCII_BOUNDARY = r"(?:(?<=[A-Za-z0-9])(?![A-Za-z0-9])|(?<![A-Za-z0-9])(?=[A-Za-z0-9]))"

# fact key -> (line number, the line as quoted in the evidence)
Sources = dict[str, tuple[int, str]]


def repl_answer(line: str) -> bool | None:
    """The boolean a REPL printed alone on ``line``, or None when the line is not such an answer."""
    answer = REPL_ANSWER.match(line)
    return None if answer is None else answer.group("value") == "True"


def ascii_bounded(pattern: str) -> str:
    """``pattern`` with every ``\\b`` read as ASCII_BOUNDARY: for names of ASCII words that may sit in CJK prose."""
    return pattern.replace(r"\b", ASCII_BOUNDARY)


def note_source(sources: Sources, keys: str | list[str] | tuple[str, ...], no: int, line: str) -> None:
    """Remember the first line that stated each fact, for the findings' evidence."""
    for key in (keys,) if isinstance(keys, str) else keys:
        sources.setdefault(key, (no, line.strip()[:500]))
