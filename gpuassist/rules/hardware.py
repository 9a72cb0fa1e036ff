"""Is there an NVIDIA GPU at all? Told first, and never followed by driver advice when there is none."""

from __future__ import annotations

from gpuassist.facts import Facts
from gpuassist.findings import Finding, Severity
from gpuassist.rules import fixes, view
from gpuassist.rules.make import finding
from gpuassist.rules.registry import rule

ROCM_INDEX = "https://download.pytorch.org/whl/rocm6.4"
XPU_INDEX = "https://download.pytorch.org/whl/xpu"


def other_accelerator_works(facts: Facts) -> bool:
    """A ROCm, MPS or XPU device that torch can already use: then "no NVIDIA GPU" is no problem."""
    return bool(
        (facts.value("torch.hip_build") and facts.value("cuda.available"))
        or facts.value("mps.available")
        or facts.value("xpu.available")
    )


def no_nvidia_visible(facts: Facts) -> bool | None:
    """True when the machine demonstrably has no NVIDIA GPU; None when nothing could tell.

    Only a PCI scan can prove absence: WSL2 and Jetson have working NVIDIA GPUs that are not on the
    (virtual) PCI bus, so those are left to their own rules."""
    if facts.value("platform.wsl") or facts.value("platform.jetson"):
        return None
    pci = facts.value("pci.nvidia_gpu_count")
    if not isinstance(pci, int):
        return None
    if pci > 0 or facts.value("nvml.status") == "ok" or view.dev_nodes(facts, "/dev/nvidia0"):
        return False
    return not (facts.value("cuda.available") and not facts.value("torch.hip_build"))


@rule("no_nvidia_gpu")
def no_nvidia_gpu(facts: Facts) -> Finding | None:
    if view.is_macos(facts) or no_nvidia_visible(facts) is not True or other_accelerator_works(facts):
        return None
    if facts.value("torch.hip_build"):
        return None  # an AMD (ROCm) setup: rocm_gpu_unsupported_or_no_access judges it
    displays = facts.value("pci.display_devices") or []
    vendors = sorted({str(d.get("vendor")) for d in displays if d.get("vendor")})
    names = ", ".join(f"{d.get('vendor')} {d.get('device_id', '')}".strip() for d in displays)
    seen = (
        f"The display devices on the PCI bus are: {names}."
        if displays
        else "There is no display device on the PCI bus at all (typical of a cloud VM or container without a GPU)."
    )
    fix = [
        "PyTorch can only use an NVIDIA GPU that is in the machine. Either run on the CPU, or run on a "
        "machine (or cloud instance type) that has an NVIDIA GPU.",
        "Make code portable: device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')",
    ]
    # With a torch already installed, `pip install torch` says "Requirement already satisfied": remove it first.
    replace = (
        f"{fixes.pip(facts)} uninstall -y torch\n  " if view.torch_imported(facts) or facts.value("torch.dists") else ""
    )
    if "AMD" in vendors and view.os_name(facts) == "Linux":
        fix.append(
            f"This machine has an AMD GPU: use the ROCm build instead:\n  {replace}{fixes.pip(facts)} install "
            f"torch --index-url {ROCM_INDEX}"
        )
    if "Intel" in vendors:
        fix.append(
            f"Intel GPUs are supported by the XPU build:\n  {replace}{fixes.pip(facts)} install torch "
            f"--index-url {XPU_INDEX}"
        )
    explains = ["cpu_only_build", "no_nvidia_driver", "nvidia_module_not_loaded"]
    return finding(
        "no_nvidia_gpu",
        Severity.ERROR,
        title="This machine has no NVIDIA GPU",
        explanation=(
            f"No NVIDIA device is on the PCI bus, NVML finds none, and there are no /dev/nvidia* device "
            f"nodes. {seen} No driver or PyTorch build can make CUDA work here."
        ),
        fix="\n".join(fix),
        evidence=view.ev(
            facts, "pci.nvidia_gpu_count", "pci.display_devices", "nvml.status", "dev.nodes", "cuda.available"
        ),
        explains=explains,
    )
