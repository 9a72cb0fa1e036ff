"""A CUDA message that a ROCm build of PyTorch printed: the same words, the ROCm cause.

PyTorch's ROCm build is hipified from the CUDA sources: c10's "CUDA error: " + cudaGetErrorString becomes
"HIP error: " + hipGetErrorString, and HIP keeps CUDA's strings for the same errors (ROCm clr hipamd/src/hip_error.cpp:
hipErrorInvalidDeviceFunction "invalid device function", hipErrorNoBinaryForGpu "no kernel image is available for
execution on the device"). On an AMD GPU those mean the build has no code object for the GPU's gfx target (a card the
ROCm release does not support, or HIP running on the integrated GPU), so CUDA's readings of them (an sm_XX arch list
too old or too new, a self-built torch without CUDA) do not apply; messages.json's ``hip_kernel_image_missing`` row
names the ROCm cause instead. Only a message printed with HIP's prefix or error name is re-read: a text that merely
mentions ROCm somewhere keeps its CUDA readings.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

ROCM = "rocm_gpu_unsupported_or_no_access"
# CUDA's readings of a kernel-image message; on a HIP line they are the wrong platform's.
CUDA_ARCH_READINGS = ("gpu_arch_too_new_for_build", "gpu_arch_dropped_from_build", "source_build_without_cuda")
HIP_PRINTED = re.compile(r"\bHIP error\b|\bhipError[A-Z]\w+|\bHIP kernel errors might be asynchronously reported")


def hip_line(line: str) -> bool:
    """Whether the line is an error HIP printed (its prefix or one of its error names)."""
    return HIP_PRINTED.search(line[:MAX_LINE]) is not None


def hip_rereads_cuda_arch(matches: list[Match]) -> list[Match]:
    """Drop CUDA's arch readings of a message printed on a HIP line when the ROCm reading of that line is in play."""
    if not any(m.id == ROCM for m in matches):
        return matches
    return [m for m in matches if m.specific or m.id not in CUDA_ARCH_READINGS or not hip_line(m.line)]
