"""What an lspci listing (or the user's account of one) says about the NVIDIA GPU on the PCI bus.

An NVIDIA function whose revision reads "(rev ff)" answers config-space reads with all ones: the device stopped
responding on the bus (PCI Local Bus Specification: a read from a device that does not answer completes as
0xFFFFFFFF, so every register, the revision ID included, reads ff), the fault NVRM reports as "GPU has fallen off the
bus". And `lspci | grep -i nvidia` (or `lspci -d 10de:`) printing nothing means the bus has no NVIDIA device: none
fitted, or a laptop's dGPU switched off in the firmware, which the no_nvidia_gpu finding covers.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

# "01:00.0 VGA compatible controller: NVIDIA Corporation GA102 [GeForce RTX 3090] (rev ff)" (lspci, lspci -nn).
NVIDIA_REV_FF = re.compile(
    r"^\W*(?:[0-9a-f]{4}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]\s+[^:]{3,60}:\s+NVIDIA Corporation\b.*\(rev ff\)",
    re.IGNORECASE,
)
# The user's words that lspci filtered for NVIDIA printed nothing.
LSPCI_NO_NVIDIA = re.compile(
    r"lspci\s*(?:-\w+\s*)*(?:\|\s*grep\s+(?:-\w+\s+)*['\"]?nvidia['\"]?|-d\s*['\"]?10de:?['\"]?)[`'\"]?\s*"
    r"(?:is|was|returns?|returned|shows?|showed|gives?|gave|prints?|printed|outputs?)\s+"
    r"(?:empty|nothing|no output|blank)",
    re.IGNORECASE,
)


def gpu_off_bus_match(lines: list[str]) -> Match | None:
    """lspci lists the NVIDIA GPU with revision ff: it no longer answers on the bus (a hardware/Xid-class fault)."""
    for no, line in enumerate(lines[:5000], start=1):
        if NVIDIA_REV_FF.search(line[:MAX_LINE]):
            return Match("gpu_xid_fault", no, line.strip()[:500], True, 0.8)
    return None


def lspci_without_nvidia_match(lines: list[str]) -> Match | None:
    """The text says lspci shows no NVIDIA device: no GPU CUDA could use is on the bus."""
    for no, line in enumerate(lines[:5000], start=1):
        if LSPCI_NO_NVIDIA.search(line[:MAX_LINE]):
            return Match("no_nvidia_gpu", no, line.strip()[:500], True, 0.8)
    return None
