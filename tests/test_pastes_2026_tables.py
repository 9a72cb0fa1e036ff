"""The collect_env pastes of issue #13 ("Tried on collect_env pastes in the real layout"), each a test.

The texts follow the layout of torch 2.5+'s collect_env (the fields, then "Versions of relevant libraries"
with ``[pip3]`` and ``[conda]`` lines); only the values differ per case.
"""

from __future__ import annotations

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.report.model import Report


def paste(
    *,
    torch: str,
    cuda_build: str,
    os_line: str = "Ubuntu 24.04.1 LTS (x86_64)",
    platform: str = "Linux-6.8.0-49-generic-x86_64-with-glibc2.39",
    python: str = "3.12.3 (main, Nov  6 2024, 18:32:19) [GCC 13.2.0] (64-bit runtime)",
    available: str,
    gpus: str,
    driver: str,
    libraries: list[str],
) -> str:
    libs = "\n".join(libraries)
    return f"""Collecting environment information...
PyTorch version: {torch}
Is debug build: False
CUDA used to build PyTorch: {cuda_build}
ROCM used to build PyTorch: N/A

OS: {os_line}
GCC version: (Ubuntu 13.2.0-23ubuntu4) 13.2.0
Clang version: Could not collect
CMake version: version 3.28.3
Libc version: glibc-2.39

Python version: {python}
Python platform: {platform}
Is CUDA available: {available}
CUDA runtime version: Could not collect
CUDA_MODULE_LOADING set to: LAZY
GPU models and configuration: {gpus}
Nvidia driver version: {driver}
cuDNN version: Could not collect
HIP runtime version: N/A
MIOpen runtime version: N/A
Is XNNPACK available: True

CPU:
Architecture:                         x86_64
CPU(s):                               16

Versions of relevant libraries:
{libs}
"""


def ids(report: Report) -> list[str]:
    return [f.id for f in report.findings]


def test_a_wheel_running_through_minor_version_compatibility_is_not_driver_too_old() -> None:
    report = load_text(
        paste(
            torch="2.15.0+cu132",
            cuda_build="13.2",
            available="True",
            gpus="GPU 0: NVIDIA GeForce RTX 4090",
            driver="580.95.05",
            libraries=["[pip3] numpy==2.3.4", "[pip3] torch==2.15.0+cu132"],
        )
    )
    assert "driver_too_old" not in ids(report), [(f.id, f.title) for f in report.findings]
    assert not report.has_error


def test_a_cu128_wheel_on_r535_is_not_driver_too_old() -> None:
    report = load_text(
        paste(
            torch="2.10.0+cu128",
            cuda_build="12.8",
            available="True",
            gpus="GPU 0: NVIDIA RTX A6000",
            driver="535.216.01",
            libraries=["[pip3] torch==2.10.0+cu128"],
        )
    )
    assert "driver_too_old" not in ids(report)
    assert not report.has_error


def test_a_workstation_gpu_gets_its_real_architecture_in_the_fix() -> None:
    """Quadro RTX 5000 is Turing (sm_75), not Blackwell: the CPU-build fix keeps torch 2.5.1 with cu124."""
    report = load_text(
        paste(
            torch="2.5.1+cpu",
            cuda_build="None",
            available="False",
            gpus="GPU 0: Quadro RTX 5000",
            driver="550.127.05",
            libraries=["[pip3] torch==2.5.1+cpu"],
        )
    )
    first = report.findings[0]
    assert first.id == "cpu_only_build"
    assert "sm_75" in first.fix and "sm_120" not in first.fix
    assert '"torch==2.5.1"' in first.fix and "whl/cu124" in first.fix


def test_an_ada_workstation_gpu_is_not_taken_for_blackwell() -> None:
    report = load_text(
        paste(
            torch="2.5.1+cpu",
            cuda_build="None",
            available="False",
            gpus="GPU 0: NVIDIA RTX 5000 Ada Generation",
            driver="550.127.05",
            libraries=["[pip3] torch==2.5.1+cpu"],
        )
    )
    first = report.findings[0]
    assert first.id == "cpu_only_build" and "sm_89" in first.fix and "whl/cu124" in first.fix


