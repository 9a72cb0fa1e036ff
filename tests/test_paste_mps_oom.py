"""An MPS out-of-memory error shows the Apple GPU working (issue #14 item 2): it gets its own info finding
(``mps_out_of_memory``), never "macOS has no CUDA" as an error; a Mac that tries CUDA still gets that error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gpuassist.cli import main
from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.knowledge import catalogue

MPS_OOM = (
    "RuntimeError: MPS backend out of memory (MPS allocated: 17.23 GB, other allocations: 1.20 GB, max allowed: "
    "18.13 GB). Tried to allocate 512.00 MB on private pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable "
    "upper limit for memory allocations (may cause system failure).\n"
)
TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/Users/me/train.py", line 41, in <module>\n'
    "    loss.backward()\n"
    '  File "/opt/homebrew/lib/python3.12/site-packages/torch/_tensor.py", line 626, in backward\n'
    "    torch.autograd.backward(\n" + MPS_OOM
)


def _findings(text: str) -> list[tuple[str, Severity]]:
    return [(f.id, f.severity) for f in load_text(text).findings]


def test_mps_oom_traceback_is_its_own_info_finding() -> None:
    found = _findings(TRACEBACK)
    assert found[0] == ("mps_out_of_memory", Severity.INFO), found
    assert all(severity is Severity.INFO for _, severity in found), found


def test_mps_oom_marks_mps_available() -> None:
    assert load_text(TRACEBACK).facts.value("mps.available") is True


def test_mps_oom_diagnose_from_exits_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The CLI contract: a report with info findings only exits 0 (in process)."""
    paste = tmp_path / "mps-oom.txt"
    paste.write_text(TRACEBACK)
    assert main(["diagnose", "--from", str(paste), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(f["id"], f["severity"]) for f in report["findings"]][:1] == [("mps_out_of_memory", "info")]


@pytest.mark.slow
def test_mps_oom_cli_exits_zero(tmp_path: Path) -> None:
    paste = tmp_path / "mps-oom.txt"
    paste.write_text(TRACEBACK)
    p = subprocess.run(
        [sys.executable, "-m", "gpuassist.cli", "diagnose", "--from", str(paste), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert p.returncode == 0, (p.returncode, p.stderr)
    report = json.loads(p.stdout)
    assert report["findings"][0]["id"] == "mps_out_of_memory"
    assert report["findings"][0]["severity"] == "info"
    assert "macos_no_cuda_use_mps" not in [f["id"] for f in report["findings"] if f["severity"] == "error"]


def test_mps_oom_on_a_mac_collect_env_is_not_a_cuda_fault() -> None:
    text = (
        "PyTorch version: 2.5.1\nIs debug build: False\nCUDA used to build PyTorch: None\n"
        "OS: macOS 15.1 (arm64)\nPython platform: macOS-15.1-arm64-arm-64bit\n" + MPS_OOM
    )
    found = _findings(text)
    assert found[0] == ("mps_out_of_memory", Severity.INFO), found
    assert not [fid for fid, severity in found if severity is Severity.ERROR], found


def test_mps_tensor_shown_makes_the_mac_reading_info_at_most() -> None:
    text = (
        "Mac, torch 2.5.1. Torch not compiled with CUDA enabled when I call .cuda(), but:\n"
        ">>> torch.ones(2, device='mps')\n"
        "tensor([1., 1.], device='mps:0')\n"
    )
    found = _findings(text)
    assert ("macos_no_cuda_use_mps", Severity.ERROR) not in found, found


def test_cuda_oom_still_cuda_out_of_memory() -> None:
    text = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
        "23.65 GiB of which 1.06 GiB is free. Of the allocated memory 21.3 GiB is allocated by PyTorch\n"
    )
    assert _findings(text)[0][0] == "cuda_out_of_memory"


def test_mac_trying_cuda_still_gets_the_mac_error() -> None:
    text = (
        "On my MacBook Pro (macOS 14.4):\n"
        '  File "/Users/me/train.py", line 8, in <module>\n    model.cuda()\n'
        "AssertionError: Torch not compiled with CUDA enabled\n"
    )
    found = _findings(text)
    assert found[0] == ("macos_no_cuda_use_mps", Severity.ERROR), found


@pytest.mark.parametrize(
    "text",
    [
        "will I get MPS backend out of memory? My Mac has 16 GB.\n",
        "Is `MPS backend out of memory` something I should expect with a batch of 64 on an M2?\n",
        "x = torch.zeros(3, device='mps:0')\n",
    ],
)
def test_mps_oom_named_not_shown_claims_nothing(text: str) -> None:
    found = _findings(text)
    assert "mps_out_of_memory" not in [fid for fid, _ in found], found
    assert not [fid for fid, severity in found if severity is Severity.ERROR], found
    assert load_text(text).facts.value("mps.available") is not True


def test_catalogue_entry_is_info_and_names_the_next_steps() -> None:
    entry = catalogue()["mps_out_of_memory"]
    assert entry.gpu_in_use and entry.sources
    for step in ("empty_cache", "set_per_process_memory_fraction", "PYTORCH_MPS_HIGH_WATERMARK_RATIO", "float16"):
        assert step in entry.fix, step
    assert "system failure" in entry.fix
