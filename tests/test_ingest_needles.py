"""The needle prefilter of the symptom patterns (gpuassist/ingest/needles.py) never changes a result: every
corpus text gets exactly the matches of trying every pattern on every line, and a needle is a necessary
condition of its pattern on every line and on generated text."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuassist.ingest.errors import match_lines
from gpuassist.ingest.needles import any_of, fold, needles
from gpuassist.ingest.text import clean_lines, decode
from gpuassist.knowledge import symptom_patterns

DATA = Path(__file__).parent / "data"
TEXTS = sorted([*(DATA / "errors").glob("*.txt"), *(DATA / "pastes").glob("*.txt")])


def _lines(path: Path) -> list[str]:
    return clean_lines(decode(path.read_bytes()))


@pytest.mark.parametrize("path", TEXTS, ids=lambda p: p.name)
def test_prefiltered_matches_equal_every_pattern_on_every_line(path: Path) -> None:
    lines = _lines(path)
    assert match_lines(lines) == match_lines(lines, prefilter=False)


def test_every_corpus_line_a_pattern_matches_holds_one_of_its_needles() -> None:
    lines = [line.strip() for path in TEXTS for line in _lines(path) if line.strip()]
    checked = 0
    for p in symptom_patterns():
        found = needles(p.pattern)
        if found is None:
            continue
        for line in lines:
            if p.regex.search(line):
                checked += 1
                assert any(n in fold(line) for n in found), (p.pattern, line)
    assert checked > 100  # the corpus exercises the patterns


def test_needles_of_known_shapes() -> None:
    assert needles(r"CUDA out of memory|torch\.(cuda\.)?OutOfMemoryError") == {"cuda out of memory", "outofmemoryerror"}
    assert needles(r"libcuda\.so(\.1)?: cannot open shared object file") == {": cannot open shared object file"}
    assert needles(r"\d+\.\d+") is None  # no literal every match needs
    assert needles(r"(a|bc)") is None  # too short to filter
    assert needles(r"(") is None  # does not parse: the pattern always runs


def test_any_of_finds_a_word_anywhere_and_only_words() -> None:
    rx = any_of({"cuda out of memory", "cuda", "nvrm: xid ("})
    assert rx is not None
    assert rx.search("runtimeerror: cuda error") and rx.search("x nvrm: xid (pci:0000)")
    assert not rx.search("cud nvrm xid")
    assert any_of(set()) is None


# Text made of pieces of the patterns' own literals, case-flipped, with the characters re.IGNORECASE
# equates with ASCII letters: where a prefilter could differ from the regex if it folded wrongly.
_PIECES = sorted({n for p in symptom_patterns() for n in (needles(p.pattern) or ())})


@st.composite
def _noisy_text(draw: st.DrawFn) -> str:
    parts = draw(
        st.lists(
            st.one_of(
                st.sampled_from(_PIECES),
                st.text("İıſKkKsS 0123.:()_-sm", max_size=6),
                st.sampled_from(["sm_86", " 535.54 ", "12.1", "\n", "Error"]),
            ),
            max_size=12,
        )
    )
    text = "".join(parts)
    return "".join(ch.upper() if draw(st.booleans()) else ch for ch in text)


@settings(max_examples=200, deadline=None)
@given(_noisy_text())
def test_prefilter_equals_reference_on_generated_text(text: str) -> None:
    lines = text.split("\n")
    assert match_lines(lines) == match_lines(lines, prefilter=False)
