"""The user says the machine has no NVIDIA (or no dedicated) GPU, and the text shows a GPU request failing there.

Requests for the GPU fail on such a machine in their own words, none of them a cause of its own: the NVIDIA container
toolkit under WSL2/Docker Desktop finds no GPU adapter ("nvidia-container-cli: initialization error: WSL environment
detected but no adapters were found", libnvidia-container src/dxcore.c: dxcore enumerated no adapter), Docker finds
no GPU driver to select, CUDA finds no driver or device. Their usual readings (WSL's libcuda, the container toolkit,
the driver) would send the user to install things that cannot help. What decides is the user's statement about the
hardware, in the forms it takes beyond the first-person sentence the catalogue reads ("I don't have an NVIDIA GPU")
and the integrated-graphics sentences ingest/igpu_only.py reads: "it doesn't have an NVIDIA graphics card", "running
on Windows 11 without a dedicated GPU", "the laptop has no discrete GPU".

It counts only when the same text shows a GPU request failing (the statement explains that failure), when no NVIDIA
GPU is named anywhere (a statement about another machine beside a named GPU), when the sentence is not about a
container, pod or job lacking the GPU (that is the symptom, not the hardware), and when the sentence is not about
another machine (an old laptop, a login node, a colleague's PC: ingest/other_machine.py).
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.igpu_only import NVIDIA_GPU
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.ingest.other_machine import said_of_another_machine
from gpuassist.ingest.user_words import NVIDIA_DENIED

_GPU_NOUN = r"(?:nvidia\s+)?(?:gpu|graphics(?:\s+card)?|graphic\s+card|video\s+card|card)s?\b"
NO_NVIDIA_HARDWARE = re.compile(
    r"\b(?:doesn'?t|does\s+not|don'?t|do\s+not|didn'?t)\s+have\s+(?:an?\s+|any\s+)?(?:nvidia|dedicated|discrete)\s+"
    + _GPU_NOUN
    + r"|\b(?:without|has\s+no|have\s+no|there\s+is\s+no|with\s+no|lacks?)\s+(?:an?\s+|any\s+)?"
    r"(?:nvidia|dedicated|discrete)\s+"
    + _GPU_NOUN
    + r"|\bno\s+(?:dedicated|discrete)\s+(?:nvidia\s+)?(?:gpu|graphics)",
    re.IGNORECASE,
)
# The sentence is about a container, pod or job lacking the GPU: the symptom, not the machine's hardware.
NOT_THE_MACHINE = re.compile(r"\b(?:container|pod|docker|image|job|vm|virtual machine|instance)\b", re.IGNORECASE)
GPU_REQUEST_FAILED = re.compile(
    r"nvidia-container-cli|no adapters were found|could not select device driver|"
    r"torch\.cuda\.|\.cuda\(\)|device\s*=\s*['\"]cuda|CUDA is not available|No CUDA GPUs|Found no NVIDIA driver|"
    r"CUDA_ERROR_NO_DEVICE|no CUDA-capable device|CUDA driver version is insufficient",
    re.IGNORECASE,
)


def stated_gpuless_machine(lines: list[str]) -> Match | None:
    """The user's statement that the machine has no NVIDIA/dedicated GPU, read as no_nvidia_gpu where the text
    also shows a GPU request failing and names no NVIDIA GPU."""
    if not any(GPU_REQUEST_FAILED.search(line[:MAX_LINE]) for line in lines):
        return None
    if any(NVIDIA_GPU.search(NVIDIA_DENIED.sub(" ", line[:MAX_LINE])) for line in lines):
        return None
    for no, line in enumerate(lines, start=1):
        text = line[:MAX_LINE]
        said = NO_NVIDIA_HARDWARE.search(text)
        if said is None or said_of_another_machine(text):
            continue
        if not NOT_THE_MACHINE.search(text[: said.start()]):
            return Match("no_nvidia_gpu", no, text.strip()[:500], True, 0.8)
    return None
