"""System-side classes read in round 12: CUDA's OS-call refusal (error 304 / NVML OperatingSystem) is WSL's only
where the text shows WSL, and nvidia-container-cli's own failure to load the driver library on the host is the host
driver missing (no_nvidia_driver), not a container started without the runtime.

Synthetic texts written for these tests, each with a counter-example that must not fire."""

from __future__ import annotations

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.ingest.container_cli_host import cli_cannot_load_driver
from gpuassist.ingest.errors import Match
from gpuassist.ingest.os_call_refused import os_call_without_wsl


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


# ------------------------------------------------------------------ error 304: OS call refused, WSL only when shown

SANDBOXED_304 = [
    # A library OS / enclave: the same interpreter works outside it.
    "Inside the gramine-sgx enclave torch sees no GPU, outside it does:\n"
    "/opt/venv/lib/python3.10/site-packages/torch/cuda/__init__.py:129: UserWarning: CUDA initialization: "
    "Unexpected error from cudaGetDeviceCount(). Error 304: OS call failed or operation not supported on this OS\n"
    "False",
    # A syscall-filtering sandbox, driver API form.
    "running under gVisor (runsc):\nRuntimeError: CUDA driver error: CUDA_ERROR_OPERATING_SYSTEM",
    # NVML's form, no environment named.
    "pynvml.NVMLError_OperatingSystem: GPU access blocked by the operating system",
]


@pytest.mark.parametrize("text", SANDBOXED_304)
def test_os_call_refusal_without_wsl_names_no_wsl(text: str) -> None:
    assert "wsl_libcuda_problem" not in _ids(text)


def test_os_call_refusal_in_wsl_keeps_the_wsl_reading() -> None:
    text = (
        "Ubuntu 22.04 under WSL2, Windows 10 21H1\n"
        "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Error 304: OS call failed or "
        "operation not supported on this OS\n"
    )
    assert "wsl_libcuda_problem" in _ids(text)


def test_filter_keeps_other_wsl_readings_and_wsl_facts() -> None:
    refusal = Match("wsl_libcuda_problem", 1, "Error 304: OS call failed or operation not supported on this OS", False)
    libcuda = Match("wsl_libcuda_problem", 2, "libcuda.so.1: cannot open shared object file", False)
    verdict = Match("wsl_libcuda_problem", 3, "CUDA_ERROR_OPERATING_SYSTEM", True, 0.9)
    lines = ["no environment named here"]
    assert os_call_without_wsl(lines, [refusal, libcuda, verdict], wsl=False) == [libcuda, verdict]
    assert os_call_without_wsl(lines, [refusal], wsl=True) == [refusal]
    assert os_call_without_wsl(["kernel 5.15.90.1-microsoft-standard-WSL2"], [refusal], wsl=False) == [refusal]


# ------------------------------------------------------------------ nvidia-container-cli cannot load the host driver

CLI_HOST = [
    # Jetson host (the +jetpack build loads libcuda), debug log form.
    "root@orin-nx:~# nvidia-container-cli -k -d /dev/tty info\n"
    "nvidia-container-cli: initialization error: driver error: failed to process request\n"
    "I0302 10:11:12.000001 900 nvc.c:376] initializing library context (version=1.10.0+jetpack, build=abc)\n"
    "I0302 10:11:12.000200 901 driver.c:101] starting driver service\n"
    "E0302 10:11:12.000300 901 driver.c:161] could not start driver service: load library failed: libcuda.so.1: "
    "cannot open shared object file: no such file or directory\n",
    # A desktop host, the CLI's own one-line form inside Docker's hook error.
    "$ docker run --rm --gpus all nvidia/cuda:12.4.1-base-ubuntu22.04 nvidia-smi\n"
    "docker: Error response from daemon: failed to create task for container: OCI runtime create failed: "
    "error running hook #0: error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: "
    "initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file "
    "or directory: unknown.\n",
]


def test_cli_run_by_hand_that_cannot_load_libcuda_is_the_host_driver_missing() -> None:
    report = load_text(CLI_HOST[0])
    assert [f.id for f in report.findings] == ["no_nvidia_driver"]
    assert report.findings[0].severity is Severity.ERROR


def test_cli_load_failure_in_a_hook_error_is_a_possible_missing_driver() -> None:
    report = load_text(CLI_HOST[1])
    driver = next(f for f in report.findings if f.id == "no_nvidia_driver")
    assert driver.severity is Severity.WARNING


def test_libcuda_missing_in_a_jetson_container_stays_the_runtime() -> None:
    """Counter-example: the loader INSIDE a Jetson container not finding libcuda (no CLI in the text) is still the
    container started without the NVIDIA runtime."""
    text = (
        "Jetson Xavier NX, JetPack 5.1, docker run -it dustynv/l4t-pytorch:r35.2.1\n"
        "OSError: libcuda.so.1: cannot open shared object file: No such file or directory\n"
    )
    assert _ids(text)[:1] == ["docker_no_gpu_runtime"]


def test_cli_failure_under_wsl_claims_nothing_here() -> None:
    text = (
        "WSL2 Ubuntu, Docker Engine inside WSL\n"
        "nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared "
        "object file: no such file or directory: unknown.\n"
    )
    lines = text.splitlines()
    assert cli_cannot_load_driver(lines, []) == []


def test_other_cli_errors_are_not_read_as_no_driver() -> None:
    """Counter-example: the CLI's other stages (a requirement, a device) say nothing about the driver library."""
    lines = [
        "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.4, please update your driver",
        "nvidia-container-cli: device error: 3: unknown device: unknown.",
    ]
    assert cli_cannot_load_driver(lines, []) == []
