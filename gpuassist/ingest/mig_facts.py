"""MIG (Multi-Instance GPU) state read from a paste, in every form NVIDIA's tools print it, so the MIG rule
(rules/visibility.py) can decide from a paste as it does from NVML.

Forms (nvidia-smi documentation, "MIG User Guide" https://docs.nvidia.com/datacenter/tesla/mig-user-guide/):
- the table: a GPU's third line ends in the "MIG M." cell ("Enabled"/"Disabled"/"N/A"), and a "MIG devices:" table;
- ``nvidia-smi -q``: a "MIG Mode" section whose "Current" line says Enabled/Disabled;
- ``nvidia-smi -L`` and collect_env's GPU list: "MIG 3g.40gb Device 0: (UUID: MIG-...)" lines;
- the user's own words: "MIG enabled", "MIG mode", "MIG instances/slices/partitions", a profile name ("3g.40gb").
"""

from __future__ import annotations

import re
from typing import Any

from gpuassist.ingest.lines import MAX_LINE, note_source

# The table's third line of a GPU block: two empty cells, then the MIG M. cell.
SMI_MIG_CELL = re.compile(r"^\|\s*\|\s*\|\s*(Enabled|Disabled)\s*\|\s*$")
SMI_MIG_HEADER = re.compile(r"\bMIG M\.")
SMI_MIG_DEVICES = re.compile(r"^\|\s*MIG devices:")
Q_MIG_SECTION = re.compile(r"^\s*MIG Mode\s*$")
Q_CURRENT = re.compile(r"^\s*Current\s*:\s*(Enabled|Disabled|N/A)\s*$")
MIG_DEVICE = re.compile(r"^\s*MIG \d+g\.\d+gb\s+Device\s+\d+\s*:")
# The user's own words ("MIG" in capitals: "mig" is also a welding term and a German/Portuguese word).
MIG_WORDS = re.compile(
    r"\bMIG(?:[- ](?:mode|is (?:enabled|on|configured)|enabled|instances?|slices?|partition\w*|"
    r"config\w*|profiles?|devices?))\b|\b(?:configuration|config|partition\w*) (?:for|of|with) MIG\b|"
    r"\b(?:with|using|in) MIG\b|\b\d{1,2}g\.\d{1,3}gb\b"
)
DISABLED_WORDS = re.compile(r"\bMIG(?: mode)?:? (?:is )?(?:disabled|off|not enabled)\b", re.IGNORECASE)


def mig_facts(lines: list[str], sources: dict[str, tuple[int, str]]) -> dict[str, Any]:
    """``reported.mig_mode`` ("enabled"/"disabled") and ``reported.mig_devices`` (the listed MIG devices)."""
    facts: dict[str, Any] = {}
    devices: list[str] = []
    table = False
    in_q_section = False
    for no, raw in enumerate(lines, start=1):
        line = raw[:MAX_LINE]
        if SMI_MIG_HEADER.search(line):
            table = True
        cell = SMI_MIG_CELL.match(line) if table else None
        if cell and facts.get("reported.mig_mode") != "enabled":
            facts["reported.mig_mode"] = cell.group(1).lower()
            note_source(sources, "reported.mig_mode", no, line)
        if SMI_MIG_DEVICES.match(line):
            facts["reported.mig_mode"] = "enabled"
            note_source(sources, "reported.mig_mode", no, line)
        if Q_MIG_SECTION.match(line):
            in_q_section = True
            continue
        current = Q_CURRENT.match(line) if in_q_section else None
        in_q_section = False
        if current and current.group(1) != "N/A" and facts.get("reported.mig_mode") != "enabled":
            facts["reported.mig_mode"] = current.group(1).lower()
            note_source(sources, "reported.mig_mode", no, line)
        if MIG_DEVICE.match(line):
            devices.append(line.strip())
            note_source(sources, "reported.mig_devices", no, line)
            facts["reported.mig_mode"] = "enabled"
            note_source(sources, "reported.mig_mode", no, line)
    if devices:
        facts["reported.mig_devices"] = devices
    if "reported.mig_mode" not in facts and not any(DISABLED_WORDS.search(line[:MAX_LINE]) for line in lines):
        said = next(((no, line) for no, line in enumerate(lines, start=1) if MIG_WORDS.search(line[:MAX_LINE])), None)
        if said:
            facts["reported.mig_mode"] = "enabled"
            facts["reported.mig_said"] = True  # in words only: the rule wants a GPU missing from torch too
            note_source(sources, "reported.mig_mode", *said)
    return facts
