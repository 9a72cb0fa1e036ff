"""Jetson (L4T) message families read from their sources (round 13): the NVIDIA container runtime's CSV mounts
(libnvidia-container csv mode; dusty-nv/jetson-containers docs: on L4T r32 the board's CUDA 10.2, cuDNN 7/8 and
TensorRT are mounted into the container) and Tegra's memory manager refusing a process (libnvrm_mem's
"NvRmMemInitNvmap failed", /dev/nvmap not in the container). Each with a text of the same form that must not be
read that way. The texts are written here, not taken from a thread."""

from __future__ import annotations

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text


def _claimed(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings if f.severity in (Severity.ERROR, Severity.WARNING)]


@pytest.mark.parametrize(
    "library", ["libcublas.so.10", "libcudart.so.10.2", "libcudnn.so.8", "libnvinfer.so.8", "libcufft.so"]
)
def test_a_r32_container_without_the_runtime_misses_the_boards_mounted_cuda(library: str) -> None:
    text = (
        "$ docker run --rm -it nvcr.io/nvidia/l4t-base:r32.7.1 python3 -c 'import torch'\n"
        f"OSError: {library}: cannot open shared object file: No such file or directory\n"
    )
    assert _claimed(text) == ["docker_no_gpu_runtime"]


def test_another_cuda_major_on_r32_is_the_wheel_not_the_mount() -> None:
    text = (
        "$ docker run --rm -it nvcr.io/nvidia/l4t-base:r32.7.1 python3 -c 'import torch'\n"
        "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory\n"
    )
    assert "docker_no_gpu_runtime" not in _claimed(text)


def test_the_same_library_missing_with_the_runtime_in_use_is_not_the_runtime() -> None:
    text = (
        "$ docker run --rm -it --runtime nvidia nvcr.io/nvidia/l4t-base:r32.7.1 python3 -c 'import torch'\n"
        "OSError: libcublas.so.10: cannot open shared object file: No such file or directory\n"
    )
    assert "docker_no_gpu_runtime" not in _claimed(text)


def test_a_r35_container_missing_cuda_is_not_read_as_the_r32_mount() -> None:
    """From r34 l4t-base carries no CUDA by design: the image's choice, not a mount the runtime skipped."""
    text = (
        "$ docker run --rm -it nvcr.io/nvidia/l4t-base:r35.1.0 python3 -c 'import torch'\n"
        "OSError: libcublas.so.11: cannot open shared object file: No such file or directory\n"
    )
    assert "docker_no_gpu_runtime" not in _claimed(text)


def test_nvmap_refused_in_a_container_without_the_runtime() -> None:
    text = (
        "$ sudo docker run -it --rm dustynv/l4t-pytorch:r35.2.1 python3 -c "
        '"import torch; print(torch.cuda.is_available())"\n'
        "NvRmMemInitNvmap failed with Permission denied\n"
        "549: Memory Manager Not supported\n"
        "False\n"
    )
    assert _claimed(text)[0] == "docker_no_gpu_runtime"


@pytest.mark.parametrize(
    "text",
    [
        # the runtime in use: the process's rights to /dev/nvmap (no catalogue id), not the runtime
        "$ sudo docker run -it --rm --runtime nvidia dustynv/l4t-pytorch:r35.2.1 python3 -c "
        '"import torch; print(torch.cuda.is_available())"\nNvRmMemInitNvmap failed with Permission denied\nFalse\n',
        # on the board itself: no container at all
        "$ python3 -c 'import torch; print(torch.cuda.is_available())'\n"
        "NvRmMemInitNvmap failed with Permission denied\nFalse\nLinux nano 4.9.337-tegra #1 SMP PREEMPT aarch64\n",
    ],
)
def test_nvmap_refused_without_a_runtime_less_container_is_not_the_runtime(text: str) -> None:
    assert "docker_no_gpu_runtime" not in _claimed(text)


def test_a_tegra_memory_manager_line_alone_is_read_not_refused() -> None:
    assert load_text("NvRmMemInitNvmap failed with Permission denied\n549: Memory Manager Not supported\n") is not None