def test_an_old_gpu_on_the_newest_release_is_named() -> None:
    """collect_env prints no arch list: the published 2.15 cu132 wheel's list comes from the tables."""
    report = load_text(
        paste(
            torch="2.15.0+cu132",
            cuda_build="13.2",
            available="True",
            gpus="GPU 0: NVIDIA GeForce GTX 1080 Ti",
            driver="580.95.05",
            libraries=["[pip3] torch==2.15.0+cu132", "[pip3] torchvision==0.29.2"],
        )
    )
    first = report.findings[0]
    assert first.id == "gpu_arch_dropped_from_build", ids(report)
    assert first.severity == Severity.ERROR
    assert "sm_61" in first.title and "published cu132 wheel" in first.explanation
    assert '"torch==2.14.*" "torchvision==0.29.*"' in first.fix and "whl/cu126" in first.fix


def test_a_windows_cpu_fix_keeps_the_release_and_the_companions_match() -> None:
    report = load_text(
        paste(
            torch="2.15.0+cpu",
            cuda_build="None",
            os_line="Microsoft Windows 11 Pro (10.0.26100 64-bit)",
            platform="Windows-11-10.0.26100-SP0",
            python="3.12.7 (tags/v3.12.7:0b05ead, Oct  1 2024) [MSC v.1941 64 bit (AMD64)] (64-bit runtime)",
            available="False",
            gpus="GPU 0: NVIDIA GeForce RTX 4070",
            driver="581.57",
            libraries=[
                "[pip3] numpy==2.3.4",
                "[pip3] torch==2.15.0+cpu",
                "[pip3] torchvision==0.29.2+cpu",
                "[pip3] torchaudio==2.11.0+cpu",
            ],
        )
    )
    first = report.findings[0]
    assert first.id == "cpu_only_build"
    assert '"torch==2.15.0" "torchvision==0.29.*" "torchaudio==2.11.*"' in first.fix
    assert "uninstall -y torch torchvision torchaudio" in first.fix
    assert "whl/cu130" in first.fix  # a Windows R580 driver (>= 580.88) runs CUDA 13.0
    assert "2.14" not in first.fix and "torch==2.13" not in first.fix


def test_a_conda_list_companion_is_reinstalled_too() -> None:
    report = load_text(
        paste(
            torch="2.5.1",
            cuda_build="None",
            available="False",
            gpus="GPU 0: NVIDIA GeForce RTX 3060",
            driver="550.127.05",
            libraries=[
                "[conda] pytorch                   2.5.1           py3.12_cpu_0    pytorch",
                "[conda] torchvision               0.20.1              py312_cpu    pytorch",
                "[conda] cpuonly                   2.0                          0    pytorch",
            ],
        )
    )
    first = report.findings[0]
    assert first.id == "cpu_only_build"
    assert '"torch==2.5.1" "torchvision==0.20.*"' in first.fix
    assert "conda remove --force pytorch torchvision cpuonly pytorch-mutex" in first.fix


def test_a_gpu_newer_than_the_tables_is_said() -> None:
    report = load_text(
        paste(
            torch="2.16.0+cu134",
            cuda_build="13.4",
            available="True",
            gpus="GPU 0: NVIDIA RTX Q9000",
            driver="625.10.02",
            libraries=["[pip3] torch==2.16.0+cu134"],
        )
    )
    stale = [f for f in report.findings if f.id == "knowledge_tables_outdated"]
    assert len(stale) == 1 and stale[0].severity == Severity.INFO
    for part in ("torch 2.16.0", "CUDA 13.4 build", "driver 625.10.02", "NVIDIA RTX Q9000", "2026-11-24"):
        assert part in stale[0].explanation + stale[0].title, part
