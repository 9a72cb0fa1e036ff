"""CUDA's "OS call failed" (error 304) is WSL's only where the text shows WSL.

cudaErrorOperatingSystem (304; driver API CUDA_ERROR_OPERATING_SYSTEM, legacy runtime code 63: "OS call failed or
operation not supported on this OS", CUDA Runtime API reference, enum cudaError) and NVML's NVML_ERROR_OPERATING_SYSTEM
(17, "GPU access blocked by the operating system", nvml.h) say that a call into the operating system the driver needs
(an ioctl, mmap, a device node) was refused or is not offered. WSL 2 is one place where that happens (a Windows
build or driver without WSL GPU support), which is why the message table keeps WSL as a loose reading. The same
refusal comes from any environment that sits between the program and the kernel: a library OS or enclave (Gramine,
Intel SGX, Occlum), a syscall-filtering sandbox (gVisor's runsc, seccomp, Flatpak or snap confinement). None of those
is a catalogue cause, and a text that never mentions WSL gives no ground to name it: there the WSL reading of such a
line is dropped (the finding is left out, not turned into another guess), while a text that shows WSL keeps it.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.ingest.wsl_no_device import WSL_SHOWN

# The OS-call refusal in its forms: the runtime/driver message, the enum names, NVML's wording and exception name.
OS_CALL_REFUSED = re.compile(
    r"OS call failed or operation not supported on this OS|\bcudaErrorOperatingSystem\b|"
    r"\bCUDA_ERROR_OPERATING_SYSTEM\b|GPU access blocked by the operating system|\bNVML_ERROR_OPERATING_SYSTEM\b|"
    r"\bNVMLError_OperatingSystem\b",
    re.IGNORECASE,
)


def os_call_without_wsl(lines: list[str], matches: list[Match], *, wsl: bool) -> list[Match]:
    """Drop the loose WSL reading of an OS-call refusal when neither the facts nor the text show WSL."""
    if wsl or any(WSL_SHOWN.search(line[:MAX_LINE]) for line in lines[:5000]):
        return matches
    return [
        m for m in matches if not (m.id == "wsl_libcuda_problem" and not m.specific and OS_CALL_REFUSED.search(m.line))
    ]
