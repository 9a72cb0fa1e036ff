"""CUDA working in one Python and not in another (issue #14, round 5): the program's interpreter (a Jupyter kernel,
an IDE's interpreter) is not the one the user checked. Synthetic texts; see gpuassist/ingest/interpreters.py."""

from __future__ import annotations

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.ingest.interpreters import cuda_differs_between_interpreters
from gpuassist.ingest.text import clean_lines


def _first(text: str) -> tuple[str, Severity] | None:
    findings = load_text(text).findings
    return (findings[0].id, findings[0].severity) if findings else None


TWO_PATHS = """\
In a terminal `python -c "import torch; print(torch.cuda.is_available())"` prints True.
In my notebook torch.cuda.is_available() returns False.
sys.executable in the notebook: /usr/bin/python3
and in the terminal: /home/me/miniconda3/envs/dl/bin/python
"""


def test_two_interpreter_paths_with_both_answers_is_a_verdict() -> None:
    assert _first(TWO_PATHS) == ("wrong_interpreter_or_kernel", Severity.ERROR)


def test_two_places_named_without_paths_is_a_likely_reading() -> None:
    text = "\n".join(TWO_PATHS.splitlines()[:2]) + "\n"
    first = _first(text)
    assert first is not None and first[0] == "wrong_interpreter_or_kernel"
    assert first[1] is not Severity.ERROR


def test_repl_answers_on_their_own_lines_count() -> None:
    text = (
        "PyCharm's console:\n>>> torch.cuda.is_available()\nFalse\n"
        "The same in the Anaconda Prompt:\n>>> torch.cuda.is_available()\nTrue\n"
    )
    first = _first(text)
    assert first is not None and first[0] == "wrong_interpreter_or_kernel"


def test_a_before_and_after_story_names_no_second_interpreter() -> None:
    text = (
        ">>> torch.cuda.is_available()\nFalse\nThen I reinstalled with the cu121 index URL.\n"
        ">>> torch.cuda.is_available()\nTrue\n"
    )
    assert cuda_differs_between_interpreters(clean_lines(text)) is None


def test_library_directories_in_a_traceback_are_not_interpreters() -> None:
    text = (
        "In the terminal torch.cuda.is_available() prints True but in Jupyter it prints False\n"
        '  File "/usr/lib/python3.10/site-packages/torch/cuda/__init__.py", line 1\n'
        '  File "/opt/conda/lib/python3.11/site-packages/torch/cuda/__init__.py", line 1\n'
    )
    found = cuda_differs_between_interpreters(clean_lines(text))
    assert found is not None and not found.specific
