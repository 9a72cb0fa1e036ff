"""Round 28 (issue #14): forms of CUDA's own messages other programs print, and PyTorch's C++ log lines.

- cudaErrorAssert's string retyped without its hyphen ("CUDA error: device side assert triggered") is the same
  device-side assert; the word "assert" alone in prose is not.
- CTranslate2's CUDA_CHECK ("CUDA failed with error " + cudaGetErrorString) and spconv's ("cuda failed with error
  2 out of memory") carry the CUDA runtime's string: out of memory there is the GPU's, a host's MemoryError is not.
- torch's C++ logger ("[W NNPACK.cpp:80] ...", "[W1023 10:26:13.145574447 NNPACK.cpp:61] ...") makes a text about
  PyTorch (read, not refused); its harmless warning claims nothing. Synthetic texts and counter-examples.
"""

from __future__ import annotations

import pytest

from gpuassist.ingest import UnreadableInput, load_text
from gpuassist.ingest.torch_log_words import shows_torch_log


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


def test_device_side_assert_without_hyphen_is_the_assert() -> None:
    text = (
        "my training stops after the first epoch with RuntimeError: CUDA error: device side assert triggered\n"
        "CUDA kernel errors might be asynchronously reported at some other API call\n"
    )
    assert _ids(text)[:1] == ["cuda_device_side_assert"]


def test_assert_word_alone_is_not_the_device_assert() -> None:
    text = "I added an assert on the device side of my data loader and torch.cuda.is_available() is True\n"
    assert "cuda_device_side_assert" not in _ids(text)


@pytest.mark.parametrize(
    "line",
    [
        "RuntimeError: CUDA failed with error out of memory",
        "RuntimeError: cuda failed with error 2 out of memory. use CUDA_LAUNCH_BLOCKING=1 to get correct traceback.",
    ],
)
def test_ctranslate2_and_spconv_cuda_check_out_of_memory(line: str) -> None:
    text = f"Loading the large model with faster-whisper on the GPU:\nTraceback (most recent call last):\n{line}\n"
    assert _ids(text)[:1] == ["cuda_out_of_memory"]


def test_ctranslate2_prefix_carries_other_cuda_strings() -> None:
    text = "Traceback (most recent call last):\nRuntimeError: CUDA failed with error no CUDA-capable device is detected"
    ids = _ids(text)
    assert ids and ids[0] != "cuda_out_of_memory"


def test_host_out_of_memory_is_not_the_gpu() -> None:
    text = "Traceback (most recent call last):\nMemoryError: failed with error out of memory while reading the csv\n"
    assert "cuda_out_of_memory" not in _ids(text)


@pytest.mark.parametrize(
    "line",
    [
        "[W NNPACK.cpp:80] Could not initialize NNPACK! Reason: Unsupported hardware.",
        "[W1023 10:26:13.145574447 NNPACK.cpp:61] Could not initialize NNPACK! Reason: Unsupported hardware.",
    ],
)
def test_torch_log_line_is_about_pytorch_and_claims_nothing(line: str) -> None:
    text = f"After the run ends I see this warning:\n\n`{line}`\n\nEverything works fine. Can I ignore it?\n"
    assert shows_torch_log(text)
    report = load_text(text)
    assert [f.id for f in report.findings] == []


def test_other_bracketed_tags_are_not_torch_log() -> None:
    text = "[W] build.log:3 disk almost full\n[WARN main.go:12] retrying\n"
    assert not shows_torch_log(text)
    with pytest.raises(UnreadableInput):
        load_text(text)


CUBLAS_LINE = "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`\n"


@pytest.mark.parametrize(
    "cpu_line",
    [
        "IndexError: index out of range in self",
        "IndexError: index 70000 is out of bounds for dimension 0 with size 50257",
        "IndexError: Target 12 is out of bounds.",
    ],
)
def test_cpu_bounds_error_explains_a_later_cublas_failure(cpu_line: str) -> None:
    text = f"On the GPU my embedding model dies with\n{CUBLAS_LINE}but the same batch on the CPU gives\n{cpu_line}\n"
    ids = _ids(text)
    assert ids[:1] == ["cuda_device_side_assert"]
    assert "cuda_out_of_memory" not in ids


def test_device_assert_before_cublas_status_leads() -> None:
    text = (
        "RuntimeError: CUDA error: device-side assert triggered\n"
        "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`\n"
    )
    ids = _ids(text)
    assert ids[:1] == ["cuda_device_side_assert"]
    assert "cuda_out_of_memory" not in ids


def test_cublas_alloc_failure_alone_stays_memory() -> None:
    assert _ids(f"Running the quick start on one GPU:\n{CUBLAS_LINE}")[:1] == ["cuda_out_of_memory"]


def test_allocator_oom_beside_index_error_keeps_memory() -> None:
    text = (
        f"{CUBLAS_LINE}IndexError: index out of range in self\n"
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
    )
    assert "cuda_out_of_memory" in _ids(text)


def test_tensorflow_gpu_allocator_oom_is_gpu_memory() -> None:
    text = (
        "Traceback (most recent call last):\n"
        "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with "
        "shape[64,512,56,56] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc\n"
    )
    assert _ids(text)[:1] == ["cuda_out_of_memory"]


def test_tensorflow_host_oom_and_bfc_warning_are_not_gpu_memory() -> None:
    host = (
        "Traceback (most recent call last):\nResourceExhaustedError: OOM when allocating tensor with "
        "shape[8,3,4096,4096] and type float on /job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu\n"
    )
    warning = (
        "W tensorflow/core/common_runtime/bfc_allocator.cc:245] Allocator (GPU_0_bfc) ran out of memory trying to "
        "allocate 2.19GiB with freed_by_count=0. The caller indicates that this is not a failure, but may mean that "
        "there could be performance gains if more memory were available.\n"
    )
    assert "cuda_out_of_memory" not in _ids(host)
    assert "cuda_out_of_memory" not in _ids(warning)
