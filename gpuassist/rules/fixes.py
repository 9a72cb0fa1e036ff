"""Exact fix commands shared by several rules (the right wheel for *this* driver and *these* GPUs)."""

from __future__ import annotations

import re
import shlex

from gpuassist.facts import Facts
from gpuassist.knowledge import compat
from gpuassist.knowledge.wheels import (
    WheelChoice,
    cuda_dropped,
    cuda_int_to_str,
    family_min_driver,
    min_driver_for_variant,
    newest_release,
    parse_torch_version,
    recommend_wheel,
    tables_as_of,
)
from gpuassist.rules import view

# The oldest CUDA any PyTorch release of the tables builds with (torch 2.0's cu117 and its source builds need 11.x): a
# GPU that CUDA 11.0 already removed (compute capability below 3.5) cannot be compiled for by any of them.
OLDEST_TORCH_CUDA = "11.0"

CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def quote(path: str) -> str:
    """A path as a shell word: bare when it is plain; a Windows path ("C:\\...") in double quotes when it
    needs any (cmd.exe and PowerShell both take those; single quotes mean nothing to cmd.exe), else POSIX
    quoting."""
    if re.match(r"^[A-Za-z]:[\\/]|^\\\\", path):
        return f'"{path}"' if re.search(r"[\s&()^%!'\"]", path) else path
    return (
        path
        if path.replace("/", "").replace(".", "").replace("-", "").replace("_", "").isalnum()
        else shlex.quote(path)
    )


# gpuassist's own environment is never a fix's target unless the user chose it (issue 11): a fresh one instead.
OWN_ENV_PIP = {
    "posix": "python3 -m venv ~/torch-env && ~/torch-env/bin/python -m pip",
    "windows": "py -m venv %USERPROFILE%\\torch-env && %USERPROFILE%\\torch-env\\Scripts\\python -m pip",
}


def aims_at_own_env(facts: Facts) -> bool:
    """The diagnosed interpreter is gpuassist's own and the user did not choose it: no fix may install there."""
    return facts.value("target.own") is True and facts.value("target.explicit") is not True


def pip(facts: Facts) -> str:
    """`<the target interpreter> -m pip`: the command must install into the interpreter we diagnosed (never
    into gpuassist's own environment unless the user chose it: then into a new environment of their own)."""
    if aims_at_own_env(facts):
        return OWN_ENV_PIP["windows" if view.is_windows(facts) else "posix"]
    return f"{quote(view.python_executable(facts))} -m pip"


def current_release(facts: Facts) -> str | None:
    version = facts.value("torch.version")
    if not version:
        dists = facts.value("torch.dists") or []
        version = dists[0].get("version") if dists else None
    if not version:
        return None
    return parse_torch_version(str(version)).release


def _recommend(facts: Facts, gpus: view.GpuView, driver_cuda: int | None) -> WheelChoice | None:
    version = facts.value("driver.version")
    return recommend_wheel(
        os=view.os_name(facts),
        machine=view.machine(facts),
        python_version=str(facts.value("python.version") or "3.11"),
        driver_cuda=driver_cuda,
        capabilities=view.capabilities(gpus),
        current_release=current_release(facts),
        driver_version=version if isinstance(version, str) else None,
    )


def _python_range() -> str:
    info = compat()["releases"]["by_release"][newest_release()]
    return f"{info['python'][0]} to {info['python'][1]}"


