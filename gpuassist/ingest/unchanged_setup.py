"""The person says the hardware (or their CUDA setup) has not changed since it worked: guesses that need it changed
are out.

CUDA's cudaErrorNoDevice ("no CUDA-capable device is detected", 100) is read as possibilities: no NVIDIA GPU in the
machine (no_nvidia_gpu) and CUDA_VISIBLE_DEVICES hiding the GPUs (cuda_visible_devices_hides_gpus), among the
driver-side ones. A text that says the same machine ran before and "we haven't changed our hardware" rules out the
first: the GPU the earlier runs used is still there. One that says nothing "related to CUDA" was changed rules out
the second as a guess (a variable set by the person's own setup is what they say they left alone). What stays is
what can change under an unchanged setup - the driver side (a module that did not load, a kernel or driver update
waiting for a reboot) - which the rules keep deciding from the message. A variable shown in the text (a specific
reading) stays regardless: the statement outweighs only guesses.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

_NOT_CHANGED = (
    r"(?:haven't|have\s+not|hasn't|has\s+not|didn't|did\s+not|never)\s+(?:change[d]?|touch(?:ed)?|modif(?:y|ied))\s+"
)
HARDWARE_UNCHANGED = re.compile(
    r"\b(?:we|i|nobody|no\s*one)\s+" + _NOT_CHANGED + r"(?:our|my|the|any)\s+(?:hardware|gpus?|graphics\s+cards?)\b|"
    r"\bnothing\s+(?:has\s+)?changed\s+(?:in|on|with)\s+(?:the|our|my)\s+hardware\b|"
    r"\b(?:hardware|gpus?)\s+(?:is|are|was|were|has|have)\s+(?:not\s+been\s+changed|unchanged)\b",
    re.IGNORECASE,
)
CUDA_UNCHANGED = re.compile(
    r"\b(?:we|i)\s+" + _NOT_CHANGED + r"(?:[^.!?\n]{0,40}?\s)?anything\s+(?:related\s+to|to\s+do\s+with)\s+cuda\b",
    re.IGNORECASE,
)


def unchanged_guesses_out(lines: list[str], matches: list[Match]) -> list[Match]:
    """Drop the no-GPU guess under unchanged hardware, and the CUDA_VISIBLE_DEVICES guess under an unchanged CUDA
    setup (module docstring)."""
    cut = [line[:MAX_LINE] for line in lines]
    out: set[str] = set()
    if any(HARDWARE_UNCHANGED.search(line) for line in cut):
        out.add("no_nvidia_gpu")
    if any(CUDA_UNCHANGED.search(line) for line in cut):
        out.add("cuda_visible_devices_hides_gpus")
    if not out:
        return matches
    return [m for m in matches if m.specific or m.id not in out]
