"""The user's own GPU is an AMD one, said in words without its model name: "is there any way to run it on an AMD GPU?",
"I have an AMD card", "my Radeon GPU", "using an AMD graphics card".

CUDA runs only on NVIDIA GPUs (CUDA C++ Programming Guide, "CUDA-capable GPU"); PyTorch's answer for AMD GPUs is its
separate ROCm build on Linux (pytorch.org "Start Locally": ROCm is Linux-only), so a machine whose GPU is AMD has no
NVIDIA GPU for a CUDA build to use, and a CPU-only torch on it is not the cause: installing a CUDA wheel would not
help. The statement counts only as the speaker's machine (a preposition or possessive right before "AMD GPU", or
"I have/use"), never a list of supported vendors ("NVIDIA and AMD GPUs"), and not when the text names an NVIDIA GPU
(then the AMD one is a second adapter) or shows a ROCm build (then ROCm's own messages decide).
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.ingest.user_words import NVIDIA_DENIED, NVIDIA_NAMED

_AMD_GPU = r"(?:amd|radeon)(?:\s+radeon)?\s+(?:gpu|graphics card|graphics|video card|card)s?\b"
AMD_GPU_OWNED = re.compile(
    rf"\b(?:on|with|using|use|have|has|got|own|for)\s+(?:an?|my|our|the|this)\s+{_AMD_GPU}|"
    rf"\b(?:my|our)\s+(?:new\s+)?{_AMD_GPU}|"
    # "I have an AMD.", "I'm using Radeon, not NVIDIA": the vendor alone ends the clause (not "an AMD Threadripper").
    r"\b(?:i|we)(?:'m|\s+am)?\s+(?:only\s+)?(?:have|use|using|got|own|on)\s+(?:an?\s+)?(?:amd|radeon)\b"
    r"(?=\s*(?:[.,;!?)]|$|\s(?:and|but|not|so|gpu|graphics|card|radeon|rx)\b))",
    re.IGNORECASE,
)
# "NVIDIA and AMD GPUs", "AMD or NVIDIA": the vendors listed side by side, no statement about one machine.
VENDORS_LISTED = re.compile(
    r"\b(?:nvidia|intel)\s*(?:/|,|and|or|&)\s*(?:amd|radeon)\b|\b(?:amd|radeon)\s*(?:/|,|and|or|&)\s*(?:nvidia|intel)\b",
    re.IGNORECASE,
)
# A card the user had and no longer runs: "I replaced my AMD card", "I used to have an AMD GPU", "sold my old Radeon".
NO_LONGER_OWNED = re.compile(
    r"\b(?:replac\w*|swapp?\w*|sold|selling|used to|switched from|upgraded from|moved from|returned|previous|"
    r"former|old)\b",
    re.IGNORECASE,
)
ROCM_SHOWN = re.compile(r"\+rocm\d|\bHIP error\b|\bhipError[A-Z]|\bROCm\b", re.IGNORECASE)


def stated_amd_gpu(lines: list[str]) -> Match | None:
    """The user's machine has an AMD GPU (said in words) and the text names no NVIDIA GPU and no ROCm build: there is
    no NVIDIA GPU to run CUDA on (no_nvidia_gpu, a verdict like the adapter named by model in user_words)."""
    cut = [line[:MAX_LINE] for line in lines]
    if any(NVIDIA_NAMED.search(NVIDIA_DENIED.sub(" ", line)) or ROCM_SHOWN.search(line) for line in cut):
        return None
    for no, line in enumerate(cut, start=1):
        if AMD_GPU_OWNED.search(line) and not VENDORS_LISTED.search(line) and not NO_LONGER_OWNED.search(line):
            return Match("no_nvidia_gpu", no, line.strip()[:500], True, 0.9)
    return None
