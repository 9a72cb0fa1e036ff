"""NCCL's own messages (messages.json family ``nccl``) read as an error of a working GPU (round 8).

The texts are synthetic, written from NCCL's source (init.cc's ncclGetErrorString and its duplicate-GPU check,
bootstrap.cc) and torch's ProcessGroupNCCL wrappers; none is a corpus paste."""

from __future__ import annotations

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.knowledge.messages import families, lookup

NCCL = "nccl_error_or_timeout"


@pytest.mark.parametrize(
    "text",
    [
        # two ranks on one GPU, as NCCL's WARN prints it and as a user quotes it alone
        "torchrun --nproc_per_node 2 train.py\n"
        "h:8:8 [0] init.cc:1421 NCCL WARN Duplicate GPU detected : rank 3 and rank 1 both on CUDA device a1000\n",
        "my launcher fails with `Duplicate GPU detected : rank 0 and rank 2 both on CUDA device 81000` on one GPU\n",
        # a log line cut by the logger ("both on C...")
        "ERROR 01-01 12:00:00 [worker.py:10] Duplicate GPU detected : rank 3 and rank 1 both on C...\n",
        # ncclGetErrorString texts wrapped by torch
        "torch.distributed.DistBackendError: NCCL error in: /opt/pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:"
        "219, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.26.2\n",
        "RuntimeError: [3] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value "
        "store failed: remote process exited or there was a network error\n",
        "gpu2:4411:4411 [1] NCCL WARN Bootstrap : no socket interface found\n",
        "[rank1]: Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, "
        "subsequent GPU operations might run on corrupted/incomplete data.\n",
    ],
)
def test_nccl_messages_are_an_error_of_a_working_gpu(text: str) -> None:
    report = load_text(text)
    assert report.findings, text
    first = report.findings[0]
    assert first.id == NCCL, [f.id for f in report.findings]
    assert first.severity is Severity.INFO  # the GPU works; never an install blame
    assert not [f for f in report.findings if f.severity is Severity.ERROR]


@pytest.mark.parametrize(
    "line",
    [
        "RuntimeError: CUDA error: invalid argument",  # CUDA's cudaErrorInvalidValue, not NCCL's
        "ValueError: invalid usage of the API, see the docs",
        "Duplicate key detected: rank 1 appears twice in the config",
        "internal error - please report this issue to the maintainers",
        "ConnectionResetError: the remote host closed the connection",
    ],
)
def test_look_alikes_are_not_nccl(line: str) -> None:
    assert not [r for r in lookup(line) if r.family == "nccl"], line
    assert NCCL not in {f.id for f in load_text("Traceback (most recent call last):\n" + line + "\n").findings}


def test_every_nccl_row_names_its_source_and_is_specific() -> None:
    family = families()["nccl"]
    assert any("NVIDIA/nccl" in s for s in family.sources)
    for row in family.rows:
        if row.key in ("nccl_no_gpus", "nccl_not_built_in"):
            assert row.specific is None and not row.gpu_in_use, row.key  # torch sees no GPU / has no NCCL
        else:
            assert row.specific == NCCL and row.gpu_in_use, row.key


def test_processgroupnccl_without_gpus_is_no_working_gpu() -> None:
    report = load_text(
        "Traceback (most recent call last):\nValueError: ProcessGroupNCCL is only supported with GPUs, no GPUs found!\n"
    )
    ids = [f.id for f in report.findings]
    assert NCCL not in ids and ids[0] == "cuda_visible_devices_hides_gpus"
    assert all(f.severity is Severity.WARNING for f in report.findings)
    built = load_text(
        "Traceback (most recent call last):\nRuntimeError: Distributed package doesn't have NCCL built in\n"
    )
    assert NCCL not in [f.id for f in built.findings]
