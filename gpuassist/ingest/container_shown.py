"""A container reading needs a container in the text; in WSL, torch's "Found no NVIDIA driver" is WSL's GPU path.

The message tables give generic messages their possible readings with weights: torch's "Found no NVIDIA driver on
your system" can mean no driver, no GPU, a kernel module not loaded, WSL's missing libcuda or a container started
without the GPU (docker_no_gpu_runtime). The container reading is a guess about where the program ran; when nothing
in the text speaks of a container (no Docker, Podman, Compose, Kubernetes, Singularity/Apptainer, enroot, LXC, no
image reference), the text cannot support it, and offering it first (as happened once the driver guesses were ruled
out) sends the user after a runtime they do not use. Readings that the text states outright (a specific match)
are left alone.

torch raises "Found no NVIDIA driver on your system" when cudaGetDeviceCount fails with cudaErrorInsufficientDriver
and cudaDriverGetVersion reports 0, i.e. no libcuda could be loaded (pytorch/pytorch c10/cuda/CUDAFunctions.cpp
device_count_impl). Under WSL there is no Linux driver to load: WSL 2 gets libcuda.so.1 from the Windows driver
through /usr/lib/wsl/lib, and WSL 1 has no GPU access at all (NVIDIA "CUDA on WSL User Guide": WSL 2 only; Microsoft
"GPU accelerated ML training in WSL": WSL 2 required). So in a text that shows WSL, that message first means WSL's GPU
path (WSL 1, a Windows build or driver without WSL GPU support, a library other than WSL's), not a missing Linux
driver; installing a Linux driver or toolkit inside WSL is the wrong fix. "No Windows driver" stays a reading behind.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

CONTAINER_READING = "docker_no_gpu_runtime"

# Words that place a program in a container or orchestrated pod (any engine), an image reference, a Dockerfile's
# FROM, Compose's one-off run container ("Creating app_web_run ... done").
CONTAINER_SHOWN = re.compile(
    r"\b(?:docker|dockerfile|podman|nerdctl|containerd|cri-o|crio|runc|crun|containers?|compose|kubernetes|k8s|"
    r"kubectl|kubelet|pods?|helm|singularity|apptainer|enroot|pyxis|lxc|lxd|incus|nvidia-docker|"
    r"nvidia-container[\w-]*|runtimeclass|daemon\.json|ngc)\b|"
    r"\bnvcr\.io/|\b[\w.-]+/[\w.-]+:[\w.-]*(?:cuda|cudnn|gpu|runtime|devel)[\w.-]*\b|"
    r"^\s*FROM\s+\S+|^Creating \S+_run\b",
    re.IGNORECASE,
)

# torch's message for "no libcuda could be loaded" (its warning and error forms).
NO_DRIVER_MESSAGE = re.compile(r"Found no NVIDIA driver on your system", re.IGNORECASE)
# Above the table's weight for "no driver" (0.7): under WSL the missing libcuda is WSL's path first.
WSL_PATH_WEIGHT = 0.8


def container_guess_needs_container(lines: list[str], matches: list[Match]) -> list[Match]:
    """Drop the container reading of a generic message when nothing in the text shows a container."""
    if not any(m.id == CONTAINER_READING and not m.specific for m in matches):
        return matches
    if any(CONTAINER_SHOWN.search(line[:MAX_LINE]) for line in lines):
        return matches
    return [m for m in matches if m.specific or m.id != CONTAINER_READING]


def wsl_no_driver_first(in_wsl: bool, matches: list[Match]) -> list[Match]:
    """Under WSL, torch finding no NVIDIA driver (no libcuda loaded) is read as WSL's GPU path first."""
    if not in_wsl or any(m.specific for m in matches):
        return matches
    said = next((m for m in matches if NO_DRIVER_MESSAGE.search(m.line)), None)
    if said is None:
        return matches
    kept = [m for m in matches if m.id != "wsl_libcuda_problem"]
    return [*kept, Match("wsl_libcuda_problem", said.line_no, said.line, False, WSL_PATH_WEIGHT)]
