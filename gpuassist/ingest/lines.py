"""What every reader of a pasted text shares: the bound on a line a regex may see, and where a fact was stated."""

from __future__ import annotations

# A pasted line longer than this is cut before any regex sees it (a minified blob must not cost seconds).
MAX_LINE = 2000

# fact key -> (line number, the line as quoted in the evidence)
Sources = dict[str, tuple[int, str]]


def note_source(sources: Sources, keys: str | list[str] | tuple[str, ...], no: int, line: str) -> None:
    """Remember the first line that stated each fact, for the findings' evidence."""
    for key in (keys,) if isinstance(keys, str) else keys:
        sources.setdefault(key, (no, line.strip()[:500]))
