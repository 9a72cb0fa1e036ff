"""Round 14 (issue #14, user side): classes read from their primary sources, each with a synthetic text that must be
read and a counter-example that must not.

- PyTorch's own CUDA kernel asserts (aten Loss.cu, NLLLoss2d.cu, Indexing.cu, ScatterGatherKernel.cu, IndexKernel.cu)
  pasted without the "device-side assert triggered" line: cuda_device_side_assert, and the text is on topic.
- HIP's "invalid device function" / "no kernel image" (a ROCm build): the ROCm cause, not CUDA's arch lists.
- A program's log naming ``mps`` as its device (ComfyUI "Device: mps", "Set vram state to: SHARED"): a Mac.
- A GeForce named by vendor and number ("nvidia 5090") or owned at a sentence's end ("my 5090."): its capability
  decides between the arch readings.
- The user's GPU said to be AMD ("run it on an AMD GPU?"): no NVIDIA GPU, before the CPU build.
- A CPU torch in the future tense ("the torch will be cpu version").
"""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text
from gpuassist.ingest.amd_gpu_words import stated_amd_gpu
from gpuassist.ingest.apple_words import apple_said
from gpuassist.ingest.named_gpu import named_nvidia_gpus
from gpuassist.ingest.text import UnreadableInput
from gpuassist.ingest.usage_words import visible_devices_setting
from gpuassist.ingest.wheel_abi import wheel_for_another_python


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


def _first(text: str) -> str | None:
    ids = _ids(text)
    return ids[0] if ids else None


# ---------------------------------------------------------------------------------------------- kernel asserts


@pytest.mark.parametrize(
    "line",
    [
        "Assertion `t >= 0 && t < n_classes` failed.",
        "Assertion `cur_target >= 0 && cur_target < n_classes` failed.",
        "Assertion `srcIndex < srcSelectDimSize` failed.",
        'Assertion `idx_dim >= 0 && idx_dim < index_size && "index out of bounds"` failed.',
        "Assertion `input_val >= zero && input_val <= one` failed.",
    ],
)
def test_a_kernel_assert_alone_is_read_as_the_device_side_assert(line: str) -> None:
    text = f"My segmentation training stops at once with\n{line}\nI changed the dataset to 3 classes.\n"
    assert _first(text) == "cuda_device_side_assert"


def test_an_unrelated_assertion_is_not_a_kernel_assert() -> None:
    # a C program's own assert is no bounds check of PyTorch's kernels
    try:
        ids = _ids("a.out: main.c:12: main: Assertion `n < size` failed.\n")
    except UnreadableInput:
        return
    assert "cuda_device_side_assert" not in ids


# ------------------------------------------------------------------------------------------------- HIP messages


def test_hip_invalid_device_function_is_the_rocm_cause() -> None:
    text = "Training on my Radeon fails:\nRuntimeError: HIP error: invalid device function\n"
    ids = _ids(text)
    assert ids[0] == "rocm_gpu_unsupported_or_no_access"
    assert "gpu_arch_dropped_from_build" not in ids and "gpu_arch_too_new_for_build" not in ids


def test_cuda_invalid_device_function_keeps_the_cuda_readings() -> None:
    ids = _ids("RuntimeError: CUDA error: invalid device function\n")
    assert "rocm_gpu_unsupported_or_no_access" not in ids
    assert "gpu_arch_too_new_for_build" in ids or "gpu_arch_dropped_from_build" in ids


# ---------------------------------------------------------------------------------------------- mps in a log


def test_a_log_naming_mps_as_its_device_is_a_mac() -> None:
    log = [
        "2025-03-01T10:00:00.1 - pytorch version: 2.6.0",
        "2025-03-01T10:00:00.2 - Set vram state to: SHARED",
        "2025-03-01T10:00:00.3 - Device: mps",
    ]
    assert apple_said(log) is not None
    text = "\n".join([*log, "AssertionError: Torch not compiled with CUDA enabled"]) + "\n"
    assert _first(text) == "macos_no_cuda_use_mps"


@pytest.mark.parametrize(
    "line",
    [
        'device = "mps" if torch.backends.mps.is_available() else "cpu"',
        "Set vram state to: NORMAL_VRAM",
        "Device: cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync",
    ],
)
def test_code_or_a_cuda_device_line_is_not_a_mac(line: str) -> None:
    assert apple_said([line]) is None


# ------------------------------------------------------------------------------------------- GPU by its number


def test_vendor_and_number_or_owned_number_at_a_full_stop_names_the_gpu() -> None:
    assert [name for _no, _line, name, _cc in named_nvidia_gpus(["Error when trying to use nvidia 5090"])] == [
        "RTX 5090"
    ]
    assert [name for _no, _line, name, _cc in named_nvidia_gpus(["Would love to use my 5090."])] == ["RTX 5090"]
    text = (
        "Error when trying to use nvidia 5090\n"
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    )
    ids = _ids(text)
    assert ids[0] == "gpu_arch_too_new_for_build" and "gpu_arch_dropped_from_build" not in ids


