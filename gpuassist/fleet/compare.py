"""The facts on which a node is compared with its peers (outliers), each reduced to one short value.

A cluster's nodes are meant to be alike; what matters is the node that is not: another driver branch, a
CPU-only wheel in one image, a GPU missing from the bus, a link trained at x8, a GPU protecting itself
from heat. Each comparison reads fact keys documented in docs/facts.md and returns a short readable value
(``None`` when the report could not look, so a node that could not look is not called different).
Values that drift by design (temperatures, memory in use, uptime) are never compared.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpuassist.facts import Facts, NotCollected
from gpuassist.rules.runtime import POWER_CAP_BIT, THROTTLE_BITS

NOT_APPLICABLE = object()  # the fact does not apply here (no NVIDIA GPU to have a link width)


@dataclass(frozen=True)
class Comparison:
    key: str  # stable id in gpuassist.fleet/1 (a fact key, or a derived name)
    label: str
    facts: tuple[str, ...]  # the fact keys it reads (docs/facts.md)
    read: Callable[[Facts], Any]


def _known(facts: Facts, key: str) -> Any:
    if key not in facts:
        return NotCollected("absent")
    return facts[key]


def _text(value: Any) -> str | None:
    if isinstance(value, NotCollected):
        return None
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _driver_version(facts: Facts) -> str | None:
    v = _known(facts, "driver.version")
    if isinstance(v, NotCollected):
        return None
    return "no driver" if v is None else str(v)


def _driver_branch(facts: Facts) -> str | None:
    v = _driver_version(facts)
    if v is None or v == "no driver":
        return v
    return "R" + v.split(".")[0]


def _cuda_version(facts: Facts) -> str | None:
    v = _known(facts, "driver.cuda_version")
    if isinstance(v, NotCollected):
        return None
    if not isinstance(v, int):
        return _text(v)
    return f"CUDA ≤ {v // 1000}.{(v % 1000) // 10}"


def _torch_build(facts: Facts) -> str | None:
    err = facts.get("torch.import_error")
    if isinstance(err, dict):
        return f"import torch fails ({err.get('type')})"
    version = _known(facts, "torch.version")
    if isinstance(version, NotCollected):
        return None
    if version is None:
        return "not installed"
    cuda = facts.get("torch.cuda_build")
    hip = facts.get("torch.hip_build")
    if isinstance(cuda, str):
        return f"{version} (CUDA {cuda})"
    if isinstance(hip, str):
        return f"{version} (ROCm {hip})"
    if cuda is None:
        return f"{version} (CPU-only)"
    return str(version)


def _gpus(facts: Facts) -> list[dict[str, Any]] | None:
    gpus = facts.get("nvml.gpus")
    return [g for g in gpus if isinstance(g, dict)] if isinstance(gpus, list) else None


def _gpu_count(facts: Facts) -> str | None:
    pci = facts.get("pci.nvidia_gpu_count")
    gpus = _gpus(facts)
    if gpus is not None and isinstance(pci, int) and pci != len(gpus):
        return f"{len(gpus)} (driver) / {pci} (PCI bus)"  # a GPU fell off the driver
    if gpus is not None:
        return str(len(gpus))
    return _text(pci) if isinstance(pci, int) else None


def _gpu_models(facts: Facts) -> str | None:
    gpus = _gpus(facts)
    if not gpus:
        return None
    counts = Counter(str(g.get("name") or "unknown") for g in gpus)
    return ", ".join(f"{n}× {name}" for name, n in sorted(counts.items()))


def _pcie_width(facts: Facts) -> str | None:
    gpus = _gpus(facts)
    if not gpus:
        return None
    seen = False
    narrow = []
    for g in gpus:
        cur, top = g.get("pcie_width_current"), g.get("pcie_width_max")
        if not isinstance(cur, int) or not isinstance(top, int):
            continue
        seen = True
        if cur < top:
            narrow.append(f"GPU {g.get('index')} x{cur} of x{top}")
    if not seen:
        return None
    return ", ".join(narrow) if narrow else "full width"


def _throttling(facts: Facts) -> str | None:
    gpus = _gpus(facts)
    if not gpus:
        return None
    seen = False
    active: dict[str, list[str]] = {}
    for g in gpus:
        reasons = g.get("throttle_reasons")
        if not isinstance(reasons, int):
            continue
        seen = True
        for bit, name in (*THROTTLE_BITS.items(), (POWER_CAP_BIT, "SW power cap")):
            if reasons & bit:
                active.setdefault(name, []).append(str(g.get("index")))
    if not seen:
        return None
    if not active:
        return "none"
    return ", ".join(f"{name} (GPU {','.join(idx)})" for name, idx in sorted(active.items()))


def _mig(facts: Facts) -> str | None:
    gpus = _gpus(facts)
    if not gpus:
        return None
    on = [str(g.get("index")) for g in gpus if g.get("mig_mode") == "enabled"]
    return f"enabled on GPU {','.join(on)}" if on else "off"


def _ecc(facts: Facts) -> str | None:
    gpus = _gpus(facts)
    if not gpus or not any("ecc_mode" in g for g in gpus):
        return None  # a report from before ECC was collected
    bad = []
    for g in gpus:
        problems = []
        if isinstance(g.get("ecc_uncorrected_volatile"), int) and g["ecc_uncorrected_volatile"] > 0:
            problems.append(f"{g['ecc_uncorrected_volatile']} uncorrected")
        if g.get("remapped_rows_failed"):
            problems.append("row remapping failed")
        elif g.get("remapped_rows_pending"):
            problems.append("row remap pending (reset)")
        if problems:
            bad.append(f"GPU {g.get('index')}: {', '.join(problems)}")
    if bad:
        return "; ".join(bad)
    modes = {g.get("ecc_mode") for g in gpus}
    return "no errors" if modes == {"enabled"} else "ECC off" if modes == {"disabled"} else "no errors / no ECC"


def _xids(facts: Facts) -> str | None:
    events = facts.get("kernel.xid_events")
    if events is None and facts.get("pci.nvidia_gpu_count") == 0:
        return None  # no NVIDIA GPU: nothing to compare
    if not isinstance(events, list):
        return None
    if not events:
        return "none"
    counts: dict[int, int] = {}
    for e in events:
        if isinstance(e, dict) and isinstance(e.get("xid"), int):
            counts[e["xid"]] = counts.get(e["xid"], 0) + int(e.get("count") or 1)
    return ", ".join(f"Xid {x} ×{n}" for x, n in sorted(counts.items())) or "none"


def _fact(key: str) -> Callable[[Facts], str | None]:
    return lambda facts: _text(_known(facts, key))


def _fabric_manager(facts: Facts) -> str | None:
    state = facts.get("driver.fabricmanager")
    return state if isinstance(state, str) else None  # None: no NVSwitch, so nothing to compare


COMPARISONS: tuple[Comparison, ...] = (
    Comparison("driver.branch", "Driver branch", ("driver.version",), _driver_branch),
    Comparison("driver.version", "Driver version", ("driver.version",), _driver_version),
    Comparison("driver.cuda_version", "CUDA the driver supports", ("driver.cuda_version",), _cuda_version),
    Comparison("nvml.status", "NVML", ("nvml.status",), _fact("nvml.status")),
    Comparison("driver.fabricmanager", "Fabric manager", ("driver.fabricmanager",), _fabric_manager),
    Comparison("gpu.count", "NVIDIA GPUs", ("nvml.gpus", "pci.nvidia_gpu_count"), _gpu_count),
    Comparison("gpu.models", "GPU models", ("nvml.gpus",), _gpu_models),
    Comparison("pcie.width", "PCIe link width", ("nvml.gpus",), _pcie_width),
    Comparison("gpu.throttle", "Clock throttling", ("nvml.gpus",), _throttling),
    Comparison("gpu.mig", "MIG mode", ("nvml.gpus",), _mig),
    Comparison("gpu.ecc", "ECC errors", ("nvml.gpus",), _ecc),
    Comparison("kernel.xid_events", "Xid events since boot", ("kernel.xid_events",), _xids),
    Comparison("torch.build", "torch build", ("torch.version", "torch.cuda_build", "torch.import_error"), _torch_build),
    Comparison("cuda.available", "torch sees CUDA", ("cuda.available",), _fact("cuda.available")),
    Comparison("cuda.device_count", "GPUs torch sees", ("cuda.device_count",), _fact("cuda.device_count")),
    Comparison("python.version", "Python", ("python.version",), _fact("python.version")),
    Comparison("host.kernel", "Kernel", ("host.kernel",), _fact("host.kernel")),
    Comparison("host.distro", "OS", ("host.distro",), _fact("host.distro")),
    Comparison("platform.container", "Container", ("platform.container",), _fact("platform.container")),
)


def compare_values(facts: Facts) -> list[str | None]:
    """This node's value for each of :data:`COMPARISONS` (None: could not look)."""
    out: list[str | None] = []
    for c in COMPARISONS:
        try:
            value = c.read(facts)
        except (TypeError, ValueError, AttributeError):  # a hand-edited report: that fact is unreadable
            value = None
        out.append(value[:200] if isinstance(value, str) else None)
    return out
