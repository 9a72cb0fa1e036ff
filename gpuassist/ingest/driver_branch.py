"""A driver branch that cannot drive the GPU the text names, read from the versions and GPU names the text states.

People paste what they installed (``nvidia-driver-550``, ``NVIDIA-Linux-x86_64-595.58.03.run``, the kernel's
"loading NVIDIA UNIX ... Kernel Module 535.129.03") and name their GPU ("GeForce GT 710", "GTX 1050"), often without
the kernel's own refusal. When the GPU is out of every named branch's range (knowledge/driver_branches.json: Kepler
after 470, Maxwell/Pascal/Volta after 580, a new generation before its first branch, the open modules on a GPU
without a GSP) and the text shows the GPU unreachable, the driver not supporting the GPU is the cause.
"""

from __future__ import annotations

import re

from gpuassist.ingest.cuda_working import smi_answered
from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.knowledge.driver_support import (
    capability_from_pci_id,
    generation,
    open_modules_unsupported,
    unsupported_reason,
)
from gpuassist.knowledge.wheels import capability_from_name

# Where a text states the installed driver's version: package names (nvidia-driver-535, nvidia-dkms-550-open,
# nvidia-535, nvidia-430.14_2), the runfile (also the CUDA toolkit's, cuda_12.2.0_535.54.03_linux.run, which installs
# its driver), apt's cuda-drivers-535, the kernel's module line, "driver 535.104.05", "the 535.xx series
# drivers", "NVIDIA 535 driver". A branch named as a legacy series ("470.xx Legacy drivers") is the kernel's advice,
# not what is installed.
_BRANCH = r"([3-6]\d\d)"
DRIVER_VERSION = re.compile(
    r"\bnvidia[-_](?:driver[-_]|dkms[-_]|utils[-_]|headless[-_]|compute[-_]utils[-_]|"
    r"kernel[-_](?:source|common|modules)[-_]|graphics[-_]drivers[-_])?" + _BRANCH + r"(?![\d.])|"
    r"\bnvidia[-_ ](?:open[-_ ])?" + _BRANCH + r"\.\d{2,3}\b|"
    r"\bNVIDIA-Linux-\w+-" + _BRANCH + r"\.\d{2,3}|"
    r"\bcuda_\d+\.\d+\.\d+_" + _BRANCH + r"\.\d{2,3}(?:\.\d+)?_linux|\bcuda-drivers-" + _BRANCH + r"\b|"
    r"Kernel Module(?:\s+for\s+\w+)?\s+" + _BRANCH + r"\.\d{2,3}|"
    r"\bdrivers?(?:\s+version)?\s+" + _BRANCH + r"\.\d{2,3}\b|"
    r"\bNVIDIA\s+" + _BRANCH + r"\.\d{2,3}(?:\.\d+)?\s+(?:Linux\s+)?(?:graphics\s+)?driver\b|"
    r"\b(?:NVIDIA\s+)?" + _BRANCH + r"(?:\.xx|\.\d{2,3}(?:\.\d+)?)?\s+(?:series\s+)?(?:NVIDIA\s+)?drivers?\b",
    re.IGNORECASE,
)
# The open kernel modules named as what is installed or loaded.
OPEN_MODULES = re.compile(
    r"\bnvidia-open\b|\bnvidia-(?:driver|dkms)-\d{3}-open\b|\bnvidia-open-dkms\b|\bnvidia-kernel-open\b|"
    r"\bkmod-nvidia-open\b|-m=kernel-open\b|\bNVIDIA UNIX Open Kernel Module\b",
    re.IGNORECASE,
)
# nvidia-smi's table header (cuda_working.smi_answered): the driver answered, so the GPU it lists is driven. A Jetson
# has no such table but its GPU is driven by L4T.
JETSON = re.compile(r"\bjetson\b|\btegra\b|\bL4T\b|\bjetpack\b", re.IGNORECASE)
# The user's words that the driver refuses the GPU: "not supported by the 535.xx series drivers", "the driver
# ignores this GPU", "535 is incompatible with the GTX 760".
SAYS_UNSUPPORTED = re.compile(
    r"\bnot (?:supported|compatible) (?:by|with) (?:the\s+)?(?:NVIDIA\s+)?(?:[3-6]\d\d|drivers?|current driver)|"
    r"\bignor(?:e|es|ed|ing) (?:the|this|my) (?:GPU|card)\b|"
    r"\bincompatible with (?:the|my|this) (?:GPU|card|GeForce|GTX|GT)\b",
    re.IGNORECASE,
)
# lshw's node of a device no kernel driver claimed ("*-display UNCLAIMED", "*-3d UNCLAIMED"; lshw prints UNCLAIMED for a
# node without a bound driver): the GPU is there and nothing drives it.
LSHW_UNCLAIMED = re.compile(r"\*-(?:display|3d|generic|vga)(?::\d+)?\s+UNCLAIMED\b", re.IGNORECASE)
# What the text shows of a GPU the driver cannot reach (the readings the generic messages allow).
UNREACHABLE_IDS = ("nvidia_module_not_loaded", "no_nvidia_gpu", "no_nvidia_driver", "driver_does_not_support_gpu")


