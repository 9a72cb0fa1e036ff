"""docs/finding-ids.md is generated from the catalogue and must be current."""

from __future__ import annotations

from pathlib import Path

from gpuassist.finding_docs import how_detected, render
from gpuassist.knowledge import catalogue

DOC = Path(__file__).parents[1] / "docs" / "finding-ids.md"


def test_committed_doc_is_current() -> None:
    assert DOC.read_text(encoding="utf-8") == render(), (
        "docs/finding-ids.md is stale: run `python -m gpuassist.finding_docs > docs/finding-ids.md`"
    )


def test_every_id_is_listed_with_how_it_is_detected() -> None:
    text = render()
    for fid, entry in catalogue().items():
        assert f"| `{fid}` |" in text
        if entry.runtime_only:
            assert how_detected(fid).startswith("runtime test only")
    assert "Ids only a runtime test can give:" in text
