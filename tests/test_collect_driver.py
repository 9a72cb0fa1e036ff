"""driver.* and smi.*: version sources in order, on-disk library versions, the nvidia-smi fallback."""

from __future__ import annotations

from typing import Any

import pytest

import hostdata
from gpuassist.collect import driver, nvml
from gpuassist.collect.base import HostContext
from gpuassist.collect.io import RecordedRunner
from gpuassist.facts import NotCollected

COULD_NOT_COMMUNICATE = (
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest "
    "NVIDIA driver is installed and running.\n\n"
)


def nvml_facts(backend: nvml.NvmlBackend, ctx: HostContext) -> dict[str, Any]:
    out: dict[str, Any] = {}
    nvml.collect(ctx, out, backend)
    return out


def collect_host_driver(host: str, run: RecordedRunner | None = None) -> tuple[dict[str, Any], RecordedRunner]:
    run = run or hostdata.runner(host)
    ctx = hostdata.ctx(host, run=run)
    out: dict[str, Any] = {}
    driver.collect(ctx, out, nvml_facts(hostdata.nvml(host), ctx))
    return out, run


def test_healthy_workstation_uses_nvml_and_never_runs_nvidia_smi() -> None:
    facts, run = collect_host_driver("workstation-rtx4090")
    assert facts["driver.version"] == "550.54.14"
    assert facts["driver.version_source"] == "nvml"
    assert facts["driver.cuda_version"] == 12040
    assert facts["driver.proc_version"].startswith("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14")
    assert facts["driver.userspace_versions"] == ["550.54.14"]
    assert {lib["path"] for lib in facts["driver.userspace_libs"]} == {
        "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14",
        "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.14",
    }
    assert isinstance(facts["smi.status"], NotCollected)
    assert run.calls == []


def test_mismatch_shows_both_versions_and_the_smi_message() -> None:
    facts, run = collect_host_driver("driver-mismatch")
    assert facts["driver.version"] == "535.154.05"  # what the loaded kernel module says
    assert facts["driver.version_source"] == "proc"
    assert facts["driver.userspace_versions"] == ["535.161.07"]  # what is on disk
    assert facts["smi.status"] == "failed"
    assert facts["smi.message"] == "Failed to initialize NVML: Driver/library version mismatch"
    assert facts["driver.cuda_version"] is None
    assert run.calls == [["nvidia-smi"]]


def test_no_driver_at_all() -> None:
    facts, _ = collect_host_driver("nouveau-no-driver")
    assert facts == {
        "driver.proc_version": None,
        "driver.version": None,
        "driver.version_source": None,
        "driver.cuda_version": None,
        "driver.userspace_versions": [],
        "driver.userspace_libs": [],
        "smi.status": "not_found",
        "smi.message": None,
    }


def test_wsl_libcuda_abi_number_is_not_a_driver_version() -> None:
    facts, _ = collect_host_driver("wsl2")
    assert facts["driver.userspace_versions"] == []
    assert (facts["driver.version"], facts["driver.version_source"]) == ("551.61", "nvml")


def test_container_reads_the_host_module_version_from_proc() -> None:
    facts, _ = collect_host_driver("docker-no-gpu-runtime")
    assert (facts["driver.version"], facts["driver.version_source"]) == ("550.54.14", "proc")
    assert facts["driver.userspace_versions"] == []


def test_smi_timeout() -> None:
    run = RecordedRunner({"nvidia-smi": {"status": "timeout"}})
    facts, _ = collect_host_driver("driver-mismatch", run)
    assert facts["smi.status"] == "timeout"
    assert facts["smi.message"] is None
    assert facts["driver.version_source"] == "proc"  # the other sources still answer


def test_smi_cannot_talk_to_driver() -> None:
    ctx = hostdata.dict_ctx({}, commands={"nvidia-smi": {"returncode": 9, "stdout": COULD_NOT_COMMUNICATE}})
    out: dict[str, Any] = {}
    driver.collect(ctx, out, {"nvml.status": "driver_not_loaded"})
    assert out["smi.status"] == "failed"
    assert out["smi.message"].startswith("NVIDIA-SMI has failed because it couldn't communicate")
    assert out["driver.version"] is None


def test_smi_answers_when_nvml_bindings_are_missing() -> None:
    smi = "| NVIDIA-SMI 550.54.14    Driver Version: 550.54.14     CUDA Version: 12.4     |\n"
    ctx = hostdata.dict_ctx({}, commands={"nvidia-smi": {"stdout": smi}})
    out: dict[str, Any] = {}
    driver.collect(ctx, out, nvml_facts(nvml.RecordedNvml({"bindings_missing": True}), ctx))
    assert (out["smi.status"], out["smi.message"]) == ("ok", None)
    assert (out["driver.version"], out["driver.version_source"], out["driver.cuda_version"]) == (
        "550.54.14",
        "nvidia-smi",
        12040,
    )


def test_sysfs_version_when_proc_is_absent() -> None:
    ctx = hostdata.dict_ctx({"/sys/module/nvidia/version": "570.86.10\n"})
    out: dict[str, Any] = {}
    driver.collect(ctx, out, {"nvml.status": "library_not_found"})
    assert (out["driver.version"], out["driver.version_source"]) == ("570.86.10", "sysfs")


def test_unreadable_proc_version_is_not_collected() -> None:
    ctx = hostdata.dict_ctx({driver.PROC_VERSION: {"readable": False}})
    out: dict[str, Any] = {}
    driver.collect(ctx, out, {"nvml.status": "library_not_found"})
    assert out["driver.proc_version"] == NotCollected(f"cannot read {driver.PROC_VERSION}")


@pytest.mark.parametrize(
    ("line", "version"),
    [
        (
            "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024",
            "550.54.14",
        ),
        (
            "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  560.35.03  Release Build  (dvs@U16)",
            "560.35.03",
        ),
        (
            "NVRM version: NVIDIA UNIX aarch64 Kernel Module  535.104.05  Sat Aug 19 01:13:02 UTC 2023",
            "535.104.05",
        ),
        ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  390.157  Wed Oct 12 09:19:07 UTC 2022", "390.157"),
        ("something else", None),
        (None, None),
    ],
)
def test_parse_proc_version(line: str | None, version: str | None) -> None:
    assert driver.parse_proc_version(line) == version


def test_windows_has_no_proc_but_still_asks_nvml() -> None:
    ctx = hostdata.dict_ctx({}, os_name="Windows")
    out: dict[str, Any] = {}
    driver.collect(ctx, out, {"nvml.status": "ok", "nvml.driver_version": "551.61", "nvml.cuda_driver_version": 12040})
    assert out["driver.version"] == "551.61" and out["driver.cuda_version"] == 12040
    assert out["driver.proc_version"] == NotCollected("not applicable on Windows")
