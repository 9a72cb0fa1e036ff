"""A CUDA message that a ROCm build of PyTorch printed: the same words, the ROCm cause.

PyTorch's ROCm build is hipified from the CUDA sources: c10's "CUDA error: " + cudaGetErrorString becomes
"HIP error: " + hipGetErrorString, and HIP keeps CUDA's strings for the same errors (ROCm clr hipamd/src/hip_error.cpp:
hipErrorInvalidDeviceFunction "invalid device function", hipErrorNoBinaryForGpu "no kernel image is available for
execution on the device"). On an AMD GPU those mean the build has no code object for the GPU's gfx target (a card the
ROCm release does not support, or HIP running on the integrated GPU), so CUDA's readings of them (an sm_XX arch list
too old or too new, a self-built torch without CUDA) do not apply; messages.json's ``hip_kernel_image_missing`` row
names the ROCm cause instead. Only a message printed with HIP's prefix or error name is re-read, or any kernel-image
message when the text shows the torch that ran is a ROCm build (a ``+rocm`` version, collect_env's "ROCM used to
build PyTorch: 6.2.41133" / "HIP runtime version: 6.2"): older ROCm builds printed CUDA's own prefix. A text that merely
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


# The torch that ran is a ROCm build: its version's local tag, or collect_env's ROCm rows with a version.
ROCM_BUILD_SHOWN = re.compile(
    r"\b\d+\.\d+\.\d+(?:\.dev\d+|a0)?\+rocm\d|^\s*ROCM used to build PyTorch:\s*\d|^\s*HIP runtime version:\s*\d"
)


def hip_line(line: str) -> bool:
    """Whether the line is an error HIP printed (its prefix or one of its error names)."""
    return HIP_PRINTED.search(line[:MAX_LINE]) is not None


def hip_rereads_cuda_arch(matches: list[Match], lines: list[str] | None = None) -> list[Match]:
    """CUDA's arch readings of a kernel-image message give way to the ROCm reading: on a HIP line when that reading is
    in play, on any line when the text shows a ROCm build ran (the ROCm reading added at the first such message)."""
    rocm_build = lines is not None and any(ROCM_BUILD_SHOWN.search(line[:MAX_LINE]) for line in lines)
    if rocm_build:
        arch = [m for m in matches if m.id in CUDA_ARCH_READINGS and not m.specific]
        if not arch:
            return matches
        kept = [m for m in matches if m not in arch]
        if any(m.id == ROCM for m in kept):
            return kept
        return [*kept, Match(ROCM, arch[0].line_no, arch[0].line, False, 0.7)]
    if not any(m.id == ROCM for m in matches):
        return matches
    return [m for m in matches if m.specific or m.id not in CUDA_ARCH_READINGS or not hip_line(m.line)]
