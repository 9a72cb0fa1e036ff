"""System-side classes read in round 11: taichi's CUDA driver loading (per host), a driver-API error ruling out a
CPU-only build, cudaErrorInsufficientDriver in other programs' words, and TensorFlow's minimum compute capability.

Synthetic texts written for these tests, each with a counter-example that must not fire."""

from __future__ import annotations

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.knowledge import messages


def _first(text: str) -> str | None:
    findings = load_text(text).findings
    return findings[0].id if findings else None


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


WSL = "Ubuntu 22.04 running in WSL2 on Windows 11.\n"

# ------------------------------------------------------------------ taichi, warp, ethminer cannot reach the CUDA driver

TAICHI_LINES = [
    "[Taichi] version 1.6.0, llvm 15.0.4, commit f1c6fbbd, linux, python 3.10.12\n"
    "[W 03/04/24 11:02:13.551 8812] [cuda_driver.cpp:load_lib@36] libcuda.so lib not found.\n"
    "[W 03/04/24 11:02:13.552 8812] [misc.py:adaptive_arch_select@758] Arch=[<Arch.cuda: 3>] is not supported, "
    "falling back to CPU\n[Taichi] Starting on arch=x64",
    ">>> ti.init(arch=ti.gpu)\n[W 11/09/22 09:15:40.120 301] [__init__.py:adaptive_arch_select@741] "
    "Arch=[<Arch.cuda: 4>] is not supported, falling back to CPU\n[Taichi] Starting on arch=x64",
    "Warp 1.2.0 initialized:\n   CUDA driver not found or failed to initialize\nWarp CUDA warning: Could not find or "
    "load the NVIDIA CUDA driver. GPU execution will not be available.",
    "ethminer 0.16.2\nCUDA Error : No CUDA driver found",
]


@pytest.mark.parametrize("text", TAICHI_LINES)
def test_taichi_without_cuda_in_wsl_is_wsls_library_path(text: str) -> None:
    assert _first(WSL + text) == "wsl_libcuda_problem"


@pytest.mark.parametrize("text", TAICHI_LINES)
def test_taichi_without_cuda_on_linux_claims_no_wsl_path(text: str) -> None:
    findings = load_text("Ubuntu 22.04 workstation\n" + text).findings
    assert not any(f.id == "wsl_libcuda_problem" and f.severity is Severity.ERROR for f in findings)
    assert "cpu_only_build" not in [f.id for f in findings]
    assert "no_nvidia_driver" in [f.id for f in findings]  # a possibility: the library is the driver's


def test_taichi_without_cuda_on_native_windows_is_no_wsl_reading() -> None:
    text = (
        "[Taichi] version 1.7.0, llvm 15.0.7, commit 2fd24490, windows, python 3.11.5\n"
        "[W 01/05/24 10:00:00.000 1] [misc.py:adaptive_arch_select@758] Arch=[<Arch.cuda: 3>] is not supported, "
        "falling back to CPU"
    )
    assert _ids(text) == ["no_nvidia_driver"]


def test_taichi_running_on_cuda_is_no_claim() -> None:
    text = (
        WSL + "[Taichi] version 1.6.0, llvm 15.0.4, commit f1c6fbbd, linux, python 3.10.12\n"
        "[Taichi] Starting on arch=cuda\nrendering 1000 frames took 4.1 s"
    )
    assert _ids(text) == []


@pytest.mark.parametrize(
    ("line", "driver_cuda"),
    [
        (
            "[W 01/02/22 10:00:00.000 123] [cuda_driver.cpp:CUDADriver@30] The Taichi CUDA backend requires at "
            "least CUDA 10.0, got v9.1.",
            9010,
        ),
        (
            "Warp CUDA error: Warp requires CUDA driver 12.0 or higher, but the current driver only supports CUDA 11.4",
            11040,
        ),
    ],
)
def test_framework_driver_below_its_minimum_is_driver_too_old_even_in_wsl(line: str, driver_cuda: int) -> None:
    # The library loaded (it reported its version): the driver, not WSL's library path, is the cause.
    assert _first("Ubuntu 18.04\n" + line) == "driver_too_old"
    report = load_text(WSL + line)
    assert report.findings[0].id == "driver_too_old"
    assert report.facts.value("cuda.driver_version") == driver_cuda


