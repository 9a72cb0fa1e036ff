"""Why the NVIDIA kernel module is not running, read from what a text says about Secure Boot.

Under Secure Boot the kernel loads only modules signed by a key it trusts: a DKMS-built nvidia.ko signed with a
Machine Owner Key (MOK) that was never enrolled is refused, and nothing but the missing module shows it (nvidia-smi
cannot reach the driver, `lsmod | grep nvidia` is empty, at most a lockdown line in dmesg). Secure Boot being on is
not a fault by itself (signed modules load), and neither is an unenrolled key while the module runs, so either names
the cause only beside a sign that the module is not running. Sources: mokutil src/mokutil.c ('SecureBoot
enabled', '%s is not enrolled'), Linux security/lockdown/lockdown.c ('Kernel is locked down from %s; see man
kernel_lockdown.7', where %s is 'EFI Secure Boot mode') and drivers/firmware/efi/secureboot.c ('secureboot: Secure
boot enabled'), systemd's `bootctl status` ('Secure Boot: enabled').
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.ingest.user_words import SUSPEND_CONTEXT

# mokutil --sb-state, the kernel's boot lines, bootctl, and the user's words ("Secure Boot is enabled", "with secure
# boot on", "I enabled Secure Boot", "the driver can't load because of Secure Boot"). A question ("is Secure Boot
# enabled?") is not it.
SECURE_BOOT_ON = re.compile(
    r"^\W*SecureBoot enabled\b|Kernel is locked down from EFI Secure Boot|secureboot: Secure boot enabled|"
    r"Secure Boot:\s*enabled\b|"
    r"\bsecure[ -]?boot\b(?:\s+(?:is|was|being|mode|got|has been))?\s+(?:re-?enabled|enabled|on|turned on|active)\b"
    r"(?!\s*\?)|"
    r"\b(?:with|has|have)\s+secure[ -]?boot\s+(?:enabled|on|turned on)\b|"
    r"\b(?:re-?enabled|enabled|turned on|switched on)\s+(?:the\s+)?secure[ -]?boot\b|"
    r"\b(?:because of|due to|caused by|blocked by|prevented by)\s+(?:the\s+)?secure[ -]?boot\b",
    re.IGNORECASE,
)
# Secure Boot off as a state: mokutil's and bootctl's answers, or the user saying it is off. "Disabling Secure Boot
# fixed it" is not a state (it is the fix, and says it was on).
SECURE_BOOT_OFF = re.compile(
    r"^\W*SecureBoot disabled|SecureBoot validation is disabled|Secure Boot:\s*disabled|"
    r"secureboot: Secure boot disabled|"
    r"\bsecure[ -]?boot\b\s+(?:is|was)\s+(?:already\s+)?(?:disabled|off|turned off)\b",
    re.IGNORECASE,
)
# mokutil --test-key <key>: "<key> is not enrolled" (a MOK / DKMS signing key: .der, .pub, .crt, mok).
KEY_NOT_ENROLLED = re.compile(
    r"\S*(?:mok|\.der|\.pub|\.crt|\.cer|dkms)\S*\s+(?:reports?\s+)?is not enrolled\b|"
    r"--test-key\b.{0,80}\bnot enrolled\b",
    re.IGNORECASE,
)
# The user's account of the MOK enrolment not done: the blue MokManager screen ("Enroll MOK") skipped, never shown,
# or the key not enrolled. shim's MokManager asks for it on the first boot after `mokutil --import`.
MOK_SKIPPED = re.compile(
    r"\b(?:skipp\w*|miss(?:ed)?|ignor\w*|didn'?t|did not|never|without|forgot)\b[^.\n]{0,40}"
    r"\b(?:MOK|MokManager|Enroll MOK|key enrol+ment)\b|"
    r"\b(?:MOK|MokManager|Enroll MOK|enrol+ment\s+(?:window|screen|prompt|menu))\b[^.\n]{0,40}"
    r"\b(?:skipp\w*|never\s+(?:showed|appeared|came|shows)|(?:did|does|do)\s*n[o'’]?t\s+(?:show|appear|come)|"
    r"not\s+(?:shown|enrolled)|was\s+not\s+enrolled)",
    re.IGNORECASE,
)
# The user's words that lsmod shows no nvidia module: "`lsmod | grep nvidia` is empty / returns nothing".
LSMOD_EMPTY = re.compile(
    r"lsmod\s*\|\s*grep\s+(?:-i\s+)?nvidia\b[`'\"]?\s*(?:is|was|returns?|returned|shows?|showed|gives?|gave|prints?|"
    r"printed|outputs?)\s+(?:empty|nothing|no output|blank)",
    re.IGNORECASE,
)
NVIDIA = re.compile(r"nvidia", re.IGNORECASE)
# Causes the kernel names outright: when one is in the text, Secure Boot is not the reading.
OTHER_KERNEL_CAUSES = ("driver_does_not_support_gpu", "driver_library_mismatch", "gpu_xid_fault")


def _first(pattern: re.Pattern[str], lines: list[str]) -> tuple[int, str] | None:
    for i, line in enumerate(lines[:5000], start=1):
        if pattern.search(line[:MAX_LINE]):
            return i, line.strip()[:500]
    return None


def secure_boot_blocks_module(lines: list[str], matches: list[Match]) -> Match | None:
    """Secure Boot is on (or the module's signing key is not enrolled) and the NVIDIA module is not running: the kernel
    refused the module. A verdict for nvidia_module_not_loaded that cites the Secure Boot line."""
    if any(m.id in OTHER_KERNEL_CAUSES and m.specific for m in matches):
        return None
    if _first(SECURE_BOOT_OFF, lines) is not None:
        return None
    on = _first(SECURE_BOOT_ON, lines)
    not_enrolled = _first(KEY_NOT_ENROLLED, lines) or _first(MOK_SKIPPED, lines)
    if on is None and not_enrolled is None:
        return None
    if not any(NVIDIA.search(line[:MAX_LINE]) for line in lines[:5000]):
        return None
    module_down = _first(LSMOD_EMPTY, lines) is not None or any(m.id == "nvidia_module_not_loaded" for m in matches)
    if not module_down:
        return None
    cited = not_enrolled if not_enrolled is not None else on
    assert cited is not None
    return Match("nvidia_module_not_loaded", cited[0], cited[1], True, 0.9)


def lsmod_empty_match(lines: list[str]) -> Match | None:
    """The text says `lsmod | grep nvidia` printed nothing: the module is not running (a guess at why the GPU is not
    used: with no driver installed at all lsmod is empty too)."""
    found = _first(LSMOD_EMPTY, lines)
    return None if found is None else Match("nvidia_module_not_loaded", found[0], found[1], False, 0.7)


# `dkms status`: "nvidia/550.54.14, 6.8.0-45-generic, x86_64: installed" (dkms 3), "nvidia, 535.129.03,
# 6.5.0-14-generic, x86_64: installed" (dkms 2), "nvidia/550.54.14: added" (the source registered, built for no
# kernel). dkms.in's status states: added, built, installed (https://github.com/dell/dkms).
DKMS_STATUS = re.compile(
    r"^\W*nvidia[\w-]*(?:/|,\s*)(?P<version>\d+(?:\.\d+)+)(?:,\s*(?P<kernel>[^,\s]+),\s*[\w-]+)?:\s*"
    r"(?P<state>installed|built|added)\b",
    re.IGNORECASE,
)
# The running kernel: `uname -a` ("Linux host 6.8.0-45-generic #45-Ubuntu SMP"), the kernel's boot line ("Linux
# version 6.8.0-45-generic (buildd@...)"), hostnamectl/inxi/neofetch ("Kernel: Linux 6.8.0-45-generic"), or a bare
# release on the line after `uname -r`.
RUNNING_KERNEL = re.compile(
    r"\bLinux \S+ (?P<a>\d+\.\d+\.\d+\S*) #\d+|\bLinux version (?P<b>\d+\.\d+\.\d+\S*) \(|"
    r"^\W*Kernel\s*:\s*(?:Linux\s+)?(?P<c>\d+\.\d+\.\d+\S*)",
    re.IGNORECASE,
)
KERNEL_RELEASE = re.compile(r"^\s*(\d+\.\d+\.\d+[\w.+~-]*)\s*$")
UNAME_R = re.compile(r"\buname\s+-r\b")


def _running_kernel(lines: list[str]) -> str | None:
    for i, line in enumerate(lines[:5000]):
        m = RUNNING_KERNEL.search(line[:MAX_LINE])
        if m:
            return next(g for g in m.groups() if g)
        if UNAME_R.search(line[:MAX_LINE]) and i + 1 < len(lines):
            bare = KERNEL_RELEASE.match(lines[i + 1][:MAX_LINE])
            if bare:
                return bare.group(1)
    return None


def dkms_not_built_for_running_kernel(lines: list[str], matches: list[Match], *, unreachable: bool) -> Match | None:
    """`dkms status` lists the nvidia module but not installed for the kernel that runs (built only for other
    kernels, or only "added"), and the GPU is unreachable: the module was not built for this kernel (a kernel update
    the DKMS build did not follow)."""
    if not (unreachable or any(m.id in ("nvidia_module_not_loaded", "no_nvidia_driver") for m in matches)):
        return None
    rows = [
        (no, line.strip()[:400], m)
        for no, line in enumerate(lines[:5000], start=1)
        if (m := DKMS_STATUS.search(line[:MAX_LINE])) is not None
    ]
    if not rows:
        return None
    running = _running_kernel(lines)
    installed = [m.group("kernel") for _no, _line, m in rows if m.group("state").lower() in ("installed", "built")]
    if installed and running is None:
        return None  # built for some kernel; whether it is the running one cannot be told
    if running is not None and running in installed:
        return None
    no, line, _m = rows[0]
    why = (
        f"built for {', '.join(dict.fromkeys(k for k in installed if k))}, not the running {running}"
        if installed
        else "registered with DKMS but built for no kernel"
    )
    return Match("nvidia_module_not_loaded", no, f"{line} [{why}]", True, 0.9)


# The text ties the failure to the kernel changing under the driver: a kernel update/upgrade, a new kernel booted,
# headers missing for the running kernel, the DKMS build. The module is built per kernel, so after a kernel update
# without a rebuild there is no module for the kernel that runs.
KERNEL_CHANGED = re.compile(
    r"\b(?:kernel|linux)(?:\s+package)?\s+(?:was\s+|got\s+|gets\s+|is\s+|has\s+been\s+)?(?:updated|upgraded|update|upgrade)\b|"
    r"\b(?:updat|upgrad)(?:e|ed|ing)\s+(?:the\s+|my\s+|to\s+(?:a\s+|the\s+)?(?:new(?:er)?\s+)?)?kernel\b|"
    r"\bupdates?\s+(?:to|of)\s+the\s+kernel\b|内核(?:更新|升级)|(?:更新|升级)了?(?:系统)?内核|"
    r"\bnew(?:er)?\s+kernel\b|\bbooted\s+(?:into\s+)?(?:a\s+|the\s+)?(?:new|newer|older|previous)\s+kernel\b|"
    r"\blinux-headers-\S*|\bkernel\s+headers?\b[^.\n]{0,40}\b(?:missing|not installed|were not|was not)\b|"
    r"\bheaders?\s+(?:for\s+the\s+(?:running|current|new)\s+kernel\s+)?(?:are\s+|were\s+)?(?:missing|not installed)\b",
    re.IGNORECASE,
)


def kernel_update_match(lines: list[str], matches: list[Match]) -> Match | None:
    """A generic sign of the module not running (nvidia-smi cannot reach the driver, NVML or CUDA finds none) in a text
    that ties it to the kernel changing: the module was not built for the new kernel."""
    if not any(m.id == "nvidia_module_not_loaded" and not m.specific for m in matches):
        return None
    if any(m.id in OTHER_KERNEL_CAUSES and m.specific for m in matches):
        return None
    said = _first(KERNEL_CHANGED, lines)
    if said is None:
        return None
    return Match("nvidia_module_not_loaded", said[0], said[1], True, 0.8)


# nouveau holds the GPU: lsmod's nouveau row, lspci -k's "Kernel driver in use: nouveau", lshw's driver=nouveau, or
# nouveau's own probe line naming the NVIDIA chip.
NOUVEAU_HOLDS = re.compile(
    r"\bdriver=nouveau\b|Kernel driver in use:\s*nouveau\b|^\W*nouveau\s+\d+\s+\d+|"
    r"\bnouveau [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d: NVIDIA\b",
    re.IGNORECASE,
)
# NVIDIA's user-space tools are installed and cannot reach the kernel module.
DRIVER_INSTALLED_BUT_UNREACHABLE = re.compile(
    r"NVIDIA-SMI has failed because it couldn'?t communicate|couldn'?t communicate with the NVIDIA driver|"
    r"\bNVIDIA driver is not loaded\b|Failed to initialize NVML: Driver Not Loaded",
    re.IGNORECASE,
)


# NVIDIA's driver is meant to drive the GPU: the nvidia module's own probe messages when another driver has the
# device (open-gpu-kernel-modules kernel-open/nvidia/nv.c and nv-pci.c: "No NVIDIA GPU found", "The NVIDIA probe
# routine was not called", "is already bound to nouveau"; the legacy nv.c's "No NVIDIA graphics adapter found!"),
# lspci -k listing the nvidia module among the device's "Kernel modules",
# nouveau blacklisted on the kernel command line or in modprobe.d (what NVIDIA's packages and the README's "Common
# Problems" set up: rd.driver.blacklist=nouveau, modprobe.blacklist=nouveau, "blacklist nouveau",
# nouveau.modeset=0), or the user's words that NVIDIA's driver packages were installed.
NVIDIA_DRIVER_INTENDED = re.compile(
    r"NVRM: (?:No NVIDIA GPU found|No NVIDIA graphics adapter found|The NVIDIA probe routine was not called)|"
    r"NVRM: GPU \S+ is already bound to nouveau|"
    # lspci -k's "Kernel modules:" lists the modules installed for the device: the nvidia module is there.
    r"\bKernel modules:[^\n]*\bnvidia\b|"
    r"\b(?:rd\.driver\.blacklist|modprobe\.blacklist)=\S*nouveau|\bblacklist\s+nouveau\b|\bnouveau\.modeset=0\b|"
    r"\binstall(?:ed|ing)?\b[^.\n]{0,60}?(?:\bnvidia-driver\S*|\ba?kmod-nvidia\S*|\bnvidia-\d{3}\b|"
    r"\bxorg-x11-drv-nvidia\S*|\bcuda-drivers\b|\bnvidia(?:'s)?\s+(?:proprietary\s+)?drivers?\b)",
    re.IGNORECASE,
)


def nouveau_holds_gpu_match(lines: list[str], matches: list[Match]) -> Match | None:
    """nouveau drives the GPU while NVIDIA's driver is installed or meant to run (its tools cannot reach their module,
    the nvidia module's probe found the GPU taken, nouveau is blacklisted, the user installed the packages): the nvidia
    module cannot take the GPU (the nouveau blacklist missing or not in the initramfs). Without any of these it is a
    machine without NVIDIA's driver, which user_words.nouveau_without_driver reads."""
    if any(m.id in OTHER_KERNEL_CAUSES and m.specific for m in matches):
        return None
    held = _first(NOUVEAU_HOLDS, lines)
    if held is None:
        return None
    if _first(DRIVER_INSTALLED_BUT_UNREACHABLE, lines) is None and _first(NVIDIA_DRIVER_INTENDED, lines) is None:
        return None
    return Match("nvidia_module_not_loaded", held[0], held[1], True, 0.9)


# The user's words that the package manager lists no NVIDIA driver package: `dpkg -l | grep nvidia`,
# `rpm -qa | grep nvidia`, `pacman -Qs nvidia` printing nothing.
NO_DRIVER_PACKAGES = re.compile(
    r"(?:dpkg\s+-l|rpm\s+-qa|pacman\s+-Q\w*|apt\s+list\s+--installed)\s*(?:\|\s*grep\s+(?:-\w+\s+)*)?['\"]?nvidia"
    r"['\"]?[`'\"]?\s*(?:is|was|returns?|returned|shows?|showed|gives?|gave|prints?|printed|outputs?|lists?)\s+"
    r"(?:empty|nothing|no output|blank|no packages?)",
    re.IGNORECASE,
)


def no_driver_packages_match(lines: list[str]) -> Match | None:
    """The package manager lists no NVIDIA package: likely no driver installed (a guess: a .run install leaves no
    package behind)."""
    found = _first(NO_DRIVER_PACKAGES, lines)
    return None if found is None else Match("no_nvidia_driver", found[0], found[1], False, 0.7)


# CUDA's initialization error (3) in its printed forms: the runtime's message, the driver API's name, torch's words
# for it (c10/cuda/CUDAFunctions.cpp: "CUDA driver initialization failed, you might not have a CUDA gpu"), and the
# launch failure (719) a resumed machine gives kernels that ran before the sleep. Only with the sleep in the text.
INIT_ERROR = re.compile(
    r"CUDA error: initialization error|cudaErrorInitializationError|CUDA_ERROR_NOT_INITIALIZED|"
    r"CUDA driver initialization failed|cuda runtime error \(3\)|"
    # after a resume, kernels that ran fine before fail to launch (CUDA error 719)
    r"CUDA error: unspecified launch failure|cudaErrorLaunchFailure|CUDA_ERROR_LAUNCH_FAILED",
    re.IGNORECASE,
)


def init_error_after_suspend_match(lines: list[str], matches: list[Match]) -> Match | None:
    """CUDA's initialization error in a text that ties it to a suspend/resume cycle (or to nvidia_uvm): the
    nvidia_uvm module left broken by the sleep, as with the unknown error (999) that user_words reads."""
    if any(m.id == "uvm_wedged_after_suspend" and m.specific for m in matches):
        return None
    error = _first(INIT_ERROR, lines)
    if error is None or _first(SUSPEND_CONTEXT, lines) is None:
        return None
    return Match("uvm_wedged_after_suspend", error[0], error[1], True, 0.8)


# A hybrid-graphics laptop switched to its integrated GPU: Ubuntu's `prime-select intel` blacklists the nvidia
# modules (nvidia-prime), and system76-power, envycontrol, supergfxctl and optimus-manager's integrated modes unload
# them and power the dGPU off. CUDA then has no module to talk to until the mode is switched back (nvidia,
# on-demand, hybrid) and the machine rebooted.
HYBRID_INTEGRATED = re.compile(
    r"\bprime-select\s+intel\b|\bsystem76-power\s+graphics\s+integrated\b|"
    r"\benvycontrol\s+(?:-s|--switch)\s+integrated\b|\bsupergfxctl\s+(?:-m|--mode)\s+integrated\b|"
    r"\boptimus-manager\s+--switch\s+integrated\b|Current graphics mode is:\s*integrated\b|"
    r"\b(?:prime|optimus|hybrid graphics)\b[^.\n]{0,40}\b(?:set|switched|switch)\s+to\s+(?:intel|integrated)\b",
    re.IGNORECASE,
)
PRIME_QUERY = re.compile(r"\bprime-select\s+query\b")
PRIME_ANSWER_INTEL = re.compile(r"^\W*intel\s*$", re.IGNORECASE)


def _integrated_mode(lines: list[str]) -> tuple[int, str] | None:
    found = _first(HYBRID_INTEGRATED, lines)
    if found is not None:
        return found
    for i, line in enumerate(lines[:5000]):
        if PRIME_QUERY.search(line[:MAX_LINE]) and i + 1 < len(lines) and PRIME_ANSWER_INTEL.match(lines[i + 1]):
            return i + 2, lines[i + 1].strip()[:500]
    return None


def integrated_graphics_mode_match(lines: list[str], matches: list[Match], *, unreachable: bool) -> Match | None:
    """The laptop runs in its integrated-graphics mode and CUDA cannot reach the NVIDIA GPU: the mode unloaded (or
    blacklisted) the nvidia module."""
    if not (
        unreachable or any(m.id in ("nvidia_module_not_loaded", "no_nvidia_driver", "no_nvidia_gpu") for m in matches)
    ):
        return None
    mode = _integrated_mode(lines)
    if mode is None:
        return None
    return Match("nvidia_module_not_loaded", mode[0], mode[1], True, 0.85)
