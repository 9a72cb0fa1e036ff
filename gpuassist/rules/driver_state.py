"""A loaded driver that still cannot run CUDA: UVM wedged after suspend, a forward-compatibility libcuda on
a GeForce GPU, NVSwitch systems without the fabric manager."""

from __future__ import annotations

import re
from typing import Any

from gpuassist.facts import Facts
from gpuassist.findings import Finding, Severity
from gpuassist.rules import view
from gpuassist.rules.make import finding
from gpuassist.rules.registry import rule

UNKNOWN_ERROR = r"CUDA unknown error|error \(999\)|Error 999|cudaErrorUnknown|CUDA_ERROR_UNKNOWN"
FORWARD_COMPAT = r"Error 804|forward compatibility was attempted on non supported HW"
NOT_INITIALIZED = r"Error 802|system not yet initialized|cudaErrorSystemNotReady|runtime error \(802\)"
CONSUMER_GPU = re.compile(r"GeForce|TITAN", re.IGNORECASE)


def _modules(facts: Facts) -> list[str] | None:
    modules = facts.value("kernel.modules")
    return [str(m) for m in modules] if isinstance(modules, list) else None


def _cuda_failed(facts: Facts) -> bool:
    return facts.value("cuda.available") is False and bool(facts.value("torch.cuda_build"))


@rule("uvm_wedged_after_suspend")
def uvm_wedged_after_suspend(facts: Facts) -> Finding | None:
    if facts.value("cuda.available") is True or facts.value("platform.wsl"):
        return None
    texts = view.warnings_text(facts)
    hit = view.first_match(texts, UNKNOWN_ERROR)
    modules = _modules(facts)
    nvidia_loaded = bool(modules and "nvidia" in modules)
    uvm_module = modules is not None and "nvidia_uvm" in modules
    uvm_node = bool(view.dev_nodes(facts, "/dev/nvidia-uvm"))
    uvm_missing = nvidia_loaded and not facts.value("platform.container") and (not uvm_module or not uvm_node)
    if not (hit or (uvm_missing and _cuda_failed(facts))):
        return None
    suspends = facts.value("kernel.suspend_count")
    uptime = facts.value("host.uptime_seconds")
    facts_seen = []
    if hit:
        facts_seen.append(f'CUDA initialisation failed with "{hit.group(0)}" (error 999)')
    if nvidia_loaded and not uvm_module:
        facts_seen.append("the nvidia module is loaded but nvidia_uvm is not")
    elif nvidia_loaded and not uvm_node:
        facts_seen.append("/dev/nvidia-uvm does not exist")
    if isinstance(suspends, int) and suspends > 0:
        facts_seen.append(f"the machine has been suspended {suspends} time(s) since it booted")
    if isinstance(uptime, (int, float)) and uptime > 7 * 86400:
        facts_seen.append(f"it has been up for {uptime / 86400:.0f} days")
    if nvidia_loaded and not uvm_module:
        reload = "sudo modprobe nvidia_uvm && sudo nvidia-modprobe -u -c=0   # loads it and creates /dev/nvidia-uvm"
    else:
        reload = "sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm   # stop every CUDA program first"
    return finding(
        "uvm_wedged_after_suspend",
        Severity.ERROR,
        explanation=(
            "CUDA needs the nvidia_uvm kernel module (unified memory) and its device /dev/nvidia-uvm. After a "
            'suspend/resume, or when the module was never loaded, CUDA initialisation fails with "CUDA unknown '
            'error" (999) and torch reports no devices, although nvidia-smi still works. Here: '
            + "; ".join(facts_seen)
            + "."
        ),
        fix=(
            f"Reload the UVM module (or reboot):\n  {reload}\n"
            'Then check: python -c "import torch; print(torch.cuda.is_available())"\n'
            "To stop it recurring on a machine that sleeps: enable NVIDIA's suspend services "
            "(sudo systemctl enable nvidia-suspend nvidia-resume nvidia-hibernate) or do not suspend GPU boxes."
        ),
        evidence=view.ev(
            facts,
            "cuda.init_warnings",
            "cuda.init_error",
            "kernel.modules",
            "dev.nodes",
            "kernel.suspend_count",
            "host.uptime_seconds",
        ),
    )


def _ld_path(facts: Facts) -> list[str]:
    env = facts.value("env") or {}
    value = env.get("LD_LIBRARY_PATH") if isinstance(env, dict) else None
    return [p for p in str(value or "").split(":") if p]


def _compat_in_use(facts: Facts) -> list[str]:
    """cuda-compat libcuda files that the loader will use: loaded into the probe, or in a directory on
    LD_LIBRARY_PATH."""
    loaded = [str(p) for p in facts.value("libs.loaded", []) or [] if "/compat/libcuda.so" in str(p)]
    dirs = {p.rstrip("/") for p in _ld_path(facts)}
    listed = [str(p) for p in facts.value("driver.cuda_compat_libs", []) or [] if str(p).rsplit("/", 1)[0] in dirs]
    return list(dict.fromkeys(loaded + listed))


