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
scheduler. A ``docker run`` line that does pass a GPU flag, or a Compose GPU reservation, means the words are about
something else, and nothing is read.
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


def container_started_without_gpu(lines: list[str]) -> Match | None:
    """The user's words that the container ran without Docker's GPU flag: docker_no_gpu_runtime, a verdict that holds
    over a host report beside it (the GPU the host shows never reached the container)."""
    cut = [line[:MAX_LINE] for line in lines[:5000]]
    if any(GPU_GIVEN.search(line) for line in cut):
        return None
    docker_text = any(DOCKER_WORDS.search(line) for line in cut) and not any(
        SCHEDULER_WORDS.search(line) for line in cut
    )
    for no, line in enumerate(cut, start=1):
        if DOCKER_FLAG_ABSENT.search(line) or (docker_text and BARE_FLAG_ABSENT.search(line)):
            return Match("docker_no_gpu_runtime", no, line.strip()[:500], True, 0.9)
    return None
