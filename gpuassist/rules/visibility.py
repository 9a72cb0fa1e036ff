"""GPUs that exist and work, but that this process may not use: MIG slices, exclusive compute modes, and
batch jobs that were allocated no GPU."""

from __future__ import annotations

from typing import Any

from gpuassist.facts import Facts
from gpuassist.findings import Evidence, Finding, Severity
from gpuassist.rules import view
from gpuassist.rules.env_vars import visible_devices
from gpuassist.rules.make import finding
from gpuassist.rules.registry import rule

BUSY = r"all CUDA-capable devices are busy or unavailable|cudaErrorDevicesUnavailable|CUDA error: 46\b|error 46\b"
EXCLUSIVE = {"exclusive_process", "exclusive_thread"}
NO_DEVICES = {"", "nodevfiles", "void", "none", "-1"}


def _nvml_gpus(facts: Facts) -> list[dict[str, Any]]:
    gpus = facts.value("nvml.gpus")
    return [g for g in gpus if isinstance(g, dict)] if isinstance(gpus, list) else []


def _brief(g: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: g.get(k) for k in ("index", "name", *keys)}


def _mig_gpus(facts: Facts) -> list[dict[str, Any]]:
    """GPUs in MIG mode: from NVML, else from a paste (nvidia-smi's MIG M. cell, -q, -L, or the user's words; the
    GPUs it names, or one unnamed GPU). One listed MIG device and no more is not the problem: CUDA enumerates it."""
    mig = [g for g in _nvml_gpus(facts) if g.get("mig_mode") == "enabled"]
    if mig or facts.value("reported.mig_mode") != "enabled":
        return mig
    devices = facts.value("reported.mig_devices")
    if isinstance(devices, list) and len(devices) == 1:
        return []
    shows_missing = facts.value("cuda.available") is False or isinstance(facts.value("cuda.device_count"), int)
    if facts.value("reported.mig_said") and not shows_missing:
        return []  # "MIG is enabled" in words, and nothing missing from torch: not what is wrong here
    reported = facts.value("reported.gpus")
    gpus = [g for g in reported if isinstance(g, dict)] if isinstance(reported, list) else []
    return [{**g, "mig_mode": "enabled"} for g in gpus] or [{"index": 0, "name": "the GPU", "mig_mode": "enabled"}]


@rule("mig_multiple_instances")
def mig_multiple_instances(facts: Facts) -> Finding | None:
    mig = _mig_gpus(facts)
    if not mig:
        return None
    value = visible_devices(facts)
    entries = [e.strip() for e in (value or "").split(",") if e.strip()]
    if len(entries) == 1 and entries[0].startswith("MIG-"):
        return None  # one MIG device per process: the supported way
    available = facts.value("cuda.available")
    count = facts.value("cuda.device_count")
    severity = Severity.ERROR if available is False or count == 0 else Severity.WARNING
    names = ", ".join(f"GPU {g.get('index')} ({g.get('name')})" for g in mig)
    if value is None:
        setting = "CUDA_VISIBLE_DEVICES is not set"
    elif len(entries) > 1 and all(e.startswith("MIG-") for e in entries):
        setting = (
            f"CUDA_VISIBLE_DEVICES lists {len(entries)} MIG devices, but one CUDA process can use only one (the first)"
        )
    else:
        setting = f"CUDA_VISIBLE_DEVICES={value!r} is not a MIG device UUID"
    seen = f" torch sees {count} device(s)." if isinstance(count, int) else ""
    return finding(
        "mig_multiple_instances",
        severity,
        explanation=(
            f"MIG (Multi-Instance GPU) is enabled on {names}: the GPU is split into instances, and a CUDA process "
            f"can enumerate only one of them, chosen by its MIG UUID. {setting}, so CUDA sees no usable device, a "
            f'different slice than intended, or fails with "INTERNAL ASSERT FAILED" in device enumeration.{seen}'
        ),
        fix=(
            "List the MIG devices and pick one per process by UUID:\n"
            "  nvidia-smi -L                     # lines like: MIG 3g.40gb Device 0: (UUID: MIG-...)\n"
            "  export CUDA_VISIBLE_DEVICES=MIG-<uuid from that list>\n"
            "For multi-GPU training on the whole GPU, an admin disables MIG instead (no GPU processes running):\n"
            "  sudo nvidia-smi -i 0 -mig 0 && sudo nvidia-smi -i 0 -r"
        ),
        evidence=[
            *view.ev(facts, "cuda.visible_devices", "cuda.device_count", "cuda.init_warnings", "reported.mig_mode"),
            Evidence("nvml.gpus", [_brief(g, "mig_mode", "uuid") for g in mig]),
        ],
        explains=["cuda_visible_devices_hides_gpus"],
    )


def _wddm_host(facts: Facts) -> bool:
    """The GPU is reached through Windows' WDDM driver model: a Windows host, or WSL2 on one."""
    return facts.value("host.os") == "Windows" or facts.value("platform.wsl") is not None


def _non_default_mode(gpus: list[dict[str, Any]]) -> bool:
    return any(g.get("compute_mode") not in (None, "default") for g in gpus)


