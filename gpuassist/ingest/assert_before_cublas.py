"""An out-of-range index shown beside a cuBLAS failure: the index is the cause, the cuBLAS status its echo.

A CUDA kernel's failed assertion (an embedding id >= the vocabulary, a class label >= n_classes) is reported
asynchronously: the next CUDA call to check an error gets it, and once a device-side assert fired the context is
unusable, so a cuBLAS call that follows fails with whatever status cuBLAS makes of the dead context -
CUBLAS_STATUS_ALLOC_FAILED or CUBLAS_STATUS_NOT_INITIALIZED "when calling `cublasCreate(handle)`", or
CUBLAS_STATUS_EXECUTION_FAILED / CUBLAS_STATUS_INTERNAL_ERROR in a GEMM (torch's own warning says so: "CUDA kernel
errors might be asynchronously reported at some other API call", c10/cuda/CUDAException.cpp). The same input run on
the CPU stops at once with torch's CPU bounds check, which names the index:
- "index out of range in self" (aten/src/ATen/native/TensorAdvancedIndexing.cpp, index_select_out_cpu_: the
  embedding lookup's TORCH_CHECK_INDEX),
- "index N is out of bounds for dimension D with size S" (aten/src/ATen/native/IndexingUtils / TensorIndexing),
- "Target N is out of bounds." (aten/src/ATen/native/LossNLL.cpp, nll_loss on the CPU).

So when the text shows such a bounds error (or the device-side assert itself) and its only memory reading is the
cuBLAS status, the memory reading is dropped and the device-side assert leads. A cuBLAS allocation failure alone
stays what cuBLAS says (the handle's workspace did not fit: cuda_out_of_memory), and a text that also shows the
allocator's own "CUDA out of memory" keeps its memory reading: then memory really ran out.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match

MAX_LINE = 4000

INDEX_BOUNDS = re.compile(
    r"\bindex out of range in self\b|"
    r"\bindex -?\d+ is out of bounds for dimension \d+ with size \d+|"
    r"\bTarget -?\d+ is out of bounds\b"
)
CUBLAS_ECHO = re.compile(r"\bCUBLAS_STATUS_(?:ALLOC_FAILED|NOT_INITIALIZED|EXECUTION_FAILED|INTERNAL_ERROR)\b")
# The caching allocator's own message (every torch version) and CUDA's out-of-memory string after its prefix.
ALLOCATOR_OOM = re.compile(r"CUDA out of memory|OutOfMemoryError|CUDA error: out of memory", re.IGNORECASE)
WEIGHT = 0.9


def _bounds_line(lines: list[str]) -> tuple[int, str] | None:
    for no, line in enumerate(lines, start=1):
        if INDEX_BOUNDS.search(line[:MAX_LINE]):
            return no, line.strip()[:500]
    return None


def assert_explains_cublas(lines: list[str], matches: list[Match]) -> list[Match]:
    """The matches with a cuBLAS-status memory reading replaced by the device-side assert the text shows."""
    echoes = [m for m in matches if m.id == "cuda_out_of_memory" and CUBLAS_ECHO.search(m.line)]
    if not echoes:
        return matches
    if any(m.id == "cuda_out_of_memory" and m not in echoes for m in matches):
        return matches  # memory read from another line too
    if any(ALLOCATOR_OOM.search(line[:MAX_LINE]) for line in lines):
        return matches
    asserted = any(m.id == "cuda_device_side_assert" for m in matches)
    bounds = _bounds_line(lines)
    if not asserted and bounds is None:
        return matches
    kept = [m for m in matches if m not in echoes]
    if asserted or bounds is None:
        return kept
    no, line = bounds
    return [Match("cuda_device_side_assert", no, line, True, WEIGHT), *kept]
