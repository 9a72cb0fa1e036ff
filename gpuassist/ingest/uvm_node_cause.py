"""A missing /dev/nvidia-uvm on a host that rebooted, or whose other NVIDIA device nodes are gone too: the driver's
kernel modules are not loaded, not a UVM module broken by a suspend (round 27 of issue #14).

The evidence space:
- The device nodes exist only while the modules are loaded: /dev/nvidiactl and /dev/nvidia<N> for nvidia.ko,
  /dev/nvidia-uvm for nvidia-uvm.ko (which needs nvidia.ko); nvidia-modprobe or udev create them when the module
  loads (NVIDIA driver README, "Device node creation"). Docker's ``--device`` (moby daemon/oci_linux.go: "error
  gathering device information while adding custom device %q: %s"), Podman's stat, CDI specs and enroot's hook name
  the first node they miss, which is often nvidia-uvm, the one a container setup lists.
- A suspend/resume leaves nvidia_uvm loaded but broken (uvm_wedged_after_suspend, NVIDIA README "Configuring Power
  Management Support"); a reboot loads whatever the boot gives: after a kernel change (unattended-upgrades, a cloud
  image update) with no module built for the new kernel, or nouveau bound first, nothing NVIDIA is loaded and no
  /dev/nvidia* exists (nvidia_module_not_loaded: DKMS not built for the running kernel; NVIDIA/nvidia-docker#137,
  the maintainer on EC2 after a stop/start).
So a missing UVM node is the module class when the text says the machine rebooted / restarted / changed kernel and
never that it slept, or says the other nvidia nodes are missing as well (in words or an ``ls /dev/nvidia*`` that
finds nothing). A missing UVM node alone, or with a sleep, keeps the suspend reading (module_words reads a missing
UVM module the same way: the sleep decides).
"""

from __future__ import annotations

import re

from gpuassist.ingest import prose
from gpuassist.ingest.after_events import SLEEP_DENIED, SLEPT
from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.ingest.orchestration import UVM_NODE_MISSING

SUSPEND = "uvm_wedged_after_suspend"
MODULE = "nvidia_module_not_loaded"

# The host rebooted or changed kernel: "after rebooting", "rebooted the machine", "stop and start the instance",
# "unattended-upgrades upgraded the kernel". A container or service restart is not the host's.
REBOOTED = re.compile(
    r"\bre-?boot(?:ed|ing|s)?\b(?!\s+(?:the\s+|my\s+)?(?:container|pod|service|docker|daemon)s?\b)|"
    r"\b(?:stop(?:ped|ping)?|restart(?:ed|ing|s)?|start(?:ed|ing)?|power[- ]?cycl\w*)\s+(?:\w+\s+){0,2}?"
    r"(?:instances?|machines?|servers?|vms?|hosts?|computers?|nodes?|system|box)\b|"
    r"\b(?:instances?|machines?|servers?|hosts?|nodes?)\s+(?:was\s+|were\s+|got\s+)?(?:re-?started|re-?booted)\b|"
    r"\bkernel\s+(?:was\s+|got\s+|has\s+been\s+)?(?:upgrad|updat)\w*|\b(?:upgrad|updat)\w*\s+(?:\w+\s+){0,2}?kernel\b|"
    r"\bunattended[- ]upgrades?\b",
    re.IGNORECASE,
)
# Advice or a plan, not an account: "should I reboot", "try rebooting", "a reboot fixes it", "do I need to reboot".
REBOOT_ADVICE = re.compile(
    r"\b(?:should|shall|could|would|can|need\s+to|have\s+to|try(?:ing)?\s+(?:to\s+)?|please)\s+(?:\w+\s+){0,2}?"
    r"re-?(?:boot|start)|\bre-?boot(?:ing)?\s+(?:fix|solv|help|cur|resolv)\w*",
    re.IGNORECASE,
)
# The other NVIDIA nodes are gone: "no nvidia related stuff in /dev", "/dev/nvidia* are missing", "no /dev/nvidia0",
# ls finding no /dev/nvidia* at all, a runtime missing /dev/nvidiactl or /dev/nvidia0.
NODES_GONE = re.compile(
    r"\bno\s+(?:/dev/)?nvidia(?:\*|\d|ctl)?\b[^.!?\n]{0,40}?\b(?:in|under|inside)\s+(?:the\s+)?/?dev\b|"
    r"\b(?:in|into|under|inside)\s+(?:the\s+)?/?dev\b[^.!?\n]{0,40}?\bno\s+nvidia\b|"
    r"\bno\s+/dev/nvidia(?:\*|\d+|ctl)?|/dev/nvidia(?:\*|\d+|ctl)\s+(?:is|are|were|was)\s+(?:missing|gone|absent)\b|"
    r"cannot access '?/dev/nvidia(?:\*|\d+|ctl)'?|/dev/nvidia(?:\*|\d+|ctl)'?:\s*no such file",
    re.IGNORECASE,
)


def _rebooted(lines: list[str]) -> bool:
    """A sentence tells the host rebooted, restarted or changed kernel (not advice to do so)."""
    for _, sentence in prose.sentences(lines):
        if REBOOTED.search(sentence) and not REBOOT_ADVICE.search(sentence):
            return True
    return False


def _slept(lines: list[str]) -> bool:
    text = "\n".join(lines)
    return SLEPT.search(text) is not None and SLEEP_DENIED.search(text) is None


def uvm_node_after_reboot(lines: list[str], matches: list[Match]) -> list[Match]:
    """The runtime's missing /dev/nvidia-uvm, read as a suspend-broken UVM module, on a host the text shows rebooted
    (or with no NVIDIA nodes at all) and never slept: the NVIDIA modules are not loaded (a verdict, same line)."""
    node = next((m for m in matches if m.id == SUSPEND and UVM_NODE_MISSING.search(m.line)), None)
    if node is None:
        return matches
    cut = [line[:MAX_LINE] for line in lines[:5000]]
    if _slept(cut) or not (any(NODES_GONE.search(line) for line in cut) or _rebooted(cut)):
        return matches
    kept = [m for m in matches if m.id not in (SUSPEND, MODULE)]
    return [*kept, Match(MODULE, node.line_no, node.line, True, max(node.weight, 0.85))]
