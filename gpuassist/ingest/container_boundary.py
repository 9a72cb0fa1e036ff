"""The container was started without the GPU, in the user's words, while the rest of the paste describes the host.

A bug report often carries collect_env (or nvidia-smi) run on the HOST, where CUDA works, beside the failure of a
program running in a container. Docker gives a container GPUs only with ``--gpus`` (``all``, a count or
``"device=..."``), the NVIDIA runtime (``--runtime=nvidia``) or a CDI device (``--device nvidia.com/gpu=...``), and
Compose only with a ``deploy.resources.reservations.devices`` entry (docs.docker.com: "docker run --gpus",
"GPU support in Docker Compose"; NVIDIA Container Toolkit user guide). When the text says the container ran without
that flag ("without `--gpus all`, the model is loaded on the CPU", "I forgot to pass --gpus all"), the container had
no GPU, whatever the host's report says: the host's healthy collect_env is not the failing program's environment.

Docker's flag is told apart from other programs' ``--gpu``/``--gpus`` options (a training script's ``--gpu 0``,
Slurm's ``--gpus=1``) by its value (``all``, ``device=``) or by the text naming Docker/Podman/a container and no
scheduler. The words count where they say what the missing flag led to (the CPU used, an error, CUDA or the GPU not
found) and not where the flag was left out on purpose (a machine without a GPU, a CPU-only image). A ``docker run``
line that does pass a GPU flag, or a Compose GPU reservation, means the words are about something else, and nothing
is read.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

_NEGATION = (
    r"\b(?:without|no|missing|lacking|forgot(?:ten)?(?:\s+to\s+(?:add|pass|use|set|specify|include))?|"
    r"(?:did not|didn'?t|didnt|never|do not|don'?t)\s+(?:add|pass|use|set|specify|include)|omit(?:s|ted|ting)?)"
    r"\s+(?:the\s+|a\s+|an\s+|any\s+)?[`'\"]?"
)
# Docker's GPU flag named as absent, with a value only Docker gives it, or the runtime / CDI forms.
DOCKER_FLAG_ABSENT = re.compile(
    _NEGATION + r"(?:--gpus?(?:[= ]+[`'\"]?(?:all|device=)|\b(?=[^\n]{0,80}\bcontainer))|--runtime[= ]nvidia\b|"
    r"--device[= ]nvidia\.com/gpu)",
    re.IGNORECASE,
)
# The flag alone ("without --gpus") counts where the text is about Docker and not about a scheduler.
BARE_FLAG_ABSENT = re.compile(_NEGATION + r"--gpus?\b", re.IGNORECASE)
DOCKER_WORDS = re.compile(r"\b(?:docker|podman|nerdctl|container)\b", re.IGNORECASE)
SCHEDULER_WORDS = re.compile(r"\b(?:slurm|sbatch|srun|salloc)\b|#SBATCH", re.IGNORECASE)
# A container that was given the GPU after all.
GPU_GIVEN = re.compile(
    r"\b(?:docker|podman|nerdctl)\s+run\b[^\n]*(?:--gpus\b|--runtime[= ]nvidia|--device[= ]\S*nvidia\.com/gpu)|"
    r"^\s*-?\s*capabilities:\s*\[\s*[\"']?gpu",
    re.IGNORECASE,
)


# What the missing flag led to, said on its line or the next: the CPU used, an error, CUDA or the GPU not found.
CONSEQUENCE = re.compile(
    r"\bcpu\b|\berror\b|\bfail|\bcrash|\bexception\b|\bcuda\b|\bno gpu|\bgpu\b[^.\n]{0,30}\bnot\b|"
    r"\bnot (?:use|using|used|see|seeing|find|found|detect|detected)\b",
    re.IGNORECASE,
)
# The flag left out on purpose: a machine without a GPU, a CPU-only image, a deliberate choice.
LEFT_OUT_ON_PURPOSE = re.compile(
    r"\bbecause\b|\bon purpose\b|\bintentional|\bdeliberate|\bcpu[- ]only (?:image|build|mode|machine|host)\b|"
    r"\b(?:has|have|with) no (?:nvidia )?gpu\b",
    re.IGNORECASE,
)


def _gpu_given(line: str) -> bool:
    """The line gives the container the GPU: a flag said to be absent ("plain `docker run` (no --gpus flag)") is not
    given, another flag on the same line still is."""
    return GPU_GIVEN.search(BARE_FLAG_ABSENT.sub(" ", DOCKER_FLAG_ABSENT.sub(" ", line))) is not None


def container_started_without_gpu(lines: list[str]) -> Match | None:
    """The user's words that the container ran without Docker's GPU flag: docker_no_gpu_runtime, a verdict that holds
    over a host report beside it (the GPU the host shows never reached the container)."""
    cut = [line[:MAX_LINE] for line in lines[:5000]]
    if any(_gpu_given(line) for line in cut):
        return None
    docker_text = any(DOCKER_WORDS.search(line) for line in cut) and not any(
        SCHEDULER_WORDS.search(line) for line in cut
    )
    for no, line in enumerate(cut, start=1):
        if not (DOCKER_FLAG_ABSENT.search(line) or (docker_text and BARE_FLAG_ABSENT.search(line))):
            continue
        said = line + " " + (cut[no] if no < len(cut) else "")
        if CONSEQUENCE.search(said) and not LEFT_OUT_ON_PURPOSE.search(line):
            return Match("docker_no_gpu_runtime", no, line.strip()[:500], True, 0.9)
    return None


# A container started by a run command (not an image build's RUN step: lower-case CLI words only).
RUN_LINE = re.compile(r"\b(?:docker|podman|nerdctl)\s+run\b")
RUN_GPU_FLAGS = re.compile(
    r"--gpus\b|--runtime[= ]nvidia|--device[= ]\S*nvidia\.com/gpu|NVIDIA_VISIBLE_DEVICES|nvidia-docker"
)
# A Compose file: its top-level "services:" key and a service's "image:" or "build:".
COMPOSE_SERVICES = re.compile(r"^\s*services:\s*$")
COMPOSE_SERVICE_BODY = re.compile(r"^\s+(?:image|build):\s*\S")
COMPOSE_GPU_RESERVED = re.compile(
    r"capabilities:\s*\[?\s*['\"]?gpu|\bdriver:\s*['\"]?nvidia\b|\bruntime:\s*nvidia\b|\bgpus:\s*\S|"
    r"nvidia\.com/gpu",
    re.IGNORECASE,
)
# What a program in a container without the GPU prints: torch finds no driver or no GPU, the CUDA runtime no device,
# nvidia-smi is absent or cannot reach a driver, libcuda cannot be loaded.
CONTAINER_CUDA_FAILURE = re.compile(
    r"Found no NVIDIA driver on your system|No CUDA GPUs are available|no CUDA-capable device is detected|"
    r"CUDA_ERROR_NO_DEVICE|NVIDIA-SMI has failed because it couldn'?t communicate|nvidia-smi: (?:command )?not found|"
    r"libcuda\.so(?:\.1)?: cannot open shared object file",
    re.IGNORECASE,
)


def run_without_gpu_beside_host_report(lines: list[str], *, host_cuda_works: bool) -> Match | None:
    """A ``docker run`` without any GPU flag and CUDA's own failure message, in a paste whose report (collect_env,
    nvidia-smi) says CUDA works: the report is the host's, the failure the container's, which was never given the GPU
    (a verdict). Where no report says CUDA works, the paste reader's own container-run reading decides."""
    if not host_cuda_works:
        return None
    cut = [line[:MAX_LINE] for line in lines[:5000]]
    if any(RUN_GPU_FLAGS.search(line) or COMPOSE_GPU_RESERVED.search(line) for line in cut):
        return None
    run = next(((no, line) for no, line in enumerate(cut, start=1) if RUN_LINE.search(line)), None)
    if run is None or not any(CONTAINER_CUDA_FAILURE.search(line) for line in cut):
        return None
    return Match("docker_no_gpu_runtime", run[0], run[1].strip()[:500], True, 0.9)


def compose_without_gpu_reservation(lines: list[str], *, unavailable: bool) -> Match | None:
    """A Compose file pasted with its services and no GPU reservation anywhere
    (``deploy.resources.reservations.devices`` with ``capabilities: [gpu]``, the older ``runtime: nvidia``,
    ``gpus:``), beside CUDA failing: Compose gives a service the GPU only through that block (docs.docker.com, "GPU
    support in Docker Compose"). A possibility: a pasted excerpt may have left the block out."""
    cut = [line[:MAX_LINE] for line in lines[:5000]]
    services = next((no for no, line in enumerate(cut, start=1) if COMPOSE_SERVICES.match(line)), None)
    if services is None or not any(COMPOSE_SERVICE_BODY.match(line) for line in cut[services:]):
        return None
    if any(COMPOSE_GPU_RESERVED.search(line) or RUN_GPU_FLAGS.search(line) for line in cut):
        return None
    if not unavailable and not any(CONTAINER_CUDA_FAILURE.search(line) for line in cut):
        return None
    return Match("docker_no_gpu_runtime", services, cut[services - 1].strip()[:500], False, 0.7)
