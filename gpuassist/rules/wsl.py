"""WSL: the GPU belongs to the Windows driver, reached through /usr/lib/wsl/lib/libcuda.so.1.

A Linux NVIDIA driver installed inside WSL, a missing /usr/lib/wsl/lib, or WSL 1 all break that path
while Windows itself uses the GPU fine.
"""

from __future__ import annotations

from gpuassist.facts import Facts
from gpuassist.findings import Finding, Severity
from gpuassist.rules import view
from gpuassist.rules.make import finding
from gpuassist.rules.registry import rule

WSL_LIB = "/usr/lib/wsl/"


@rule("wsl_libcuda_problem")
def wsl_libcuda_problem(facts: Facts) -> Finding | None:
    kind = facts.value("platform.wsl")
    if not kind or facts.value("cuda.available") is True:
        return None
    evidence = [
        "platform.wsl",
        "platform.wsl_libcuda",
        "driver.userspace_versions",
        "libs.loaded",
        "cuda.init_warnings",
    ]
    if kind == "wsl1":
        return finding(
            "wsl_libcuda_problem",
            Severity.ERROR,
            title="WSL 1 cannot use the GPU",
            explanation="This Linux runs under WSL 1, which has no GPU support; CUDA in WSL needs WSL 2.",
            fix="In Windows PowerShell: wsl --set-version <distro> 2   (wsl -l -v lists the distributions)",
            evidence=view.ev(facts, *evidence),
        )
    loaded = [p for p in facts.value("libs.loaded", []) or [] if "/libcuda.so" in p and not p.startswith(WSL_LIB)]
    linux_driver = [str(v) for v in facts.value("driver.userspace_versions", []) or []]
    wsl_libcuda = facts.value("platform.wsl_libcuda")
    if linux_driver or loaded:
        what = f"a Linux NVIDIA driver ({', '.join(linux_driver) or 'libcuda ' + loaded[0]}) is installed inside WSL"
        fix = (
            "Remove the Linux driver from WSL (WSL uses the Windows driver); keep /usr/lib/wsl/lib on the "
            "loader path:\n"
            "  sudo apt-get remove --purge '^nvidia-.*' '^libnvidia-.*' && sudo apt-get autoremove\n"
            "  ldconfig -p | grep libcuda   # must list /usr/lib/wsl/lib/libcuda.so.1 first\n"
            "Then restart WSL from Windows: wsl --shutdown"
        )
    elif isinstance(wsl_libcuda, list) and not wsl_libcuda:
        what = "/usr/lib/wsl/lib/libcuda.so.1 is missing, so the Windows driver is not exposed to Linux"
        fix = (
            "Update WSL and the Windows NVIDIA driver (any current Game Ready/Studio driver supports WSL 2):\n"
            "  wsl --update        (in Windows PowerShell)\n"
            "  wsl --shutdown\n"
            "Do not install a Linux NVIDIA driver inside WSL."
        )
    else:
        return None
    return finding(
        "wsl_libcuda_problem",
        Severity.ERROR,
        explanation=(
            "In WSL 2 the GPU is driven by the Windows NVIDIA driver through /usr/lib/wsl/lib/libcuda.so.1, "
            f"but {what}. "
            "CUDA then finds no usable device although Windows programs use the GPU."
        ),
        fix=fix,
        evidence=view.ev(facts, *evidence),
        explains=["no_nvidia_driver", "nvidia_module_not_loaded", "driver_too_old", "driver_library_mismatch"],
    )
