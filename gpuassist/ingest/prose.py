"""Sentences of a pasted text, for the readers that take the user's words as evidence (ingest/*_words.py,
after_events, module_words ...).

One split for all of them: a sentence ends at ``.``, ``!`` or ``?`` followed by white space, inside one line (a
pasted line is a log line, a prompt or a paragraph; a sentence never spans two). Options name where a reader
deliberately differs:

- ``semicolon``: ``;`` also ends a sentence. Readers that judge a statement as a whole (reboot_words, cpu_build_words)
  use it, so that "installed the driver; did not reboot the router" keeps each half apart.
- ``question_mark=False``: ``?`` does not end a sentence. smi_words keeps a line such as "Is nvidia-smi fine? It
  works." one sentence so that the question mark drops the whole line.

A statement is what a reader may take; a question ("does import torch fail for you?") states nothing.
"""

from __future__ import annotations

import re

from gpuassist.ingest.lines import MAX_LINE

MAX_LINES = 5000  # a pasted thread is far shorter; a reader never walks more


def _boundary(*, semicolon: bool, question_mark: bool) -> re.Pattern[str]:
    ends = ".!" + ("?" if question_mark else "") + (";" if semicolon else "")
    return re.compile(rf"(?<=[{re.escape(ends)}])\s+")


_SPLITS = {(s, q): _boundary(semicolon=s, question_mark=q) for s in (False, True) for q in (False, True)}


def split(line: str, *, semicolon: bool = False, question_mark: bool = True) -> list[str]:
    """The sentences of one line (cut to MAX_LINE), empty ones included as the split leaves them."""
    return _SPLITS[(semicolon, question_mark)].split(line[:MAX_LINE])


def sentences(lines: list[str], *, semicolon: bool = False, question_mark: bool = True) -> list[tuple[int, str]]:
    """(1-based line number, sentence) for every non-blank sentence of the first MAX_LINES lines."""
    return [
        (no, part)
        for no, line in enumerate(lines[:MAX_LINES], start=1)
        for part in split(line, semicolon=semicolon, question_mark=question_mark)
        if part.strip()
    ]


# The end of the clause a reading sits in: words in an earlier clause ("sm_80 is not compatible, my torch is ...")
# do not reach it. ``but`` also ends one where a reader weighs a contrast; ``brackets`` adds "(" and "[" and the
# CJK full-width , ; : ( for readers of prose in those languages.
_CLAUSE_ENDS = {
    (False, False): re.compile(r".*[,;:]"),
    (True, False): re.compile(r".*(?:[,;:]|\bbut\b)"),
    (False, True): re.compile(r".*[,;:(\[，；：（]"),
}


def clause_before(before: str, *, but: bool = False, brackets: bool = False) -> str:
    """The words of ``before`` since its last clause boundary (all of it when there is none)."""
    return _CLAUSE_ENDS[(but, brackets)].sub("", before)


def is_question(sentence: str) -> bool:
    """The sentence asks rather than states: it ends with a question mark."""
    return sentence.rstrip().endswith("?")
