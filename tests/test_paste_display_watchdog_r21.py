"""Round 21 (issue #14): a CUDA failure with the display going black is the display watchdog (Windows TDR) killing a
long kernel: cuda_kernel_launch_failed. A blank screen without a CUDA failure, a CUDA failure without the display
reset, a denied blank screen and a GPU fault shown (Xid) read nothing of it. Synthetic texts and counter-examples."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text
from gpuassist.ingest.display_watchdog import watchdog_killed_kernel

ID = "cuda_kernel_launch_failed"


def _first(text: str) -> str | None:
    findings = load_text(text).findings
    return findings[0].id if findings else None


@pytest.mark.parametrize(
    "text",
    [
        "My CUDA path tracer dies on big images with CUDA error 999 from cudaDeviceSynchronize, and the monitor "
        "turns black for a moment.\n",
        "checkCudaErrors reports unspecified launch failure after a long render on my GTX 1060.\n"
        "The event log says: Display driver nvlddmkm stopped responding and has successfully recovered.\n",
    ],
)
def test_cuda_failure_with_display_reset_is_the_watchdog(text: str) -> None:
    assert _first(text) == ID


def test_blank_screen_without_cuda_failure_reads_nothing() -> None:
    lines = ["After installing the NVIDIA driver my screen goes black at boot, CUDA samples were never run."]
    assert watchdog_killed_kernel(lines) is None


def test_cuda_failure_without_display_reset_reads_nothing() -> None:
    assert watchdog_killed_kernel(["CUDA error: unknown error", "the job stopped after a few seconds"]) is None


def test_denied_blank_screen_reads_nothing() -> None:
    lines = ["CUDA error: unknown error after a long kernel", "the screen does not go black, nothing else happens"]
    assert watchdog_killed_kernel(lines) is None


def test_gpu_fault_shown_is_the_other_reading() -> None:
    lines = [
        "CUDA error: unknown error",
        "the screen went black",
        "NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.",
    ]
    assert watchdog_killed_kernel(lines) is None


def test_black_screen_at_boot_after_install_is_not_the_watchdog() -> None:
    lines = ["After installing the driver I get a black screen at boot.", "CUDA error: unknown error"]
    assert watchdog_killed_kernel(lines) is None


def test_initialisation_error_is_not_a_killed_kernel() -> None:
    lines = ["CUDA error: no CUDA-capable device is detected", "and my screen goes black sometimes while gaming"]
    assert watchdog_killed_kernel(lines) is None
