"""Exact fix commands shared by several rules (the right wheel for *this* driver and *these* GPUs)."""

from __future__ import annotations

import shlex

from gpuassist.facts import Facts
from gpuassist.knowledge.wheels import WheelChoice, cuda_int_to_str, parse_torch_version, recommend_wheel
from gpuassist.rules import view

CPU_INDEX = "https://download.pytorch.org/whl/cpu"
# Driver CUDA levels tried, oldest first, when the driver is unknown.
ASSUMED_DRIVER_LEVELS = (11080, 12040, 12060, 12080, 13000, 13020)


def quote(path: str) -> str:
    return path if path.replace("/", "").replace(".", "").replace("-", "").replace("_", "").isalnum() \
        else shlex.quote(path)


# gpuassist's own environment is never a fix's target unless the user chose it (issue 11): a fresh one instead.
OWN_ENV_PIP = {"posix": "python3 -m venv ~/torch-env && ~/torch-env/bin/python -m pip",
               "windows": "py -m venv %USERPROFILE%\\torch-env && %USERPROFILE%\\torch-env\\Scripts\\python -m pip"}


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


def cuda_wheel_fix(facts: Facts, gpus: view.GpuView | None = None) -> tuple[str, str | None]:
    """(fix text, chosen variant) for installing a CUDA build that fits this driver and these GPUs.

    Falls back to an honest explanation when no published wheel fits (driver too old for every
    variant, Jetson, macOS)."""

    gpus = gpus or view.nvidia_gpus(facts)
    driver_cuda, _ = view.driver_cuda(facts)
    def recommend(cuda: int) -> WheelChoice | None:
        return recommend_wheel(
            os=view.os_name(facts), machine=view.machine(facts),
            python_version=str(facts.value("python.version") or "3.11"), driver_cuda=cuda,
            capabilities=view.capabilities(gpus), current_release=current_release(facts),
        )

    if driver_cuda:
        choice = recommend(driver_cuda)
    else:
        # Driver unknown (a pasted error, no NVML): the build that asks the least of the driver.
        choice = None
        for assumed in ASSUMED_DRIVER_LEVELS:
            choice = recommend(assumed)
            if choice is not None and choice.variant:
                break
    py = view.python_executable(facts)
    if choice is None or not choice.variant:
        reason = choice.reason if choice is not None else ""
        if "Python" in reason:
            make_env = ("py -3.12 -m venv .venv && .venv\\Scripts\\python -m pip" if view.is_windows(facts)
                        else "python3.12 -m venv .venv && .venv/bin/python -m pip")
            return (
                f"No PyTorch CUDA wheel in gpuassist's tables fits ({reason}). Create an environment with a "
                "current Python (3.10 to 3.13), then install a CUDA build there, e.g.:\n"
                f"  {make_env} install torch --index-url https://download.pytorch.org/whl/cu126",
                None,
            )
        return (
            "No published PyTorch CUDA wheel fits this driver and GPU"
            + (f" ({reason})" if reason else "")
            + ". Update the NVIDIA driver first, then install a CUDA build from "
            "https://download.pytorch.org/whl/ with the interpreter you use.",
            None,
        )
    uninstall = f"{pip(facts)} uninstall -y torch"
    basis = []
    if driver_cuda:

        basis.append(f"your driver supports CUDA up to {cuda_int_to_str(driver_cuda)}")
    else:
        need = choice.min_driver or f"one supporting CUDA {choice.variant[2:-1]}.{choice.variant[-1]}"
        basis.append(f"gpuassist could not read the driver version: this build needs driver {need} or newer; "
                     "`nvidia-smi` shows yours (top right: CUDA Version)")
    caps = view.capabilities(gpus)
    if caps:
        basis.append("GPU compute capability " + ", ".join(f"sm_{c.replace('.', '')}" for c in caps))
    because = f" ({'; '.join(basis)})" if basis else ""
    return (
        f"Install the {choice.variant} build of torch {choice.release}{because}:\n"
        f"  {uninstall}\n  {choice.pip_command(py)}\n"
        "Then check: "
        f"{quote(py)} -c \"import torch; print(torch.__version__, torch.cuda.is_available())\"",
        choice.variant,
    )


def cpu_wheel_command(facts: Facts) -> str:
    release = current_release(facts)
    pin = f'"torch=={release}"' if release else "torch"
    if view.is_macos(facts) or view.is_windows(facts):
        return f"{pip(facts)} install {pin}"
    return f"{pip(facts)} install {pin} --index-url {CPU_INDEX}"


def driver_install_command(facts: Facts, min_driver: str | None = None) -> str:
    """The distribution's usual way to install the NVIDIA driver."""
    distro = str(facts.value("host.distro") or "").lower()
    need = f" (version {min_driver} or newer)" if min_driver else ""
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
