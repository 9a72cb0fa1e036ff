"""Round 27 (issue #14): CUDA's "busy or unavailable" told AFTER a kernel crash ("unspecified launch failure",
a launch timeout) in the same text is the crash's consequence (cudaErrorLaunchFailure leaves the process, and often
the GPU, unusable until a reset), not the compute mode: cuda_kernel_launch_failed leads and no compute-mode claim
is made. A busy message alone, or told before the crash, keeps the compute-mode reading. Synthetic texts."""

from __future__ import annotations

from gpuassist.ingest import load_text
from gpuassist.ingest.errors import Match
from gpuassist.ingest.gpu_error_state import crash_explains_unavailable

BUSY = "compute_mode_exclusive_or_prohibited"
CRASH = "cuda_kernel_launch_failed"


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


def test_busy_after_crash_is_the_crash() -> None:
    text = (
        "My PyTorch training stops after some hours with RuntimeError: CUDA error: unspecified launch failure\n"
        "When I start it again I get RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable\n"
        "and only a reboot helps.\n"
    )
    ids = _ids(text)
    assert ids and ids[0] == CRASH
    assert BUSY not in ids


def test_busy_alone_keeps_compute_mode() -> None:
    text = "RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable\nwhen I start the second job\n"
    assert _ids(text)[:1] == [BUSY]


def test_busy_before_crash_keeps_its_reading() -> None:
    busy = Match(BUSY, 3, "RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable", True, 0.8)
    crash = Match(CRASH, 7, "RuntimeError: CUDA error: unspecified launch failure", True, 0.9)
    assert busy in crash_explains_unavailable([busy, crash])


def test_same_line_order_decides() -> None:
    line = "first it said busy or unavailable, then later an unspecified launch failure"
    busy = Match(BUSY, 2, line, True, 0.8)
    crash = Match(CRASH, 2, line, True, 0.9)
    assert busy in crash_explains_unavailable([busy, crash])
    told = "after the unspecified launch failure the next run says all CUDA-capable devices are busy or unavailable"
    assert crash_explains_unavailable([Match(BUSY, 2, told, True, 0.8), Match(CRASH, 2, told, True, 0.9)]) == [
        Match(CRASH, 2, told, True, 0.9)
    ]
