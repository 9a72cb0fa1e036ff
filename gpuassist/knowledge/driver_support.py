"""Does an NVIDIA driver branch drive a GPU of a given compute capability (driver_branches.json)?

A legacy GPU is ignored by branches after its last one (Kepler after 470, Maxwell/Pascal/Volta after 580), a new
GPU is unknown to branches before its first one, and the open kernel modules need a GSP (Turing or later). The
answer is a sentence saying why not, or None where the branch supports the GPU or the table cannot tell.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

from gpuassist.knowledge import compat

# Windows numbers a branch's releases up to nine above it (R580: 581.xx): compared with a last branch, a version is
# its branch rounded down to ten.
BRANCH_SPAN = 10


@dataclass(frozen=True)
class Generation:
    name: str
    cc_from: tuple[int, int]
    cc_below: tuple[int, int]
    last_branch: int | None
    first_branch: int | None


def _cc(text: str) -> tuple[int, int]:
    major, _, minor = text.partition(".")
    return int(major), int(minor or 0)


@cache
def _table() -> tuple[tuple[Generation, ...], tuple[int, int]]:
    raw = json.loads(resources.files("gpuassist.knowledge").joinpath("driver_branches.json").read_text("utf-8"))
    generations = tuple(
        Generation(
            name=str(g["name"]),
            cc_from=_cc(str(g["cc_from"])),
            cc_below=_cc(str(g["cc_below"])),
            last_branch=int(g["last_branch"]) if "last_branch" in g else None,
            first_branch=int(g["first_branch"]) if "first_branch" in g else None,
        )
        for g in raw["generations"]
    )
    return generations, _cc(str(raw["open_modules_from_cc"]))


def generation(capability: str) -> Generation | None:
    """The generation of a discrete GPU of ``capability`` ("6.1"); None for Tegra and unknown capabilities."""
    if capability in compat()["tegra_capabilities"]["capabilities"]:
        return None
    cc = _cc(capability)
    return next((g for g in _table()[0] if g.cc_from <= cc < g.cc_below), None)


def unsupported_reason(capability: str, branch: int, *, open_modules: bool = False) -> str | None:
    """Why driver ``branch`` (its major version) cannot drive a GPU of ``capability``, or None if it can (or the
    table does not know the GPU)."""
    gen = generation(capability)
    if gen is None:
        return None
    if gen.last_branch is not None and branch // BRANCH_SPAN * BRANCH_SPAN > gen.last_branch:
        return f"{gen.name} GPUs are supported only up to the {gen.last_branch}.xx driver branch, not {branch}"
    if gen.first_branch is not None and branch < gen.first_branch:
        return f"{gen.name} GPUs need the {gen.first_branch} driver branch or newer, not {branch}"
    return open_modules_unsupported(capability) if open_modules else None


def open_modules_unsupported(capability: str) -> str | None:
    """Why the open kernel modules cannot drive a GPU of ``capability`` (no GSP before Turing), or None."""
    gen = generation(capability)
    if gen is None or _cc(capability) >= _table()[1]:
        return None
    return f"the open kernel modules need a Turing or newer GPU (a GSP); {gen.name} GPUs need the proprietary module"


@cache
def _pci_ranges() -> tuple[tuple[int, int, str], ...]:
    raw = json.loads(resources.files("gpuassist.knowledge").joinpath("driver_branches.json").read_text("utf-8"))
    return tuple(
        (int(r["from"], 16), int(r["to"], 16), str(r["capability"])) for r in raw["pci_device_ranges"]["ranges"]
    )


def capability_from_pci_id(device_id: str) -> str | None:
    """The compute capability of an NVIDIA GPU by its PCI device id ("2684" -> "8.9"), for the id blocks that hold
    one generation only (driver_branches.json ``pci_device_ranges``); None elsewhere."""
    try:
        value = int(device_id, 16)
    except ValueError:
        return None
    return next((cc for low, high, cc in _pci_ranges() if low <= value <= high), None)
