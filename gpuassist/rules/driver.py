"""The NVIDIA kernel driver: missing, not loaded, too old for the wheel, or out of step with its libraries."""

from __future__ import annotations

import re

from gpuassist.facts import Facts
from gpuassist.findings import Finding, Severity
from gpuassist.knowledge.wheels import cuda_int_to_str, driver_supports_variant, needs_ptx_jit
from gpuassist.rules import fixes, view
from gpuassist.rules.make import finding
from gpuassist.rules.registry import rule


def _nvidia_on_bus(facts: Facts) -> bool:
    pci = facts.value("pci.nvidia_gpu_count")
    return isinstance(pci, int) and pci > 0


def _in_container_without_devices(facts: Facts) -> bool:
    return bool(facts.value("platform.container")) and not view.dev_nodes(facts)


def _module_missing(facts: Facts) -> bool:
    """The nvidia kernel module is demonstrably not loaded."""
    if facts.value("nvml.status") == "ok":
        return False
    proc = facts.get("driver.proc_version")
    if facts.known("driver.proc_version") and proc:
        return False
    modules = facts.value("kernel.modules")
    if isinstance(modules, list) and "nvidia" in modules:
        return False
    return facts.known("driver.proc_version") or isinstance(modules, list)


def _userspace_driver_installed(facts: Facts) -> bool:
    return bool(
        facts.value("driver.userspace_versions")
        or facts.value("nvml.status") in ("driver_not_loaded", "lib_rm_version_mismatch")
        or facts.value("smi.status") in ("ok", "failed")
    )


@rule("no_nvidia_driver")
def no_nvidia_driver(facts: Facts) -> Finding | None:
    if view.is_macos(facts) or facts.value("platform.wsl") or _in_container_without_devices(facts):
        return None
    if not _nvidia_on_bus(facts) or not _module_missing(facts) or _userspace_driver_installed(facts):
        return None
    warn = view.first_match(view.warnings_text(facts), r"Found no NVIDIA driver on your system")
    cu = view.cuda_variant(facts.value("torch.cuda_build"))
    min_driver, full_driver = fixes.driver_requirement(cu, view.os_name(facts))
    gpus = view.nvidia_gpus(facts)
    names = ", ".join(g.name for g in gpus.gpus) or f"{gpus.count} NVIDIA device(s)"
    nouveau = "nouveau" in (facts.value("kernel.modules") or [])
    explanation = (
        f"An NVIDIA GPU ({names}) is on the PCI bus, but no NVIDIA driver is installed: there is no "
        "/proc/driver/nvidia/version, no nvidia kernel module and no NVIDIA user-space library."
    )
    if nouveau:
        explanation += " The open-source nouveau driver is driving the card; CUDA needs NVIDIA's driver."
    if warn:
        explanation += f' torch says: "{warn.group(0)}".'
    return finding(
        "no_nvidia_driver",
        Severity.ERROR,
        explanation=explanation,
        fix=fixes.driver_install_command(
            facts, min_driver, full_driver=full_driver, cuda=facts.value("torch.cuda_build")
        ),
        evidence=view.ev(
            facts,
            "pci.display_devices",
            "driver.proc_version",
            "kernel.modules",
            "driver.userspace_versions",
            "nvml.status",
            "cuda.init_warnings",
        ),
        explains=["cpu_only_build", "cuda_visible_devices_hides_gpus"],
    )


