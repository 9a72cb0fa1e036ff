"""NCCL's shared-memory transport failures (round 10): ncclShmOpen (NVIDIA/nccl src/misc/shmutils.cc, older
src/include/shm.h) warns when it cannot create, extend, open or map its segment in /dev/shm, which Docker sizes at
64 MB by default. The GPUs work; communication between the processes fails (nccl_error_or_timeout), and the fix
names the container's shared memory. Synthetic texts."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text
from gpuassist.knowledge import entry
from gpuassist.knowledge.messages import rows


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


@pytest.mark.parametrize(
    "line",
    [
        # NCCL >= 2.12, quoted by a user in prose without the WARN prefix
        "training dies at startup with Error while creating shared memory segment /dev/shm/nccl-Qx81Zt (size 4194304)",
        "gpu1:811:902 [1] NCCL INFO misc/shmutils.cc:60 NCCL WARN Error: failed to extend /dev/shm/nccl-Hw2b0c to "
        "9637892 bytes, error: No space left on device (28)",
        "gpu1:811:902 [0] NCCL WARN Error while attaching to shared memory segment /dev/shm/nccl-Hw2b0c "
        "(size 9637888), error: No such file or directory (2)",
        # torch >= 2.2 wraps NCCL's last error after its own line
        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, "
        "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5\n"
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.\n"
        "Last error:\nError while creating shared memory segment /dev/shm/nccl-vz1pS6 (size 9637888)",
        # a crash inside NCCL's shm open, as a backtrace frame
        "Segmentation fault (core dumped)\n#3 0x7f2c ncclShmOpen(char*, unsigned long, void**, void**, int) from "
        "libnccl.so.2",
        # NCCL 2.7-2.11, include/shm.h
        "host:77:91 [3] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device",
    ],
)
def test_shm_segment_failures_read_as_nccl(line: str) -> None:
    assert _ids(f"two GPUs in a container, torchrun --nproc_per_node=2:\n{line}\n")[:1] == ["nccl_error_or_timeout"]


def test_the_row_carries_its_source_and_matches_its_example() -> None:
    (row,) = [r for r in rows() if r.family == "nccl" and r.key == "nccl_shm_segment"]
    assert row.regex.search(row.example)
    assert "shmutils.cc" in row.fields["source"]


def test_the_fix_names_the_containers_shared_memory() -> None:
    fix = entry("nccl_error_or_timeout").fix
    assert "--shm-size" in fix and "--ipc=host" in fix


@pytest.mark.parametrize(
    "text",
    [
        # Counter-examples: another program's shared memory, or only the advice, is no NCCL failure.
        "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).",
        'postgres: could not resize shared memory segment "/PostgreSQL.1804289383" to 8388608 bytes: '
        "No space left on device",
        "Tip: run the container with --shm-size=1g so /dev/shm is large enough.",
    ],
)
def test_other_shared_memory_texts_are_not_nccl(text: str) -> None:
    assert "nccl_error_or_timeout" not in _ids(f"torch 2.3 with CUDA on two GPUs in Docker:\n{text}\n")


def test_in_a_container_the_shm_failure_is_no_gpu_runtime_problem() -> None:
    text = (
        "$ docker run --gpus all --rm -it trainer torchrun --nproc_per_node=4 train.py\n"
        "trainer:31:77 [2] NCCL WARN Error while creating shared memory segment /dev/shm/nccl-k2LmQa (size 4460544), "
        "error: No space left on device (28)\n"
    )
    ids = _ids(text)
    assert ids[:1] == ["nccl_error_or_timeout"], ids
    assert not {"docker_no_gpu_runtime", "container_gpu_access_lost", "cuda_out_of_memory"} & set(ids)
