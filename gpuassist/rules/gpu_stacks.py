"""Platforms with their own GPU stack: AMD GPUs through ROCm, and NVIDIA Jetson boards (Tegra)."""

from __future__ import annotations

import re

from gpuassist.facts import Facts
from gpuassist.findings import Finding, Severity
from gpuassist.rules import fixes, view
from gpuassist.rules.make import finding
from gpuassist.rules.registry import rule

NO_HIP = r"No HIP GPUs are available|hipErrorNoDevice|hipErrorNoBinaryForGpu|Unable to find code object"
# L4T major release → NVIDIA's PyTorch wheel directory (developer.download.nvidia.com/compute/redist/jp/).
JETPACK_WHEELS = {"32": ("4.6", "v461"), "35": ("5.1", "v512"), "36": ("6.1", "v61")}


@rule("rocm_gpu_unsupported_or_no_access")
def rocm_gpu_unsupported_or_no_access(facts: Facts) -> Finding | None:
    hip = facts.value("torch.hip_build")
    if not hip or facts.value("cuda.available") is not False:
        return None
    kfd = view.dev_nodes(facts, "/dev/kfd")
    render = view.dev_nodes(facts, "/dev/dri/renderD")
    env = facts.value("env") or {}
    override = env.get("HSA_OVERRIDE_GFX_VERSION") if isinstance(env, dict) else None
    text = view.first_match(view.warnings_text(facts), NO_HIP)
    amd = [d for d in facts.value("pci.display_devices", []) or [] if d.get("vendor") == "AMD"]
    gpu_name = (amd[0].get("name") or f"AMD device {amd[0].get('device_id')}") if amd else "the AMD GPU"
    nodes_known = facts.known("dev.nodes")
    pip = fixes.pip(facts)
    if nodes_known and not kfd:
        why = (
            "/dev/kfd does not exist: the amdgpu kernel driver is not loaded, or this container was started "
            "without the ROCm devices"
        )
        fix = (
            "On the host, load the amdgpu driver (install the ROCm/amdgpu-dkms packages, then reboot):\n"
            "  sudo modprobe amdgpu && ls -l /dev/kfd /dev/dri/renderD*\n"
            "In a container, pass the devices: docker run --device=/dev/kfd --device=/dev/dri "
            "--group-add video --group-add render IMAGE ..."
        )
    elif [n for n in kfd + render if not (n.get("readable") and n.get("writable"))]:
        why = (
            f"{', '.join(n['path'] for n in kfd + render if not (n.get('readable') and n.get('writable')))} "
            "exist but this user may not open them (not in the render/video groups)"
        )
        fix = (
            "Add your user to the render and video groups, then log out and back in:\n"
            "  sudo usermod -aG render,video $USER\n  groups   # after re-login: must list render and video"
        )
    else:
        why = (
            f"the ROCm runtime found no GPU it supports ({gpu_name}"
            + (f", with HSA_OVERRIDE_GFX_VERSION={override}" if override else "")
            + "): its gfx target is not one this ROCm build ships kernels for"
        )
        fix = (
            "Check the GPU's target with `rocminfo | grep gfx` against the ROCm compatibility matrix. For an "
            "unsupported RDNA GPU the unofficial workaround is an override to the nearest supported target, e.g.\n"
            "  export HSA_OVERRIDE_GFX_VERSION=10.3.0   # RDNA2 (gfx103x); 11.0.0 for RDNA3 (gfx110x)\n"
            + (
                f"HSA_OVERRIDE_GFX_VERSION={override} is set: remove it if it does not match the GPU's family.\n"
                if override
                else ""
            )
            + f"Or install the ROCm wheel for a newer ROCm:\n  {pip} install --force-reinstall torch "
            "--index-url https://download.pytorch.org/whl/rocm6.4"
        )
    return finding(
        "rocm_gpu_unsupported_or_no_access",
        Severity.ERROR,
        explanation=(
            f"This torch is a ROCm build (HIP {hip}) for AMD GPUs, and torch.cuda.is_available() (which means "
            f'"HIP is available" on ROCm) is False: {why}.' + (f' torch said: "{text.group(0)}".' if text else "")
        ),
        fix=fix,
        evidence=view.ev(
            facts,
            "torch.hip_build",
            "cuda.available",
            "dev.nodes",
            "pci.display_devices",
            "env",
            "cuda.init_warnings",
            "cuda.init_error",
        ),
        explains=["no_nvidia_gpu", "cpu_only_build"],
    )


def jetson_release(facts: Facts) -> str | None:
    """``36`` from ``/etc/nv_tegra_release`` ("# R36 (release), REVISION: 3.0, ..."), from "L4T 32.4.3", or from the
    JetPack the text names (JetPack 4 = L4T R32, 5 = R35, 6 = R36), else None."""
    said = str(facts.value("platform.jetson") or "")
    m = re.search(r"\bR(\d+)\b|\bL4T\s*R?(\d+)\b", said, re.IGNORECASE)
    if m:
        return m.group(1) or m.group(2)
    jp = re.search(r"(?<![A-Za-z])(?:JetPack|JP)\s*[:<>=]*\s*([4-7])(?!\d)", said, re.IGNORECASE)
    if jp:
        return {"4": "32", "5": "35", "6": "36", "7": "38"}[jp.group(1)]
    kernel = re.search(r"\b(\d+\.\d+)\.\d+-tegra\b", f"{said} {facts.value('host.kernel') or ''}")
    return L4T_OF_TEGRA_KERNEL.get(kernel.group(1)) if kernel else None


# Each Jetson Linux line ships one kernel series (Jetson Linux release notes): R32 4.9, R34/R35 5.10, R36 5.15, R38 6.8.
L4T_OF_TEGRA_KERNEL = {"4.9": "32", "5.10": "35", "5.15": "36", "6.8": "38"}


