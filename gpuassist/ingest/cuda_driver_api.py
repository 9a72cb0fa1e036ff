"""A CUDA driver-API error proves the failing program has CUDA compiled in: no CPU-only build printed it.

CUDA frameworks other than torch call the driver API themselves and print its CUresult by name: taichi (and Genesis
on top of it) as "CUDA Error CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected while calling init (cuInit)"
(taichi/rhi/cuda/cuda_driver.cpp get_cuda_error_message, "CUDA Error {name}: {string}", and cuda_driver.h's
"... while calling {function} ({symbol})"), numba as "[100] Call to cuInit results in CUDA_ERROR_NO_DEVICE"
(numba/cuda/cudadrv/driver.py), pycuda as "cuInit failed: no device"; torch's CUDA builds print the runtime's own
error strings ("CUDA error: no CUDA-capable device is detected", the cuda_error family of knowledge/messages.json).
A CPU-only torch build never gets that far: it stops at "Torch not compiled with CUDA enabled" (torch/cuda/__init__.py,
_lazy_init). So a guess that the build lacks CUDA (cpu_only_build: a torch wheel verdict) does not read such a line;
the driver, the host (WSL's library path) or the device do. A text that says torch is a CPU build in its own words
keeps its specific verdict.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.knowledge import messages

# The driver API's own report: a CUresult name, or the driver-API call that failed.
DRIVER_API_ERROR = re.compile(
    r"\bCUDA_ERROR_[A-Z_]+\b|\bwhile calling \w+ \(cu[A-Z]\w*\)|\bCall to cu[A-Z]\w* results in\b|\bcuInit failed\b"
)
# What a CPU-only torch build itself prints; a text carrying it keeps the build reading.
CPU_BUILD_SAID = re.compile(r"Torch not compiled with CUDA enabled|\+cpu\b|cpuonly", re.IGNORECASE)


def _cuda_reported(line: str) -> bool:
    """The line is CUDA's own report of an error (a driver-API call or the runtime's error string)."""
    if DRIVER_API_ERROR.search(line):
        return True
    return "cuda" in line.lower() and any(r.family == "cuda_error" for r in messages.lookup(line))


def driver_api_rules_out_cpu_build(lines: list[str], matches: list[Match]) -> list[Match]:
    """Drop the guess of a CPU-only torch build when the failure the text shows is CUDA's own error report."""
    if not any(m.id == "cpu_only_build" and not m.specific for m in matches):
        return matches
    window = [line[:2000] for line in lines]
    if not any(_cuda_reported(line) for line in window) or any(CPU_BUILD_SAID.search(line) for line in window):
        return matches
    return [m for m in matches if m.id != "cpu_only_build" or m.specific]


# The driver's own CUDA version as the failing program printed it (cudaDriverGetVersion's integer, or major.minor):
# ethminer's "Insufficient CUDA driver: 9020" (libethash-cuda/CUDAMiner.cpp), taichi's "requires at least CUDA 10.0,
# got v9.2" (taichi/rhi/cuda/cuda_driver.cpp), warp's "the current driver only supports CUDA 11.4" and "the installed
# CUDA driver version is 11.4" (warp/native/cuda_util.cpp, warp/_src/context.py).
DRIVER_CUDA_INT = re.compile(r"Insufficient CUDA driver\s*:?\s*(\d{4,5})\b", re.IGNORECASE)
DRIVER_CUDA_DOTTED = re.compile(
    r"requires at least CUDA \d+\.\d+, got v(\d+)\.(\d+)|current driver only supports CUDA (\d+)\.(\d+)|"
    r"installed CUDA driver version is (\d+)\.(\d+)"
)
# /proc/driver/nvidia/version's first line, the loaded kernel module's version (the driver's, as nvidia-smi shows it):
# "NVRM version: NVIDIA UNIX x86_64 Kernel Module  396.54  Tue Aug 14 ..." and the open modules' "NVIDIA UNIX Open
# Kernel Module for x86_64  535.104.05  Release Build ...".
NVRM_VERSION = re.compile(
    r"NVRM version:\s*NVIDIA UNIX (?:Open Kernel Module for \S+|\S+ Kernel Module)\s+(\d{3}\.\d{2,3}(?:\.\d{2})?)\b"
)


def driver_facts(lines: list[str]) -> dict[str, object]:
    """The driver's version and its CUDA version where the text prints them outright; one value each, or none."""
    facts: dict[str, object] = {}
    window = [line[:2000] for line in lines]
    cuda = {int(m.group(1)) for line in window for m in DRIVER_CUDA_INT.finditer(line)}
    for line in window:
        for m in DRIVER_CUDA_DOTTED.finditer(line):
            major, minor = (int(g) for g in m.groups() if g is not None)
            cuda.add(major * 1000 + minor * 10)
    if len(cuda) == 1:
        facts["cuda.driver_version"] = cuda.pop()
    versions = {m.group(1) for line in window for m in NVRM_VERSION.finditer(line)}
    if len(versions) == 1:
        facts["driver.version"] = versions.pop()
    return facts
