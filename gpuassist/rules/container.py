"""Containers: the GPU exists on the host, but the container was not given it."""

from __future__ import annotations

from gpuassist.facts import Facts
from gpuassist.findings import Finding, Severity
from gpuassist.rules import view
from gpuassist.rules.make import finding
from gpuassist.rules.registry import rule

HIDDEN = {"void", "none", ""}


@rule("docker_no_gpu_runtime")
def docker_no_gpu_runtime(facts: Facts) -> Finding | None:
    """In a container, an NVIDIA GPU on the (host's) PCI bus but no /dev/nvidia* device nodes: the
    runtime did not pass the GPU in. /sys and /proc/driver/nvidia are the host's, so they show the GPU
    and even its loaded driver; only the device nodes and the injected libcuda tell what the container got."""
    container = facts.value("platform.container")
    pci = facts.value("pci.nvidia_gpu_count")
    if not container or not isinstance(pci, int) or pci == 0 or view.dev_nodes(facts):
        return None
    env = facts.value("env") or {}
    visible = env.get("NVIDIA_VISIBLE_DEVICES") if isinstance(env, dict) else None
    host_driver = facts.value("driver.proc_version")
    why = (
        "NVIDIA_VISIBLE_DEVICES is unset"
        if visible is None
        else f"NVIDIA_VISIBLE_DEVICES={visible!r} hides every GPU"
        if str(visible).lower() in HIDDEN
        else f"NVIDIA_VISIBLE_DEVICES={visible!r} is set, but the NVIDIA runtime did not act on it"
    )
    return finding(
        "docker_no_gpu_runtime",
        Severity.ERROR,
        title=f"This {container} container was started without GPU access",
        explanation=(
            f"gpuassist runs inside a {container} container. The host has {pci} NVIDIA GPU(s)"
            + (" and a loaded driver" if host_driver else "")
            + ", but the container has no /dev/nvidia* device nodes"
            + ("" if facts.value("driver.userspace_versions") else " and no NVIDIA user-space driver library")
            + f", so CUDA finds no driver ({why}). Installing a driver inside the container would not help."
        ),
        fix=(
            "Start the container with GPU access (the flag goes BEFORE the image name):\n"
            "  docker run --gpus all IMAGE ...\n"
            "Docker Compose: deploy.resources.reservations.devices: [{driver: nvidia, count: all, "
            "capabilities: [gpu]}]\n"
            'If docker says `could not select device driver "" with capabilities: [[gpu]]`, install the '
            "NVIDIA Container Toolkit on the host and restart Docker:\n"
            "  sudo apt-get install -y nvidia-container-toolkit\n"
            "  sudo nvidia-ctk runtime configure --runtime=docker && sudo systemctl restart docker\n"
            "Kubernetes: request nvidia.com/gpu in the pod's resources.limits (NVIDIA device plugin)."
        ),
        evidence=view.ev(
            facts,
            "platform.container",
            "pci.nvidia_gpu_count",
            "dev.nodes",
            "driver.proc_version",
            "driver.userspace_versions",
            "env",
            "cuda.init_warnings",
        ),
        explains=["no_nvidia_driver", "nvidia_module_not_loaded", "cpu_only_build", "cuda_visible_devices_hides_gpus"],
    )
