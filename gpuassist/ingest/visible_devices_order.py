"""CUDA_VISIBLE_DEVICES set inside the program after CUDA was already initialised (round 11).

The evidence space, from the sources:

- CUDA reads CUDA_VISIBLE_DEVICES once, when the driver initialises in the process (CUDA C Programming Guide,
  "CUDA Environment Variables"); a later change has no effect. torch initialises CUDA lazily (torch/cuda/__init__.py
  _lazy_init) but ``import torch`` already queries the device count in many versions and libraries
  (pytorch/pytorch#23544, SsnL: "CUDA_VISIBLE_DEVICES only has effect before CUDA is accessed"); torch >= 1.x even
  warns "CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env variable
  CUDA_VISIBLE_DEVICES after program start" (c10/cuda/CUDAFunctions.cpp, already a message row).
- What a text shows of it: the program's assignment (``os.environ["CUDA_VISIBLE_DEVICES"] = "1"``,
  ``os.putenv``/``os.environ.setdefault``) on a code line AFTER a CUDA call (``torch.cuda.is_available()`` and the
  other device queries, ``.cuda()``, ``.to("cuda")``) in the same snippet; or the user saying the in-code setting is
  ignored ("doesn't take effect", "has no effect", "is ignored"), or the process keeps using GPU 0 / cuda:0 / every
  GPU ("always uses cuda:0", "still runs on GPU 0") while the same value set in the shell works (the first-GPU words
  alone are no evidence: one visible GPU is cuda:0 in torch whatever its physical index).

Only the assignment together with the order or the ignored effect is read; an assignment alone (the usual, working
way to pick a GPU) and a complaint with no assignment in the text say nothing here.
"""

from __future__ import annotations

import re

from gpuassist.findings import Severity
from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.report.model import Report

# The program's own assignment of the variable (any value: the order, not the value, is the fault here).
IN_CODE = re.compile(
    r"os\.environ\[\s*[\"']CUDA_VISIBLE_DEVICES[\"']\s*\]\s*=(?!=)|"
    r"os\.(?:environ\.setdefault|putenv)\(\s*[\"']CUDA_VISIBLE_DEVICES[\"']"
)
# The same assignment told in words: "I set CUDA_VISIBLE_DEVICES=1 in my script", "adding CUDA_VISIBLE_DEVICES inside
# train.py" (read only with the ignored words below, never with the order).
IN_CODE_WORDS = re.compile(
    r"\b(?:set|setting|added|adding|put|putting|changed|changing)\s+(?:the\s+)?(?:env(?:ironment)?\s+var(?:iable)?\s+)?"
    r"[`'\"]?CUDA_VISIBLE_DEVICES[`'\"]?(?:\s*=\s*[\w,\"']{1,20})?\s+(?:in|inside|within|at the top of|from)\s+"
    r"(?:the\s+|my\s+|our\s+)?(?:code|script|python|program|notebook|[\w-]{1,60}\.py)\b",
    re.IGNORECASE,
)
# The assignment as a code line of its own (a snippet, a REPL), not quoted inside a sentence.
CODE_LINE = re.compile(r"^\s*(?:>>>\s*|In \[\d+\]:\s*|\d+\s*[|:]?\s*)?os\.(?:environ|putenv)\b")
# A traceback's frame header: the quoted source lines around it come from different files, in call order.
FRAME = re.compile(r"^\s*File \"|^Traceback \(most recent call last\)|\bin <module>")
# A code line that initialises CUDA. ``import torch`` alone does not (torch initialises CUDA lazily, at the first
# CUDA call), so a setting after it still works unless a CUDA call or a library came first: only the calls count.
CUDA_CALL = re.compile(
    r"\btorch\.cuda\.(?:is_available|device_count|current_device|set_device|get_device_name|get_device_properties|"
    r"init|mem_get_info|synchronize|empty_cache|memory_allocated)\(|\.cuda\(\s*\d*\s*\)|\.to\(\s*[\"']cuda"
)
# The user's words that the setting did not take. "Still on GPU 0" alone is no evidence: with one GPU made visible,
# torch numbers it cuda:0 whatever its physical index, so the first-GPU words count only beside the same value set
# in the shell working; "ignored" / "no effect" / "doesn't work" name the failure outright.
FIRST_GPU = r"(?:cuda:?\s*0|gpu\s*:?\s*(?:#\s*)?0|device\s*(?:id\s*)?0|the first gpu|all (?:the )?gpus|every gpu)"
STILL_FIRST = re.compile(
    rf"\b(?:always|still)\s+(?:be\s+)?(?:use[sd]?|using|runs?|running|ran|picks?|goes|go|on|select(?:s|ed)?)\s+"
    rf"(?:on\s+|to\s+)?(?:the\s+)?{FIRST_GPU}",
    re.IGNORECASE,
)
IGNORED = re.compile(
    r"\b(?:does ?n[o']t|did ?n[o']t|not|never)\s+(?:seem to\s+)?(?:work|take effect|have (?:any )?effect)\b|"
    r"\bno effect\b|\b(?:is|are|was|were|gets?|being)\s+ignored\b",
    re.IGNORECASE,
)
# The same variable set outside the program (a shell prefix, export, or the user's words for the shell).
SHELL_SET = re.compile(
    r"CUDA_VISIBLE_DEVICES=\S+\s+(?:python\S*|torchrun|accelerate|bash|sh|\./)|\bexport\s+CUDA_VISIBLE_DEVICES\b|"
    r"\b(?:in|from|on|via|with)\s+(?:the\s+|a\s+)?(?:bash|shell|terminal|command[- ]?line|cmd|console)\b|"
    r"\bexport(?:ing|ed)?\s+(?:it|the variable|CUDA_VISIBLE_DEVICES)\b",
    re.IGNORECASE,
)
# How near (in lines) the user's words must be to the assignment to speak of it.
NEAR = 4


