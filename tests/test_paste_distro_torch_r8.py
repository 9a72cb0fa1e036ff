"""A distribution's own torch package built without CUDA, read from its package name (round 8).

Synthetic transcripts (nix-shell, apt, dpkg -l, pacman, brew) with CUDA said unavailable; counter-examples: the
packages' CUDA siblings, an override that turns CUDA on, and a CPU package installed without any complaint."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


@pytest.mark.parametrize(
    "text",
    [
        "$ nix-shell -p python311Packages.torch --run 'python -c \"import torch; print(torch.cuda.is_available())\"'\n"
        "False\n",
        "$ sudo apt install python3-torch python3-torchvision\n"
        "$ python3 -c 'import torch; print(torch.cuda.is_available())'\nFalse\n",
        "$ dpkg -l | grep torch\nii  python3-torch:amd64  2.1.2+dfsg-3  amd64  Tensors and Dynamic neural networks\n"
        "torch.cuda.is_available() returns False although nvidia-smi works\n",
        "sudo pacman -S python-pytorch-opt\n>>> torch.cuda.is_available()\nFalse\n",
        "brew install pytorch\nCUDA is not available in python, torch.cuda.is_available() is False\n",
    ],
)
def test_a_cpu_distribution_package_with_cuda_unavailable_is_a_cpu_build(text: str) -> None:
    assert _ids(text)[0] == "cpu_only_build"


@pytest.mark.parametrize(
    "text",
    [
        # the CUDA siblings
        "$ nix-shell -p python311Packages.torch-bin --run "
        "'python -c \"import torch; print(torch.cuda.is_available())\"'\nFalse\n",
        "$ nix-shell -p python311Packages.torchWithCuda\n>>> torch.cuda.is_available()\nFalse\n",
        "sudo apt install python3-torch-cuda\n>>> torch.cuda.is_available()\nFalse\n",
        "sudo pacman -S python-pytorch-opt-cuda\n>>> torch.cuda.is_available()\nFalse\n",
        # CUDA turned on for the source build
        "nixpkgs.config.cudaSupport = true;\n$ nix-shell -p python311Packages.torch\n>>> torch.cuda.is_available()\n"
        "False\n",
    ],
)
def test_cuda_packages_are_not_a_cpu_build(text: str) -> None:
    assert "cpu_only_build" not in _ids(text)


def test_a_cpu_package_installed_without_complaint_claims_nothing() -> None:
    text = "$ sudo apt install python3-torch\nSetting up python3-torch:amd64 (2.1.2+dfsg-3) ...\n"
    assert "cpu_only_build" not in _ids(text)
