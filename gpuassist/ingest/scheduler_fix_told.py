"""A Slurm job that saw no GPU until a GPU request was added to its launch, in the user's words.

Slurm gives a job step only the GPUs it requested: on a GPU partition or node, a step launched without --gpus,
--gres=gpu[:type]:N, --gpus-per-node/-per-task/-per-socket, -G N or --tres-per-*=gres/gpu gets no GPU device (with
ConstrainDevices=yes in cgroup.conf its /dev/nvidiaN nodes are hidden, and CUDA_VISIBLE_DEVICES is not set to any;
https://slurm.schedmd.com/srun.html, gres.html, cgroup.conf.html; not re-read in round 29, the search budget was
spent). Its program then says "no CUDA-capable device is detected" / torch.cuda.is_available() is False, which alone
reads as no GPU or no driver. When the text does not show the launch line but says that adding such a request to the
srun/sbatch/salloc line (or the job script) fixed it, the missing request is the cause the text states
(scheduler_no_gpu_allocated); the hardware, driver and module guesses give way. A request already present ("I use
--gpus=4 and still ..."), a fix denied ("adding --gres=gpu:1 did not help") or asked about is not it, and without a
GPU that is not seen nothing is claimed. user_words.slurm_step_without_gpu reads the launch line when it is shown.
"""

from __future__ import annotations

import re

from gpuassist.ingest import prose
from gpuassist.ingest.errors import Match
from gpuassist.ingest.job_devices import ALLOCATION_CONSEQUENCES
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.ingest.user_words import SLURM_GPU_REQUEST

# The request added, then where: "adding `--gpus=4` to the srun line", "added --gres=gpu:1 to my sbatch script".
ADDED = re.compile(
    r"\b(?:add|adds|adding|added|pass|passing|passed|specify|specifying|specified|include|including|"
    r"included|put|putting)\b",
    re.IGNORECASE,
)
LAUNCH = re.compile(
    r"\b(?:srun|sbatch|salloc)\b|#SBATCH|\b(?:job|batch|submission|slurm)\s+(?:script|file|line)\b|"
    r"\blaunch\s+(?:line|command)\b",
    re.IGNORECASE,
)
FIXED = re.compile(
    r"\bfix(?:es|ed)?\b|\bsolv(?:e|es|ed)\b|\bresolv(?:e|es|ed)\b|\b(?:works?|worked)\b|\bhelp(?:s|ed)?\b|"
    r"\bdid the trick\b",
    re.IGNORECASE,
)
DENIED = re.compile(
    r"\b(?:not|n't|never|no|still|neither|nor|without)\b\s+(?:\w+\s+){0,2}?(?:fix|solv|resolv|work|help)", re.IGNORECASE
)
# The program seeing no GPU.
NO_DEVICE = re.compile(
    r"no CUDA-capable device|cudaErrorNoDevice|CUDA_ERROR_NO_DEVICE|No CUDA GPUs are available|"
    r"is_available\(\)\W{0,6}(?:returns?\s+|is\s+|==?\s*)?False|"
    r"\bno GPUs? (?:were |was )?(?:found|detected|available)\b",
    re.IGNORECASE,
)


def request_fix_told(lines: list[str], matches: list[Match]) -> list[Match]:
    """The user says adding a GPU request to the Slurm launch fixed a job that saw no GPU: the missing request
    leads, and the hardware/driver guesses give way."""
    if any(m.id == "scheduler_no_gpu_allocated" for m in matches) or any(
        m.specific and m.id not in ALLOCATION_CONSEQUENCES for m in matches
    ):
        return matches
    cut = [line[:MAX_LINE] for line in lines[:5000]]
    if not any(NO_DEVICE.search(line) for line in cut):
        return matches
    for no, sentence in prose.sentences(cut):
        request = SLURM_GPU_REQUEST.search(sentence)
        if request is None or prose.is_question(sentence) or DENIED.search(sentence):
            continue
        added = ADDED.search(sentence[: request.start()][-40:])
        if added and LAUNCH.search(sentence) and FIXED.search(sentence[request.end() :]):
            kept = [m for m in matches if not (m.id in ALLOCATION_CONSEQUENCES and not m.specific)]
            return [Match("scheduler_no_gpu_allocated", no, sentence.strip()[:500], False, 0.85), *kept]
    return matches
