"""The person says the machine has no NVIDIA GPU (or is a VirtualBox VM): guesses that presuppose one are out.

CUDA's generic failures ("unknown error", error 30/999, "no CUDA-capable device") are read as possibilities:
a wedged nvidia_uvm after suspend (uvm_wedged_after_suspend) and an NVIDIA kernel module that did not load
(nvidia_module_not_loaded). Both presuppose an NVIDIA GPU the driver could drive: with none, nvidia.ko has nothing
to bind (its probe finds no device, see NVIDIA's README "no NVIDIA GPU found") and there is no UVM state to wedge.
A text that states there is no such GPU ("there is no CUDA GPU installed on the machine", "this machine has no
NVIDIA GPU") or that it runs in a VirtualBox VM (VirtualBox gives guests an emulated display adapter; its PCI
passthrough was experimental, for Linux hosts, and is gone from 7.x, so a guest has no NVIDIA device for CUDA) rules
those two guesses out. Nothing is claimed in their place: with no GPU wanted (a CPU tutorial in a VM), no GPU is a
fact, not a fault, and the rules that read the GPU's absence as the cause (gpu_presence) keep deciding that.
The NVIDIA and VirtualBox documents were not re-read this round (search budget spent).
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

# The person stating there is no NVIDIA/CUDA GPU on this machine (not that CUDA cannot see one).
NO_GPU_STATED = re.compile(
    r"\bthere\s+is\s+no\s+(?:cuda|nvidia)(?:[- ]capable)?\s+(?:gpu|graphics\s+card|video\s+card)\s+"
    r"(?:installed\s+)?(?:on|in)\s+(?:the|this|my|our)\s+(?:machine|computer|pc|laptop|server|box|vm)\b|"
    r"\b(?:the|this|my|our)\s+(?:machine|computer|pc|laptop|server|vm)\s+(?:has|have)\s+no\s+(?:cuda\s+|nvidia\s+)?"
    r"(?:gpus?|graphics\s+card|video\s+card)\b|"
    r"\b(?:it\s+is|it's|this\s+is|running\s+(?:in|on|inside)|inside|in)\s+(?:a\s+)?virtual\s*box\s+"
    r"(?:virtual\s+machine|vm|guest)\b",
    re.IGNORECASE,
)
PRESUPPOSE_GPU = frozenset({"uvm_wedged_after_suspend", "nvidia_module_not_loaded"})


def no_gpu_stated(lines: list[str]) -> int | None:
    """The 1-based line on which the text states the machine has no NVIDIA GPU, or None."""
    return next((no for no, line in enumerate(lines, 1) if NO_GPU_STATED.search(line[:MAX_LINE])), None)


def gpu_absent_guesses_out(lines: list[str], matches: list[Match]) -> list[Match]:
    """Drop the guesses that presuppose an NVIDIA GPU when the text states there is none (module docstring)."""
    if not any(m.id in PRESUPPOSE_GPU and not m.specific for m in matches) or no_gpu_stated(lines) is None:
        return matches
    return [m for m in matches if m.specific or m.id not in PRESUPPOSE_GPU]
