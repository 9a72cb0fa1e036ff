"""Fabric Manager failing on a machine without NVSwitches is not a cause.

Fabric Manager only has work on NVSwitch systems (HGX/DGX); on a PCIe machine, even one with an NVLink bridge, it
exits with "request to query NVSwitch device information from NVSwitch driver failed with error:WARNING Nothing to
do [NV_WARN_NOTHING_TO_DO]" and systemd reports the unit failed. CUDA does not need it there, so the unit's failure
explains nothing (NVIDIA Fabric Manager User Guide: NVSwitch-based systems only; the message is nv-fabricmanager's
answer when the NVSwitch driver reports no device). CUDA's 802 "system not yet initialized" is NVSwitch-only too,
so with 802 in the same text the failure stays.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

NO_NVSWITCH = re.compile(r"NV_WARN_NOTHING_TO_DO|NVSwitch driver failed with error:\s*WARNING Nothing to do", re.I)
SYSTEM_NOT_READY = re.compile(r"system not yet initiali[sz]ed|SYSTEM_NOT_READY|SystemNotReady", re.I)


def fabric_manager_not_needed(lines: list[str], matches: list[Match]) -> list[Match]:
    """Drop the Fabric Manager reading when the text shows it found no NVSwitch and CUDA never said 802."""
    if not any(m.id == "fabric_manager_missing" for m in matches):
        return matches
    head = [line[:MAX_LINE] for line in lines[:5000]]
    if not any(NO_NVSWITCH.search(line) for line in head) or any(SYSTEM_NOT_READY.search(line) for line in head):
        return matches
    return [m for m in matches if m.id != "fabric_manager_missing"]