# JetPack 7 (Jetson Linux 38.2 and later; NVIDIA's JetPack 7.0/7.1 release notes) aligns Jetson with the ARM-server
# (SBSA) CUDA 13: PyPI's aarch64 +cu130 wheels (torch 2.11 and later, wheels-2026-11.md) are built for it.
FIRST_SBSA_L4T = 38


def sbsa_jetpack(rel: str | None) -> bool:
    return rel is not None and rel.isdigit() and int(rel) >= FIRST_SBSA_L4T


def is_jetson(facts: Facts) -> bool:
    return bool(facts.value("platform.jetson")) or "tegra" in str(facts.value("host.kernel") or "").lower()


def nvidia_jetson_build(version: str) -> bool:
    """NVIDIA's JetPack builds carry a `.nvYY.MM` suffix (``2.3.0a0+ebedce2.nv24.02``)."""
    return bool(re.search(r"[.+]nv\d+\.\d+", version))


# A torch built from source ("1.12.0a0+git67ece03", "2.0.0a0+gite9ebda2"), on the board or by the image's maker.
SOURCE_BUILD = re.compile(r"\d\.\d+\.\d+a0\+(?:git)?[0-9a-f]{7,}\b|\+git[0-9a-f]{7,}\b")


def local_torch_build(version: object) -> bool:
    """The torch is not a PyPI/download.pytorch.org wheel: NVIDIA's JetPack build or one built from source."""
    return isinstance(version, str) and (nvidia_jetson_build(version) or SOURCE_BUILD.search(version) is not None)


@rule("jetson_needs_nvidia_wheel")
def jetson_needs_nvidia_wheel(facts: Facts) -> Finding | None:
    if not is_jetson(facts) or not view.torch_imported(facts) or facts.value("cuda.available") is True:
        return None
    version = str(facts.value("torch.version"))
    if nvidia_jetson_build(version) and facts.value("torch.cuda_build"):
        return None
    if local_torch_build(version) and facts.value("cuda.available") is None:
        return None  # built for the board (a Jetson image's own build): nothing says it lacks the GPU
    rel = jetson_release(facts)
    jp, folder = JETPACK_WHEELS.get(rel or "", ("6.1", "v61"))
    cuda = facts.value("torch.cuda_build")
    if sbsa_jetpack(rel) and str(cuda or "").startswith("13"):
        return None  # JetPack 7's own CUDA 13: PyPI's aarch64 CUDA wheel is the right one there
    if cuda:
        build = f"a CUDA {cuda} build"
    elif facts.known("torch.cuda_build"):
        build = "a CPU-only build"
    else:
        build = "a build"
    pip = fixes.pip(facts)
    py_tag = "".join(str(facts.value("python.version") or "3.10").split(".")[:2])
    if sbsa_jetpack(rel):
        return finding(
            "jetson_needs_nvidia_wheel",
            Severity.ERROR,
            explanation=(
                f"This is an NVIDIA Jetson on JetPack 7 (L4T R{rel}), which uses the same CUDA 13 as ARM servers. "
                f"torch {version} is {build} without CUDA 13, so it cannot use the GPU; PyPI's aarch64 CUDA wheels "
                "(torch 2.11 and later, +cu130) are built for this JetPack."
            ),
            fix=(
                f"  {pip} uninstall -y torch\n"
                f"  {pip} install 'torch>=2.11' --index-url https://download.pytorch.org/whl/cu130"
            ),
            evidence=view.ev(facts, "platform.jetson", "host.kernel", "torch.version", "torch.cuda_build"),
            explains=["cpu_only_build", "no_nvidia_gpu", "no_nvidia_driver", "no_wheel_for_platform"],
        )
    return finding(
        "jetson_needs_nvidia_wheel",
        Severity.ERROR,
        explanation=(
            f"This is an NVIDIA Jetson (L4T {('R' + rel) if rel else 'Tegra'}), whose GPU is integrated into the SoC. "
            f"torch {version} is {build} from PyPI/download.pytorch.org, made for servers: it has no support for "
            "Jetson's integrated GPU. Jetson needs NVIDIA's JetPack build of torch (version ending in .nvYY.MM)."
        ),
        fix=(
            f"Install NVIDIA's wheel for your JetPack (L4T R{rel or '36'} = JetPack {jp}.x):\n"
            f"  {pip} uninstall -y torch\n"
            f"  # download the torch-*.nv*-cp{py_tag}-*-linux_aarch64.whl for your Python from\n"
            f"  #   https://developer.download.nvidia.com/compute/redist/jp/{folder}/pytorch/\n"
            f"  {pip} install --no-cache-dir ./torch-<version>.nv<YY.MM>-cp{py_tag}-cp{py_tag}-linux_aarch64.whl\n"
            + (
                # Newer torch for JetPack 6 is built by NVIDIA's Jetson AI Lab into its own index (jp6/cu126).
                f"  # or a newer torch built for JetPack 6: {pip} install torch --index-url "
                "https://pypi.jetson-ai-lab.io/jp6/cu126\n"
                if (rel or "36") == "36"
                else ""
            )
            + "Or use NVIDIA's container: docker run --runtime nvidia -it nvcr.io/nvidia/l4t-pytorch:<tag for your L4T>"
        ),
        evidence=view.ev(
            facts,
            "platform.jetson",
            "host.kernel",
            "host.machine",
            "torch.version",
            "torch.cuda_build",
            "cuda.available",
        ),
        explains=[
            "cpu_only_build",
            "no_nvidia_gpu",
            "no_nvidia_driver",
            "gpu_arch_too_new_for_build",
            "gpu_arch_dropped_from_build",
            "no_wheel_for_platform",
            "nvidia_module_not_loaded",
        ],
    )
