"""collect_env output as people paste it, parsed into facts and diagnosed."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from gpuassist.facts import Facts
from gpuassist.ingest import UnreadableInput, load, load_text
from gpuassist.ingest.collect_env import parse, to_facts
from gpuassist.ingest.text import clean_lines, decode

PASTES = Path(__file__).parent / "data" / "pastes"


def paste(name: str) -> str:
    return (PASTES / name).read_text()


def ids(report) -> list[str]:
    return [f.id for f in report.findings]


def test_quoted_paste_with_old_layout_is_parsed() -> None:
    facts = to_facts(parse(clean_lines(paste("pytorch-40682-windows-cu101-healthy.txt"))))
    assert facts["torch.version"] == "1.5.0+cu101"
    assert facts["torch.cuda_build"] == "10.1"
    assert facts["cuda.available"] is True  # "Yes" in 1.x layouts
    assert facts["host.os"] == "Windows"
    assert [g["name"] for g in facts["reported.gpus"]] == ["TITAN RTX", "TITAN RTX"]
    assert facts["driver.version"] == "442.92"
    assert facts["torch.dists"] == [
        {"version": "1.5.0+cu101", "location": None, "installer": "pip", "local_tag": "cu101"}
    ]


def test_healthy_pastes_give_no_error() -> None:
    for name in ("pytorch-40682-windows-cu101-healthy.txt", "pytorch-51858-windows-cu117-healthy.txt"):
        report = load_text(paste(name))
        assert not report.has_error, (name, ids(report))
        assert report.meta["source"] == "collect_env"


def test_cpu_build_paste_truncated_before_the_gpu_lines() -> None:
    report = load_text(paste("pytorch-49325-windows-cpu-build.txt"))
    assert ids(report)[0] == "cpu_only_build"
    assert report.findings[0].severity.value == "error"
    # Truncated: the paste never says which GPU or driver; say so rather than guess.
    assert "GPU models and configuration" in report.meta["missing_facts"]
    assert "Nvidia driver version" in report.meta["missing_facts"]
    assert "no_nvidia_gpu" not in ids(report) and "no_nvidia_driver" not in ids(report)


def test_driver_older_than_pre_cuda11_wheel() -> None:
    # pytorch#43058: torch 1.6.0 (CUDA 10.2) on driver 418.67 (CUDA 10.1): no minor-version compatibility
    # before CUDA 11, so CUDA is unavailable although both V100s are listed.
    report = load_text(paste("pytorch-43058-v100-driver-418-cu102.txt"))
    assert ids(report)[0] == "driver_too_old"
    # conda's "<pip>" rows are the same pip install, not a second copy of torch.
    assert "stale_or_shadowed_torch" not in ids(report)


def test_this_machine_collect_env_is_cpu_only() -> None:
    report = load_text(paste("this-machine-2.13-cpu.txt"))
    facts = report.facts
    assert facts["torch.version"] == "2.13.0+cpu" and facts["torch.cuda_build"] is None
    assert ids(report)[0] == "cpu_only_build"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8-sig", "crlf", "fenced"])
def test_encodings_and_wrappings(encoding: str) -> None:
    text = paste("pytorch-51858-windows-cu117-healthy.txt")
    if encoding == "utf-16":
        data = text.encode("utf-16")  # PowerShell `>` redirect
    elif encoding == "utf-8-sig":
        data = codecs.BOM_UTF8 + text.encode()
    elif encoding == "crlf":
        data = text.replace("\n", "\r\n").encode()
    else:
        data = ("Here is my env:\n```\n" + text + "```\nany idea?\n").encode()
    report = load(data)
    assert report.facts["torch.version"] == "2.0.1+cu117"
    assert report.facts["driver.version"] == "535.98"


def test_hand_retyped_lines_and_conda_cpu_build() -> None:
    text = (
        "pytorch version : 2.1.0\n"
        "is cuda available: false\n"
        "cuda used to build pytorch: None\n"
        "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 3060\n"
        "Nvidia driver version: 535.104.05\n"
        "Versions of relevant libraries:\n"
        "[conda] pytorch                   2.1.0              py3.10_cpu_0    pytorch\n"
        "[conda] pytorch-mutex             1.0                         cpu    pytorch\n"
    )
    report = load_text(text)
    assert report.facts["torch.conda_build"] == "py3.10_cpu_0"
    first = report.findings[0]
    assert first.id == "cpu_only_build" and first.severity.value == "error"
    assert "conda remove" in first.fix and "cu12" in first.fix


def test_warning_lines_inside_a_paste_are_evidence() -> None:
    text = paste("this-machine-2.13-cpu.txt").replace("2.13.0+cpu", "2.1.0+cu121").replace(
        "CUDA used to build PyTorch: Could not collect", "CUDA used to build PyTorch: 12.1"
    ) + (
        "\n/usr/lib/python3/site-packages/torch/cuda/__init__.py:138: UserWarning: CUDA initialization: The "
        "NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver\n"
    )
    report = load_text(text)
    assert ids(report)[0] == "driver_too_old"
    assert any(e.fact == "cuda.init_warnings" for e in report.findings[0].evidence)


def test_decode_rejects_binary_and_empty() -> None:
    for data in (b"", b"   \n", bytes(range(256))):
        with pytest.raises(UnreadableInput):
            decode(data)


def test_facts_round_trip() -> None:
    facts = Facts(to_facts(parse(clean_lines(paste("pytorch-43058-v100-driver-418-cu102.txt")))))
    assert Facts.from_json(facts.to_json()).to_json() == facts.to_json()
