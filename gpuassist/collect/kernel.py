"""Kernel side of the driver (``kernel.*``): loaded modules, module version, Secure Boot, nouveau blacklist.

These separate "driver installed but its module is not loaded" (nouveau holding the card, Secure Boot
refusing an unsigned module) from "no driver at all".
"""

from __future__ import annotations

import re
from typing import Any

from gpuassist.collect.base import HostContext, read, strip_or_none
from gpuassist.facts import NotCollected

KEYS = (
    "kernel.modules",
    "kernel.modules_source",
    "kernel.nvidia_module_version",
    "kernel.secure_boot",
    "kernel.nouveau_blacklisted",
    "kernel.nouveau_blacklisted_by",
)

MODULES_OF_INTEREST = ("nvidia", "nvidia_uvm", "nvidia_drm", "nvidia_modeset", "nvidia_peermem", "nouveau", "amdgpu")
EFI_DIR = "/sys/firmware/efi"
SECURE_BOOT_VAR = "SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"
MODPROBE_DIRS = (
    "/etc/modprobe.d",
    "/run/modprobe.d",
    "/lib/modprobe.d",
    "/usr/lib/modprobe.d",
    "/usr/local/lib/modprobe.d",
)
_BLACKLIST_LINE = re.compile(r"^\s*(?:blacklist\s+nouveau\b|install\s+nouveau\s+/bin/(?:false|true)\b)")
_CMDLINE_BLACKLIST = re.compile(r"(?:^|\s)(?:module_blacklist|modprobe\.blacklist)=\S*\bnouveau\b")


def collect(ctx: HostContext, out: dict[str, Any]) -> None:
    if not ctx.linux:
        for key in KEYS:
            out[key] = ctx.not_applicable()
        return
    out["kernel.modules"], out["kernel.modules_source"] = loaded_modules(ctx)
    out["kernel.nvidia_module_version"] = strip_or_none(read(ctx.fs, "/sys/module/nvidia/version"))
    out["kernel.secure_boot"] = secure_boot(ctx)
    out["kernel.nouveau_blacklisted_by"] = nouveau_blacklisted_by(ctx)
    out["kernel.nouveau_blacklisted"] = bool(out["kernel.nouveau_blacklisted_by"])


def loaded_modules(ctx: HostContext) -> tuple[list[str] | NotCollected, str | None]:
    """Modules of interest that are loaded, and where that was read (``proc`` or ``sysfs``).

    ``/proc/modules`` is the source of truth; where it is missing (module-less kernels, some sandboxes)
    ``/sys/module/<name>`` still exists for every loaded module, so an absent directory still proves
    "not loaded".
    """
    text = read(ctx.fs, "/proc/modules")
    if isinstance(text, str):
        names = {line.split(None, 1)[0] for line in text.splitlines() if line.strip()}
        return [m for m in MODULES_OF_INTEREST if m in names], "proc"
    if ctx.fs.listdir("/sys/module"):
        return [m for m in MODULES_OF_INTEREST if ctx.fs.exists(f"/sys/module/{m}")], "sysfs"
    reason = text if isinstance(text, NotCollected) else NotCollected("neither /proc/modules nor /sys/module")
    return reason, None


def secure_boot(ctx: HostContext) -> bool | NotCollected | None:
    """Secure Boot state from the EFI variable: 4 attribute bytes then one data byte (1 = enabled)."""
    if not ctx.fs.exists(EFI_DIR):
        return None  # legacy BIOS boot: there is no Secure Boot
    for path in (f"{EFI_DIR}/efivars/{SECURE_BOOT_VAR}", f"{EFI_DIR}/vars/{SECURE_BOOT_VAR}/data"):
        data = ctx.fs.read_text(path, limit=64)
        if data:
            return ord(data[-1]) == 1
    return NotCollected("EFI system but the SecureBoot variable is not readable (efivarfs not mounted?)")


def nouveau_blacklisted_by(ctx: HostContext) -> list[str]:
    """Files (or the kernel command line) that keep nouveau from loading."""
    found: list[str] = []
    for directory in MODPROBE_DIRS:
        for name in ctx.fs.listdir(directory):
            if not name.endswith(".conf"):
                continue
            path = f"{directory}/{name}"
            text = ctx.fs.read_text(path) or ""
            if any(_BLACKLIST_LINE.match(line) for line in text.splitlines()):
                found.append(path)
    if _CMDLINE_BLACKLIST.search(ctx.fs.read_text("/proc/cmdline") or ""):
        found.append("/proc/cmdline")
    return found
