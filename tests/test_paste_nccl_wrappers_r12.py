"""Round 12 (issue #14): NCCL failures printed by programs other than torch are read from ncclGetErrorString's
text after each wrapper's own prefix (nccl-tests' NCCLCHECK, old torch, Horovod, JAX/XLA, CuPy), for every NCCL
version's wording; the bare words ("invalid argument", "timeout") stay some other tool's."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text
from gpuassist.ingest.text import UnreadableInput
from gpuassist.knowledge.messages import MessageRow, rows


def _row() -> MessageRow:
    return next(r for r in rows() if r.family == "nccl" and r.key == "nccl_wrapped_result")


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


@pytest.mark.parametrize(
    "text",
    [
        # nccl-tests >= NCCL 2.13: hostname, 'Test', then 'text / last error'
        "nThread 1 nGpus 4 minBytes 8 maxBytes 1048576 step: 2(factor)\n"
        "gpu-node-3: Test NCCL failure common.cu:1005 'remote process exited or there was a network error / '\n",
        # nccl-tests before NCCL 2.13, with a pre-2.12 result text
        "./build/all_gather_perf -b 8 -e 64M -g 2\nNCCL failure all_gather.cu:52 'invalid usage'\n",
        # torch before the ', NCCL version' suffix
        "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:290, unhandled cuda error\n",
        # Horovod NCCLContext::ErrorCheck and AsyncErrorCheck
        "horovod.common.exceptions.HorovodInternalError: ncclCommInitRank failed: unhandled system error\n",
        "[1,0]<stderr>: what():  NCCL async error: internal error\n",
        # JAX/XLA
        "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:297: "
        "NCCL operation ncclCommInitRank(&comm, nranks, id, rank) failed: unhandled cuda error\n",
        # CuPy, NCCL 2 and NCCL 1 names
        "cupy_backends.cuda.libs.nccl.NcclError: NCCL_ERROR_SYSTEM_ERROR: unhandled system error\n",
        "cupy.cuda.nccl.NcclError: NCCL_ERROR_INVALID_RANK: invalid rank\n",
    ],
)
def test_wrapped_nccl_result_is_an_nccl_failure(text: str) -> None:
    assert _row().regex.search(text) is not None
    report = load_text(text)
    assert report.findings and report.findings[0].id == "nccl_error_or_timeout"
    # a working GPU's communication failure: never an install blame
    assert not {"no_nvidia_driver", "docker_no_gpu_runtime", "driver_too_old"} & set(_ids(text))


@pytest.mark.parametrize(
    "text",
    [
        "RuntimeError: CUDA error: invalid argument\n",  # CUDA's own message, no NCCL wrapper
        "cudaMemcpy failed: invalid argument\n",  # not an NCCL call
        "ncclAllReduce failed to start because the job was cancelled by the scheduler\n",  # prose, no result text
        "NCCL failure rates went up after the upgrade; requests timeout sometimes\n",
    ],
)
def test_no_wrapper_or_no_result_text_is_not_nccl(text: str) -> None:
    assert _row().regex.search(text) is None
    try:
        ids = _ids(text)
    except UnreadableInput:  # refused text claims nothing either
        ids = []
    assert "nccl_error_or_timeout" not in ids


def test_nccl_tests_failure_line_is_named_as_an_error_message() -> None:
    report = load_text("host-7: Test NCCL failure sendrecv.cu:120 'invalid argument / '\n")
    assert "traceback" in report.meta["input_kinds"]
    assert not any("text only talks about the problem" in m for m in report.meta["missing_facts"])
    # a sentence about failures names no kind
    assert load_text("NCCL failure after the upgrade, any idea?\n").meta["input_kinds"] == []