def _assignment(cut: list[str]) -> int | None:
    return next((no for no, line in enumerate(cut) if IN_CODE.search(line) or IN_CODE_WORDS.search(line)), None)


def set_after_init(lines: list[str]) -> tuple[int, str, str] | None:
    """The in-code assignment and what shows it came too late: (line number, line, "order" | "ignored")."""
    cut = [line[:MAX_LINE] for line in lines]
    at = _assignment(cut)
    if at is None:
        return None
    line = cut[at].strip()
    before = cut[max(0, at - 60) : at]
    snippet = before[max((i + 1 for i, earlier in enumerate(before) if FRAME.search(earlier)), default=0) :]
    if IN_CODE.search(cut[at]) and CODE_LINE.match(cut[at]) and any(CUDA_CALL.search(earlier) for earlier in snippet):
        return at + 1, line, "order"
    window = cut[max(0, at - NEAR) : at + NEAR + 1]
    if any(IGNORED.search(near) for near in window):
        return at + 1, line, "ignored"
    if any(STILL_FIRST.search(near) for near in window) and any(SHELL_SET.search(other) for other in cut):
        return at + 1, line, "ignored"
    return None


def set_after_init_matches(lines: list[str], matches: list[Match]) -> list[Match]:
    """The variable set in code after torch/CUDA started (shown by the order, or by the setting not taking effect):
    the likeliest reading, ahead of hardware guesses; a verdict already about the variable stands."""
    found = set_after_init(lines)
    if found is None or any(m.id == "cuda_visible_devices_hides_gpus" and m.specific for m in matches):
        return matches
    return [*matches, Match("cuda_visible_devices_hides_gpus", found[0], found[1][:500], True, 0.9)]


def explain(report: Report, lines: list[str]) -> None:
    """Say what the order means and where to set the variable, on the verdict above (the catalogue's text speaks of
    a value that hides every GPU, and its fix of unsetting the variable would not help here)."""
    found = set_after_init(lines)
    if found is None:
        return
    for f in report.findings:
        if f.id != "cuda_visible_devices_hides_gpus" or f.severity is Severity.INFO:
            continue
        if not any(e.fact == "pasted.line" and str(e.value).startswith(f"line {found[0]}:") for e in f.evidence):
            continue  # another reading of the variable (a value hiding every GPU) made this finding
        shown = (
            "the text sets it after a CUDA call"
            if found[2] == "order"
            else "the text says the setting made in the program does not take effect"
        )
        f.explanation = (
            "CUDA reads CUDA_VISIBLE_DEVICES once, when it initialises in the process; a value assigned later by the "
            f"program changes nothing, so the process keeps the GPUs it saw at start-up ({shown}). The GPUs "
            "themselves are fine."
        )
        f.fix = (
            "Set the variable before CUDA starts: in the shell or launcher (`CUDA_VISIBLE_DEVICES=1 python "
            "train.py`), or as the first lines of the script, right after `import os` and before `import torch` "
            "and any module that imports it; alternatively leave it unset and pick the GPU with "
            '`torch.device("cuda:1")` / `torch.cuda.set_device(1)`.'
        )
        f.structured_actions = None
