"""lines.repl_answer: the one reading of a REPL's bare True/False answer that the readers share."""

from __future__ import annotations

import pytest

from gpuassist.ingest.lines import repl_answer


@pytest.mark.parametrize(
    ("line", "answer"),
    [
        ("True", True),
        ("  False  ", False),
        ("Out[3]: True", True),
        ("Out[12]:False", False),
        ("True.", None),
        ("# False", None),
        ("print(True)", None),
        ("true", None),
        ("", None),
    ],
)
def test_repl_answer(line: str, answer: bool | None) -> None:
    assert repl_answer(line) is answer
