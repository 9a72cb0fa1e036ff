"""A kernel module of the NVIDIA driver said not to be loaded, or its device node said missing, in the user's words.

The driver is several kernel modules, each with its device nodes: nvidia (/dev/nvidiactl, /dev/nvidia0...),
nvidia_uvm (/dev/nvidia-uvm, which CUDA needs and nvidia-smi does not), nvidia_modeset (/dev/nvidia-modeset) and
nvidia_drm. CUDA loads nvidia_uvm on demand through the setuid nvidia-modprobe, and nvidia-container-cli loads the
modules with --load-kmods; an unprivileged runtime cannot, so after a reboot they are missing until something
loads them (NVIDIA/enroot conf/hooks/98-nvidia.sh warns "Kernel module nvidia_uvm is not loaded. Make sure the
NVIDIA device driver is installed and loaded."; libnvidia-container then fails to stat the missing /dev node).
Reporters retell these ("complained about nvidia-uvm module not being loaded", "could not find
/dev/nvidia-modeset"). What the words name decides the reading, as the catalogue routes them:

- nvidia_uvm (or /dev/nvidia-uvm) alone, in a text that says the machine slept (suspend, hibernation, standby):
  uvm_wedged_after_suspend, whose fix reloads nvidia_uvm;
- nvidia_uvm alone with no sleep in the text: it was never loaded (a boot-time softdep or modules-load entry that did
  not run, no nvidia-modprobe/udev rule to load it on demand, a UVM package not installed): the module class,
  nvidia_module_not_loaded (round 18: NixOS/nixpkgs#334180's open driver never loading nvidia-uvm at boot);
- any other module or node (the core module, nvidia-modeset, /dev/nvidiactl), alone or with UVM: the driver's
  modules are not loaded = nvidia_module_not_loaded.

It is a possibility (the user's account, not the tool's message), needs a failure in the text, and gives way to
any message that names a cause outright. A question ("is nvidia_uvm not loaded?") is not a statement.
"""

from __future__ import annotations

import re

from gpuassist.ingest import prose
from gpuassist.ingest.after_events import SLEEP_DENIED, SLEPT
from gpuassist.ingest.cuda_working import cuda_shown_working, smi_answered
from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

MODULE = r"nvidia(?:[-_](?:uvm|modeset|drm))?"
NODE = r"/dev/nvidia(?:-uvm(?:-tools)?|-modeset|ctl|\d+)"
# "<module> (kernel) module (is|was|being) not loaded", "kernel module <module> is not loaded", "<module> not loaded".
MODULE_NOT_LOADED = re.compile(
    rf"\b(?P<a>{MODULE})\b['\"`]?(?:\s+(?:kernel\s+)?modules?)?\s+(?:(?:is|was|were|are|being|has been)\s+)?"
    rf"(?:not|n't|(?:is|was|were|are|has|have)n[o']?t)\s+(?:being\s+|been\s+)?loaded\b|"
    rf"\bkernel\s+modules?\s+['\"`]?(?P<b>{MODULE})\b['\"`]?\s+(?:is\s+|was\s+)?not\s+loaded\b",
    re.IGNORECASE,
)
NODE_MISSING = re.compile(
    rf"\b(?:(?:not\s+(?:being\s+)?able|unable)\s+to\s+find|can(?:no|')t\s+find|could\s*n[o']?t\s+find|"
    rf"did\s*n[o']?t\s+find|missing)\s+(?:the\s+)?(?P<a>{NODE})\b|"
    rf"(?P<b>{NODE})\b[`'\"]?\s+(?:is\s+|was\s+)?(?:missing|not\s+found|does\s*n[o']?t\s+exist|not\s+present)\b",
    re.IGNORECASE,
)
FAILURE = re.compile(r"\b(?:fail\w*|errors?|complain\w*|can(?:no|')t|unable|refus\w*|does\s*n[o']?t\s+work)\b", re.I)
# A line of code that prints the words (a script's own check, enroot's hook source): not a report that it happened.
PRINTED_BY_CODE = re.compile(
    r"^\s*(?:if\b|then\b|else\b|fi\b)|\b(?:echo|printf)\s+['\"]|\b(?:print|warn\w*|error|info|raise)\(|"
    r"\blog(?:ger|ging)?\.\w+\(",
    re.IGNORECASE,
)