def cuda_wheel_fix(facts: Facts, gpus: view.GpuView | None = None) -> tuple[str, str | None]:
    """(fix text, chosen variant) for installing a CUDA build that fits this driver and these GPUs.

    The command keeps the user's torch release when a build of it fits, else names the nearest release
    that has one, and reinstalls the installed torchvision/torchaudio at matching versions so no CPU (or
    other-release) companion is left beside the new torch. Falls back to an honest explanation when no
    published wheel fits (driver too old for every variant, Jetson, macOS)."""
    gpus = gpus or view.nvidia_gpus(facts)
    driver_cuda, _ = view.driver_cuda(facts)
    # Driver unknown (a pasted error, no NVML): the build of the nearest release that asks least of it.
    choice = _recommend(facts, gpus, driver_cuda)
    py = view.python_executable(facts)
    if choice is None or not choice.variant:
        reason = choice.reason if choice is not None else ""
        if choice is not None and choice.blocker == "gpu":
            sms = ", ".join(f"sm_{c.replace('.', '')}" for c in view.capabilities(gpus)) or "this GPU"
            caps = view.capabilities(gpus)
            removed = sorted({r for c in caps if (r := cuda_dropped(OLDEST_TORCH_CUDA, c))})
            if caps and all(cuda_dropped(OLDEST_TORCH_CUDA, c) for c in caps):
                # Older than anything a CUDA toolkit PyTorch builds with can compile for: a source build cannot help.
                return (
                    f"No PyTorch build can use {sms}: CUDA {' / '.join(removed)} removed this architecture and "
                    f"PyTorch builds only with CUDA {OLDEST_TORCH_CUDA} or newer ({reason}). Use the CPU build of "
                    "torch on this machine, or a newer NVIDIA GPU.",
                    None,
                )
            return (
                f"No PyTorch build in gpuassist's tables (checked {tables_as_of()}) has code for {sms} ({reason}). "
                "A newer release or a nightly build may: check https://pytorch.org/get-started/locally/ , or build "
                f"from source with TORCH_CUDA_ARCH_LIST set to the GPU's compute capability "
                f"({';'.join(view.capabilities(gpus)) or 'see nvidia-smi --query-gpu=compute_cap --format=csv'}).",
                None,
            )
        if choice is not None and choice.blocker == "python":
            make_env = (
                "py -3.12 -m venv .venv && .venv\\Scripts\\python -m pip"
                if view.is_windows(facts)
                else "python3.12 -m venv .venv && .venv/bin/python -m pip"
            )
            return (
                f"No PyTorch CUDA wheel in gpuassist's tables fits ({reason}). Create an environment with a "
                f"Python that current PyTorch supports ({_python_range()}), then install a CUDA build there, "
                "e.g.:\n"
                f"  {make_env} install torch --index-url https://download.pytorch.org/whl/cu130",
                None,
            )
        return (
            "No published PyTorch CUDA wheel fits this driver and GPU"
            + (f" ({reason})" if reason else "")
            + ". Update the NVIDIA driver first, then install a CUDA build from "
            "https://download.pytorch.org/whl/ with the interpreter you use.",
            None,
        )
    variant = choice.variant
    installed, _keys = view.companions(facts)
    choice = choice.with_companions(installed)
    uninstall = f"{pip(facts)} uninstall -y " + " ".join(["torch", *(n for n in view.COMPANIONS if n in installed)])
    basis = []
    mine = current_release(facts)
    if not choice.keeps_current and mine:
        basis.append(f"no build of your torch {mine} fits; {choice.release} is the nearest release that does")
    if driver_cuda:
        basis.append(f"your driver supports CUDA up to {cuda_int_to_str(driver_cuda)}")
        if choice.via == "minor_version_compat":
            basis.append(
                f"{choice.variant} runs on it through CUDA minor-version compatibility "
                f"(driver {choice.full_driver} or newer gives all of its features)"
            )
    else:
        need = choice.min_driver or f"one supporting CUDA {variant[2:-1]}.{variant[-1]}"
        basis.append(
            f"gpuassist could not read the driver version: this build needs driver {need} or newer; "
            "`nvidia-smi` shows yours (top right: CUDA Version)"
        )
    caps = view.capabilities(gpus)
    if caps:
        basis.append("GPU compute capability " + ", ".join(f"sm_{c.replace('.', '')}" for c in caps))
    because = f" ({'; '.join(basis)})" if basis else ""
    what = f"the {choice.variant} build of torch {choice.release}"
    if choice.companions:
        what += " with " + " and ".join(choice.companions)
    unmatched = [n for n in installed if not any(c.startswith(n + "==") for c in choice.companions)]
    note = (
        f"\n{' and '.join(unmatched)} has no release known to match torch {choice.release}: uninstall it "
        "or install it from the same index after checking its version"
        if unmatched
        else ""
    )
    return (
        f"Install {what}{because}:\n"
        f"  {uninstall}\n  {choice.pip_command(py)}{note}\n"
        "Then check: "
        f'{quote(py)} -c "import torch; print(torch.__version__, torch.cuda.is_available())"',
        variant,
    )


def cpu_wheel_command(facts: Facts) -> str:
    release = current_release(facts)
    pin = f'"torch=={release}"' if release else "torch"
    if view.is_macos(facts) or view.is_windows(facts):
        return f"{pip(facts)} install {pin}"
    return f"{pip(facts)} install {pin} --index-url {CPU_INDEX}"


def driver_requirement(variant: str | None, os: str) -> tuple[str | None, str | None]:
    """(oldest driver that runs a CUDA wheel variant, the toolkit's own Table 3 driver): the family floor
    of CUDA minor-version compatibility (580 for 13.x, 525.60.13 for 12.x) is what the wheel needs; the
    Table 3 driver only adds the newest features (JIT of the toolkit's PTX)."""
    if not variant:
        return None, None
    return family_min_driver(variant, os), min_driver_for_variant(variant, os)


def driver_install_command(
    facts: Facts, min_driver: str | None = None, *, full_driver: str | None = None, cuda: str | None = None
) -> str:
    """The distribution's usual way to install the NVIDIA driver, with the version it must reach and, when
    it differs, the version that gives all of the toolkit's features."""
    distro = str(facts.value("host.distro") or "").lower()
    need = f" (version {min_driver} or newer" if min_driver else ""
    if need and full_driver and full_driver != min_driver:
        need += (
            f"; {full_driver} or newer for all of CUDA {cuda}'s newest features"
            if cuda
            else f"; {full_driver} or newer for the newest features"
        )
    need += ")" if need else ""
    if view.is_windows(facts):
        return f"Install the latest NVIDIA Game Ready/Studio or data-center driver{need} from NVIDIA, then reboot."
    if "ubuntu" in distro or "pop!_os" in distro or "mint" in distro:
        cmd = "sudo ubuntu-drivers install   # or: sudo apt install nvidia-driver-<branch>"
    elif "debian" in distro:
        cmd = "sudo apt install nvidia-driver firmware-misc-nonfree   # needs contrib non-free in sources"
    elif "fedora" in distro:
        cmd = "sudo dnf install akmod-nvidia   # from RPM Fusion"
    elif any(d in distro for d in ("rhel", "red hat", "rocky", "alma", "centos")):
        cmd = "sudo dnf module install nvidia-driver:latest-dkms   # from NVIDIA's CUDA repository"
    elif "arch" in distro or "manjaro" in distro:
        cmd = "sudo pacman -S nvidia"
    elif "suse" in distro:
        cmd = "sudo zypper install-new-recommends --repo NVIDIA"
    else:
        cmd = "# install the NVIDIA driver package of your distribution"
    return f"Install the NVIDIA driver{need}, then reboot:\n  {cmd}\n  sudo reboot"
