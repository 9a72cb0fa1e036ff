"""CUDA's "driver version is insufficient" (error 35) on a machine the user says has no GPU is no old driver.

cudaErrorInsufficientDriver ("CUDA driver version is insufficient for CUDA runtime version", runtime error 35 in every
numbering) is what the CUDA runtime returns when the driver it finds is older than itself, and also when it finds no
driver library (libcuda) at all: the runtime cannot tell "absent" from "too old" (CUDA Runtime API, enum cudaError:
"the installed NVIDIA CUDA driver is older than the CUDA runtime library"; ingest/gpu_presence.py reads the same
message as a consequence of no GPU). A machine without an NVIDIA GPU has no NVIDIA driver, so there the message says
only that CUDA was touched on a GPU-less machine (a CUDA build, or a bug that touches CUDA in a CPU program); a driver
update cannot help. The verdict driver_too_old needs a driver to be too old: it stands only where the text shows one
(a driver version) or names an NVIDIA GPU. Otherwise the reading becomes the possibility the text does support: no
NVIDIA GPU to use, as the user says (not a verdict: the user's words about the hardware are all there is).
"""

from __future__ import annotations

import re

from gpuassist.facts import Facts
from gpuassist.ingest.errors import Match
from gpuassist.ingest.gpu_presence import CPU_MACHINE
from gpuassist.ingest.gpuless_machine import NO_NVIDIA_HARDWARE
from gpuassist.ingest.igpu_only import NVIDIA_GPU
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.ingest.other_machine import said_of_another_machine
from gpuassist.ingest.user_words import NVIDIA_DENIED

INSUFFICIENT = "driver_too_old"
# CPU_MACHINE's words that say what the user ran, not what the machine has: "it works if I'm using the CPU" and
# "runs fine without GPU" are the comparison every CUDA failure report makes, on machines with a GPU too.
RAN_ON_CPU = re.compile(
    r"\b(?:i am|i'm|we are|we're|while|when|i was)\s+(?:using|running on|running it on|on)\s+"
    r"(?:the\s+|a\s+|my\s+)?cpu\b|\bwithout (?:a |any )?(?:nvidia )?gpus?\b",
    re.IGNORECASE,
)


def _says_gpuless(line: str) -> bool:
    """The user says this machine has no (NVIDIA) GPU: CPU_MACHINE less its ran-on-the-CPU words, not said of
    another machine."""
    text = line[:MAX_LINE]
    if said_of_another_machine(text):
        return False
    if NO_NVIDIA_HARDWARE.search(text):
        return True
    return CPU_MACHINE.search(RAN_ON_CPU.sub(" ", text)) is not None


def insufficient_driver_without_gpu(lines: list[str], facts: Facts, matches: list[Match]) -> list[Match]:
    """driver_too_old read from CUDA's insufficient-driver message, on a machine the user says has no GPU, with no
    driver version and no NVIDIA GPU in the text: replaced by no_nvidia_gpu as a possibility."""
    told = [m for m in matches if m.id == INSUFFICIENT]
    if not told or facts.known("driver.version") or facts.known("reported.gpus"):
        return matches
    if any(NVIDIA_GPU.search(NVIDIA_DENIED.sub(" ", line[:MAX_LINE])) for line in lines):
        return matches
    said = next(
        ((no, line) for no, line in enumerate(lines, start=1) if _says_gpuless(line)),
        None,
    )
    if said is None:
        return matches
    kept = [m for m in matches if m.id != INSUFFICIENT]
    if any(m.id == "no_nvidia_gpu" for m in kept):
        return kept
    return [*kept, Match("no_nvidia_gpu", said[0], said[1].strip()[:500], False, 0.6)]
