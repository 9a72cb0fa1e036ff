"""Literal needles of a regex: a cheap necessary condition checked before the regex itself.

A 20,000-line log holds a few lines worth a regex; trying every symptom pattern on every line made reading
it take seconds. Each pattern's parse tree (the standard library's own regex parser) says which literal
strings every match must contain, e.g. ``{"cuda out of memory", "outofmemoryerror", ...}`` for an
alternation; a line that contains none of them cannot match, so the pattern is not tried on it. Needles are
ASCII and lower-case, compared with a line folded the way ``re.IGNORECASE`` folds it, so the prefilter
never drops a line the regex would have matched (tests check it on the whole corpus).
"""

from __future__ import annotations

import re
from re import _constants as sre  # type: ignore[attr-defined]  # the parser's opcodes (Python ≥ 3.11)
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

# Needles shorter than this filter too little to be worth a check: the pattern always runs.
MIN_NEEDLE = 3

# Characters re.IGNORECASE equates with an ASCII letter although their lower() is not that letter
# (dotted/dotless I, long s, Kelvin sign). Folded first, so a needle check matches whatever the regex does.
_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})

Needles = frozenset[str]


def fold(text: str) -> str:
    """The line as needles are compared with it."""
    return text.translate(_FOLD).lower()


def _best(candidates: list[Needles]) -> Needles | None:
    """The most selective candidate: longest shortest needle, then fewest needles."""
    if not candidates:
        return None
    return max(candidates, key=lambda c: (min(len(n) for n in c), -len(c)))


def _required(items: Any) -> Needles | None:
    """A set of literals one of which every match of this sequence contains, or None if none is known."""
    candidates: list[Needles] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            candidates.append(frozenset(["".join(run)]))
            run.clear()

    for op, av in items:
        if op is sre.LITERAL and av < 128:
            run.append(chr(av).lower())
            continue
        flush()
        sub: Needles | None = None
        if op is sre.SUBPATTERN:
            sub = _required(av[3])
        elif op is sre.ATOMIC_GROUP:
            sub = _required(av)
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT) and av[0] >= 1:
            sub = _required(av[2])
        elif op is sre.BRANCH:
            branches = [_required(b) for b in av[1]]
            if all(b is not None for b in branches):
                sub = frozenset().union(*(b for b in branches if b is not None))
        if sub:
            candidates.append(sub)
    flush()
    return _best(candidates)


def needles(pattern: str) -> Needles | None:
    """The literals (lower-case ASCII) one of which every match of ``pattern`` contains; None when the pattern
    has no literal of at least MIN_NEEDLE characters that every match needs (then it must always run)."""
    try:
        found = _required(sre_parse.parse(pattern, re.IGNORECASE))
    except (re.error, RecursionError, TypeError, ValueError, AttributeError):
        return None
    if not found or min(len(n) for n in found) < MIN_NEEDLE:
        return None
    return found


def any_of(words: set[str] | frozenset[str] | list[str]) -> re.Pattern[str] | None:
    """One regex that finds whether a text holds any of ``words``, built as a trie (``c(?:uda|ublas)``) so
    the engine compares about one character per alternative first letter at each position instead of
    trying every word there. Literals only: linear time. A word that another word extends is enough on
    its own (the question is *whether* any occurs)."""
    trie: dict[str, Any] = {}
    for word in words:
        if not word:
            continue
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict[str, Any]) -> str:
        if "" in node:  # a word ends here: that is a hit, longer words add nothing
            return ""
        alts = [re.escape(ch) + build(sub) for ch, sub in sorted(node.items())]
        return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"

    return re.compile(build(trie)) if trie else None