# nvidia-drm and nvidia-modeset drive displays (KMS, modesetting); CUDA needs only nvidia.ko and nvidia-uvm (NVIDIA's
# driver README, "Introduction to NVIDIA DRM KMS" and "Persistence Daemon"/headless setups load neither). A headless
# node without them is healthy; only a container runtime that asks for /dev/nvidia-modeset trips on it.
DISPLAY_MODULE = re.compile(r"drm|modeset")


def _named(sentence: str) -> set[str]:
    """The modules a sentence says are not loaded (by name or by their missing node)."""
    named: set[str] = set()
    for pattern in (MODULE_NOT_LOADED, NODE_MISSING):
        for hit in pattern.finditer(sentence):
            name = (hit.group("a") or hit.group("b")).lower().replace("_", "-")
            named.add("uvm" if "uvm" in name else "display" if DISPLAY_MODULE.search(name) else "other")
    return named


def module_not_loaded_in_words(lines: list[str], matches: list[Match]) -> Match | None:
    """The user says a module of the driver is not loaded (or its /dev node is missing) beside a failure."""
    if any(m.specific for m in matches):
        return None
    cut = [line[:MAX_LINE] for line in lines[:5000]]
    if not any(FAILURE.search(line) for line in cut):
        return None
    named: set[str] = set()
    first: tuple[int, str] | None = None
    for no, sentence in prose.sentences(cut):
        if prose.is_question(sentence) or PRINTED_BY_CODE.search(sentence):
            continue
        found = _named(sentence)
        if found and first is None:
            first = (no, sentence.strip()[:500])
        named |= found
    if first is None:
        return None
    # Only a display module missing, while the driver answers or CUDA works: that is a headless machine, not a cause.
    if named == {"display"} and (cuda_shown_working(cut) or any(smi_answered(line) for line in cut)):
        return None
    cause = "uvm_wedged_after_suspend" if named == {"uvm"} and _slept(cut) else "nvidia_module_not_loaded"
    return Match(cause, first[0], first[1], False, 0.8)


def _slept(lines: list[str]) -> bool:
    """The text says the machine slept (suspend, hibernation, standby) and does not deny it: only then is a UVM module
    missing the one a resume broke rather than one that was never loaded."""
    text = "\n".join(lines)
    return SLEPT.search(text) is not None and SLEEP_DENIED.search(text) is None


# modprobe/insmod refusing to insert the UVM module for a reason a resume can give (not a file missing, a signature
# or a kernel mismatch, which are the module class whatever the machine did).
UVM_REFUSED = re.compile(
    r"(?:could not insert(?: module)?|Failed to insert(?: module)?) '?nvidia[\w-]*[-_]uvm\b'?:?"
    r"(?!\s*(?:Key was rejected|Required key not available|Operation not permitted|Exec format error|Invalid argument|"
    r"Unknown symbol|Invalid module format|No such device\b))",
    re.IGNORECASE,
)


def uvm_refused_after_sleep(lines: list[str], matches: list[Match]) -> list[Match]:
    """A UVM module that will not reload in a text where the machine slept and the sleep is already read as the cause
    (uvm_wedged_after_suspend): the refusal is the reload a resumed driver fails, not a module never loaded, so the
    module-class reading of that line gives way (the rule above: UVM with a sleep in the text is the sleep's)."""
    if not any(m.id == "uvm_wedged_after_suspend" for m in matches) or not _slept([x[:MAX_LINE] for x in lines]):
        return matches
    return [m for m in matches if not (m.id == "nvidia_module_not_loaded" and UVM_REFUSED.search(m.line))]
