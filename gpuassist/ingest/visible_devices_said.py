"""CUDA_VISIBLE_DEVICES set after CUDA started, told in words (round 27).

The evidence space, from the sources (a YOLO-style select_device helper writing its device into the variable is the
messages.json row ``yolo_select_device_word_in_visible_devices``, widened in round 27 to every value CUDA cannot read):

- The variable set after a CUDA call, told in words instead of shown as code (visible_devices_order reads the code):
  "CUDA_VISIBLE_DEVICES setting has no effect after calling torch.cuda.is_available()", "I called is_available()
  before setting CUDA_VISIBLE_DEVICES". CUDA reads the variable once, when it initialises; pytorch/pytorch#23544
  (SsnL: the variable only has effect before PyTorch accesses CUDA). Only the order said as a fact is read: the
  rule quoted ("only works if set before ..."), a question, and a denial are not.
"""

from __future__ import annotations

import re

from gpuassist.ingest import prose
from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.ingest.visible_devices_order import explain_at
from gpuassist.report.model import Report

_VAR = r"CUDA_VISIBLE_DEVICES"
_CALL = (
    r"(?:torch\.)?(?:cuda\.)?(?:is_available|device_count|current_device|set_device|get_device_name)\b(?:\s*\(\s*\))?|"
    r"torch\.cuda\b"
)
# The variable (set) after the call / the call before the variable; "after that", "afterwards" point the other way.
ORDER_SAID = re.compile(
    rf"\b{_VAR}\b[^.\n]{{0,80}}?\bafter\s+(?!that\b|this\b|which\b|wards\b)"
    rf"(?:(?:I\s+|we\s+)?(?:call(?:ed|ing|s)?|run(?:ning)?|ran|us(?:ed|ing)|invok(?:ed|ing))\s+)?(?:the\s+)?"
    rf"(?:(?:first\s+)?call\s+(?:to|of)\s+)?[`'\"]?(?:{_CALL})|"
    rf"(?:{_CALL})[`'\"]?[^.\n]{{0,60}}?\bbefore\s+(?:I\s+|we\s+)?(?:set(?:ting)?\s+|export(?:ing)?\s+)?"
    rf"(?:the\s+)?[`'\"]?(?:os\.environ\[\s*['\"])?{_VAR}\b",
    re.IGNORECASE,
)
# The rule stated, not a failure reported: "must be set before ...", "only has effect before ...", a condition.
RULE_STATED = re.compile(
    r"\b(?:must|should|need(?:s)? to|has to|have to|only (?:has effect|works?|applies))\b|\bif\s+(?:you|it|one)\b",
    re.IGNORECASE,
)


def order_told(lines: list[str]) -> Match | None:
    """A sentence saying the variable was set after a CUDA call (or the call came before it), as a fact."""
    for no, sentence in prose.sentences(lines):
        found = ORDER_SAID.search(sentence[:MAX_LINE])
        if found is None or prose.is_question(sentence) or RULE_STATED.search(sentence):
            continue
        if prose.negated(prose.clause_before(sentence[: found.start()])):
            continue  # "I did not set CUDA_VISIBLE_DEVICES after ..."
        return Match("cuda_visible_devices_hides_gpus", no, sentence.strip()[:500], True, 0.85)
    return None


def said_matches(lines: list[str], matches: list[Match]) -> Match | None:
    """The order told in words, unless a reading of the variable is already specific."""
    if any(m.id == "cuda_visible_devices_hides_gpus" and m.specific for m in matches):
        return None
    return order_told(lines)


def explain_order(report: Report, lines: list[str]) -> None:
    """The order told in words is the too-late setting, not a value hiding every GPU: word the verdict so."""
    told = order_told(lines)
    if told is not None:
        explain_at(report, told.line_no, "the text says the variable was set after a CUDA call")
