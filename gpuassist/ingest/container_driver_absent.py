"""CUDA's "driver version is insufficient" (cudaErrorInsufficientDriver, 35) inside a container given no driver.

The CUDA runtime answers 35 not only to a driver older than itself but also when it cannot load the driver's
user-space library (libcuda.so.1) at all: cudart reports a missing driver as an insufficient one (CUDA Runtime API,
cudaErrorInsufficientDriver: "the installed NVIDIA CUDA driver is older than the CUDA runtime library", which
includes no driver; deviceQuery prints it as "cudaGetDeviceCount returned 35 -> CUDA driver version is insufficient
for CUDA runtime version"). No container image ships libcuda: the NVIDIA runtime (nvidia-docker 1.0's volume plugin,
the Container Toolkit's hook, CDI) mounts the host's driver libraries at start (NVIDIA Container Toolkit docs,
"Driver capabilities"; NVIDIA/nvidia-docker#24: `docker run --device /dev/nvidia0 --device /dev/nvidiactl ...`
passes the device nodes only, and the image has no driver). So after a run that asked for no GPU (plain, or with
only /dev/nvidia* device nodes) and mounted no driver library by hand, the 35 printed in that container is the
runtime not used, not the host's driver; the host driver version the text may name is not judged by it.

When the text cannot place the failure inside the container (it comes before the run and the run is not an
interactive shell), nothing is changed.
"""

from __future__ import annotations

import re

from gpuassist.ingest import container_readings, errors
from gpuassist.report.model import Report

# CUDA's insufficient-driver answer in its forms: the message, the runtime name, deviceQuery's number.
INSUFFICIENT = re.compile(
    r"driver version is insufficient for CUDA runtime version|\bcudaErrorInsufficientDriver\b|"
    r"cudaGetDeviceCount returned 35\b",
    re.IGNORECASE,
)
# An interactive run (`-it`, `-ti`, `-i -t`, `--interactive --tty`): the user then works inside the container, so
# output shown before the command line in the text is still that container's.
INTERACTIVE = re.compile(r"\s-(?:it|ti)\b|\s-i\s+-t\b|\s-t\s+-i\b|--interactive\b")
# The host's driver libraries mounted by hand (-v/--volume/--mount): then libcuda is there and 35 may be a mismatch.
DRIVER_MOUNT = re.compile(
    r"(?:-v|--volume|--mount)[= ]\S*(?:libcuda|libnvidia|nvidia-driver|/usr/lib/nvidia|/usr/local/nvidia)",
    re.IGNORECASE,
)
LINE = 2000


def insufficient_driver_in_gpu_less_container(
    lines: list[str], report: Report, matches: list[errors.Match]
) -> list[errors.Match]:
    """driver_too_old read from CUDA's insufficient-driver answer in a container run without any GPU request or
    driver mount: replaced by docker_no_gpu_runtime (the run line), since the container had no libcuda at all."""
    told = [m for m in matches if m.id == "driver_too_old" and INSUFFICIENT.search(m.line[:LINE])]
    if not told or report.facts.value("cuda.available") is True:
        return matches
    if any(
        container_readings.GPU_FLAGS.search(line[:LINE])
        or container_readings.COMPOSE_GPU.search(line[:LINE])
        or DRIVER_MOUNT.search(line[:LINE])
        for line in lines
    ):
        return matches
    run = next(
        (no for no, line in enumerate(lines, start=1) if container_readings.CONTAINER_RUN.search(line[:LINE])), None
    )
    if run is None:
        return matches
    # A run split over continuation lines ("\" at the end): its flags are on the following lines.
    end = run
    while end < len(lines) and lines[end - 1].rstrip().endswith("\\"):
        end += 1
    command = " ".join(lines[run - 1 : end])
    inside = [m for m in told if m.line_no > end or INTERACTIVE.search(command[:LINE])]
    if not inside:
        return matches
    kept = [m for m in matches if m not in inside and m.id != "docker_no_gpu_runtime"]
    return [*kept, errors.Match("docker_no_gpu_runtime", run, lines[run - 1].strip()[:500], True, 0.9)]
