"""Which of "too new" and "dropped" a "no kernel image" can still mean, when the text does not name the GPU.

CUDA's "no kernel image is available for execution on the device" fits a GPU newer than every architecture the
torch build carries and one older than its oldest. Without the GPU's name the driver still narrows it: a driver
branch drives only some generations (driver_branches.json: Kepler ends at 470, Maxwell/Pascal/Volta at 580, each
new generation needs a first branch), so a GPU that branch cannot drive is not the one that failed. When every GPU
the shown driver can run and the build's arch list (the probe's, or the published wheel's from the tables) lacks is
on one side of the list, the other reading is out; when the build covers every such GPU, both are.
"""

from __future__ import annotations

import re

from gpuassist.facts import Facts
from gpuassist.ingest.errors import Match
from gpuassist.knowledge import compat
from gpuassist.knowledge.driver_support import generation, unsupported_reason
from gpuassist.knowledge.wheels import arch_covers
from gpuassist.rules import view
from gpuassist.rules.wheel import build_arch_list

TOO_NEW = "gpu_arch_too_new_for_build"
DROPPED = "gpu_arch_dropped_from_build"
SM = re.compile(r"^sm_(\d+)(\d)$")


def _capabilities() -> list[tuple[int, int]]:
    """Every discrete-GPU compute capability the GPU table knows (cuda_compat.json gpu_table)."""
    found = {str(row["capability"]) for row in compat()["gpu_table"]["gpus"]}
    caps = []
    for cc in found:
        major, _, minor = cc.partition(".")
        if generation(cc) is not None:
            caps.append((int(major), int(minor or 0)))
    return sorted(caps)


def _branch(facts: Facts) -> int | None:
    version = str(facts.value("driver.version") or "")
    head = version.split(".", 1)[0]
    return int(head) if head.isdigit() and len(head) == 3 else None


def readings_ruled_out(facts: Facts) -> set[str]:
    """The arch readings the shown driver and the build's arch list rule out (empty when they cannot tell)."""
    branch = _branch(facts)
    if branch is None or view.nvidia_gpus(facts).count:
        return set()  # no driver to go by, or a named GPU (its capability decides elsewhere)
    arch_list, _origin = build_arch_list(facts)
    floors = [(int(m.group(1)), int(m.group(2))) for a in arch_list if (m := SM.match(a))]
    if not floors:
        return set()
    floor = min(floors)
    lacking = [
        cc
        for cc in _capabilities()
        if unsupported_reason(f"{cc[0]}.{cc[1]}", branch) is None and not arch_covers(f"{cc[0]}.{cc[1]}", arch_list)
    ]
    out = set()
    if not any(cc < floor for cc in lacking):
        out.add(DROPPED)
    if not any(cc > floor for cc in lacking):
        out.add(TOO_NEW)
    return out


def driver_rules_out(facts: Facts, matches: list[Match]) -> list[Match]:
    """Drop the arch guesses (not a specific message's verdict) that the driver and the build rule out."""
    if not any(m.id in (TOO_NEW, DROPPED) and not m.specific for m in matches):
        return matches
    out = readings_ruled_out(facts)
    return [m for m in matches if m.specific or m.id not in out]
