"""CUDA_VISIBLE_DEVICES set and ignored: the process still sees and uses every GPU.

CUDA reads CUDA_VISIBLE_DEVICES once, when the process initialises its driver context; a value written afterwards
(``os.environ["CUDA_VISIBLE_DEVICES"] = ...`` after torch already initialised CUDA) changes nothing, and a program that
writes the variable itself from its own option overrides what the shell passed (pytorch/pytorch#9158; CUDA C
Programming Guide, "CUDA Environment Variables": the variable restricts the devices visible to the application;
torch/cuda/__init__.py: device_count() is cached after the first call). The class, in the user's words: the variable
(or the program's GPU option) set to a subset, yet "it runs on all GPUs", "device_count() still returns 4", "has no
effect", "the same thing occurred".

Only the combination is read (the catalogue's "... or was set after CUDA init"): the variable
named in the text, and the user saying the selection did not take. "How do I use all GPUs" (a wish) or the variable
hiding every GPU (usage_words reads that) is not it.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

# The variable named (shell prefix, export, os.environ, or in words).
NAMES_VARIABLE = re.compile(r"\bCUDA_VISIBLE_DEVICES\b")
# The selection not taking: every GPU still used / still visible, the count unchanged, "no effect", "ignored".
ALL_GPUS = r"(?:all|every|each)\s+(?:the\s+|of\s+the\s+)?(?:\d+\s+|available\s+)?(?:gpus?|cards|devices)\b"
IGNORED = re.compile(
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
    r"colleagues?)\b|\belse'?s\b",
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
    text = lines[:5000]
    if not any(NAMES_VARIABLE.search(line[:MAX_LINE]) for line in text):
        return None
    for no, line in enumerate(text, start=1):
        head = line[:MAX_LINE]
        found = IGNORED.search(head)
        if found is None or WISH.search(head[max(0, found.start() - 40) : found.start()]):
            continue
        if TOOL_BEFORE.search(head[max(0, found.start() - 40) : found.start()]) or TOOL_AFTER.match(head, found.end()):
            continue
        if not _count_left_unchanged(found):
            continue
        if found.group("all") and not _narrower_selection(head, text[max(0, no - 2) : no + 1]):
            continue
        return Match("cuda_visible_devices_hides_gpus", no, line.strip()[:500], True, 0.75)
    return None


def _count_left_unchanged(found: re.Match[str]) -> bool:
    """A device count that "still" holds one GPU (or none) is the selection working: one visible GPU is cuda:0."""
    number = re.search(r"\d+", found.group("after") or "") if found.group("before") is None else None
    count = found.group("before") or (number[0] if number else None)
    return count is None or int(count) > 1


def _narrower_selection(head: str, around: list[str]) -> bool:
    """'All GPUs used' is a complaint only against a narrower selection: a contrast in the line, or the variable set
    to one index on this line or the next to it; never about another user's job or a run that went as meant."""
    if OTHER_SUBJECT.search(head) or AS_MEANT.search(head):
        return False
    return CONTRAST.search(head) is not None or any(ONE_INDEX.search(x[:MAX_LINE]) for x in around)
