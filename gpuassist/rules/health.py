"""GPU health visible before any work starts (NVML at idle): memory other processes hold, hardware
slowdown already active, a PCIe link trained far below the card's width.

Load-dependent versions of the last two (clocks and copy bandwidth under load) are runtime checks in
``rules/runtime.py``; these static rules stay quiet when runtime measurements are present, so one report
never says the same thing twice.
"""

from __future__ import annotations

from typing import Any

from gpuassist.facts import Facts
from gpuassist.findings import Evidence, Finding, Severity
from gpuassist.rules.make import finding
from gpuassist.rules.registry import rule

GIB = 1024**3
HELD_FRACTION = 0.75  # three quarters of the memory taken before we start (a shared GPU at 50 % is normal)
HELD_MIN_BYTES = 2 * GIB  # and at least 2 GiB (a desktop's display uses ~0.5-1.5 GiB)
# NVML clock-event reasons that mean the hardware is protecting itself; SW power cap (0x4) is normal under load.
SLOWDOWN_BITS = {
    0x8: "HW slowdown",
    0x20: "SW thermal slowdown",
    0x40: "HW thermal slowdown",
    0x80: "HW power brake slowdown",
}
IDLE_UTIL = 20  # %: above this the GPU is busy and clock reasons are not "at idle"


def _gpus(facts: Facts) -> list[dict[str, Any]]:
    gpus = facts.value("nvml.gpus")
    return [g for g in gpus if isinstance(g, dict)] if isinstance(gpus, list) else []


def _gib(n: Any) -> str:
    return f"{float(n) / GIB:.1f} GiB" if isinstance(n, (int, float)) else "?"


@rule("gpu_memory_held_by_others")
def gpu_memory_held_by_others(facts: Facts) -> Finding | None:
    held = []
    for g in _gpus(facts):
        used, total = g.get("memory_used"), g.get("memory_total")
        if not isinstance(used, (int, float)) or not isinstance(total, (int, float)) or total <= 0:
            continue
        if used >= HELD_MIN_BYTES and used / total >= HELD_FRACTION:
            held.append(g)
    if not held:
        return None
    all_gpus = _gpus(facts)
    idle = [g for g in all_gpus if g not in held]
    parts = []
    for g in held:
        procs = g.get("processes")
        who = (
            ", ".join(f"pid {p.get('pid')} {p.get('name') or '?'} ({_gib(p.get('used_memory'))})" for p in procs[:4])
            if isinstance(procs, list) and procs
            else "processes NVML cannot show (another container or user)"
        )
        parts.append(
            f"GPU {g.get('index')} ({g.get('name')}): {_gib(g.get('memory_used'))} of "
            f"{_gib(g.get('memory_total'))} in use by {who}"
        )
    pick = f"  export CUDA_VISIBLE_DEVICES={idle[0].get('index')}   # an idle GPU\n" if idle else ""
    return finding(
        "gpu_memory_held_by_others",
        Severity.WARNING,
        explanation=(
            "Before anything ran, other processes already held most of the GPU memory: "
            + "; ".join(parts)
            + '. Your job gets only what is left and fails with "CUDA out of memory" even when it is small.'
        ),
        fix=(
            "See who holds it and stop them, or use another GPU:\n"
            "  nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv\n"
            "  kill <pid>        # your own stale jobs and forgotten notebook kernels\n"
            + pick
            + "On a shared machine, ask the owner or wait until it is free."
        ),
        evidence=[
            Evidence(
                "nvml.gpus",
                [{k: g.get(k) for k in ("index", "name", "memory_used", "memory_total", "processes")} for g in held],
            )
        ],
    )