# lspci's line for an NVIDIA display device that its pci.ids database does not name ("NVIDIA Corporation Device 2684",
# with -nn "NVIDIA Corporation Device [10de:2684]"): the device id is all the text shows of a GPU newer than the
# database, and the id block tells its generation (driver_branches.json pci_device_ranges).
LSPCI_UNNAMED = re.compile(
    r"(?:VGA compatible controller|3D controller|Display controller)(?: \[03\d\d\])?:\s*NVIDIA Corporation Device "
    r"(?:\[10de:)?([0-9a-f]{4})\b",
    re.IGNORECASE,
)


def _named_capabilities(lines: list[str]) -> set[str]:
    caps = set()
    for line in lines[:5000]:
        cc = capability_from_name(line[:MAX_LINE])
        if cc is None and (unnamed := LSPCI_UNNAMED.search(line[:MAX_LINE])):
            cc = capability_from_pci_id(unnamed.group(1))
        if cc is not None and generation(cc) is not None:
            caps.add(cc)
    return caps


def _gpu_and_branches(lines: list[str]) -> tuple[str, list[tuple[int, str, int]], tuple[int, str] | None] | None:
    """The one GPU generation the text names (its capability), the driver branches it names (line number, line,
    branch) and the line naming the open kernel modules; None where no single discrete GPU generation is named, or
    the text is about a Jetson or shows nvidia-smi working."""
    head = [line[:MAX_LINE] for line in lines[:5000]]
    if any(smi_answered(line) or JETSON.search(line) for line in head):
        return None
    caps = _named_capabilities(lines)
    if len({generation(cc) for cc in caps}) != 1:
        return None  # no GPU named, or several generations: which one is this machine's cannot be told
    named = [
        (no, line, int(next(g for g in m.groups() if g)))
        for no, line in enumerate(head, start=1)
        for m in DRIVER_VERSION.finditer(line)
    ]
    open_line = next(((no, line) for no, line in enumerate(head, start=1) if OPEN_MODULES.search(line)), None)
    return next(iter(caps)), named, open_line


def unsupported_branch_match(lines: list[str], matches: list[Match], *, unreachable: bool) -> Match | None:
    """Every driver branch the text names is out of the range of the one GPU generation it names, and the GPU is
    unreachable (``unreachable``: the user says so; or a match reads that way): the driver does not support it."""
    if not (
        unreachable
        or any(m.id in UNREACHABLE_IDS for m in matches)
        or any(SAYS_UNSUPPORTED.search(line[:MAX_LINE]) for line in lines[:5000])
        or any(LSHW_UNCLAIMED.search(line[:MAX_LINE]) for line in lines[:5000])
    ):
        return None
    if any(m.id == "driver_does_not_support_gpu" and m.specific for m in matches):
        return None  # the kernel said so itself
    found = _gpu_and_branches(lines)
    if found is None:
        return None
    cc, named, open_line = found
    if not named:
        reason = open_modules_unsupported(cc) if open_line is not None else None
        if open_line is None or reason is None:
            return None
        return Match("driver_does_not_support_gpu", open_line[0], f"{open_line[1].strip()[:400]} [{reason}]", True, 0.9)
    reasons = [unsupported_reason(cc, branch, open_modules=open_line is not None) for _no, _line, branch in named]
    if not all(reasons):
        return None  # one of the drivers named supports the GPU
    no, line, _branch = named[0]
    return Match("driver_does_not_support_gpu", no, f"{line.strip()[:400]} [{reasons[0]}]", True, 0.9)


def supported_branch_rules_out(lines: list[str], matches: list[Match]) -> list[Match]:
    """Every driver branch the text names drives the GPU it names (the proprietary module, or the open one on a GPU
    with a GSP): "the driver does not support this GPU", a guess generic messages allow, is ruled out."""
    if not any(m.id == "driver_does_not_support_gpu" and not m.specific for m in matches):
        return matches
    found = _gpu_and_branches(lines)
    if found is None or not found[1]:
        return matches
    cc, named, open_line = found
    if any(unsupported_reason(cc, branch, open_modules=open_line is not None) for _no, _line, branch in named):
        return matches
    return [m for m in matches if not (m.id == "driver_does_not_support_gpu" and not m.specific)]
