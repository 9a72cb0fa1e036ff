"""Round 16 (issue #14): classes read from their sources (Slurm refusing a job's GPU request, DKMS not rebuilding
the nvidia module for a new kernel, a Python version alone not telling that no torch wheel exists), each with a
synthetic text that must be read and a counter-example that must not fire."""

from __future__ import annotations

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.ingest.kinds import about_the_topic, detect, only_generic


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


def _errors(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings if f.severity is Severity.ERROR]


# ---- Slurm refusing the job's GPU request (slurm_errno.c ESLURM_INVALID_GRES / ESLURM_INVALID_TRES) ---------------


@pytest.mark.parametrize(
    "text",
    [
        "$ srun --gres=gpu:a100:2 python train.py\n"
        "srun: error: Unable to allocate resources: Invalid generic resource (gres) specification\n",
        "salloc --gpus-per-node=v100:1 -p gpu\n"
        "salloc: error: Job submit/allocate failed: Invalid Trackable RESource (TRES) specification\n",
        "my torch job never starts:\nsbatch: error: Batch job submission failed: Invalid generic resource (gres) "
        "specification\n",
    ],
)
def test_slurm_refusing_the_gpu_request_is_no_gpu_allocated(text: str) -> None:
    assert _errors(text)[:1] == ["scheduler_no_gpu_allocated"]


def test_node_configuration_unavailable_is_only_a_possibility() -> None:
    # CPUs or memory the partition cannot give are refused with the same words: not an error verdict.
    text = (
        "srun --mem=4T --gres=gpu:1 python x.py\n"
        "srun: error: Unable to allocate resources: Requested node configuration is not available\n"
    )
    assert "scheduler_no_gpu_allocated" in _ids(text)
    assert "scheduler_no_gpu_allocated" not in _errors(text)


def test_other_slurm_refusals_and_gres_config_talk_do_not_blame_the_gpu_request() -> None:
    text = (
        "sbatch --gres=gpu:1 job.sh\n"
        "sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified\n"
        "our gres.conf has Name=gpu Type=a100 File=/dev/nvidia[0-3]; torch sees all four GPUs in other jobs\n"
    )
    assert "scheduler_no_gpu_allocated" not in _errors(text)


# ---- a Python version alone is not 'no wheel': torch may be installed (an issue template's fields) -----------------


def test_template_python_version_alone_is_not_no_wheel_for_platform() -> None:
    text = (
        "## Environment\nPlease copy and paste the output from our environment collection script\n"
        "python collect_env.py\n"
        " - PyTorch Version (e.g., 1.0): 0.4.1\n - OS (e.g., Linux): Ubuntu 16.04\n"
        " - How you installed PyTorch (`conda`, `pip`, source): conda\n - Python version: 3.5\n"
        " - GPU models and configuration: gtx 970\n"
        "conda install pytorch=0.4.1 -c pytorch\nthe notebook kernel dies\n"
    )
    assert "no_wheel_for_platform" not in _ids(text)


@pytest.mark.parametrize(
    "text",
    [
        "$ python3 --version\nPython 3.7.3\n$ pip install torch\n"
        "ERROR: Could not find a version that satisfies the requirement torch (from versions: none)\n"
        "ERROR: No matching distribution found for torch\n",
        "PyTorch version: N/A\nIs debug build: N/A\nCUDA used to build PyTorch: N/A\n\n"
        "OS: Ubuntu 22.04.3 LTS (x86_64)\nPython version: 3.7.17 (default) [GCC 11.4.0] (64-bit runtime)\n"
        "Is CUDA available: N/A\n",
    ],
)
def test_python_outside_the_range_with_torch_shown_missing_is_still_no_wheel(text: str) -> None:
    assert "no_wheel_for_platform" in _ids(text)


# ---- DKMS not building the nvidia module for a new kernel (dell/dkms dkms.in, dkms_autoinstaller) ----------------


@pytest.mark.parametrize(
    "text",
    [
        "Since I updated the kernel to 6.8.0-45, torch says no CUDA GPUs are available.\n"
        "$ sudo dkms autoinstall\n"
        "Error! nvidia/550.54.14 is broken! Missing the source directory or the symbolic link pointing to it.\n"
        "Manual intervention is required!\n",
        "$ sudo dkms autoinstall -k 6.8.0-45-generic\nAutoinstall on 6.8.0-45-generic was skipped for module(s) "
        "nvidia.\n",
        "nvidia/560.35.03 autoinstall failed due to missing dependencies: nvidia-peermem.\n",
    ],
)
def test_dkms_not_building_the_nvidia_module_is_module_not_loaded(text: str) -> None:
    assert _errors(text)[:1] == ["nvidia_module_not_loaded"]


def test_headers_missing_skip_is_a_possibility_until_the_kernel_change_is_said() -> None:
    skip = (
        "Automatic installation of modules for kernel 6.8.0-45-generic was skipped since the kernel headers for this "
        "kernel do not seem to be installed.\n"
    )
    assert "nvidia_module_not_loaded" not in _errors("cuda stopped working\n" + skip)
    assert _errors("after the kernel upgrade the nvidia driver is gone\n" + skip)[:1] == ["nvidia_module_not_loaded"]


def test_a_stale_dkms_tree_beside_a_working_gpu_is_not_an_error() -> None:
    text = (
        "$ dkms status\nError! Could not locate dkms.conf file.\n"
        "File: /var/lib/dkms/nvidia/390.48/source/dkms.conf does not exist.\n"
        ">>> torch.cuda.is_available()\nTrue\n"
    )
    assert "nvidia_module_not_loaded" not in _errors(text)


# ---- the same class in words: the module not rebuilt for a new kernel, rebuilt by hand (ingest/dkms_words.py) ----


@pytest.mark.parametrize(
    "text",
    [
        "Since the last kernel update the nvidia module is not rebuilt anymore, torch falls back to the CPU.\n",
        "Every time I upgrade the kernel I have to run sudo dkms autoinstall by hand before CUDA works again.\n",
        "akmods did not build kmod-nvidia for the new kernel 6.11.4, so the GPU is gone after the reboot.\n",
    ],
)
def test_module_not_rebuilt_for_a_new_kernel_in_words_is_a_module_guess(text: str) -> None:
    assert _ids(text)[:1] == ["nvidia_module_not_loaded"]
    assert "nvidia_module_not_loaded" not in _errors(text)  # the user's account: a guess, not a verdict


@pytest.mark.parametrize(
    "text",
    [
        "How do I make dkms rebuild the nvidia module after a kernel upgrade?\n",
        "I upgraded the kernel and ran dkms install nvidia/550.54.14 as always.\n>>> torch.cuda.is_available()\nTrue\n",
        "My CUDA extension is not built for this torch; I have to rebuild it after updating torch to 2.5.\n",
    ],
)
def test_rebuild_questions_routine_rebuilds_and_other_builds_are_not_a_module_fault(text: str) -> None:
    assert "nvidia_module_not_loaded" not in _ids(text)


# ---- the report names a scheduler's text as what it read (ingest/kinds.py) ---------------------------------------


def test_a_slurm_refusal_is_read_as_scheduler_output_and_a_cpu_job_script_alone_is_refused() -> None:
    refusal = ["#SBATCH --gres=gpu:2", "sbatch: error: Batch job submission failed: Invalid generic resource (gres)"]
    assert [k.id for k in detect(refusal)] == ["scheduler"]
    cpu_job = ["#!/bin/bash", "#SBATCH --mem=4G", "#SBATCH -t 10", "echo hello"]
    assert only_generic(detect(cpu_job)) and not about_the_topic("\n".join(cpu_job))
