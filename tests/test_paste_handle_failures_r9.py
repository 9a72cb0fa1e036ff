"""cuBLAS / cuDNN handle creation and allocation failures (round 9): errors of a working GPU whose commonest cause
is the GPU's memory running out (cuBLAS/cuDNN docs: "usually caused by a cudaMalloc() failure"); a broken library
setup, when the text shows it, ranks first. Synthetic texts."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text
from gpuassist.knowledge.messages import rows


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


@pytest.mark.parametrize(
    "line",
    [
        "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasLtCreate(&handle)`",
        '  File "net.py", line 9, in forward\nRuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling '
        "`cublasCreate(handle)`",
        "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED",
        "torch.backends.cudnn failed: cuDNN error: CUDNN_STATUS_ALLOC_FAILED",
    ],
)
def test_handle_failures_read_as_memory_running_out(line: str) -> None:
    assert _ids(f"loading a bigger model now fails:\n{line}\n")[:1] == ["cuda_out_of_memory"]


def test_the_rows_carry_their_sources() -> None:
    names = {
        "cublas_handle_not_initialized",
        "cublas_alloc_failed",
        "cudnn_handle_not_initialized",
        "cudnn_alloc_failed",
    }
    found = [r for r in rows() if r.family == "torch" and r.key in names]
    assert len(found) == 4
    assert all(r.regex.search(r.example) for r in found)


def test_another_cublas_status_is_not_memory() -> None:
    # Counter-example: an invalid argument to a GEMM is no allocation failure.
    text = (
        "RuntimeError: CUDA error: CUBLAS_STATUS_INVALID_VALUE when calling `cublasSgemm( handle, opa, opb, m, n, k)`"
    )
    assert "cuda_out_of_memory" not in _ids(text)


def test_a_broken_cublas_library_ranks_above_memory() -> None:
    # Counter-example: the text shows a system cuBLAS shadowing the wheel's: the install, not memory, comes first.
    text = (
        "OSError: /usr/local/cuda-11.2/lib64/libcublas.so.11: undefined symbol: cublasLtHSHMatmulAlgoInit, version "
        "libcublasLt.so.11\n"
        "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`\n"
    )
    assert _ids(text)[0] != "cuda_out_of_memory"
