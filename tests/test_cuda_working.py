"""One set of signs that a text shows CUDA or the driver working (gpuassist/ingest/cuda_working.py)."""

from __future__ import annotations

import pytest

from gpuassist.ingest.cuda_working import NVIDIA_GPU_MODEL, available_true_on_line, cuda_shown_working, smi_answered


@pytest.mark.parametrize(
    "text",
    [
        "torch.cuda.is_available() returns True",
        "`torch.cuda.is_available()` it shows `true`",
        'python -c "import torch; print(torch.cuda.is_available())" prints True',
        "Although torch.cuda.is_available returns true, the webui fails",  # a sentence drops the parentheses
        "torch.cuda.is_available() 返回 True",
        ">>> torch.cuda.is_available()\nTrue",
        "In [3]: torch.cuda.is_available()\nOut[3]: True",
        "GPU available: True (cuda), used: True",
        "cuda_available: True",
        "torch.cuda.device_count() returns 2",
        ">>> torch.cuda.device_count()\n1",
    ],
)
def test_signs_of_cuda_working(text: str) -> None:
    assert cuda_shown_working(text.splitlines())


@pytest.mark.parametrize(
    "text",
    [
        "torch.cuda.is_available() returns False",
        ">>> torch.cuda.is_available()\nFalse",
        "torch.cuda.device_count() returns 0",
        ">>> torch.cuda.device_count()\n0",
        "I expected is_available() to be true but",  # no answer, a wish
        "GPU available: False, used: False",
        "x = True",  # a True that no CUDA call printed
    ],
)
def test_not_signs_of_cuda_working(text: str) -> None:
    assert not cuda_shown_working(text.splitlines())


def test_same_line_form_ignores_an_answer_on_the_next_line() -> None:
    """The same-line form is for readers that weigh the sentence the answer is in."""
    assert available_true_on_line("is_available() returned True although webui.bat fails")
    assert not available_true_on_line(">>> torch.cuda.is_available()")
    assert cuda_shown_working([">>> torch.cuda.is_available()", "True"])


@pytest.mark.parametrize(
    ("line", "answered"),
    [
        ("| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |", True),
        ("Driver Version: 470.57.02", True),
        ("NVIDIA-SMI 540.4.0  Driver Version: 540.4.0", True),
        ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.", False),
        ("nvidia-smi: command not found", False),
    ],
)
def test_smi_answered(line: str, answered: bool) -> None:
    assert smi_answered(line) is answered


@pytest.mark.parametrize(
    ("line", "named"),
    [
        ("NVIDIA GeForce RTX 3090", True),
        ("geforce gtx 1060 6gb", True),
        ("Using device: cuda:0 (NVIDIA A100-SXM4-40GB)", True),
        ("| 0  Tesla K80   Off |", True),
        ("GeForce Experience is installed", True),  # the family name alone, in NVIDIA's capitals
        ("the titan of industry", False),
        ("Nikola Tesla's notes", False),
        ("Intel UHD Graphics 620", False),
    ],
)
def test_an_nvidia_gpu_named_by_model(line: str, named: bool) -> None:
    assert (NVIDIA_GPU_MODEL.search(line) is not None) is named
