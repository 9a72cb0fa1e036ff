"""A line that only says where the working libcuda is must not read as "CUDA in WSL2 is broken" (a healthy WSL
machine was blamed for numba's "CUDA driver library found at /usr/lib/wsl/lib/libcuda.so.1"). Synthetic texts."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text
from gpuassist.ingest.libcuda_found import shows_library_found


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


WSL = "Ubuntu 22.04 under WSL2 on Windows 11\n"

FOUND_LINES = [
    "CUDA driver library found at /usr/lib/wsl/lib/libcuda.so.1",
    "\tlibcuda.so.1 (libc6,x86-64) => /usr/lib/wsl/lib/libcuda.so.1",
    "libcuda.so.1 => /usr/lib/wsl/lib/libcuda.so.1 (0x00007f3a1c000000)",
    "I tensorflow/stream_executor/platform/default/dso_loader.cc:53] Successfully opened dynamic library libcuda.so.1",
    "-r-xr-xr-x 1 root root 166000 Mar  1 10:00 /usr/lib/wsl/lib/libcuda.so.1",
]

FAILED_LINES = [
    "Could not load library libcuda.so.1 from /usr/lib/wsl/lib: file not found",
    "libcuda.so.1: cannot open shared object file: No such file or directory",
    "found libcuda at /usr/lib/wsl/lib/libcuda.so.1 but failed to load it",
    "/sbin/ldconfig.real: /usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link",
]


@pytest.mark.parametrize("line", FOUND_LINES)
def test_found_library_lines_are_recognised(line: str) -> None:
    assert shows_library_found(line)


@pytest.mark.parametrize("line", FAILED_LINES)
def test_failure_lines_are_not_found_lines(line: str) -> None:
    assert not shows_library_found(line)


@pytest.mark.parametrize("line", FOUND_LINES)
def test_healthy_wsl_text_naming_its_libcuda_is_not_blamed(line: str) -> None:
    text = WSL + line + "\n>>> import torch\n>>> torch.cuda.is_available()\nTrue\n"
    assert "wsl_libcuda_problem" not in _ids(text)


def test_found_line_rules_out_no_driver_beside_a_real_failure() -> None:
    text = (
        "$ numba -s\nCUDA driver library found at /usr/lib/libcuda.so.1\n"
        ">>> torch.cuda.is_available()\nFalse\nRuntimeError: Found no NVIDIA driver on your system."
    )
    assert "no_nvidia_driver" not in _ids(text)


def test_a_failing_libcuda_line_in_wsl_keeps_the_verdict() -> None:
    text = WSL + FAILED_LINES[0] + "\nRuntimeError: Found no NVIDIA driver on your system.\n"
    assert _ids(text)[0] == "wsl_libcuda_problem"
