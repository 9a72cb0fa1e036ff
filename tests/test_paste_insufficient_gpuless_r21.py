"""Round 21 (issue #14): CUDA's "driver version is insufficient" (error 35) on a machine the user says has no GPU is
no old driver (the runtime returns it when no driver library exists too): without a driver version or an NVIDIA GPU
in the text the verdict driver_too_old gives way to the possibility no_nvidia_gpu. Synthetic texts and
counter-examples."""

from __future__ import annotations

from gpuassist.findings import Severity
from gpuassist.ingest import load_text

MESSAGE = "RuntimeError: cuda runtime error (35) : CUDA driver version is insufficient for CUDA runtime version\n"


def _findings(text: str) -> dict[str, Severity]:
    return {f.id: f.severity for f in load_text(text).findings}


def test_gpuless_machine_is_no_old_driver() -> None:
    text = "My laptop has no GPU, I only wanted to train on the cpu with torch.\n" + MESSAGE
    found = _findings(text)
    assert "driver_too_old" not in found
    assert found.get("no_nvidia_gpu") is not None and found["no_nvidia_gpu"] is not Severity.ERROR


def test_driver_version_shown_keeps_the_verdict() -> None:
    text = "The server has no GPU listed by the job, but the driver is there.\nDriver Version: 384.81\n" + MESSAGE
    assert _findings(text).get("driver_too_old") is Severity.ERROR


def test_named_gpu_keeps_the_verdict() -> None:
    # a GPU named beside a "no GPU" sentence about another machine: the named card has a driver that can be old
    text = "My old desktop has no gpu, so I moved to the GeForce GTX 1080 box.\n" + MESSAGE
    assert _findings(text).get("driver_too_old") is Severity.ERROR


def test_without_the_statement_the_verdict_stands() -> None:
    assert _findings("python train.py\n" + MESSAGE).get("driver_too_old") is Severity.ERROR
