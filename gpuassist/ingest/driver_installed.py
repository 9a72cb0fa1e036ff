"""The text shows the NVIDIA driver installed: "no driver installed" is not a reading of its failures.

nvidia-smi's "couldn't communicate with the NVIDIA driver", torch's "Found no NVIDIA driver" and the user's "nvidia-smi
does not work" are read, among other things, as no driver being installed (no_nvidia_driver, a guess). A text that
shows the driver's own files or packages on the machine, or says that it worked before, rules that reading out: what
is left is the module not loaded or not built for the running kernel, the other readings of the same lines. Forms,
from the tools that print them:

- the kernel module file: a path ending in nvidia.ko (``find``/``ls`` output, ``modinfo nvidia``'s ``filename:``
  field, the runfile's "Unable to load the kernel module 'nvidia.ko'", modules kept outside /lib/modules as
  coreos-gpu-installer and similar containerised installers do, /opt/nvidia/.../nvidia.ko); ``modinfo``'s
  ``version:`` line beside it (kmod's modinfo prints filename, version, ... fields);
- ``dkms status`` naming an nvidia module (dell/dkms: added, built, installed);
- the runfile installer's last line, "Installation of the NVIDIA Accelerated Graphics Driver for Linux-<arch>
  (version: N) is now complete." (NVIDIA's nvidia-installer);
- a package manager listing an installed driver package (``dpkg -l``'s "ii  nvidia-driver-535", "ii  nvidia-dkms-…",
  "ii  nvidia-kernel-…"; ``rpm -qa``/dnf's "kmod-nvidia-…", "akmod-nvidia-…", "xorg-x11-drv-nvidia-…");
- nvidia-smi answering: its table or header (cuda_working.smi_answered), ``nvidia-smi -L``'s "GPU 0: <name> (UUID:
  GPU-…)" and a ``--query-gpu=… --format=csv`` row with a GPU's UUID or its model and driver version: only the
  driver prints these, so "nvidia-smi is not recognized" elsewhere in the same text is that program's PATH (an old
  gpustat shelling out to it), not a missing driver;
- the user's own words that the driver is installed or that nvidia-smi / the driver worked before ("no longer works",
  "does not work anymore", "stopped working", "worked before the reboot", "was working until"). nvidia-smi's own
  "Make sure that the latest NVIDIA driver is installed and running" is its advice, not a statement, and does not
  count.

Only the guess is dropped: a line that names the cause outright (a specific match) is kept, and the other readings
(module not loaded, a kernel update, Secure Boot) decide.
"""

from __future__ import annotations

import re

from gpuassist.ingest.cuda_working import smi_answered
from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

NO_DRIVER = "no_nvidia_driver"

DRIVER_FILES = re.compile(
    r"(?:^|[\s/'\"`=:])nvidia\.ko(?:\.[gx]z|\.zst)?\b|"
    r"^\W*nvidia[\w-]*(?:/|,\s*)\d+(?:\.\d+)+(?:,\s*[^,\s]+,\s*[\w-]+)?:\s*(?:installed|built|added)\b|"
    r"Installation of the NVIDIA Accelerated Graphics Driver for Linux\S* \(version: [\d.]+\) is now complete|"
    r"^\s*ii\s+(?:nvidia-(?:driver|dkms|kernel-(?:common|source|open))|libnvidia-compute)-\d{3}\b|"
    r"^\s*(?:a?kmod-nvidia|xorg-x11-drv-nvidia(?:-cuda)?|nvidia-driver(?:-cuda)?)-\d{3}\.\d+",
    re.IGNORECASE,
)
# nvidia-smi's own advice line: not the user saying the driver is installed.
SMI_ADVICE = re.compile(r"Make sure that the latest NVIDIA driver is installed", re.IGNORECASE)
SAYS_INSTALLED = re.compile(
    r"\b(?:the|nvidia(?:'s)?|gpu|my)\s+drivers?\s+(?:is|are|was|were|has been|have been)\s+"
    r"(?:already\s+|properly\s+|correctly\s+|successfully\s+)?installed\b",
    re.IGNORECASE,
)
WORKED_BEFORE = re.compile(
    r"\b(?:nvidia-smi|drivers?|gpus?|cuda)\b[^.\n]{0,60}?(?:\b(?:does not|doesn'?t|did not|didn'?t|is not|isn'?t)"
    r"\s+work(?:ing)?\s+any\s?more\b|\bno longer (?:works?|working|runs?)\b|\bstopped working\b|"
    r"\b(?:worked|(?:was|were) working) (?:fine |well |perfectly )?(?:before|until|yesterday|previously)\b)",
    re.IGNORECASE,
)


# nvidia-smi's answers other than its table: `nvidia-smi -L` ("GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-…)") and
# `--query-gpu=... --format=csv[,noheader]` rows: one with a GPU UUID (the index,uuid,... form), or a model name
# followed by a driver version (name,driver_version: R300 and later, not a benchmark's "RTX 4090, 165.32").
# nvidia-smi's Windows and Linux builds print the same forms.
SMI_UUID = r"GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
SMI_LISTED = re.compile(
    rf"^\s*GPU \d+: [^()\n]+\(UUID: {SMI_UUID}\)|^\s*(?:\d+\s*,\s*)?{SMI_UUID}\s*,|"
    r"^\s*(?:\d+\s*,\s*)?(?:NVIDIA\s+)?(?:GeForce|Quadro|Tesla|TITAN|RTX)\b[^,\n]*,\s*[3-9]\d{2}\.\d{2,3}(?:\.\d{2})?\s*(?:,|$)",
    re.IGNORECASE,
)


def driver_shown_installed(lines: list[str]) -> bool:
    """The text shows the driver's files or packages on the machine, or the user says it is installed or worked."""
    for line in lines[:5000]:
        text = line[:MAX_LINE]
        if DRIVER_FILES.search(text) or WORKED_BEFORE.search(text) or smi_answered(text) or SMI_LISTED.search(text):
            return True
        if SAYS_INSTALLED.search(text) and not SMI_ADVICE.search(text):
            return True
    return False


def installed_driver_rules_out_absence(lines: list[str], matches: list[Match]) -> list[Match]:
    """Drop the "no driver installed" guess when the text shows the driver installed."""
    if not any(m.id == NO_DRIVER and not m.specific for m in matches):
        return matches
    if not driver_shown_installed(lines):
        return matches
    return [m for m in matches if m.specific or m.id != NO_DRIVER]
