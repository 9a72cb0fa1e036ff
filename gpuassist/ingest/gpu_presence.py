"""Whether the machine has an NVIDIA GPU at all, as the text shows it (lspci, a hardware list, the user saying it
runs on the CPU): no GPU explains the driver and CUDA errors after it, and makes a CPU build the right one."""

from __future__ import annotations

import re

from gpuassist.ingest import errors
from gpuassist.ingest.igpu_only import NOUVEAU_PROBE
from gpuassist.report.model import Report

# lspci's display devices: a machine or VM whose only display adapters are not NVIDIA has no NVIDIA GPU to use.
LSPCI_DISPLAY = re.compile(
    r"^[`'\s]*(?:[0-9a-f]{4}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]\s+(?:VGA compatible controller|"
    r"3D controller|Display controller)\b[^:]*:\s*(?P<device>.+)",
    re.IGNORECASE,
)


VIRTUAL_DISPLAY = re.compile(
    r"VMware SVGA|VirtualBox|QXL|Cirrus Logic|Virtio|Hyper-V|bochs|Red Hat, Inc\. Virtio", re.IGNORECASE
)


# The user says the machine has no GPU or that they run on the CPU: "Found no NVIDIA driver" then means no GPU.
CPU_MACHINE = re.compile(
    r"\b(?:i am|i'm|we are|we're|while|when|i was)\s+(?:using|running on|running it on|on)\s+"
    r"(?:the\s+|a\s+|my\s+)?cpu\b|"
    r"\bwithout (?:a |any )?(?:nvidia )?gpus?\b|\b(?:has|have) no (?:nvidia )?gpus?\b|"
    r"\bcpu[- ]only (?:machine|server|computer|laptop|environment|instance|node|vm)s?\b|"
    r"(?:使用|用)的?是\s*cpu|没有(?:独立)?(?:显卡|gpu)",
    re.IGNORECASE,
)


def display_devices_match(lines: list[str]) -> errors.Match | None:
    """lspci lists display adapters and none is NVIDIA: no NVIDIA GPU here. Certain for a VM's virtual adapter;
    a guess otherwise (a `grep VGA` can hide a laptop's NVIDIA "3D controller")."""
    shown = [(no, line) for no, line in enumerate(lines, start=1) if LSPCI_DISPLAY.match(line[:2000])]
    if not shown or any("nvidia" in line.lower() for _, line in shown):
        return None
    no, line = shown[0]
    virtual = all(VIRTUAL_DISPLAY.search(line) for _, line in shown)
    return errors.Match("no_nvidia_gpu", no, line.strip()[:500], False, 0.9 if virtual else 0.5)


# A hardware list the user typed or copied (GNOME's About page, neofetch, dxdiag, an issue template) stating the
# machine's graphics: "Graphics  Mesa Intel® Xe Graphics (TGL GT2)", "GPU: AMD Radeon Vega 8", "Card name: Intel UHD".
STATED_GRAPHICS = re.compile(
    r"^\s*(?:[-*\u2022]\s*)?(?:graphics(?: card| adapter)?|gpus?|video(?: card| adapter| controller)?|"
    r"display(?: adapter)?s?|card name)\b\s*[:=]?\s+(?!devices?\s*$)(?P<value>\S.*)$",  # not dxdiag's "Display Devices"
    re.IGNORECASE,
)


NON_NVIDIA_GRAPHICS = re.compile(
    r"\b(?:intel|amd|radeon|mesa|llvmpipe|iris|uhd graphics|hd graphics|apple m\d|adreno|mali|matrox|aspeed)\b",
    re.IGNORECASE,
)


# An NVIDIA GPU named anywhere (a model, lspci's vendor string): then a non-NVIDIA adapter is not the only one.
NVIDIA_GPU_NAMED = re.compile(
    r"\b(?:geforce|quadro|tesla|titan|rtx|gtx|jetson|tegra)\b|\bnvidia (?:corporation|[ahlptvk]\d{1,3}|a\d{4})\b|"
    r"\b10de:|\brocm\b|\bhip\b|" + NOUVEAU_PROBE,
    re.IGNORECASE,
)


def stated_graphics_match(lines: list[str], report: Report) -> errors.Match | None:
    """The user's own hardware list states the machine's graphics, it names only an Intel / AMD / Apple adapter, and
    nothing in the text names an NVIDIA GPU (no model, no nvidia-smi, no driver version): there is no NVIDIA GPU to
    use, which explains every CUDA or container GPU error after it."""
    if (
        report.facts.known("driver.version")
        or report.facts.known("reported.gpus")
        or report.facts.value("host.os") == "Darwin"  # a Mac's answer is MPS, its own finding
    ):
        return None
    stated = [
        (no, line)
        for no, line in enumerate(lines, start=1)
        if (m := STATED_GRAPHICS.match(line[:2000])) and len(m.group("value")) <= 200
    ]
    if not stated or not all(NON_NVIDIA_GRAPHICS.search(line) and "nvidia" not in line.lower() for _, line in stated):
        return None
    if any(NVIDIA_GPU_NAMED.search(line[:2000]) for line in lines):
        return None
    no, line = stated[0]
    return errors.Match("no_nvidia_gpu", no, line.strip()[:500], True, 0.8)


# What a machine without an NVIDIA GPU shows when asked for one: the container runtime finds no GPU to select, CUDA
# finds no driver, libcuda is missing. None of these is a separate cause there.
# A CPU build of torch is right for such a machine: a CUDA build would not help. The CUDA runtime reports a missing
# driver library as cudaErrorInsufficientDriver ("CUDA driver version is insufficient for CUDA runtime version"), so
# that message is no old driver there either.
NO_GPU_CONSEQUENCES = (
    "docker_no_gpu_runtime",
    "driver_too_old",
    "no_nvidia_driver",
    "nvidia_module_not_loaded",
    "wsl_libcuda_problem",
    "cpu_only_build",
)


def no_gpu_explains(matches: list[errors.Match]) -> list[errors.Match]:
    """The text establishes that the machine has no NVIDIA GPU (a specific statement, not a guess): the GPU-access
    errors after it are its consequences, and their fixes (install the container toolkit, a driver) would not help."""
    if not any(m.id == "no_nvidia_gpu" and m.specific for m in matches):
        return matches
    return [m for m in matches if m.id not in NO_GPU_CONSEQUENCES]


def cpu_build_wanted(lines: list[str], matches: list[errors.Match]) -> list[errors.Match]:
    """A CPU build read only as a guess (an install request for it: cpuonly, the /whl/cpu index) is no cause where
    the text says the machine has no GPU: the CPU build is then what the user meant to install."""
    if not any(m.id == "cpu_only_build" and not m.specific for m in matches):
        return matches
    # torch.load's own hint ("If you are running on a CPU-only machine, please use torch.load with map_location")
    # is not the user saying so.
    said = (line[:2000] for line in lines if "map_location" not in line)
    if not any(CPU_MACHINE.search(line) for line in said):
        return matches
    return [m for m in matches if not (m.id == "cpu_only_build" and not m.specific)]


def cpu_machine_match(lines: list[str], matches: list[errors.Match]) -> errors.Match | None:
    """ "Found no NVIDIA driver" and the user says they are on the CPU / have no GPU: no GPU is the likeliest cause."""
    if not any(m.id == "no_nvidia_driver" and not m.specific for m in matches):
        return None
    said = next(((no, line) for no, line in enumerate(lines, start=1) if CPU_MACHINE.search(line[:2000])), None)
    if said is None:
        return None
    return errors.Match("no_nvidia_gpu", said[0], said[1].strip()[:500], False, 0.8)
