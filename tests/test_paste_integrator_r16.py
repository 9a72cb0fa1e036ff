"""Integrator fixes after round 16's review: a torch add-on package's name is not torch, and the kernel 'gets'
upgraded is a kernel change."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text
from gpuassist.ingest.module_load import KERNEL_CHANGED


@pytest.mark.parametrize(
    "package",
    ["torch-tensorrt", "torch-directml", "torch-geometric"],
)
def test_a_torch_add_on_without_a_wheel_is_not_torch_without_one(package: str) -> None:
    # pip's refusal names the add-on; torch itself is installed and imports (its version is printed).
    text = (
        ">>> import torch; print(torch.__version__)\n2.5.1+cu124\n"
        f"$ pip install {package}\n"
        f"ERROR: Could not find a version that satisfies the requirement {package} (from versions: none)\n"
        f"ERROR: No matching distribution found for {package}\n"
    )
    ids = [f.id for f in load_text(text).findings]
    assert "no_wheel_for_platform" not in ids


def test_torch_itself_without_a_wheel_is_still_read() -> None:
    text = (
        "$ pip install torch==2.1.2+cu118\n"
        "ERROR: Could not find a version that satisfies the requirement torch==2.1.2+cu118 (from versions: none)\n"
        "ERROR: No matching distribution found for torch==2.1.2+cu118\n"
    )
    assert [f.id for f in load_text(text).findings][:1] == ["no_wheel_for_platform"]


@pytest.mark.parametrize(
    ("sentence", "said"),
    [
        ("every time the kernel gets upgraded the nvidia module is gone", True),
        ("the kernel is updated nightly by unattended-upgrades", True),
        ("the kernel was upgraded yesterday", True),
        ("the kernel is fine and nvidia-smi works", False),
    ],
)
def test_kernel_change_wordings(sentence: str, said: bool) -> None:
    assert bool(KERNEL_CHANGED.search(sentence)) is said


SLURM_CPU_JOB = (
    "#!/bin/bash\n#SBATCH --job-name=train\n#SBATCH --cpus-per-task=8\npython train.py\n\n"
    "$ cat train.py\nimport torch\nx = torch.randn(100, 100)\nprint(x.sum())\n"
)


def test_a_cpu_job_script_that_imports_torch_is_not_a_job_without_its_gpu() -> None:
    # Nothing in the text asks for or misses a GPU: torch runs on CPUs too.
    assert "scheduler_no_gpu_allocated" not in [f.id for f in load_text(SLURM_CPU_JOB).findings]


def test_the_same_job_failing_to_find_cuda_is_still_read() -> None:
    text = SLURM_CPU_JOB + ">>> torch.cuda.is_available()\nFalse\nRuntimeError: No CUDA GPUs are available\n"
    assert "scheduler_no_gpu_allocated" in [f.id for f in load_text(text).findings]
