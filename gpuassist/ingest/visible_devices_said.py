"""CUDA_VISIBLE_DEVICES written by a library's device helper, and the too-late setting told in words (round 27).

The evidence space, from the sources:

- YOLO-family ``select_device(device)`` (ultralytics/yolov3 and yolov5 utils/torch_utils.py, YOLOR, YOLOv7 and the
  many packages that vendor it, e.g. CnSTD's yolov7/torch_utils.py) does ``os.environ['CUDA_VISIBLE_DEVICES'] =
  device`` and right after it ``assert torch.cuda.is_available(), f'CUDA unavailable, invalid device {device}
  requested'`` (later yolov5: ``Invalid CUDA '--device {device}' requested, use '--device cpu' or pass valid CUDA
  device(s)``). The device named in the message is therefore the value the variable was given.
- CUDA reads the variable as a comma list of device indices or GPU-/MIG- UUIDs and stops at the first invalid entry
  (CUDA C Programming Guide, "CUDA Environment Variables"; rules/env_vars.parse_visible): a value whose FIRST entry is
  neither ("cuda", "gpu", "cuda:0" where the helper does not strip the prefix) hides every GPU on any machine, the
  same verdict as an empty value or -1. A numeric value ("0", "1,2") may be fine or beyond the GPUs present, and the
  assertion also fires with no usable CUDA at all: nothing is read from it here.
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

# The helper's assertion: the value it wrote into CUDA_VISIBLE_DEVICES, as the message quotes it.
SELECT_DEVICE_FAILED = re.compile(
    r"CUDA unavailable, invalid device (?P<a>[^\s,'\"{}%]+(?:,[^\s,'\"{}%]+)*) requested|"
    r"Invalid CUDA '--device (?P<b>[^'\s{}%]+)' requested"
)
# An entry CUDA accepts: an index or a GPU-/MIG- UUID (prefix).
VALID_ENTRY = re.compile(r"^(?:\d+|GPU-[\w-]*|MIG-[\w/-]*)$")


def helper_value_hides_gpus(lines: list[str]) -> Match | None:
    """The device helper asserted after writing a value whose first entry CUDA cannot read: every GPU is hidden."""
    for no, raw in enumerate(lines, start=1):
        found = SELECT_DEVICE_FAILED.search(raw[:MAX_LINE])
        if found is None:
            continue
        value = found.group("a") or found.group("b") or ""
        if value.lower() in ("cpu", "mps"):
            continue  # the helper's own CPU and Apple branches never assert
        if not VALID_ENTRY.match(value.split(",")[0].strip()):
            return Match("cuda_visible_devices_hides_gpus", no, raw.strip()[:500], True, 0.9)
    return None


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
    """Either reading above, unless a reading of the variable is already specific."""
    if any(m.id == "cuda_visible_devices_hides_gpus" and m.specific for m in matches):
        return None
    return helper_value_hides_gpus(lines) or order_told(lines)


def explain_order(report: Report, lines: list[str]) -> None:
    """The order told in words is the too-late setting, not a value hiding every GPU: word the verdict so."""
    told = order_told(lines)
    if told is not None:
        explain_at(report, told.line_no, "the text says the variable was set after a CUDA call")
