"""Sentences of a pasted text, for the readers that take the user's words as evidence (ingest/*_words.py,
after_events, module_words ...).

One split for all of them: a sentence ends at ``.``, ``!`` or ``?`` followed by white space, inside one line (a
pasted line is a log line, a prompt or a paragraph; a sentence never spans two). Options name where a reader
deliberately differs:

- ``semicolon``: ``;`` also ends a sentence. Readers that judge a statement as a whole (reboot_words, cpu_build_words)
  use it, so that "installed the driver; did not reboot the router" keeps each half apart.
- ``question_mark=False``: ``?`` does not end a sentence. smi_words keeps a line such as "Is nvidia-smi fine? It
  works." one sentence so that the question mark drops the whole line.

A statement is what a reader may take; a question ("does import torch fail for you?") states nothing. Within one,
``clause_before`` cuts the words a reading's own clause holds, and ``negated`` says whether they deny it.
"""

from __future__ import annotations

import functools
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


# Negation, shared by the readers that ask "is this reading denied in its clause?" (display_watchdog,
# wsl_linux_driver, illegal_access_words, held_memory_words, import_words). A verb's negation (not, never, without,
# nor, neither, no longer and the n't forms, written with or without the apostrophe: "dont", "doesnt") reaches the end
# of its clause: "I did not install the driver in WSL", "it does not ever give an illegal memory access". A bare
# "no" is a determiner: it denies the noun phrase right after it ("no black screen", "no other process"), not a
# later one ("I have no idea why a process takes all the memory" reports the process), and not at all as an
# answer ("No, I installed it in WSL"). "I don't know why ...", "not sure why ..." wonder rather than deny. Readers
# add their own words (a condition, "instead of", "fixed").
_VERB_NEGATION = (
    r"\b(?:not|never|without|nor|neither|cannot|no\s+longer|"
    r"(?:is|are|was|were|do|does|did|has|have|had|could|would|should|must|need|ca|wo|ai)\s*n[o']?t)\b"
    # a wondering is no denial: "I don't know why a process holds all the memory", "not sure why ..."
    r"(?!\s+(?:really\s+|quite\s+|even\s+)?(?:know|sure|understand|certain)\b)"
)
_NO_WORDS = 2  # "no" denies this many words after it at most: "no such illegal memory access"
_WORD = r"[\w'-]+\s+"


@functools.lru_cache(maxsize=32)
def _negation(extra: tuple[str, ...], words: int | None) -> re.Pattern[str]:
    verbs = _VERB_NEGATION if not extra else rf"(?:{_VERB_NEGATION}|\b(?:{'|'.join(extra)}))"
    reach = r"(?:\s+|$).*" if words is None else rf"(?:\s+(?:{_WORD}){{0,{words}}}|\s*)$"
    return re.compile(rf"{verbs}{reach}|\bno\s+(?:{_WORD}){{0,{min(_NO_WORDS, words or _NO_WORDS)}}}$", re.IGNORECASE)


def negated(clause: str, *, extra: tuple[str, ...] = (), words: int | None = None) -> bool:
    """A negation (above) in ``clause``, the words of a reading's own clause before it and up to it, denies what
    ends the clause; with ``words`` only when at most that many words stand between. ``extra``: the reader's own
    regex alternatives, read like a verb's negation ("instead of", "whether", "fixed")."""
    return _negation(extra, words).search(clause) is not None