@rule("compute_mode_exclusive_or_prohibited")
def compute_mode_exclusive_or_prohibited(facts: Facts) -> Finding | None:
    smoke_errors = [
        str(part.get("error"))
        for entry in facts.value("smoke", []) or []
        if isinstance(entry, dict)
        for part in entry.values()
        if isinstance(part, dict) and part.get("error")
    ]
    busy_text = view.first_match(view.warnings_text(facts) + smoke_errors, BUSY)
    gpus = _nvml_gpus(facts)
    prohibited = [g for g in gpus if g.get("compute_mode") == "prohibited"]
    taken = [g for g in gpus if g.get("compute_mode") in EXCLUSIVE and g.get("processes")]
    if not (prohibited or taken or busy_text):
        return None
    if busy_text and not (prohibited or taken) and _wddm_host(facts) and not _non_default_mode(gpus):
        # NVML (nvmlDeviceSetComputeMode): "Under windows compute mode may only be set to DEFAULT when running in
        # WDDM", and WSL2 reaches the GPU through WDDM: the message has another of its causes there.
        return None
    severity = (
        Severity.ERROR if (busy_text or prohibited or facts.value("cuda.available") is False) else Severity.WARNING
    )
    parts = []
    for g in prohibited:
        parts.append(f"GPU {g.get('index')} ({g.get('name')}) is in compute mode Prohibited: no process may use it")
    for g in taken:
        owners = ", ".join(f"pid {p.get('pid')} ({p.get('name') or '?'})" for p in g.get("processes") or [])
        parts.append(
            f"GPU {g.get('index')} ({g.get('name')}) is in compute mode Exclusive Process and already owned by {owners}"
        )
    if busy_text:
        parts.append(f'CUDA said "{busy_text.group(0)}" (error 46)')
    free = [
        g
        for g in gpus
        if g.get("compute_mode") == "default" or (g.get("compute_mode") in EXCLUSIVE and not g.get("processes"))
    ]
    pick = f"  export CUDA_VISIBLE_DEVICES={free[0].get('index')}   # a GPU nobody holds\n" if free else ""
    return finding(
        "compute_mode_exclusive_or_prohibited",
        severity,
        explanation=(
            "A GPU's compute mode decides how many processes may use it. " + "; ".join(parts) + ". A second "
            'process then gets "all CUDA-capable devices are busy or unavailable".'
        ),
        fix=(
            "See who holds the GPU, then wait for it, stop it, or use another GPU:\n"
            "  nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv\n"
            + pick
            + "An administrator can allow shared use again:\n  sudo nvidia-smi -i <index> -c DEFAULT"
        ),
        evidence=[
            *view.ev(facts, "cuda.available", "cuda.init_warnings", "cuda.init_error", "smoke"),
            Evidence("nvml.gpus", [_brief(g, "compute_mode", "processes") for g in gpus]),
        ],
        explains=["gpu_memory_held_by_others"],
    )


def _allocated(facts: Facts) -> bool:
    """Did the scheduler give this job GPUs (an allocation list, or a device list it set)?"""
    gpus = facts.value("scheduler.gpus")
    if isinstance(gpus, list) and gpus:
        return True
    value = visible_devices(facts)
    return value is not None and value.strip().lower() not in NO_DEVICES


@rule("scheduler_no_gpu_allocated")
def scheduler_no_gpu_allocated(facts: Facts) -> Finding | None:
    kind = facts.value("scheduler.kind")
    job = facts.value("scheduler.job_id")
    if not kind or not job or facts.value("cuda.available") is True:
        return None
    if _allocated(facts):
        return None
    if facts.known("torch.cuda_build") and not facts.value("torch.cuda_build") and not facts.value("torch.hip_build"):
        return None  # a CPU build sees no GPU with any allocation: the build is the cause (cpu_only_build)
    if facts.value("pci.nvidia_gpu_count") == 0:
        return None  # the PCI bus is not hidden by the job's cgroup: a node with no GPU at all (no_nvidia_gpu)
    nodes = view.dev_nodes(facts, "/dev/nvidia")
    value = visible_devices(facts)
    seen = "CUDA_VISIBLE_DEVICES is unset" if value is None else f"CUDA_VISIBLE_DEVICES={value!r}"
    node_txt = "no /dev/nvidia* devices are visible" if not nodes else "the GPU devices are not in the job's cgroup"
    request = {
        "slurm": (
            "  #SBATCH --gres=gpu:1            # or --gpus=1; in a GPU partition: #SBATCH --partition=<gpu>\n"
            "  srun --gres=gpu:1 --pty bash     # interactive\n"
            f"  scontrol show job {job} | grep -i tres   # what the job got"
        ),
        "pbs": "  #PBS -l select=1:ngpus=1\n  qstat -f $PBS_JOBID | grep -i gpu",
        "lsf": '  bsub -gpu "num=1" ...',
        "sge": "  qsub -l gpu=1 ...   # the resource name is site-specific (qconf -sc | grep -i gpu)",
    }.get(str(kind), "request a GPU in the job submission")
    return finding(
        "scheduler_no_gpu_allocated",
        Severity.ERROR,
        title=f"{str(kind).upper()} job {job} was allocated no GPU",
        explanation=(
            f"This runs inside {str(kind).upper()} job {job}, and the scheduler gave it no GPU: "
            f"{'no GPUs in the allocation' if facts.value('scheduler.gpus') is not None else 'no GPU allocation'}, "
            f"{seen}, and {node_txt}. The scheduler hides every GPU the job did not request, so torch finds none "
            "even on a GPU node."
        ),
        fix=("Request GPUs when submitting the job (and do not set CUDA_VISIBLE_DEVICES yourself):\n" + request),
        evidence=view.ev(
            facts,
            "scheduler.kind",
            "scheduler.job_id",
            "scheduler.gpus",
            "cuda.visible_devices",
            "dev.nodes",
            "cuda.available",
        ),
        explains=["cuda_visible_devices_hides_gpus", "no_nvidia_gpu", "no_nvidia_driver", "nvidia_module_not_loaded"],
    )
