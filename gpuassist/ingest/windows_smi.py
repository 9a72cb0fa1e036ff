"""nvidia-smi failing on Windows itself: the Windows driver is missing or broken, not a Linux module or WSL's path.

nvidia-smi's "couldn't communicate with the NVIDIA driver" is read, on Linux, as the kernel module not loaded and,
inside WSL, as WSL's GPU path. When the text shows the command run in a Windows shell (``C:\\...>nvidia-smi``,
``PS C:\\...> nvidia-smi``, ``nvidia-smi.exe``) or prints the Windows build's wording (the message's Windows-only
tail "... and NVIDIA GPU is in WDDM mode": WDDM/TCC are Windows driver models, the Linux build has no such hint), the
failing program ran on Windows, where there is no kernel module to load and WSL is not involved: the Windows NVIDIA
driver is not installed or not running (a removed driver, an unfinished headless install). A text that also
mentions WSL keeps that reading for the line run in Windows; the same message under a Linux or WSL prompt is left to
the readers before.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.report.model import Report

# A Windows shell prompt (cmd.exe "C:\dir>", PowerShell "PS C:\dir>") running nvidia-smi, by name or full path.
WINDOWS_SMI_CALL = re.compile(
    r"^\s*(?:PS\s+)?[A-Za-z]:\\[^>\n]{0,200}>\s*(?:&\s*)?[\"']?(?:[A-Za-z]:\\[^\"'\n]{0,200}\\)?nvidia-smi(?:\.exe)?\b",
    re.IGNORECASE,
)
# Any shell prompt line (Linux, WSL or Windows): the command it runs is what the lines after it print.
ANY_PROMPT = re.compile(r"^\s*(?:\([\w.-]+\)\s*)?(?:[\w.@:~/-]*[$#]\s+\S|(?:PS\s+)?[A-Za-z]:\\[^>\n]{0,200}>\s*\S)")
# The Windows build of nvidia-smi's message ends with a hint about Windows' driver models.
WINDOWS_SMI_FORM = re.compile(r"\bNVIDIA GPU is in WDDM mode\b", re.IGNORECASE)
# nvidia-smi's cannot-reach-the-driver message, quoted or retold.
CANNOT_REACH = re.compile(r"couldn'?t communicate with (?:the )?NVIDIA driver|NVIDIA-SMI has failed", re.IGNORECASE)

# Readings that assume a Linux kernel module or WSL's path: neither exists for a program run on Windows itself.
NOT_ON_WINDOWS = frozenset({"nvidia_module_not_loaded", "wsl_libcuda_problem", "uvm_wedged_after_suspend"})
# How far below its command an output line may be (the message follows its prompt within a few lines).
OUTPUT_REACH = 4


def run_on_windows(lines: list[str], line_no: int) -> bool:
    """The message on ``line_no`` (1-based) was printed by nvidia-smi run on Windows: its own Windows-only wording,
    or the nearest prompt above it (within OUTPUT_REACH lines) is a Windows shell running nvidia-smi."""
    line = lines[line_no - 1][:2000]
    if WINDOWS_SMI_FORM.search(line) or WINDOWS_SMI_CALL.search(line):
        return True
    for back in range(line_no - 2, max(line_no - 2 - OUTPUT_REACH, -1), -1):
        above = lines[back][:2000]
        if ANY_PROMPT.search(above):
            return bool(WINDOWS_SMI_CALL.search(above))
    return False


def windows_smi_no_driver(lines: list[str], matches: list[Match]) -> list[Match]:
    """A Linux-module or WSL reading of nvidia-smi's cannot-reach-the-driver message, printed by nvidia-smi run on
    Windows itself, becomes "no NVIDIA driver" (the Windows driver is missing or not running)."""
    on_windows = {
        m.line_no
        for m in matches
        if m.id in NOT_ON_WINDOWS and CANNOT_REACH.search(m.line) and run_on_windows(lines, m.line_no)
    }
    if not on_windows:
        return matches
    out: list[Match] = []
    for m in matches:
        if m.line_no in on_windows and m.id in NOT_ON_WINDOWS:
            if not any(o.id == "no_nvidia_driver" and o.line_no == m.line_no for o in out):
                out.append(Match("no_nvidia_driver", m.line_no, m.line, m.specific, m.weight))
        else:
            out.append(m)
    return out


# The Windows driver comes from NVIDIA's (or the laptop maker's) Windows installer, not a Linux package; WSL uses it.
WINDOWS_DRIVER_FIX = (
    "Install the NVIDIA driver for Windows for this GPU (nvidia.com/Download, or the laptop maker's driver page for a "
    "laptop), choosing the installer's clean installation, and reboot Windows. Nothing is installed inside WSL: WSL 2 "
    "uses this Windows driver."
)
WINDOWS_DRIVER_CONFIRM = (
    "the GPU and a driver version are listed when nvidia-smi runs in PowerShell, and Device Manager shows the GPU "
    "under Display adapters without a warning sign"
)


def windows_driver_fix(report: Report, lines: list[str]) -> None:
    """When the text shows nvidia-smi failing on Windows itself, the missing driver's fix is the Windows installer,
    not a Linux distribution's package."""
    if not any(
        CANNOT_REACH.search(line[:2000]) and run_on_windows(lines, no) for no, line in enumerate(lines, start=1)
    ):
        return
    for found in report.findings:
        if found.id == "no_nvidia_driver":
            found.fix = f"{WINDOWS_DRIVER_FIX}\nTo confirm: {WINDOWS_DRIVER_CONFIRM}"
