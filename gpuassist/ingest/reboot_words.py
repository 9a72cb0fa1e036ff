"""The driver was installed and the machine not rebooted since: its kernel module is not running yet.

A driver install builds and installs nvidia.ko (DKMS or the .run installer) but, while nouveau holds the GPU, cannot
load it: the nouveau blacklist it writes (/etc/modprobe.d, rebuilt initramfs) only takes effect on the next boot,
and until then ``modprobe nvidia`` fails and CUDA answers "no CUDA-capable device is detected" (NVIDIA driver
installation guide, "Disabling Nouveau": "Reboot into text mode ... or reboot the system"; Ubuntu's and the .run
installer's "reboot required"). Reporters tell it in words ("on a machine that had never rebooted", "installed the
driver without rebooting", "haven't rebooted since installing the driver"). Where a generic message leaves the
module among its possible causes, those words put it first; they name no cause on their own, so nothing is added
when no message of the text allows it. "Before the reboot it worked" is the opposite story (after_events, a kernel
update) and is not read: only never/not/without, with the driver or its module named in the same sentence.
"""

from __future__ import annotations

import re

from gpuassist.ingest import prose
from gpuassist.ingest.errors import Match

NOT_REBOOTED = re.compile(
    r"(?:\bnever|\bnot|n't|\bwithout|\byet\s+to)\s+(?:\w+\s+){0,2}?(?:a\s+|the\s+)?re-?(?:boot|start)(?:ed|ing)?\b|"
    # "no reboot is required" is the installer saying none is needed, not that one is owed
    r"\bno\s+re-?boot\b(?!\s+(?:is\s+|was\s+)?(?:required|needed|necessary))|\bre-?boot\s+(?:is\s+)?(?:still\s+)?pending\b",
    re.IGNORECASE,
)
DRIVER_NAMED = re.compile(
    r"\b(?:nvidia\s+)?driver\b|\bnvidia\.ko\b|\bkernel\s+modules?\b|\bdkms\b|\bnvidia-driver[\w.-]*|\bmodprobe\b",
    re.IGNORECASE,
)
# Advice, not an account: "you can reload the driver without rebooting", "you don't need to reboot".
ADVICE = re.compile(r"\byou\s+(?:can|could|should|shouldn'?t|need|needn'?t|must|may|don'?t|do not)\b", re.IGNORECASE)
MODULE = "nvidia_module_not_loaded"


def not_rebooted_since_install(lines: list[str]) -> tuple[int, str] | None:
    """(line number, line) of a sentence saying the machine was not rebooted, with the driver named in it."""
    # ';' ends a sentence: "installed the driver; did not reboot the router" keeps the driver out of the denial.
    for no, sentence in prose.sentences(lines, semicolon=True):
        if prose.is_question(sentence) or ADVICE.search(sentence):
            continue
        if NOT_REBOOTED.search(sentence) and DRIVER_NAMED.search(sentence):
            return no, lines[no - 1].strip()[:500]
    return None


def unrebooted_driver_module_first(lines: list[str], matches: list[Match]) -> list[Match]:
    """Put the module-not-loaded possibility first when the text says the driver was not yet booted into."""
    if any(m.specific for m in matches) or not any(m.id == MODULE for m in matches):
        return matches
    said = not_rebooted_since_install(lines)
    if said is None:
        return matches
    top = max(m.weight for m in matches)
    raised = Match(MODULE, said[0], said[1], False, min(0.9, top + 0.1))
    return [raised, *(m for m in matches if m.id != MODULE)]