def test_every_new_row_reads_its_example() -> None:
    names = {"taichi_no_driver_library", "taichi_cuda_arch_fallback", "warp_no_driver_library", "ethminer_no_driver"}
    rows = [r for r in messages.families()["cuda_loader"].rows if r.key in names]
    assert len(rows) == 4 and all(r.regex.search(r.example) for r in rows)
    framework = messages.families()["framework"].rows
    assert framework and all(r.regex.search(r.example) for r in framework)


# ------------------------------------------------------------------ a driver-API error is no CPU-only build

DRIVER_API = (
    "Running under Windows 11 with WSL2, Ubuntu 22.04.\n"
    "[E 05/01/25 14:20:11.002 771] [cuda_driver.h:operator()@88] CUDA Error CUDA_ERROR_NO_DEVICE: no CUDA-capable "
    "device is detected while calling init (cuInit)"
)


def test_driver_api_no_device_in_wsl_is_not_a_cpu_build() -> None:
    ids = _ids(DRIVER_API)
    assert ids[0] == "wsl_libcuda_problem"
    assert "cpu_only_build" not in ids


def test_taichi_detection_warning_in_wsl_is_wsls_path() -> None:
    # taichi's is_arch_supported wraps the driver-API error it met while detecting CUDA (python/taichi/lang/misc.py).
    text = (
        WSL + "[W 05/01/25 14:20:11.010 771] RuntimeError: '[cuda_driver.h:operator()@88] CUDA Error "
        "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected while calling init (cuInit)' occurred when "
        "detecting cuda, consider adding `TI_ENABLE_CUDA=0`  to environment variables to suppress this warning message."
    )
    ids = _ids(text)
    assert ids[0] == "wsl_libcuda_problem"
    assert "cpu_only_build" not in ids


def test_numba_driver_api_error_is_not_a_cpu_build() -> None:
    text = (
        "Windows 10 machine\nnumba.cuda.cudadrv.error.CudaSupportError: Error at driver init: "
        "[100] Call to cuInit results in CUDA_ERROR_NO_DEVICE"
    )
    assert "cpu_only_build" not in _ids(text)


def test_torch_cuda_runtime_error_is_not_a_cpu_build() -> None:
    # torch printing the runtime's own error string is a CUDA build whatever the host; WSL's path is read first.
    text = (
        "Ubuntu 20.04 under wsl2, it works on the Windows side\n"
        "RuntimeError: CUDA error: no CUDA-capable device is detected"
    )
    ids = _ids(text)
    assert ids[0] == "wsl_libcuda_problem"
    assert "cpu_only_build" not in ids


def test_windows_without_a_cuda_error_keeps_the_wheel_guess() -> None:
    # Counter-example: on Windows with only is_available() False, PyPI's CPU wheel stays the likeliest guess.
    text = "Windows 10, pip install torch\n>>> torch.cuda.is_available()\nFalse"
    assert "cpu_only_build" in _ids(text)


def test_torch_saying_it_lacks_cuda_keeps_the_build_verdict() -> None:
    # Counter-example: torch's own words that it is a CPU build still decide, whatever else the text shows.
    text = (
        "Windows 10, pip install torch\n>>> torch.cuda.current_device()\n"
        "AssertionError: Torch not compiled with CUDA enabled\n"
        "deviceQuery: cuInit failed: no device"
    )
    assert _first(text) == "cpu_only_build"


# ------------------------------------------------------------------ cudaErrorInsufficientDriver in every form