@rule("nvidia_module_not_loaded")
def nvidia_module_not_loaded(facts: Facts) -> Finding | None:
    if view.is_macos(facts) or facts.value("platform.wsl") or _in_container_without_devices(facts):
        return None
    if not _nvidia_on_bus(facts) or not _module_missing(facts) or not _userspace_driver_installed(facts):
        return None
    if facts.value("nvml.status") == "lib_rm_version_mismatch":
        return None  # the module is loaded, at another version: driver_library_mismatch
    modules = facts.value("kernel.modules") or []
    reasons, steps = [], []
    if "nouveau" in modules:
        reasons.append("the open-source nouveau driver has claimed the GPU")
        steps += [
            "Blacklist nouveau and rebuild the initramfs:",
            "  echo -e 'blacklist nouveau\\noptions nouveau modeset=0' | "
            "sudo tee /etc/modprobe.d/blacklist-nouveau.conf",
            "  sudo update-initramfs -u   # Fedora/RHEL: sudo dracut --force",
        ]
    if facts.value("kernel.secure_boot") is True:
        reasons.append("Secure Boot is on, and it refuses an unsigned nvidia module")
        steps += [
            "Enroll the module signing key (MOK) the driver installer created, or disable Secure Boot:",
            "  sudo mokutil --import /var/lib/shim-signed/mok/MOK.der   # then reboot and confirm in the MOK manager",
        ]
    if not reasons:
        reasons.append("the module was not built for the running kernel (DKMS) or failed to load")
    steps += [
        f"Rebuild the module for the running kernel ({facts.value('host.kernel') or '`uname -r`'}):",
        "  sudo dkms autoinstall",
        "Load it and check:",
        "  sudo modprobe nvidia && nvidia-smi",
        "  sudo dmesg | grep -i nvidia   # shows why loading failed",
        "Or simply reboot after installing/upgrading the driver.",
    ]
    smi = facts.value("smi.message")
    return finding(
        "nvidia_module_not_loaded",
        Severity.ERROR,
        explanation=(
            "The NVIDIA driver's user-space part is installed, but its kernel module is not loaded, so no "
            "program can reach the GPU. Likely because "
            + "; ".join(reasons)
            + "."
            + (f' nvidia-smi says: "{smi}".' if smi else "")
        ),
        fix="\n".join(steps),
        evidence=view.ev(
            facts,
            "kernel.modules",
            "driver.proc_version",
            "driver.userspace_versions",
            "kernel.secure_boot",
            "nvml.status",
            "smi.message",
            "host.kernel",
        ),
        explains=["cpu_only_build", "no_nvidia_driver"],
    )


@rule("driver_library_mismatch")
def driver_library_mismatch(facts: Facts) -> Finding | None:
    texts = [str(facts.value("smi.message") or ""), str(facts.value("nvml.error") or ""), *view.warnings_text(facts)]
    nvml_says = facts.value("nvml.status") == "lib_rm_version_mismatch"
    text_hit = view.first_match(
        texts, r"Driver/library version mismatch|Error 803|unsupported display driver / cuda driver"
    )
    kernel_ver = None
    proc = facts.value("driver.proc_version")
    if proc:
        m = re.search(r"Kernel Module\s+(?:for \S+\s+)?([\d.]+)", str(proc))
        kernel_ver = m.group(1) if m else None
    user_vers = [str(v) for v in facts.value("driver.userspace_versions", []) or []]
    version_split = bool(kernel_ver and user_vers and any(v != kernel_ver for v in user_vers))
    if not (nvml_says or text_hit or version_split):
        return None
    detail = ""
    if kernel_ver and user_vers:
        on_disk = ", ".join(sorted(set(user_vers)))
        detail = f" The loaded kernel module is {kernel_ver}; the libraries on disk are {on_disk}."
    return finding(
        "driver_library_mismatch",
        Severity.ERROR,
        explanation=(
            "The NVIDIA kernel module that is loaded and the NVIDIA libraries on disk are different versions, "
            "which happens right after a driver upgrade until the machine reboots (or when two driver "
            "installs are mixed). CUDA and NVML refuse to work in that state." + detail
        ),
        fix=(
            "Reboot, so the new kernel module loads:\n  sudo reboot\n"
            "Or, with no GPU process running, reload the modules:\n"
            "  sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia && nvidia-smi\n"
            "If it persists after a reboot, remove the second driver install (e.g. a .run installer over "
            "distribution packages) and reinstall one driver."
        ),
        evidence=view.ev(
            facts,
            "nvml.status",
            "nvml.error",
            "smi.message",
            "driver.proc_version",
            "driver.userspace_versions",
            "cuda.init_warnings",
        ),
        explains=["cpu_only_build", "driver_too_old", "nvidia_module_not_loaded"],
    )


