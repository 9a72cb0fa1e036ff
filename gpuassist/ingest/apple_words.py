"""A Mac said in prose without the word "Mac": the Apple-silicon chip by its own name ("for those of us on an M1",
"my M2 Max", "running on M3 Pro") or the MPS device PyTorch has only on macOS ("cuda else mps", ``device="mps"``,
``torch.backends.mps``).

PyTorch's ``mps`` device is the Metal Performance Shaders backend, built only into the macOS wheels (PyTorch docs,
"MPS backend": "mps device enables high-performance training on GPU for MacOS devices with Metal programming
framework"); Apple's chips are named M1-M4 with the Pro/Max/Ultra variants (Apple's Mac technical specifications).
NVIDIA's own "MPS" (the Multi-Process Service: ``nvidia-cuda-mps-control``, the MPS daemon/server,
``CUDA_MPS_PIPE_DIRECTORY``) is a Linux CUDA feature and says nothing about a Mac, so those words rule the device
reading out. A chip named only as a bare "M1" could be anything; it counts after a word that makes it the user's
machine ("on an M1", "my M2", "using M3 Pro")."""

from __future__ import annotations

import re

from gpuassist.ingest.lines import MAX_LINE

# "on an M1", "for those of us on an M1", "my M2 Max", "using an M3 Pro", "have an M1 Ultra", "M1 user(s)".
APPLE_CHIP_SAID = re.compile(
    r"\b(?:on|using|with|have|got|own|my|an?)\s+(?:an?\s+|my\s+|the\s+)?m[1-4](?:\s+(?:pro|max|ultra|air))?(?![\w.-])|"
    r"\bm[1-4](?:\s+(?:pro|max|ultra))?\s+(?:users?|owners?|machines?|laptops?|computers?|chips?)\b",
    re.IGNORECASE,
)
# The MPS device chosen or asked for next to CUDA: ``torch.backends.mps``, ``device="mps"``, ``.to('mps')``,
# "cuda (else mps)", "the mps backend/device".
MPS_DEVICE_SAID = re.compile(
    r"\btorch\.backends\.mps\b|\bdevice\s*=\s*['\"]?mps\b|\.to\(\s*['\"]mps['\"]|['\"]mps['\"]|"
    r"\b(?:else|or|use|using|via|to)\s+(?:the\s+)?mps\b|\bmps\s+(?:backend|device|support)\b",
    re.IGNORECASE,
)
NVIDIA_MPS = re.compile(
    r"nvidia-cuda-mps|\bmps[\s_-]*(?:daemon|server|control|pipe)\b|multi-?process service|CUDA_MPS_", re.IGNORECASE
)


def apple_said(lines: list[str]) -> tuple[int, str] | None:
    """The first line (1-based number, text) that names an Apple-silicon Mac in the ways above; None when none does
    or the text is about NVIDIA's Multi-Process Service."""
    cut = [line[:MAX_LINE] for line in lines]
    chip_only = any(NVIDIA_MPS.search(line) for line in cut)
    for no, line in enumerate(cut, start=1):
        if APPLE_CHIP_SAID.search(line) or (not chip_only and MPS_DEVICE_SAID.search(line)):
            return no, line
    return None


def chip_said(line: str) -> bool:
    """Whether the line names the Apple-silicon chip itself (not only the MPS device)."""
    return APPLE_CHIP_SAID.search(line[:MAX_LINE]) is not None
