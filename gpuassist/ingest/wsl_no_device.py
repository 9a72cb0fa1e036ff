"""Inside WSL2, CUDA finding no device points at WSL's GPU path first.

WSL2 has no NVIDIA kernel module and no /dev/nvidia* nodes: CUDA reaches the GPU through the Windows driver, via
/dev/dxg and the libcuda.so.1 that driver exposes in /usr/lib/wsl/lib (NVIDIA, "CUDA on WSL User Guide": do not
install a Linux display driver in WSL; the CUDA driver library is mapped from Windows). CUDA's "no device"
(cuInit's CUDA_ERROR_NO_DEVICE (100), cudaErrorNoDevice "no CUDA-capable device is detected", torch's "No CUDA GPUs
are available") there most often means the program loaded another libcuda than WSL's (a Linux driver's, a conda or
pip cuda-compat copy, numba looking in the standard library directories: the fix is LD_LIBRARY_PATH=/usr/lib/wsl/lib
or NUMBA_CUDA_DRIVER=/usr/lib/wsl/lib/libcuda.so.1), or that the Windows driver or WSL is too old to expose the GPU.
The generic guesses of that message (a hidden CUDA_VISIBLE_DEVICES, a container started without GPU, no GPU at all)
stay listed, behind this one. A specific cause elsewhere in the text, or the user's word that the machine has no
NVIDIA GPU (ingest/gpuless_machine.py), decides instead.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match

NO_DEVICE = re.compile(
    r"CUDA_ERROR_NO_DEVICE|cudaErrorNoDevice|no CUDA-capable device is detected|No CUDA GPUs are available",
    re.IGNORECASE,
)
# The text shows WSL: its name, the Windows Subsystem, WSL's kernel name (microsoft-standard, "-Microsoft"), WSL's
# driver-library directory, /dev/dxg or DXCore. Readers that keep a WSL reading only where WSL is in the text use this.
WSL_SHOWN = re.compile(
    r"\bWSL\s*2?\b|Windows Subsystem for Linux|microsoft-standard|-Microsoft\b|/usr/lib/wsl\b|/dev/dxg\b|\bdxcore\b",
    re.IGNORECASE,
)
# Above the message table's weights for the generic readings of "no device" (0.3 to 0.4).
WSL_PATH_WEIGHT = 0.6


def wsl_no_device_first(in_wsl: bool, matches: list[Match]) -> list[Match]:
    """In WSL2, a "no device" message read only by guesses gets WSL's libcuda path as its likeliest reading."""
    if not in_wsl or any(m.specific for m in matches):
        return matches
    line = next((m for m in matches if NO_DEVICE.search(m.line)), None)
    if line is None:
        return matches
    kept = [m for m in matches if m.id != "wsl_libcuda_problem" or m.weight >= WSL_PATH_WEIGHT]
    if any(m.id == "wsl_libcuda_problem" for m in kept):
        return kept
    return [*kept, Match("wsl_libcuda_problem", line.line_no, line.line, False, WSL_PATH_WEIGHT)]
