"""The NGC images' "The NVIDIA Driver was not detected" banner next to a GPU request: not a container without the GPU.

NVIDIA's CUDA and NGC images (nvidia/cuda, nvcr.io/nvidia/...) print, from their entrypoint, "WARNING: The NVIDIA Driver
was not detected.  GPU functionality will not be available." followed by "Use 'nvidia-docker run' ..." (older images)
or "Use the NVIDIA Container Toolkit to start this container with GPU support" (newer ones) whenever the check for the
host driver inside the container fails. Started without `--gpus`/`--runtime=nvidia`/a CDI device, that is the
container never given the GPU (docker_no_gpu_runtime), the banner's own advice. Started WITH a GPU request, the engine
either injected the GPU or refused to start ("could not select device driver ..."): the banner then cannot say the
request was missing. Its known causes there are elsewhere: on WSL 2 the check itself fails while CUDA works (listed as
a known issue in NVIDIA's CUDA on WSL user guide, NVIDIA/nvidia-docker#1548), and a host driver too old for the image's
CUDA (NVIDIA/nvidia-docker#464, fixed by a driver upgrade). So with a GPU request in the text the banner alone names
nothing; the other lines (nvidia-smi inside, CUDA's own error) decide.
"""

from __future__ import annotations

import re

from gpuassist.ingest.cuda_working import smi_answered
from gpuassist.ingest.errors import Match

BANNER = re.compile(r"The NVIDIA Driver was not detected\.?\s+GPU functionality will not be available", re.IGNORECASE)
# The run command itself asking for the GPU: `docker|podman|nerdctl run ... --gpus all`, `--runtime=nvidia`, a CDI
# device, NVIDIA_VISIBLE_DEVICES set with -e; or `nvidia-docker run` as a command (not the banner's own advice "Use
# 'nvidia-docker run' to start this container", nor "nvidia-docker is not found").
RUN_WITH_GPU = re.compile(
    r"\b(?:docker|podman|nerdctl)\s+(?:container\s+)?run\b[^\n]*?(?:--gpus\b|--runtime[= ]nvidia\b|"
    r"--device[= ]\S*nvidia\.com/gpu|(?:-e|--env)[= ]NVIDIA_VISIBLE_DEVICES=)|"
    r"^\W{0,3}(?:\S*[$#]\s*)?(?:sudo\s+)?nvidia-docker\s+run\b"
)


# After the banner: nvidia-smi's own table or header (cuda_working.smi_answered), or a shell prompt (a new command,
# perhaps on the host, ends the container's output).
PROMPT = re.compile(r"^(?:\([\w.-]+\)\s*)?(?:[\w.@:~/-]*[$#]|PS [A-Z]:\\\S*>)\s+\S")
# How far after the banner the same container's output is looked at.
AFTER = 40


def smi_works_after_banner(lines: list[str]) -> bool:
    """nvidia-smi's table follows the banner in the same container output (no shell prompt between): the driver
    answered inside the container, so the banner's check was wrong (the WSL 2 case)."""
    for no, line in enumerate(lines[:5000]):
        if not BANNER.search(line[:2000]):
            continue
        for after in lines[no + 1 : no + 1 + AFTER]:
            if PROMPT.search(after[:2000]):
                break
            if smi_answered(after):
                return True
    return False


def run_requests_gpu(lines: list[str]) -> bool:
    """A container run command in the text asks for the GPU."""
    return any(RUN_WITH_GPU.search(line[:2000].strip()) for line in lines[:5000])


def banner_with_gpu_request(lines: list[str], matches: list[Match], *, compose_gpu: bool = False) -> list[Match]:
    """Drop docker_no_gpu_runtime read from the banner when the text shows the container was given the GPU (its run
    command asks for it, ``compose_gpu``: a Compose/Kubernetes GPU request, or nvidia-smi's table right after the
    banner); the same id read from any other line stays."""
    if not (compose_gpu or run_requests_gpu(lines) or smi_works_after_banner(lines)):
        return matches
    return [m for m in matches if not (m.id == "docker_no_gpu_runtime" and BANNER.search(m.line))]
