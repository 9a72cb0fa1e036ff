"""The message table's rows for a user's own words (rows named ``*_words``) read only from a statement (review of
round 20).

The evidence space: most rows of messages.json are a tool's printed message, which is evidence wherever it appears
(a tool's line may even end with a question mark: "did you configure the NVIDIA Container Toolkit?"). The ``*_words``
rows are different: they read the user's retelling ("nvidia cannot be loaded because nouveau is loaded", "nvidia-smi
can't find the driver"), and a retelling asked as a question ("Does the nvidia module fail to load when nouveau is
loaded?") states nothing about the user's machine. Such a reading is dropped when every sentence of its line that
matches the row is a question whose clause opens as one (a statement with a question tag, "it fails to load
torch_cuda.dll, what is wrong?", is still told).
"""

from __future__ import annotations

import re
from functools import cache

from gpuassist.ingest import prose
from gpuassist.ingest.errors import Match
from gpuassist.knowledge import messages
from gpuassist.knowledge.messages import MessageRow


@cache
def _word_rows() -> tuple[MessageRow, ...]:
    return tuple(row for family in messages.families().values() for row in family.rows if row.key.endswith("_words"))


def _only_asked(match: Match, lines: list[str]) -> bool:
    """The match comes from a words row, and each sentence of its line that the row reads is a question."""
    if match.specific or not 0 < match.line_no <= len(lines):
        return False
    rows = [row for row in _word_rows() if match.id in row.ids and row.regex.search(match.line)]
    if not rows or any(row.regex.search(match.line) for row in _other_rows(match.id)):
        return False
    read = [(s, found) for s in prose.split(lines[match.line_no - 1]) for row in rows if (found := row.regex.search(s))]
    return bool(read) and all(prose.is_question(s) and _asks(s[: found.start()]) for s, found in read)


# The clause opens as a question (an auxiliary or a question word first): "Does the nvidia module fail ...?",
# "Is it possible that nvidia-smi can't find the driver?"; a statement with a question after it ("it fails to load
# torch_cuda.dll, what is wrong?") is still told.
ASKING = re.compile(
    r"^\W*(?:does|do|did|is|are|was|were|can|could|would|will|should|shall|may|might|has|have|why|how|what|when|"
    r"where|which|whether|any(?:one|body)?)\b",
    re.IGNORECASE,
)


def _asks(before: str) -> bool:
    """The words before the reading, from its clause's start, open a question."""
    return bool(ASKING.search(prose.clause_before(before)))


@cache
def _other_rows(finding_id: str) -> tuple[MessageRow, ...]:
    """The tool-message rows that can name the same cause (a tool's own line wins over the words' reading)."""
    return tuple(
        row
        for family in messages.families().values()
        for row in family.rows
        if finding_id in row.ids and not row.key.endswith("_words")
    )


def asked_not_told(lines: list[str], matches: list[Match]) -> list[Match]:
    """Drop a words row's guess read from a question (above)."""
    return [m for m in matches if not _only_asked(m, lines)]
