"""A cluster's container launch that never asked for the GPU to be put into the container.

HPC container runtimes do not give a container the GPU by themselves, whatever the job was allocated:
- enroot (and pyxis, which runs it from ``srun --container-image``) injects the driver only through its
  98-nvidia.sh hook, which exits without doing anything unless NVIDIA_VISIBLE_DEVICES is set (and not ``void``) in
  the job's environment, an enroot environment file or the image (NVIDIA/enroot doc/standard-hooks.md,
  conf/hooks/98-nvidia.sh). NVIDIA's CUDA images (nvidia/cuda, nvcr.io) set it; a plain image does not.
- Singularity / Apptainer bind the host's driver libraries and /dev/nvidia* only with ``--nv`` (or ``--nvccli``)
  (Apptainer user guide, "GPU Support").
So torch inside such a container reports no driver or no GPU although the node has both and the job got its GPUs:
the container was started without GPU injection (docker_no_gpu_runtime, the container-runtime cause). A launch
that does inject (``--nv``; NVIDIA_VISIBLE_DEVICES named; an NVIDIA image) is no evidence for it, and neither is a
launch with no failure in the text.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.ingest.scheduler_facts import GPU_REQUEST, launch_command
from gpuassist.report.model import Report

PROMPT = r"^\s*(?:[\w@.:~/-]*[$#%>]\s*)?"
LAUNCH_START = re.compile(PROMPT + r"(?:srun|salloc|(?i:sbatch)|enroot|singularity|apptainer)\b")
PYXIS_LAUNCH = re.compile(PROMPT + r"(?:srun|salloc|(?i:sbatch))\b.*--container-image[= ]")
ENROOT_START = re.compile(PROMPT + r"enroot\s+start\b")
APPTAINER_LAUNCH = re.compile(PROMPT + r"(?:srun\s.*?)?(?:singularity|apptainer)\s+(?:exec|run|shell)\b")
APPTAINER_GPU = re.compile(r"(?:^|\s)--(?:nv|nvccli)\b")
# The job's environment or the image names the devices enroot's hook injects (void: none).
VISIBLE_NAMED = re.compile(
    r"NVIDIA_VISIBLE_DEVICES\s*[=:]\s*[\"']?(?!void\b)\w|--container-env[= ]\S*NVIDIA_VISIBLE_DEVICES"
)
# Images that set NVIDIA_VISIBLE_DEVICES themselves: NVIDIA's (nvidia/cuda and what is built on it, nvcr.io) and
# pytorch/pytorch (its Dockerfile sets it); an image named after CUDA is read as one of those.
NVIDIA_IMAGE = re.compile(r"nvcr\.io|nvidia[/+#]|pytorch[/+#]pytorch|(?<![.\w])cuda", re.IGNORECASE)
IMAGE_ARG = re.compile(r"--container-image[= ][\"']?(\S+)")
# torch's and CUDA's words for finding no driver library or no device inside the container.
NO_GPU_SEEN = re.compile(
    r"Found no NVIDIA driver on your system|No CUDA GPUs are available|no CUDA-capable device is detected|"
    r"CUDA_ERROR_NO_DEVICE|libcuda\.so(?:\.1)?: cannot open shared object file|"
    r"NVIDIA-SMI couldn'?t find libnvidia-ml|nvidia-smi: (?:command )?not found",
    re.IGNORECASE,
)
WEIGHT = 0.85
# A pyxis job that did not ask for GPUs: the scheduler's allocation is as likely, so the runtime is a possibility.
UNREQUESTED_WEIGHT = 0.5


def _launch(lines: list[str]) -> tuple[int, str, str, str] | None:
    """The first container launch that does not inject the GPU: (line number, its line, the whole command, the
    runtime's name)."""
    for index, raw in enumerate(lines):
        if not LAUNCH_START.match(raw[:MAX_LINE]):
            continue
        command, line = launch_command(lines, index), raw.strip()[:500]
        if not (PYXIS_LAUNCH.match(command) or ENROOT_START.match(command) or APPTAINER_LAUNCH.match(command)):
            continue
        if APPTAINER_LAUNCH.match(command):
            if APPTAINER_GPU.search(command):
                continue
            return index + 1, line, command, "apptainer"
        image = IMAGE_ARG.search(command)
        if NVIDIA_IMAGE.search(image.group(1) if image else command):
            continue
        return index + 1, line, command, "enroot"
    return None


def container_launch_without_gpu(lines: list[str], unavailable: bool) -> Match | None:
    """A pyxis/enroot or Singularity/Apptainer launch without GPU injection, and torch finding no driver or GPU
    inside: the container runtime did not put the GPU in (docker_no_gpu_runtime, a verdict)."""
    found = _launch(lines)
    if found is None:
        return None
    no, line, command, runtime = found
    if runtime == "enroot" and any(VISIBLE_NAMED.search(raw[:MAX_LINE]) for raw in lines):
        return None
    if not (unavailable or any(NO_GPU_SEEN.search(raw[:MAX_LINE]) for raw in lines)):
        return None
    if PYXIS_LAUNCH.match(command) and not GPU_REQUEST.search(command):
        return Match("docker_no_gpu_runtime", no, line, False, UNREQUESTED_WEIGHT)
    return Match("docker_no_gpu_runtime", no, line, True, WEIGHT)


# The runtime's own way to inject the GPU is the fix (the catalogue's Docker toolkit steps do not apply to it).
ENROOT_FIX = (
    "Let enroot inject the GPU: set NVIDIA_VISIBLE_DEVICES (and NVIDIA_DRIVER_CAPABILITIES) for the container, in "
    "the job's environment, an enroot environment file or the image; images built on nvidia/cuda already set them:\n"
    "  export NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=compute,utility   # before srun / enroot start\n"
    "  # or in the image: ENV NVIDIA_VISIBLE_DEVICES=all  NVIDIA_DRIVER_CAPABILITIES=compute,utility\n"
    "To confirm: `srun --gpus=1 --container-image=IMAGE sh -c 'echo $NVIDIA_VISIBLE_DEVICES; ls /dev/nvidia*'` "
    "(empty, no devices: nothing was injected)"
)
APPTAINER_FIX = (
    "Start the container with --nv so Singularity/Apptainer binds the host's driver and /dev/nvidia*:\n"
    "  apptainer exec --nv image.sif python -c 'import torch; print(torch.cuda.is_available())'\n"
    "To confirm: `apptainer exec --nv image.sif nvidia-smi` on a GPU node"
)


def launch_fix(report: Report, lines: list[str]) -> None:
    """A container-runtime finding drawn from a cluster launch gets that runtime's fix instead of Docker's."""
    found = _launch(lines)
    if found is None:
        return
    fix = APPTAINER_FIX if found[3] == "apptainer" else ENROOT_FIX
    for f in report.findings:
        if f.id == "docker_no_gpu_runtime":
            f.fix = fix
