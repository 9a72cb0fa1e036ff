"""nvidia-smi missing inside a CUDA container image: the container was started without the GPU.

CUDA images (nvidia/cuda:<version>-{base,runtime,devel}-<os>, pytorch/pytorch:<v>-cuda<v>-cudnn<v>-{runtime,devel}
and the images built on them, NGC's nvcr.io/nvidia/...) ship the CUDA toolkit (nvcc works in the devel flavours) but
never nvidia-smi or libcuda: those belong to the host's driver, and the NVIDIA container toolkit mounts them into the
container when it is given the GPU (`docker run --gpus all`, `--runtime=nvidia`, a CDI device; NVIDIA container
toolkit docs, "Driver capabilities": utility = nvidia-smi/NVML, compute = libcuda). So "nvidia-smi: command not found"
in such an image says the container got no GPU, not that the host lacks a driver; the same line on a host says the
driver is missing, which is why the image has to be shown by the text (its name and CUDA tag), and why a text that
shows nvidia-smi working in that container (its table) is left to the other readings.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

# "nvidia-smi: command not found", "nvidia-smi` 命令返回错误 command not found", "bash: nvidia-smi: not found" (not
# "nvidia-smi works, but libcudnn not found": the missing thing must be the command itself).
SMI_MISSING = re.compile(
    r"nvidia-smi\W{0,3}(?:command )?not found|nvidia-smi\b[^.\n]{0,40}\bcommand not found|"
    r"\b(?:command )?not found:?\s*[`'\"]?nvidia-smi\b",
    re.IGNORECASE,
)
# A CUDA image by name and tag: any image whose tag names a CUDA version ("ubuntu24_cuda12.8-latest",
# "1.13.1-py3.8.16-cuda11.7.1-devel-ubuntu20.04", "2.3.0-cu121"), or NVIDIA's and PyTorch's own CUDA images with any
# tag ("nvidia/cuda:11.8.0-cudnn8-devel-ubuntu22.04", "nvcr.io/nvidia/pytorch:24.03-py3").
CUDA_IMAGE = re.compile(
    r"\b[\w.-]+(?:/[\w.-]+)*:[\w.-]*?(?:cuda[_-]?\d+(?:\.\d+)*|cu\d{2,3}\b)[\w.-]*|"
    r"(?:\bnvidia/cuda|nvcr\.io/nvidia/[\w.-]+|\bpytorch/pytorch):[\w.-]+",
    re.IGNORECASE,
)
# nvidia-smi's own table or header: it ran somewhere in the text.
SMI_RAN = re.compile(r"NVIDIA-SMI\s+\d+\.\d+|Driver Version:\s*\d+", re.IGNORECASE)


def image_without_smi(lines: list[str]) -> Match | None:
    """nvidia-smi is missing and the text names the CUDA image it ran in (and nvidia-smi never ran): the container
    was started without the GPU, docker_no_gpu_runtime."""
    if not any(CUDA_IMAGE.search(line[:MAX_LINE]) for line in lines):
        return None
    if any(SMI_RAN.search(line[:MAX_LINE]) for line in lines):
        return None
    missing = next(((no, line) for no, line in enumerate(lines, start=1) if SMI_MISSING.search(line[:MAX_LINE])), None)
    if missing is None:
        return None
    return Match("docker_no_gpu_runtime", missing[0], missing[1].strip()[:500], True, 0.8)