@rule("thermal_power_throttling.idle")
def thermal_power_throttling_idle(facts: Facts) -> Finding | None:
    if "bench.gpu_samples" in facts:
        return None  # a benchmark ran (or was cut off): the runtime rule judges it under load
    hits = []
    for g in _gpus(facts):
        reasons = g.get("throttle_reasons")
        if not isinstance(reasons, int):
            continue
        names = [n for bit, n in SLOWDOWN_BITS.items() if reasons & bit]
        util = g.get("utilization_gpu")
        if names and not (isinstance(util, (int, float)) and util > IDLE_UTIL):
            hits.append((g, names))
    if not hits:
        return None
    g, names = hits[0]
    return finding(
        "thermal_power_throttling",
        Severity.WARNING,
        explanation=(
            f"GPU {g.get('index')} ({g.get('name')}) reports {', '.join(names)} while idle "
            f"(throttle reasons {hex(int(g['throttle_reasons']))}, {g.get('temperature_c')} °C, "
            f"{g.get('power_w')} W of {g.get('power_limit_w')} W): its clocks are cut to protect the hardware "
            "before any work starts, so training will run well below the card's speed. At idle this points to "
            "overheating, a failing fan, or a power-delivery problem (power brake from the PSU/cables)."
        ),
        fix=(
            "Check cooling and power: clean the fans and heatsink, improve case airflow, reseat the PCIe power "
            "cables (separate cables from the PSU, no daisy-chains), and watch\n"
            "  nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER\n"
            "The 'Clocks Event Reasons' section must show HW Slowdown / HW Thermal / HW Power Brake as Not Active."
        ),
        evidence=[
            Evidence(
                "nvml.gpus",
                [
                    {
                        k: h.get(k)
                        for k in (
                            "index",
                            "name",
                            "throttle_reasons",
                            "temperature_c",
                            "power_w",
                            "power_limit_w",
                            "utilization_gpu",
                        )
                    }
                    for h, _ in hits
                ],
            )
        ],
    )


@rule("pcie_link_degraded.idle")
def pcie_link_degraded_idle(facts: Facts) -> Finding | None:
    """Only the link *width*: GPUs drop the PCIe generation at idle to save power (Gen1 at idle is normal),
    but they do not narrow the link; x1 or x4 on an x16 card is a slot, riser or seating problem."""
    if "bandwidth.peak" in facts:
        return None  # a placement test ran (or was cut off): the runtime rule judges the link by measurement
    narrow = []
    for g in _gpus(facts):
        cur, top = g.get("pcie_width_current"), g.get("pcie_width_max")
        if isinstance(cur, int) and isinstance(top, int) and cur > 0 and top >= 8 and cur * 4 <= top:
            narrow.append(g)
    if not narrow:
        return None
    g = narrow[0]
    return finding(
        "pcie_link_degraded",
        Severity.WARNING,
        explanation=(
            f"GPU {g.get('index')} ({g.get('name')}) is connected at PCIe x{g.get('pcie_width_current')} although it "
            f"supports x{g.get('pcie_width_max')} (generation now Gen{g.get('pcie_gen_current')}, up to "
            f"Gen{g.get('pcie_gen_max')}; a lower generation at idle is normal power saving, a narrow link is not). "
            f"Every copy between host and GPU gets at most {g.get('pcie_width_current')}/{g.get('pcie_width_max')} "
            "of the bandwidth: typical of an x1 mining riser, a chipset slot wired x4, or a badly seated card."
        ),
        fix=(
            "Move the card to a full x16 slot (usually the top one) and reseat it; avoid x1 risers and adapters. "
            "Check the result under load:\n"
            "  nvidia-smi -q -d PCIE     # Link Width: Current must equal Max\n"
            "Measure copies with: gpuassist placement"
        ),
        evidence=[
            Evidence(
                "nvml.gpus",
                [
                    {
                        k: n.get(k)
                        for k in (
                            "index",
                            "name",
                            "pcie_gen_current",
                            "pcie_gen_max",
                            "pcie_width_current",
                            "pcie_width_max",
                        )
                    }
                    for n in narrow
                ],
            )
        ],
    )
