"""The NGC images' own driver check: "This container was built for NVIDIA Driver Release X or later, but version Y
was detected and compatibility mode is UNAVAILABLE."

NVIDIA's NGC containers (nvcr.io/nvidia/pytorch, tensorflow, tritonserver, ...) run an entrypoint check
(/opt/nvidia/entrypoint.d, earlier nvidia_entrypoint.sh) that reads the host driver from /proc/driver/nvidia/version
and, when its major release is below the one the image's CUDA was released with and the image's forward-compatibility
libcuda cannot be used, prints "ERROR: This container was built for NVIDIA Driver Release ${CUDA_DRIVER_VERSION%.*} or
later, but" / "version ${DRIVER_VERSION} was detected and compatibility mode is UNAVAILABLE." / "[[<cuInit status>]]"
(with a working compat path it prints "NOTE: Legacy NVIDIA Driver detected.  Compatibility mode ENABLED." instead).

The check compares driver release numbers, not CUDA versions, so it also fires where CUDA's minor-version
compatibility still runs the image (a 580 driver, CUDA 13.0, under an image built for 595, CUDA 13.2: the image runs),
and with an empty version where /proc/driver/nvidia/version does not exist (WSL 2, some runtimes), where it tells
nothing. It is read as the host driver too old for the image (driver_too_old) only when the detected driver's highest
CUDA (CUDA's driver table, knowledge/cuda_compat.json) is of an older major than the required release's: minor-version
compatibility cannot cross a major. A cuInit status in the brackets that names another cause (804, forward
compatibility on a GPU that does not support it) is read by the CUDA error table as well.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.knowledge.wheels import driver_max_cuda

BUILT_FOR = re.compile(r"This container was built for NVIDIA Driver Release (?P<need>\d+\.\d+(?:\.\d+)?) or later")
DETECTED = re.compile(
    r"\bversion\s+(?P<have>\d+\.\d+(?:\.\d+)?)?\s*was detected and compatibility mode is UNAVAILABLE", re.IGNORECASE
)


def _cuda_major(driver: str) -> int | None:
    cuda = driver_max_cuda(driver, "Linux")
    return None if cuda is None else cuda // 1000


def ngc_driver_too_old_match(lines: list[str]) -> Match | None:
    """The NGC check names a host driver whose CUDA major is below the image's: driver_too_old, a verdict."""
    for no, line in enumerate(lines[:5000], start=1):
        built = BUILT_FOR.search(line[:MAX_LINE])
        if built is None:
            continue
        window = " ".join(part[:MAX_LINE] for part in lines[no - 1 : no + 2])
        detected = DETECTED.search(window)
        if detected is None or detected.group("have") is None:
            return None  # no version read (WSL 2, no /proc/driver/nvidia): nothing to compare
        need, have = _cuda_major(built.group("need")), _cuda_major(detected.group("have"))
        if need is None or have is None or have >= need:
            return None  # same CUDA major: minor-version compatibility runs the image
        return Match("driver_too_old", no, line.strip()[:500], True, 0.9)
    return None
