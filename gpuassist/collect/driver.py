"""The NVIDIA driver (``driver.*``, ``smi.*``): loaded kernel module, user-space libraries, version.

The version is taken from the most direct source that answered: NVML, then ``/proc/driver/nvidia/version``
(kernel module loaded), then ``/sys/module/nvidia/version``, then ``nvidia-smi``. The library versions
on disk (``libcuda.so.550.54.14``) are kept separately: when they differ from the loaded kernel module,
that *is* the driver/library mismatch.

``nvidia-smi`` is only run when NVML could not answer: it costs a process and, on a wedged driver, can
hang for seconds, while its error text ("Failed to initialize NVML: Driver/library version mismatch")
is only needed when NVML failed.
"""

from __future__ import annotations

import re
from typing import Any

from gpuassist.collect.base import HostContext, first_line, read, strip_or_none
from gpuassist.facts import NotCollected

KEYS = (
    "driver.proc_version",
    "driver.version",
    "driver.version_source",
    "driver.cuda_version",
    "driver.userspace_versions",
    "driver.userspace_libs",
    "smi.status",
    "smi.message",
)

PROC_VERSION = "/proc/driver/nvidia/version"
LIB_DIRS = (
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib64",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib",
    "/usr/lib/x86_64-linux-gnu/nvidia/current",
    "/usr/local/nvidia/lib64",
    "/usr/lib/wsl/lib",
)
_LIB = re.compile(r"^(libcuda|libnvidia-ml)\.so\.(\d+(?:\.\d+)+)$")
_KERNEL_MODULE = re.compile(r"Kernel Module(?:\s+for\s+\S+)?\s+(\d+\.\d+(?:\.\d+)?)")
_SMI_VERSIONS = re.compile(r"Driver Version:\s*(\d+\.\d+(?:\.\d+)?).*?CUDA Version:\s*(\d+)\.(\d+)")
SMI_TIMEOUT = 4.0


def collect(ctx: HostContext, out: dict[str, Any], nvml: dict[str, Any]) -> None:
    if ctx.os_name == "Darwin":
        for key in KEYS:
            out[key] = ctx.not_applicable()
        return
    nvml_ok = nvml.get("nvml.status") == "ok"
    candidates: list[tuple[str, Any]] = []
    if nvml_ok:
        candidates.append(("nvml", nvml.get("nvml.driver_version")))
    if ctx.linux:
        proc = read(ctx.fs, PROC_VERSION)
        out["driver.proc_version"] = first_line(proc) if isinstance(proc, str) else proc
        candidates.append(("proc", parse_proc_version(out["driver.proc_version"])))
        candidates.append(("sysfs", strip_or_none(read(ctx.fs, "/sys/module/nvidia/version"))))
        libs = userspace_libs(ctx)
        out["driver.userspace_libs"] = libs
        out["driver.userspace_versions"] = sorted({lib["version"] for lib in libs})
    else:
        out["driver.proc_version"] = ctx.not_applicable()
        out["driver.userspace_libs"] = out["driver.userspace_versions"] = ctx.not_applicable()

    smi_cuda: int | None = None
    if nvml_ok:
        out["smi.status"] = out["smi.message"] = NotCollected("not run: NVML answered")
    else:
        out["smi.status"], out["smi.message"], smi_version, smi_cuda = run_nvidia_smi(ctx)
        candidates.append(("nvidia-smi", smi_version))

    version, source = next(((v, s) for s, v in candidates if isinstance(v, str) and v), (None, None))
    out["driver.version"], out["driver.version_source"] = version, source
    cuda = nvml.get("nvml.cuda_driver_version") if nvml_ok else smi_cuda
    out["driver.cuda_version"] = cuda if isinstance(cuda, int) else None


def parse_proc_version(line: Any) -> str | None:
    """``550.54.14`` from ``NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 ...``
    (also the open module's ``... Open Kernel Module for x86_64  550.54.14  Release Build ...``)."""
    if not isinstance(line, str):
        return None
    m = _KERNEL_MODULE.search(line)
    return m.group(1) if m else None


def userspace_libs(ctx: HostContext) -> list[dict[str, str]]:
    """``libcuda.so.<ver>`` / ``libnvidia-ml.so.<ver>`` files in the usual library directories.

    Only driver-shaped versions count (major >= 100): WSL's ``libcuda.so.1.1`` is an ABI number.
    """
    found: list[dict[str, str]] = []
    for directory in LIB_DIRS:
        for name in ctx.fs.listdir(directory):
            m = _LIB.match(name)
            if m and int(m.group(2).split(".", 1)[0]) >= 100:
                found.append({"path": f"{directory}/{name}", "version": m.group(2)})
    return found


def run_nvidia_smi(ctx: HostContext) -> tuple[str, str | None, str | None, int | None]:
    """(smi.status, smi.message, driver version, CUDA version as 12040) from plain ``nvidia-smi``."""
    res = ctx.run(["nvidia-smi"], timeout=SMI_TIMEOUT)
    if res.status != "ok":
        return res.status, None, None, None  # "not_found" / "timeout"
    text = f"{res.stdout}\n{res.stderr}"
    m = _SMI_VERSIONS.search(text)
    version = m.group(1) if m else None
    cuda = int(m.group(2)) * 1000 + int(m.group(3)) * 10 if m else None
    if res.returncode == 0 and m:
        return "ok", None, version, cuda
    message = first_line(res.stdout) or first_line(res.stderr) or f"nvidia-smi exited with {res.returncode}"
    return "failed", message, version, cuda
