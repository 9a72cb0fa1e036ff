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
# The rule stated, not a report of it failing: a code comment ("# CUDA_VISIBLE_DEVICES has no effect if set after the
# first CUDA call") or a conditional ("is ignored once CUDA is initialised"). Both readers below skip such lines.
STATES_THE_RULE = re.compile(
    r"^\s*(?:#|//)|\b(?:no effect|ignored)\s+(?:if|unless|once|until|when (?:it is |it's )?set)\b", re.IGNORECASE
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
    if any(IGNORED.search(near) and not STATES_THE_RULE.search(near) for near in window):
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
    """Say what the order (or the selection not taking) means and where to set the variable, on the verdict above:
    the catalogue's text speaks of a value that hides every GPU, and its fix of unsetting the variable would not help
    a process that sees too many."""
    found = set_after_init(lines)
    said = None if found is not None else selection_ignored(lines)
    if found is not None:
        at = found[0]
        shown = (
            "the text sets it after a CUDA call"
            if found[2] == "order"
            else "the text says the setting made in the program does not take effect"
        )
    elif said is not None:
        at, shown = said[0], "the text says the process still sees or uses every GPU despite the variable"
    else:
        return
    explain_at(report, at, shown)


def explain_at(report: Report, at: int, shown: str) -> None:
    """Reword the verdict whose pasted line is line ``at`` as the setting made too late (``shown``: how the text
    shows it)."""
    for f in report.findings:
        if f.id != "cuda_visible_devices_hides_gpus" or f.severity is Severity.INFO:
            continue
        if not any(e.fact == "pasted.line" and str(e.value).startswith(f"line {at}:") for e in f.evidence):
            continue  # another reading of the variable (a value hiding every GPU) made this finding
        f.explanation = (
            "CUDA reads CUDA_VISIBLE_DEVICES once, when it initialises in the process; a value assigned later by the "
            f"program changes nothing, so the process keeps the GPUs it saw at start-up ({shown}). The GPUs "
            "themselves are fine."
        )
        f.fix = (
            "Set the variable before CUDA starts: in the shell or launcher (`CUDA_VISIBLE_DEVICES=1 python "
            "train.py`), or as the first lines of the script, right after `import os` and before `import torch` "
            "and any module that imports it; alternatively leave it unset and pick the GPU with "
            '`torch.device("cuda:1")` / `torch.cuda.set_device(1)`. If the shell setting is ignored too, look for '
            'the program assigning `os.environ["CUDA_VISIBLE_DEVICES"]` itself (often from its own --gpu option) '
            "after `import torch`: that assignment replaces the shell's value."
        )
        f.structured_actions = None


# ---- The selection said not to take, with no assignment shown (round 17; one module with the order above) -------
#
# The same cause as above, told by its effect: the variable (or the program's own GPU option) names a subset, yet the
# process "runs on all GPUs", "device_count() still returns 4", "has no effect", "the same thing occurred". A value set
# after CUDA initialised changes nothing (pytorch/pytorch#9158: os.environ in the script ignored while the shell
# prefix works; #23544; #80876: an import initialising CUDA early), the device count is cached once read
# (pytorch/pytorch#159641), and a program that writes the variable from its own option overrides the shell's
# (KaiyangZhou/deep-person-reid#267). CUDA C Programming Guide, "CUDA Environment Variables": the variable restricts
# the devices the CUDA application sees; NVML tools (nvidia-smi) are not CUDA applications and list every GPU.
# Only the variable named together with the user saying the selection did not take is read. A wish ("how do I use all
# GPUs"), the variable hiding every GPU (usage_words), nvidia-smi listing every GPU, one visible GPU renumbered cuda:0,
# another user's job on every GPU, or a run said to go as expected is not it.
# The variable named (shell prefix, export, os.environ, or in words).
NAMES_VARIABLE = re.compile(r"\bCUDA_VISIBLE_DEVICES\b")
# The selection not taking: every GPU still used / still visible, the count unchanged, "no effect", "ignored".
ALL_GPUS = r"(?:all|every|each)\s+(?:the\s+|of\s+the\s+)?(?:\d+\s+|available\s+)?(?:gpus?|cards|devices)\b"
SELECTION_IGNORED = re.compile(
    r"(?<!want to )(?<!how to )(?<!like to )(?<!able to )(?<!need to )"
    r"\b(?:runs?|running|ran|uses?|using|used|occup(?:y|ies|ied|ying)|takes?|taking|took|allocates?|allocated|"
    r"starts?|started|spawns?|on)\s+(?:on\s+|up\s+)?(?P<all>" + ALL_GPUS + r")|"
    r"\bdevice_count\(\)\s+(?:is\s+|was\s+)?(?:still|always)\b(?P<after>[^\n]{0,30})|"
    r"\b(?:still|always)\s+(?:gets?|got|sees?|saw|returns?|says?|reports?|shows?)\s+(?P<before>\d+)\b[^\n]{0,30}?"
    r"\bdevice_count\(\)|"
    r"\b(?:still|always)\s+(?:sees?|shows?|lists?|uses?|detects?|finds?|returns?)\s+(?:all|every|\d+)\s+(?:\w+\s+)?"
    r"(?:gpus?|cards|devices)\b|"
    r"\bCUDA_VISIBLE_DEVICES\b[^\n]{0,80}?\b(?:has|had|have|took|takes)\s+no\s+effect\b|"
    r"\bCUDA_VISIBLE_DEVICES\b[^\n]{0,80}?\b(?:is|was|gets?|got|being)\s+ignored\b|"
    r"\bCUDA_VISIBLE_DEVICES\b[^\n]{0,160}?\bthe same (?:thing|problem|issue|result)\s+(?:occurs?|occurred|happens?|"
    r"happened)\b",
    re.IGNORECASE,
)
# "All GPUs used" is a complaint only against a narrower selection: a contrast in the same line ("still", "but",
# "even though", "the same thing"), or the variable set to one index. "I train on all 4 GPUs with
# CUDA_VISIBLE_DEVICES=0,1,2,3" is a healthy setup.
CONTRAST = re.compile(
    r"\b(?:still|anyway|even|although|though|despite|but|however|the same (?:thing|problem|issue))\b", re.IGNORECASE
)
ONE_INDEX = re.compile(r"CUDA_VISIBLE_DEVICES[\"']?\]?\s*=\s*[\"']?\d{1,2}[\"']?(?![\d,])")
# nvidia-smi, nvtop and the other NVML tools list every GPU whatever CUDA_VISIBLE_DEVICES says (the variable is read
# by the CUDA runtime in the process, not by NVML): "nvidia-smi still shows all 4 GPUs" is the tool working as meant,
# and "CUDA_VISIBLE_DEVICES is ignored by nvidia-smi" is that fact quoted.
_TOOLS = r"(?:nvidia-smi|nvtop|nvitop|gpustat|nvidia-settings|nvml)"
TOOL_BEFORE = re.compile(r"\b" + _TOOLS + r"\b[^\n]{0,20}$", re.IGNORECASE)
TOOL_AFTER = re.compile(r"\s+(?:by|on|for|in|to)\s+(?:the\s+)?" + _TOOLS + r"\b", re.IGNORECASE)
# Another user's or program's job on every GPU (the reason to pick one), or the run said to go as meant.
OTHER_SUBJECT = re.compile(
    r"\b(?:someone|somebody|another (?:user|job|process|program|team)|other (?:users?|jobs?|processes|people|teams?)|"
    r"colleagues?|(?:lab|team|office)[- ]?mates?|co-?workers?)\b|\belse'?s\b|"
    r"\b(?!it)\w+'s\s+(?:jobs?|processes|runs?)\b",
    re.IGNORECASE,
)
AS_MEANT = re.compile(
    r"\b(?:fine|as expected|as intended|as it should|correctly|works? (?:well|great))\b", re.IGNORECASE
)
# A question about how to use every GPU, or an intent: a wish, not the selection failing.
WISH = re.compile(r"\b(?:how (?:can|do|to|should)|want(?:ed)? to|would like to|is it possible to)\b", re.IGNORECASE)


def visible_devices_ignored(lines: list[str], matches: list[Match]) -> Match | None:
    """The text names CUDA_VISIBLE_DEVICES and says the process still runs on (or sees) every GPU: the variable was
    set after CUDA initialised or overwritten by the program. Specific: the user states the selection failed, and the
    guess-level reading would be dropped by CUDA_VISIBLE_DEVICES=0 "hiding no GPU" (user_words.ruled_out_guesses)."""
    if any(m.specific for m in matches):
        return None
    said = selection_ignored(lines)
    return None if said is None else Match("cuda_visible_devices_hides_gpus", said[0], said[1], True, 0.75)


def selection_ignored(lines: list[str]) -> tuple[int, str] | None:
    """The line where the user says the selection did not take (line number, line), read as above."""
    text = lines[:5000]
    if not any(NAMES_VARIABLE.search(line[:MAX_LINE]) for line in text):
        return None
    for no, line in enumerate(text, start=1):
        head = line[:MAX_LINE]
        found = SELECTION_IGNORED.search(head)
        if found is None or STATES_THE_RULE.search(head):
            continue
        if WISH.search(head[max(0, found.start() - 40) : found.start()]):
            continue
        if TOOL_BEFORE.search(head[max(0, found.start() - 40) : found.start()]) or TOOL_AFTER.match(head, found.end()):
            continue
        if not _count_left_unchanged(found):
            continue
        if found.group("all") and not _narrower_selection(head, text[max(0, no - 1 - NEAR) : no + NEAR]):
            continue
        return no, line.strip()[:500]
    return None


def _count_left_unchanged(found: re.Match[str]) -> bool:
    """A device count that "still" holds one GPU (or none) is the selection working: one visible GPU is cuda:0."""
    number = re.search(r"\d+", found.group("after") or "") if found.group("before") is None else None
    count = found.group("before") or (number[0] if number else None)
    return count is None or int(count) > 1


def _narrower_selection(head: str, around: list[str]) -> bool:
    """'All GPUs used' is a complaint only against a narrower selection: a contrast in the line, or the variable set
    to one index within NEAR lines of it; never about another user's job or a run that went as meant."""
    if OTHER_SUBJECT.search(head) or AS_MEANT.search(head):
        return False
    return CONTRAST.search(head) is not None or any(ONE_INDEX.search(x[:MAX_LINE]) for x in around)
