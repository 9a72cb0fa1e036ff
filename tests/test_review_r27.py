"""Fresh-eyes review of round 27 (issue #14): the readers added to `diagnose --from` (visible_devices_said,
uvm_node_cause, torch_fix_told, windows_smi, wsl_tcc, pcie_aer, python_words' tqdm bars and 'No module named', the
GPU-less docker run). Each case is a realistic synthetic decoy a user could paste, with the reason no problem may be
claimed on it."""

from __future__ import annotations

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text


def _claims(text: str) -> dict[str, Severity]:
    """The findings stated as a problem (error or warning), by id."""
    return {f.id: f.severity for f in load_text(text).findings if f.severity in (Severity.ERROR, Severity.WARNING)}


DECOYS = [
    (
        "Downloading cifar-10-python.tar.gz: 100%|██████████| 170M/170M [00:14<00:00, 11.9MB/s]\n"
        "Epoch 1: loss 1.92, device cuda:0\n",
        "a tqdm bar of a dataset download beside a run on cuda:0 is no fault",
    ),
    (
        'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n    from flask import Flask\n'
        "ModuleNotFoundError: No module named 'flask'\n",
        "'No module named' of a web app's package says nothing about the GPU",
    ),
    (
        "I set CUDA_VISIBLE_DEVICES=1 before importing torch and torch.cuda.device_count() returns 1 as expected, "
        "training runs on GPU 1. Just sharing.\n",
        "CUDA_VISIBLE_DEVICES set correctly before torch, with the expected count",
    ),
    (
        "C:\\Users\\me>nvidia-smi\n"
        "| NVIDIA-SMI 546.12       Driver Version: 546.12       CUDA Version: 12.3     |\n"
        "|  0  NVIDIA GeForce RTX 3080   WDDM  | 00000000:01:00.0  On |                  N/A |\n"
        'C:\\Users\\me>python -c "import torch; print(torch.cuda.is_available())"\nTrue\n',
        "a Windows cmd prompt where nvidia-smi works and torch sees the GPU",
    ),
    (
        "On our Windows Server 2022 HPC node the Tesla V100 runs in TCC mode (nvidia-smi -dm 1), which is what we "
        "want for compute. torch.cuda.is_available() is True.\n",
        "TCC on a native Windows HPC node is intended, not a WSL fault",
    ),
    (
        "[  12.345] pcieport 0000:00:1c.0: AER: Corrected error received: 0000:03:00.0\n"
        "[  12.346] igb 0000:03:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)\n"
        "torch.cuda.is_available() -> True, training fine\n",
        "a corrected PCIe AER on a NIC (igb), with torch working",
    ),
    (
        "$ docker run --runtime=nvidia --rm nvidia/cuda:12.1.0-base-ubuntu22.04 nvidia-smi\n"
        "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |\nworks fine\n",
        "a docker run with --runtime=nvidia instead of --gpus, which works",
    ),
    (
        "From our old wiki:\n> srun --gres=gpu:1 python train.py\n# srun ... we no longer use Slurm\n"
        "Now I train on my workstation and torch.cuda.is_available() is True.\n",
        "a quoted and a commented srun are no launch",
    ),
    (
        "Fixed: reinstalling torch with the cu121 wheel from download.pytorch.org solved it, "
        "is_available() True now.\n",
        "a user telling that a torch reinstall fixed it has nothing left to diagnose",
    ),
]


@pytest.mark.parametrize(("text", "reason"), DECOYS)
def test_decoy_claims_nothing(text: str, reason: str) -> None:
    assert _claims(text) == {}, reason


def test_oom_after_epochs_is_read() -> None:
    """The earlier miss 'runs fine for 3 epochs, then crashes ... CUDA out of memory' is now read."""
    text = (
        "Training runs fine for 3 epochs, then crashes with\ntorch.cuda.OutOfMemoryError: CUDA out of memory. Tried "
        "to allocate 2.00 GiB (GPU 0; 23.69 GiB total capacity; 20.1 GiB already allocated)\n"
    )
    assert "cuda_out_of_memory" in {f.id for f in load_text(text).findings}


# Fixed in round 29 (ingest/later_success.py; not_about_failure.OVER_AFTER's reboot form).
OPEN_MISSES = [
    (
        "Error! Bad return status for module build on kernel: 6.5.0-14-generic (x86_64)\n"
        "Consult /var/lib/dkms/nvidia/535.129.03/build/make.log for more information.\n"
        "After installing linux-headers it built fine, and now torch.cuda.is_available() is True.\n",
        "a DKMS failure shown beside a later successful build and is_available() True still claims "
        "nvidia_module_not_loaded",
    ),
    (
        "First I got RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable, then the whole "
        "X session crashed and after a reboot everything works.\n",
        "'busy or unavailable' told as solved by a reboot still claims compute_mode_exclusive_or_prohibited",
    ),
]


@pytest.mark.parametrize(("text", "reason"), OPEN_MISSES)
def test_solved_fault_claims_nothing(text: str, reason: str) -> None:
    assert _claims(text) == {}, reason
