"""CUDA_VISIBLE_DEVICES set inside the program after CUDA was already initialised (round 11).

The evidence space, from the sources:

- CUDA reads CUDA_VISIBLE_DEVICES once, when the driver initialises in the process (CUDA C Programming Guide,
  "CUDA Environment Variables"); a later change has no effect. torch initialises CUDA lazily (torch/cuda/__init__.py
  _lazy_init) but ``import torch`` already queries the device count in many versions and libraries
  (pytorch/pytorch#23544, SsnL: "CUDA_VISIBLE_DEVICES only has effect before CUDA is accessed"); torch >= 1.x even
  warns "CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env variable
  CUDA_VISIBLE_DEVICES after program start" (c10/cuda/CUDAFunctions.cpp, already a message row).
- What a text shows of it: the program's assignment (``os.environ["CUDA_VISIBLE_DEVICES"] = "1"``,
  ``os.putenv``/``os.environ.setdefault``) on a code line AFTER ``import torch`` or a CUDA call
  (``torch.cuda.*``, ``.cuda()``, ``.to("cuda")``) in the same snippet; or the user saying the in-code setting is
  ignored: the process keeps using GPU 0 / cuda:0 / every GPU ("always uses cuda:0", "still runs on GPU 0",
  "doesn't take effect", "has no effect", "is ignored") while the same value in the shell works.

Only the assignment together with the order or the ignored effect is read; an assignment alone (the usual, working
way to pick a GPU) and a complaint with no assignment in the text say nothing here.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

# The program's own assignment of the variable (any value: the order, not the value, is the fault here).
IN_CODE = re.compile(
    r"os\.environ\[\s*[\"']CUDA_VISIBLE_DEVICES[\"']\s*\]\s*=(?!=)|"
    r"os\.(?:environ\.setdefault|putenv)\(\s*[\"']CUDA_VISIBLE_DEVICES[\"']"
)
# The assignment as a code line of its own (a snippet, a REPL), not quoted inside a sentence.
CODE_LINE = re.compile(r"^\s*(?:>>>\s*|In \[\d+\]:\s*|\d+\s*[|:]?\s*)?os\.(?:environ|putenv)\b")
# A traceback's frame header: the quoted source lines around it come from different files, in call order.
FRAME = re.compile(r"^\s*File \"|^Traceback \(most recent call last\)|\bin <module>")
# A code line that imports torch or touches CUDA (and so may initialise it).
CUDA_TOUCH = re.compile(
    r"^\s*(?:>>>\s*|In \[\d+\]:\s*)?(?:import torch\b|from torch\b[\w.]* import\b)|"
    r"\btorch\.cuda\.\w+\(|\.cuda\(\s*\)|\.to\(\s*[\"']cuda|torch\.device\(\s*[\"']cuda"
)
# The user's words that the setting did not take: the first GPU or every GPU still used, or no effect at all.
FIRST_GPU = r"(?:cuda:?\s*0|gpu\s*:?\s*(?:#\s*)?0|device\s*(?:id\s*)?0|the first gpu|all (?:the )?gpus|every gpu)"
IGNORED = re.compile(
    rf"\b(?:always|still|only)\s+(?:be\s+)?(?:use[sd]?|using|runs?|running|ran|picks?|goes|go|on|select(?:s|ed)?)\s+"
    rf"(?:on\s+|to\s+)?(?:the\s+)?{FIRST_GPU}|"
    r"\b(?:does ?n[o']t|did ?n[o']t|not|never)\s+(?:seem to\s+)?(?:work|take effect|have (?:any )?effect|change)\b|"
    r"\bno effect\b|\b(?:is|are|was|were|gets?|being)\s+ignored\b",
    re.IGNORECASE,
)
# How near (in lines) the user's words must be to the assignment to speak of it.
NEAR = 4


def _assignment(cut: list[str]) -> int | None:
    return next((no for no, line in enumerate(cut) if IN_CODE.search(line)), None)


def set_after_init(lines: list[str]) -> tuple[int, str, str] | None:
    """The in-code assignment and what shows it came too late: (line number, line, "order" | "ignored")."""
    cut = [line[:MAX_LINE] for line in lines]
    at = _assignment(cut)
    if at is None:
        return None
    line = cut[at].strip()
    before = cut[max(0, at - 60) : at]
    snippet = before[max((i + 1 for i, earlier in enumerate(before) if FRAME.search(earlier)), default=0) :]
    if CODE_LINE.match(cut[at]) and any(CUDA_TOUCH.search(earlier) for earlier in snippet):
        return at + 1, line, "order"
    window = cut[max(0, at - NEAR) : at + NEAR + 1]
    if any(IGNORED.search(near) for near in window):
        return at + 1, line, "ignored"
    return None


def set_after_init_matches(lines: list[str], matches: list[Match]) -> list[Match]:
    """The variable set in code after torch/CUDA started (shown by the order, or by the setting not taking effect):
    the likeliest reading, ahead of hardware guesses; a verdict already about the variable stands."""
    found = set_after_init(lines)
    if found is None or any(m.id == "cuda_visible_devices_hides_gpus" and m.specific for m in matches):
        return matches
    return [*matches, Match("cuda_visible_devices_hides_gpus", found[0], found[1][:500], True, 0.9)]
