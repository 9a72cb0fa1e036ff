"""/dev/nvidia-uvm said missing in words after a sleep: the UVM module broken by the suspend (round 29, issue #14).

uvm_node_cause.py decides between the suspend reading and the module class for a missing UVM node, but it reads the
node's absence only as tools print it (ls's "cannot access '/dev/nvidia-uvm'", "/dev/nvidia-uvm: No such file or
directory", orchestration.UVM_NODE_MISSING). Reporters often say it instead: "after resuming from suspend
/dev/nvidia-uvm is missing", "the nvidia-uvm device node is gone after waking from sleep". The node exists only
while nvidia_uvm.ko is loaded (NVIDIA driver README, "Device node creation"); after a suspend/resume that module is
the one left broken or unloaded (NVIDIA README, "Configuring Power Management Support"), so a sentence that names
the node missing and a sleep before it reads as uvm_wedged_after_suspend, a guess (the user's account, not a tool's
message). A question, a denied sleep, a process or job that slept (after_events' NOT_THE_HOST), or the node said
present ("/dev/nvidia-uvm is there") say nothing; a message that names a cause outright wins (any specific match).
"""

from __future__ import annotations

import re

from gpuassist.ingest import prose
from gpuassist.ingest.after_events import NOT_THE_HOST, SLEEP_DENIED, SLEPT
from gpuassist.ingest.errors import Match

# The UVM device node said absent: "/dev/nvidia-uvm is missing", "nvidia-uvm device node is gone", "there is no
# /dev/nvidia-uvm", "/dev/nvidia-uvm does not exist / disappeared / is not there".
UVM_NODE_GONE_SAID = re.compile(
    r"(?:/dev/nvidia-uvm|nvidia-uvm\s+(?:device\s+)?(?:node|device|file))\b(?!-)[^.!?\n]{0,20}?\b(?:is|was|are|were|has|"
    r"had|gets?|got)?\s*(?:missing|gone|absent|disappear\w*|not\s+(?:there|present|created)|vanish\w*)\b|"
    r"(?:/dev/nvidia-uvm|nvidia-uvm\s+(?:device\s+)?node)\b(?!-)[^.!?\n]{0,20}?\b(?:does\s*n[o']?t|did\s*n[o']?t)\s+exist|"
    r"\bno\s+(?:more\s+)?/dev/nvidia-uvm\b(?!-)",
    re.IGNORECASE,
)


def uvm_node_gone_after_sleep_match(lines: list[str], matches: list[Match]) -> Match | None:
    """The user says /dev/nvidia-uvm is missing after the host slept: the suspend's broken UVM module, as a guess."""
    if any(m.specific for m in matches):
        return None
    for no, sentence in prose.sentences(lines):
        if prose.is_question(sentence) or NOT_THE_HOST.search(sentence) or SLEEP_DENIED.search(sentence):
            continue
        if SLEPT.search(sentence) and UVM_NODE_GONE_SAID.search(sentence):
            return Match("uvm_wedged_after_suspend", no, sentence.strip()[:500], False, 0.8)
    return None