@rule("driver_too_old")
def driver_too_old(facts: Facts) -> Finding | None:
    """A driver too old for the CUDA wheel: across CUDA majors (a cu130 wheel on R570), below the family
    floor, a pre-11 wheel above its driver, or torch saying so. A same-family driver older than the wheel's
    toolkit runs it through minor-version compatibility and is not reported, unless a GPU reaches its
    kernels only through PTX, which that driver cannot JIT-compile."""
    build = facts.value("torch.cuda_build")
    warn = view.first_match(
        view.warnings_text(facts), r"NVIDIA driver on your system is too old ?\(found version (\d+)\)"
    )
    if not build and not warn:
        return None
    driver_cuda, keys = view.driver_cuda(facts)
    if warn and not driver_cuda:
        driver_cuda, keys = int(warn.group(1)), ["cuda.init_warnings"]
    if (not driver_cuda or not build) and not warn:
        return None
    os_ = view.os_name(facts)
    version = facts.value("driver.version")
    variant = view.cuda_variant(build)
    compat = (
        driver_supports_variant(
            driver_cuda, variant, driver_version=version if isinstance(version, str) else None, os=os_
        )
        if (driver_cuda and variant)
        else None
    )
    ptx_only: list[str] = []
    if compat is not None and compat.via == "minor_version_compat":
        arch_list = [str(a) for a in facts.value("torch.arch_list") or []]
        ptx_only = needs_ptx_jit(view.capabilities(view.nvidia_gpus(facts)), arch_list)
    if compat is not None and compat.ok and not ptx_only and not warn:
        return None
    need, full = fixes.driver_requirement(variant, os_)
    if ptx_only:
        need = full  # JIT-compiling the toolkit's PTX needs the toolkit's own driver
    wheel_fix, chosen = fixes.cuda_wheel_fix(facts)
    driver_str = f"CUDA {cuda_int_to_str(driver_cuda)}" if driver_cuda else "an older CUDA"
    driver_desc = (
        f"driver {version} (supports up to {driver_str})" if version else f"a driver that supports up to {driver_str}"
    )
    fix = "Option 1, update the driver. " + fixes.driver_install_command(
        facts, need, full_driver=None if ptx_only else full, cuda=str(build) if build else None
    )
    if chosen:
        fix += "\nOption 2, keep the driver. " + wheel_fix
    if ptx_only:
        gpus = ", ".join(f"sm_{c.replace('.', '')}" for c in ptx_only)
        return finding(
            "driver_too_old",
            Severity.ERROR,
            title=f"The driver cannot JIT-compile this torch's CUDA {build} PTX for {gpus}",
            explanation=(
                f"torch was built with CUDA {build}; this machine has {driver_desc}. Minor-version "
                f"compatibility runs the build's compiled kernels on this driver, but {gpus} has none: its "
                "kernels come from PTX the driver must JIT-compile, and a driver older than the toolkit "
                'cannot ("the provided PTX was compiled with an unsupported toolchain").'
            ),
            fix=fix,
            evidence=view.ev(facts, "torch.cuda_build", "torch.arch_list", *keys, "driver.version", "nvml.gpus"),
            explains=["gpu_arch_too_new_for_build"],
        )
    said = f' torch says: "{warn.group(0)}".' if warn else ""
    why = (
        compat.reason
        if compat is not None and not compat.ok
        else ("CUDA can bridge minor versions within one major version, never across major versions")
    )
    return finding(
        "driver_too_old",
        Severity.ERROR,
        title=(
            f"The NVIDIA driver is too old for this torch (built with CUDA {build})"
            if build
            else "The NVIDIA driver is too old for this torch build"
        ),
        explanation=(
            f"torch was built with CUDA {build or 'a newer version'}, but this machine has {driver_desc}: "
            f"{why}, so CUDA initialisation fails.{said}"
        ),
        fix=fix,
        evidence=view.ev(facts, "torch.cuda_build", "torch.version", *keys, "driver.version", "cuda.init_warnings"),
        explains=["cpu_only_build"],
    )
