"""A CUDA program other than torch (Rust's cudarc, numba, TensorFlow) that cannot load the driver's library.

Every CUDA program reaches the GPU through the driver's libcuda (nvcuda.dll on Windows), which it loads by name at
run time; the messages each loader prints when none is found are the ``cuda_loader`` family of
knowledge/messages.json (with their sources). On a Linux host that library comes with the NVIDIA driver, so not
finding it reads as no driver (a possibility: a driver installed outside the loader's path looks the same). On
WSL 2 the library is Windows' driver's, mapped into /usr/lib/wsl/lib, which the loader searches only through
ld.so.conf.d or LD_LIBRARY_PATH (NVIDIA, CUDA on WSL User Guide): there the failure is WSL's library path, and the
fix is that directory on the loader's path, whichever program loads it. A text that names no host makes no claim
beyond the table's possibilities.
"""

from __future__ import annotations

from gpuassist.ingest.errors import Match
from gpuassist.knowledge import messages

LOADER_FAMILY = "cuda_loader"
# The generic readings of a missing driver library, which WSL 2 (whose driver is Windows') rules out.
NO_DRIVER_READINGS = ("no_nvidia_driver", "no_nvidia_gpu")
WSL_LOADER_WEIGHT = 0.9


def _loader_line(line: str) -> bool:
    """A loader's failure to reach the driver; a row naming its cause outright (taichi's driver older than CUDA 10)
    says the library was found, so WSL's library path is not its reading."""
    return any(r.regex.search(line) for r in messages.families()[LOADER_FAMILY].rows if r.specific is None)


def wsl_loader_without_libcuda(in_wsl: bool, matches: list[Match]) -> list[Match]:
    """In WSL, a non-torch loader that found no libcuda is WSL's library path (a verdict), not a missing driver."""
    if not in_wsl:
        return matches
    said = next((m for m in matches if _loader_line(m.line)), None)
    if said is None or any(m.id == "wsl_libcuda_problem" and m.specific for m in matches):
        return matches
    kept = [
        m
        for m in matches
        if not (m.line_no == said.line_no and (m.id in NO_DRIVER_READINGS or m.id == "wsl_libcuda_problem"))
    ]
    return [*kept, Match("wsl_libcuda_problem", said.line_no, said.line, True, WSL_LOADER_WEIGHT)]


def native_windows_drops_wsl_path(host_os: object, in_wsl: bool, matches: list[Match]) -> list[Match]:
    """On native Windows (the text shows Windows and no WSL) a loader's missing driver library is nvcuda.dll, which
    the Windows driver installs: WSL's library path is no reading of it."""
    if in_wsl or host_os != "Windows":
        return matches
    loader_lines = {m.line_no for m in matches if _loader_line(m.line)}
    return [m for m in matches if not (m.id == "wsl_libcuda_problem" and not m.specific and m.line_no in loader_lines)]
