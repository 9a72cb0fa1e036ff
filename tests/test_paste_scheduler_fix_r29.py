"""Round 29 (issue #14): a Slurm job that saw no GPU until a GPU request was added to its launch line.

Slurm gives a step only the GPUs it asks for (--gpus, --gres=gpu:N, --gpus-per-node/-task, -G N). A text whose
program sees no CUDA device and whose user says adding such a request to srun/sbatch fixed it states the missing
request as the cause. A request already used, a fix denied, a question or a docker --gpus fix is not it. Synthetic.
"""

from __future__ import annotations

import pytest

from gpuassist.ingest import UnreadableInput, load_text

ERROR = "RuntimeError: CUDA error: no CUDA-capable device is detected\n"


def _ids(text: str) -> list[str]:
    try:
        return [f.id for f in load_text(text).findings]
    except UnreadableInput:
        return []


@pytest.mark.parametrize(
    "said",
    [
        "Support told us to add --gres=gpu:1 to the sbatch script, and that fixed it.",
        "Passing -G 2 to srun solved the problem for our cluster runs.",
        "Adding --gpus-per-node=4 to the srun line makes it work again.",
    ],
)
def test_a_gpu_request_said_to_fix_the_job_reads_the_missing_request(said: str) -> None:
    ids = _ids("Our jobs on the gpu partition crash:\n" + ERROR + said + "\n")
    assert ids[:1] == ["scheduler_no_gpu_allocated"]
    assert "no_nvidia_gpu" not in ids


@pytest.mark.parametrize(
    "said",
    [
        "Adding --gres=gpu:4 to the sbatch script did not help either.",
        "Should I add --gpus=1 to the srun line, would that fix it?",
        "Adding --gpus all to docker run fixed it on my workstation.",
    ],
)
def test_a_request_not_said_to_fix_it_is_not_read(said: str) -> None:
    assert "scheduler_no_gpu_allocated" not in _ids("Our jobs crash:\n" + ERROR + said + "\n")


def test_a_fix_told_without_a_gpu_unseen_claims_nothing() -> None:
    text = "Adding --gres=gpu:1 to the sbatch script fixed the slow start of our jobs.\n"
    assert "scheduler_no_gpu_allocated" not in _ids(text)