INSUFFICIENT = [
    "miner 12:01:44 cuda  CUDA error: Insufficient CUDA driver: 9010",
    "CUDA Error : Insufficient CUDA driver 10010",
    "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version",
    "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCGeneral.cpp line=50 error=35 : CUDA driver version is "
    "insufficient for CUDA runtime version",
    "cudaGetDeviceCount returned 35\n-> CUDA driver version is insufficient for CUDA runtime version",
    "failed call to cuInit: cudaErrorInsufficientDriver",
]


@pytest.mark.parametrize("text", INSUFFICIENT)
def test_insufficient_driver_in_every_form(text: str) -> None:
    assert _first(text) == "driver_too_old"


def test_insufficient_driver_states_the_driver_and_its_cuda() -> None:
    text = (
        "CUDA error: Insufficient CUDA driver: 9020\nCuda compilation tools, release 10.0, V10.0.130\n"
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  396.54  Tue Aug 14 22:29:37 PDT 2018"
    )
    report = load_text(text)
    assert report.findings[0].id == "driver_too_old"
    assert report.facts.value("cuda.driver_version") == 9020
    assert report.facts.value("driver.version") == "396.54"


def test_open_module_version_line_is_read_and_two_versions_are_not() -> None:
    line = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  535.104.05  Release Build  (dvs-builder@U16-T02)"
    assert load_text("nvidia-smi hangs\n" + line).facts.value("driver.version") == "535.104.05"
    two = line + "\nNVRM version: NVIDIA UNIX x86_64 Kernel Module  470.82.01  Thu Oct 28 2021"
    assert not load_text("nvidia-smi hangs\n" + two).facts.known("driver.version")


def test_driver_version_talk_without_the_error_is_no_claim() -> None:
    text = "Is the CUDA driver sufficient for 12.4? nvidia-smi shows Driver Version: 550.54.14  CUDA Version: 12.4"
    assert "driver_too_old" not in _ids(text)


# ------------------------------------------------------------------ a framework's minimum compute capability

TF_LINES = [
    "2019-10-02 08:11:52.101: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1700] Ignoring visible gpu device "
    "(device: 0, name: Tesla K40c, pci bus id: 0000:04:00.0, compute capability: 3.5) with Cuda compute capability "
    "3.5. The minimum required Cuda capability is 6.0.",
    "I tensorflow/core/common_runtime/gpu/gpu_device.cc:611] Ignoring gpu device (device: 1, name: GeForce GT 640, "
    "pci bus id: 0000:02:00.0) with Cuda compute capability 3.0. The minimum required Cuda capability is 3.5.",
]


@pytest.mark.parametrize("text", TF_LINES)
def test_tensorflow_capability_below_build_is_arch_dropped(text: str) -> None:
    assert _first(text) == "gpu_arch_dropped_from_build"


def test_tensorflow_too_few_multiprocessors_is_not_arch() -> None:
    # Counter-example: TensorFlow's other refusal (TF_MIN_GPU_MULTIPROCESSOR_COUNT) says nothing of the build.
    text = (
        "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1762] Ignoring visible gpu device (device: 0, name: "
        "Quadro K420, pci bus id: 0000:03:00.0, compute capability: 3.0) with core count: 1. The minimum required "
        "count is 8. You can adjust this requirement with the env var TF_MIN_GPU_MULTIPROCESSOR_COUNT."
    )
    assert "gpu_arch_dropped_from_build" not in _ids(text)


def test_readme_naming_the_minimum_is_no_claim() -> None:
    text = "Requirements: an NVIDIA GPU. The minimum required Cuda capability is 3.5 so old GPUs won't work."
    assert "gpu_arch_dropped_from_build" not in _ids(text)


@pytest.mark.parametrize(
    "line",
    [
        "UserWarning: Found GPU0 Tesla K40c which is of cuda capability 3.5. PyTorch no longer supports this GPU "
        "because it is too old. The minimum cuda capability supported by this library is 3.7.",
        "Tesla K80 with CUDA capability sm_37 is not compatible with the current PyTorch installation. The current "
        "PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.",
    ],
)
def test_torch_minimum_capability_forms_are_read(line: str) -> None:
    assert _first(line) == "gpu_arch_dropped_from_build"