def _nvml_gpus(facts: Facts) -> list[dict[str, Any]]:
    gpus = facts.value("nvml.gpus")
    return [g for g in gpus if isinstance(g, dict)] if isinstance(gpus, list) else []


@rule("forward_compat_unsupported_hw")
def forward_compat_unsupported_hw(facts: Facts) -> Finding | None:
    if facts.value("cuda.available") is True:
        return None
    hit = view.first_match(view.warnings_text(facts), FORWARD_COMPAT)
    compat = _compat_in_use(facts)
    names = [g.name for g in view.nvidia_gpus(facts).gpus]
    consumer = [n for n in names if CONSUMER_GPU.search(n)]
    if not (hit or (compat and consumer)):
        return None
    dirs = sorted({p.rsplit("/", 1)[0] for p in compat}) or ["/usr/local/cuda/compat"]
    kept = [p for p in _ld_path(facts) if p.rstrip("/") not in dirs]
    export = f"export LD_LIBRARY_PATH={':'.join(kept)}" if kept else "unset LD_LIBRARY_PATH"
    what = []
    if hit:
        what.append(f'CUDA initialisation failed with "{hit.group(0)}"')
    if compat:
        what.append(f"the CUDA forward-compatibility driver library {compat[0]} is on the loader path")
    if consumer:
        what.append(f"the GPU is a {consumer[0]}, which forward compatibility does not support")
    return finding(
        "forward_compat_unsupported_hw",
        Severity.ERROR,
        explanation=(
            "CUDA forward compatibility (the cuda-compat package's libcuda, shipped in many container images) lets a "
            "newer CUDA run on an older data-center driver; on GeForce and other unsupported GPUs CUDA refuses it "
            "with Error 804. Here: " + "; ".join(what) + "."
        ),
        fix=(
            f"Take the compat directory off the loader path so the host driver's libcuda is used:\n  {export}\n"
            f"In a Dockerfile, remove it from ENV LD_LIBRARY_PATH (or `apt-get remove cuda-compat-*` in the image).\n"
            "Better still: update the host driver to one that supports the image's CUDA natively, or use an image "
            "built for the host driver's CUDA version (nvidia-smi, top right)."
        ),
        evidence=view.ev(
            facts,
            "cuda.init_warnings",
            "cuda.init_error",
            "driver.cuda_compat_libs",
            "libs.loaded",
            "env",
            "nvml.gpus",
            "driver.version",
        ),
        explains=["driver_library_mismatch", "driver_too_old"],
    )


@rule("fabric_manager_missing")
def fabric_manager_missing(facts: Facts) -> Finding | None:
    if facts.value("cuda.available") is True:
        return None
    hit = view.first_match(view.warnings_text(facts), NOT_INITIALIZED)
    switches = facts.value("pci.nvswitch_count")
    switch_nodes = view.dev_nodes(facts, "/dev/nvidia-nvswitch")
    has_switch = (isinstance(switches, int) and switches > 0) or bool(switch_nodes)
    state = facts.value("driver.fabricmanager")
    stopped = has_switch and isinstance(state, str) and state != "active"
    known_no_switch = isinstance(switches, int) and switches == 0 and not switch_nodes
    if not (stopped or (hit and not known_no_switch)):
        return None
    driver = str(facts.value("driver.version") or "")
    branch = driver.split(".")[0] if driver else "<driver branch>"
    what = []
    if has_switch:
        what.append(
            f"this system has {switches if isinstance(switches, int) and switches else len(switch_nodes)} NVSwitch(es)"
        )
    if isinstance(state, str):
        what.append(f"the nvidia-fabricmanager service is {state}")
    if hit:
        what.append(f'CUDA initialisation failed with "{hit.group(0)}"')
    pin = f"={driver}-1" if driver else ""
    return finding(
        "fabric_manager_missing",
        Severity.ERROR,
        explanation=(
            'On HGX/DGX systems the GPUs are connected through NVSwitches, and CUDA stays "not yet initialized" '
            "(Error 802) until the NVIDIA Fabric Manager service has set up the NVLink fabric. Here: "
            + "; ".join(what)
            + ". Its version must match the driver exactly"
            + (f" ({driver})." if driver else ".")
        ),
        fix=(
            f"Install the Fabric Manager of the same version as the driver and start it:\n"
            f"  sudo apt-get install -y nvidia-fabricmanager-{branch}{pin}   "
            f"# RHEL: sudo dnf install nvidia-fabric-manager-{driver or '<driver version>'}\n"
            "  sudo systemctl enable --now nvidia-fabricmanager\n"
            "  systemctl status nvidia-fabricmanager   # must be active; see journalctl -u nvidia-fabricmanager\n"
            "  nvidia-smi -q | grep -A2 -i fabric      # State: Completed"
        ),
        evidence=view.ev(
            facts,
            "pci.nvswitch_count",
            "dev.nodes",
            "driver.fabricmanager",
            "driver.version",
            "cuda.init_warnings",
            "cuda.init_error",
        ),
        explains=["uvm_wedged_after_suspend"],
    )