@pytest.mark.parametrize("line", ["nvidia 5090 driver released", "version 5090.12 of my tool", "my 5090mb file"])
def test_a_number_that_is_no_gpu_is_not_read(line: str) -> None:
    assert named_nvidia_gpus([line]) == []


def test_a_sentence_full_stop_is_not_part_of_cuda_visible_devices() -> None:
    assert visible_devices_setting(["I have CUDA_VISIBLE_DEVICES=0. Perhaps it is that?"]) is not None
    assert visible_devices_setting(["I have CUDA_VISIBLE_DEVICES=0. Perhaps it is that?"])[2] == "0"  # type: ignore[index]
    assert visible_devices_setting(["export CUDA_VISIBLE_DEVICES=GPU-1a2b.3c"])[2] == "GPU-1a2b.3c"  # type: ignore[index]


# ---------------------------------------------------------------------------------------------- an AMD GPU said


def test_an_amd_gpu_said_comes_before_the_cpu_build() -> None:
    text = (
        "Can I run this app on an AMD GPU?\n- PyTorch: 2.8.0+cpu\n[WARNING] No GPU acceleration available, using CPU\n"
    )
    ids = _ids(text)
    assert ids[0] == "no_nvidia_gpu"


@pytest.mark.parametrize(
    "line",
    [
        "The app supports NVIDIA and AMD GPUs.",
        "I have an AMD CPU and an RTX 3060.",
        "I am on AMD Threadripper 3970X with 128 GB of RAM.",
        "Running on an AMD GPU with torch 2.4.0+rocm6.1",
    ],
)
def test_vendor_lists_nvidia_gpus_and_rocm_builds_are_not_read_as_no_nvidia_gpu(line: str) -> None:
    assert stated_amd_gpu([line]) is None


# ------------------------------------------------------------------------------------------ CPU torch in words


def test_a_cpu_torch_in_the_future_tense_is_read() -> None:
    text = (
        "On Windows, if you install from requirements.txt the torch will be cpu version.\n"
        "pip install torch --index-url https://download.pytorch.org/whl/cu121\n"
    )
    assert _first(text) == "cpu_only_build"


def test_a_cuda_torch_in_the_future_tense_is_not_a_cpu_build() -> None:
    text = (
        "On Windows, if you install from our index the torch will be the cuda version.\n"
        "pip install torch --index-url https://download.pytorch.org/whl/cu121\n"
    )
    assert "cpu_only_build" not in _ids(text)


# --------------------------------------------------------------------------------- a wheel of another Python


def test_a_wheel_of_another_python_forced_in_is_no_wheel_for_the_platform() -> None:
    text = (
        "I renamed torch-1.0.0-cp37-cp37m-linux_x86_64.whl to cp38 so pip would take it.\n"
        "Python 3.8.10 (default, Jun  2 2021, 10:49:15)\n"
        ">>> import torch\n"
        "Traceback (most recent call last):\n"
        '  File "/home/u/.local/lib/python3.8/site-packages/torch/__init__.py", line 80, in <module>\n'
        "    from torch._C import *\n"
        "ModuleNotFoundError: No module named 'torch._C'\n"
    )
    ids = _ids(text)
    assert ids[0] == "no_wheel_for_platform" and "cpu_only_build" not in ids


def test_the_same_python_or_no_wheel_named_reads_nothing_of_the_kind() -> None:
    same = (
        "I installed torch-1.0.0-cp38-cp38-linux_x86_64.whl\n"
        '  File "/usr/lib/python3.8/site-packages/torch/__init__.py", line 80, in <module>\n'
        "ModuleNotFoundError: No module named 'torch._C'\n"
    )
    assert "no_wheel_for_platform" not in _ids(same)
    assert wheel_for_another_python(["ModuleNotFoundError: No module named 'torch._C'"], []) == []


def test_a_rocm_build_shown_rereads_cuda_s_own_prefix() -> None:
    text = "torch 1.13.1+rocm5.2\nRuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    ids = _ids(text)
    assert ids[0] == "rocm_gpu_unsupported_or_no_access"
    assert "gpu_arch_too_new_for_build" not in ids and "gpu_arch_dropped_from_build" not in ids


def test_rocm_merely_mentioned_keeps_the_cuda_readings() -> None:
    text = (
        "I read that ROCm also exists, but I have torch 2.1.0+cu118\n"
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    )
    assert "rocm_gpu_unsupported_or_no_access" not in _ids(text)


@pytest.mark.parametrize(
    "line",
    [
        "Assertion `val >= zero` failed.",
        'Assertion `index >= -sizes[i] && index < sizes[i] && "index out of bounds"` failed.',
    ],
)
def test_other_aten_kernel_asserts_are_read(line: str) -> None:
    assert _first(f"sampling on the GPU stops with\n{line}\n") == "cuda_device_side_assert"


@pytest.mark.parametrize("line", ["INFO:root:Using device: mps", "Device: mps:0"])
def test_other_mps_device_log_forms_are_a_mac(line: str) -> None:
    assert apple_said([line]) is not None
