"""Issue #14 item 1: exit 2 only for text with nothing about Python, PyTorch, CUDA, NVIDIA or the GPU. An error
line of another language or a syslog prefix alone does not make a text about that topic; Python's
own warning and exception forms do. Synthetic texts."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text
from gpuassist.ingest.python_words import shows_python
from gpuassist.ingest.text import UnreadableInput

REFUSED = [
    # JavaScript: its TypeError has Python's "Name: message" shape
    "TypeError: Cannot read properties of undefined (reading 'map')\n    at App (app.js:12:7)\n"
    "    at renderWithHooks (react-dom.development.js:14985:18)\n",
    # a syslog line of an unrelated daemon
    "Mar  3 10:12:01 host cron[1234]: (root) CMD (run-parts /etc/cron.hourly)\n",
]

ACCEPTED = [
    "UserWarning: FP16 is not supported on CPU; using FP32 instead\n",
    '  warnings.warn("something changed")\n',
    "ModuleNotFoundError: No module named 'yaml'\n",
    "RuntimeError: expected scalar type Float but found Double\n",
    "FutureWarning: `resume_download` is deprecated\n",
]


@pytest.mark.parametrize("text", REFUSED)
def test_text_of_another_program_is_refused(text: str) -> None:
    with pytest.raises(UnreadableInput):
        load_text(text)


@pytest.mark.parametrize("text", ACCEPTED)
def test_pythons_own_warning_and_exception_forms_are_read(text: str) -> None:
    assert shows_python(text)
    report = load_text(text)
    assert not report.has_error


@pytest.mark.parametrize(
    "text",
    [
        "TypeError: x is not a function",
        "RangeError: Maximum call stack size exceeded",
        "ReferenceError: foo is not defined",
        "the ValueError: part of the docs",  # not at a line's start
    ],
)
def test_error_names_javascript_shares_are_not_python(text: str) -> None:
    assert not shows_python(text)


def test_a_kernel_log_about_the_gpu_is_still_read() -> None:
    text = "[ 12.345678] NVRM: API mismatch: the client has the version 535.54, but this kernel module has 530.30\n"
    assert load_text(text).findings
