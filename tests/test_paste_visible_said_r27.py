"""Round 27 (issue #14): CUDA_VISIBLE_DEVICES written by a YOLO-style select_device helper (its assertion "CUDA
unavailable, invalid device X requested" names the value it wrote; messages.json row) hides every GPU when X is no
index or UUID; the
variable set after a CUDA call, told in words, is the too-late setting. Numeric values, the rule quoted, questions
and denials read nothing. Synthetic texts and counter-examples."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text
from gpuassist.ingest.visible_devices_said import order_told

ID = "cuda_visible_devices_hides_gpus"


def _first(text: str) -> str | None:
    findings = load_text(text).findings
    return findings[0].id if findings else None


@pytest.mark.parametrize("value", ["gpu", "cuda:1", "auto"])
def test_helper_wrote_a_value_cuda_cannot_read(value: str) -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "detect.py", line 20, in <module>\n'
        "    device = select_device(opt.device)\n"
        f"AssertionError: CUDA unavailable, invalid device {value} requested\n"
    )
    assert _first(text) == ID


def test_newer_helper_message_form() -> None:
    line = "AssertionError: Invalid CUDA '--device gpu0' requested, use '--device cpu' or pass valid CUDA device(s)"
    assert _first(line + "\n") == ID


@pytest.mark.parametrize(
    "line",
    [
        "AssertionError: CUDA unavailable, invalid device 0 requested",
        "AssertionError: Invalid CUDA '--device 0,1' requested, use '--device cpu' or pass valid CUDA device(s)",
        "    assert torch.cuda.is_available(), f'CUDA unavailable, invalid device {device} requested'",
        "    assert torch.cuda.is_available(), 'CUDA unavailable, invalid device %s requested' % device",
    ],
)
def test_numeric_value_or_source_line_reads_nothing(line: str) -> None:
    assert ID not in [f.id for f in load_text(line + "\n").findings]


@pytest.mark.parametrize(
    "text",
    [
        "Setting CUDA_VISIBLE_DEVICES=2 after calling torch.cuda.device_count() did nothing, it ran on the first card.",
        "I called torch.cuda.is_available() before setting CUDA_VISIBLE_DEVICES in my notebook.",
    ],
)
def test_order_told_in_words(text: str) -> None:
    assert order_told([text]) is not None
    assert _first(text) == ID


@pytest.mark.parametrize(
    "text",
    [
        "CUDA_VISIBLE_DEVICES must be set before calling torch.cuda.is_available().",
        "Does CUDA_VISIBLE_DEVICES work after torch.cuda.is_available()?",
        "I set CUDA_VISIBLE_DEVICES=1 and after that torch.cuda.is_available() returns True, all good.",
        "I did not set CUDA_VISIBLE_DEVICES after is_available(), it is the first line of the script.",
    ],
)
def test_rule_question_other_order_or_denial_read_nothing(text: str) -> None:
    assert order_told([text]) is None


def test_order_told_is_worded_as_the_late_setting() -> None:
    text = "CUDA_VISIBLE_DEVICES=3 is not used after calling torch.cuda.is_available() first; GPU 0 is used instead.\n"
    finding = load_text(text).findings[0]
    assert finding.id == ID
    assert "once, when it initialises" in finding.explanation
