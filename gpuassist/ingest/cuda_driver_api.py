"""A CUDA driver-API error proves the failing program has CUDA compiled in: no CPU-only build printed it.

CUDA frameworks other than torch call the driver API themselves and print its CUresult by name: taichi (and Genesis
on top of it) as "CUDA Error CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected while calling init (cuInit)"
(taichi/rhi/cuda/cuda_driver.cpp get_cuda_error_message, "CUDA Error {name}: {string}", and cuda_driver.h's
"... while calling {function} ({symbol})"), numba as "[100] Call to cuInit results in CUDA_ERROR_NO_DEVICE"
(numba/cuda/cudadrv/driver.py), pycuda as "cuInit failed: no device". A CPU-only torch build never gets that far:
it stops at "Torch not compiled with CUDA enabled" (torch/cuda/__init__.py, _lazy_init). So a guess that the build
lacks CUDA (cpu_only_build: a torch wheel verdict) does not read such a line; the driver, the host (WSL's library
path) or the device do. A text that says torch is a CPU build in its own words keeps its specific verdict.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match

# The driver API's own report: a CUresult name, or the driver-API call that failed.
DRIVER_API_ERROR = re.compile(
    r"\bCUDA_ERROR_[A-Z_]+\b|\bwhile calling \w+ \(cu[A-Z]\w*\)|\bCall to cu[A-Z]\w* results in\b|\bcuInit failed\b"
)
# What a CPU-only torch build itself prints; a text carrying it keeps the build reading.
CPU_BUILD_SAID = re.compile(r"Torch not compiled with CUDA enabled|\+cpu\b|cpuonly", re.IGNORECASE)


def driver_api_rules_out_cpu_build(lines: list[str], matches: list[Match]) -> list[Match]:
    """Drop the guess of a CPU-only torch build when the only failure the text shows is a driver-API error."""
    if not any(m.id == "cpu_only_build" and not m.specific for m in matches):
        return matches
    window = [line[:2000] for line in lines]
    if not any(DRIVER_API_ERROR.search(line) for line in window) or any(CPU_BUILD_SAID.search(line) for line in window):
        return matches
    return [m for m in matches if m.id != "cpu_only_build" or m.specific]
