"""NVIDIA Xid events in the kernel log since boot (``kernel.xid_events``).

An Xid is the driver's own report of a GPU fault (``NVRM: Xid (PCI:0000:3b:00): 79, pid=…, GPU has fallen
off the bus``): 48/63/64/94/95 are ECC and row-remapping events, 79 a GPU that left the bus, 13/31/43
faults of a program, 119/120 GSP firmware. One node with Xids among quiet peers is the node to drain, so
the fleet view compares them. Read with ``dmesg`` (util-linux; root or ``kernel.dmesg_restrict=0``),
asked only when an NVIDIA GPU is on the PCI bus, with a short timeout; only Xid lines are kept, counted
per (Xid, PCI address), with the last message of each.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from gpuassist.collect.base import HostContext
from gpuassist.facts import NotCollected

KEYS = ("kernel.xid_events",)
DMESG_TIMEOUT = 3.0
MAX_MESSAGE = 200
XID_LINE = re.compile(r"NVRM: Xid \(PCI:([0-9A-Fa-f:.]{4,32})\): (\d{1,4})\b,?\s?(.{0,400})")


def collect(ctx: HostContext, out: dict[str, Any], facts: Mapping[str, Any]) -> None:
    if not ctx.linux:
        out["kernel.xid_events"] = ctx.not_applicable()
        return
    gpus = facts.get("pci.nvidia_gpu_count")
    if not isinstance(gpus, int) or gpus == 0:
        out["kernel.xid_events"] = None  # no NVIDIA GPU on the bus: nothing could have logged one
        return
    out["kernel.xid_events"] = xid_events(ctx)


def xid_events(ctx: HostContext) -> list[dict[str, Any]] | NotCollected:
    res = ctx.run(["dmesg", "--kernel", "--notime"], timeout=DMESG_TIMEOUT)
    if res.status == "not_found":
        return NotCollected("dmesg not found")
    if res.status == "timeout":
        return NotCollected(f"dmesg did not answer within {DMESG_TIMEOUT:g} s")
    if res.returncode != 0:
        first = (res.stderr.strip().splitlines() or ["no message"])[0][:160]
        return NotCollected(f"the kernel log is not readable (needs root or kernel.dmesg_restrict=0): {first}")
    return parse_xids(res.stdout)


def parse_xids(text: str) -> list[dict[str, Any]]:
    """``[{xid, pci, count, last}]`` ordered by Xid then PCI address (``[]``: none since boot)."""
    seen: dict[tuple[int, str], dict[str, Any]] = {}
    for line in text.splitlines():
        if "NVRM: Xid" not in line:
            continue
        m = XID_LINE.search(line)
        if m is None:
            continue
        key = (int(m.group(2)), m.group(1).lower())
        entry = seen.setdefault(key, {"xid": key[0], "pci": key[1], "count": 0, "last": ""})
        entry["count"] += 1
        entry["last"] = m.group(3).strip()[:MAX_MESSAGE]
    return [seen[k] for k in sorted(seen)]
