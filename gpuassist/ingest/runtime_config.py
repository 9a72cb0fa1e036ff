"""A pasted container-engine configuration read for what it says about the NVIDIA runtime.

Kubernetes (kubelet through dockershim/cri-dockerd, containerd's CRI plugin, CRI-O) starts every pod with the
engine's DEFAULT runtime unless the pod names a RuntimeClass; the NVIDIA runtime (which injects the driver and the
device nodes) therefore has to be the default on a GPU node for the device plugin and GPU pods to see the GPU
(NVIDIA/k8s-device-plugin README, "Configure Docker": "you will need to enable the nvidia runtime as your default
runtime on your node", with "default-runtime": "nvidia" in /etc/docker/daemon.json; "Configure containerd":
default_runtime_name = "nvidia" in /etc/containerd/config.toml; CRI-O: default_runtime = "nvidia" under
[crio.runtime]; NVIDIA container toolkit install guide: `nvidia-ctk runtime configure --runtime=docker
--set-as-default`). On Jetson with L4T r32, `docker build` needs the same default for CUDA/TensorRT to be mounted
during the build (dusty-nv/jetson-containers docs: set "default-runtime": "nvidia" in daemon.json). OpenPAI's
installer checks it on every GPU worker and refuses with "The default runtime is not set correctly" (microsoft/pai
contrib/kubespray requirement checks, whose unmet requirements follow "The following requirements are not met: ").

So a pasted daemon.json / config.toml / crio.conf that registers an nvidia runtime but leaves another default is
the cause where the text runs GPU work under Kubernetes (or OpenPAI, or a Jetson docker build) and it fails or the
installer refuses; the same file beside a plain `docker run --gpus` is fine (Docker's --gpus uses the hook, any
default works), so it is not read there. A file that does make nvidia the default rules the reading out.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

# The nvidia runtime registered: daemon.json's "runtimes": {"nvidia": ...}, containerd's runtimes.nvidia table,
# CRI-O's [crio.runtime.runtimes.nvidia].
NVIDIA_REGISTERED = re.compile(
    r"^\s*[\"']nvidia[\"']\s*:\s*\{|\bruntimes\.[\"']?nvidia[\"']?\]|^\s*\[crio\.runtime\.runtimes\.nvidia\]",
    re.IGNORECASE,
)
RUNTIMES_KEY = re.compile(r"[\"']runtimes[\"']\s*:|\bruntimes\b", re.IGNORECASE)
# The default runtime, in each engine's key.
DEFAULT_RUNTIME = re.compile(
    r"[\"']default-runtime[\"']\s*:\s*[\"'](?P<a>[\w.-]+)[\"']|"
    r"\bdefault_runtime(?:_name)?\s*=\s*[\"'](?P<b>[\w.-]+)[\"']",
    re.IGNORECASE,
)
# Where pods (or an installer, or a Jetson build) take the engine's default runtime.
NEEDS_DEFAULT = re.compile(
    r"\b(?:kubernetes|k8s|k3s|kubelet|kubectl|kubespray|microk8s|device[- ]plugin|nvidia\.com/gpu|openpai|pai-worker|"
    r"gpu-operator)\b|\bdefault runtime\b",
    re.IGNORECASE,
)
# On a Jetson, the default matters to `docker build` and plain `docker run`/Compose: only with one in the text.
JETSON = re.compile(r"\bL4T\b|\bjetpack\b|\bjetson\b", re.IGNORECASE)
JETSON_CONTAINER_WORK = re.compile(r"\bdocker[- ](?:build|run|compose)\b|(?<![\w-])containers?(?![\w-])", re.IGNORECASE)
# What went wrong: the installer's refusal, the GPU not seen or not usable.
TROUBLE = re.compile(
    r"default runtime is not set correctly|requirements are not met|Insufficient nvidia\.com/gpu|"
    r"\b0/\d+ nodes are available|could not load NVML|No devices found|Found no NVIDIA driver|"
    r"No CUDA GPUs are available|is_available\(\)\W*(?:returns?\s*)?False|\bFAILED!|"
    r"\bno (?:nvidia )?gpus?\b|\bnot (?:detected|found|available)\b|"
    r"cannot open shared object file|file too short",
    re.IGNORECASE,
)


def _config_block(lines: list[str]) -> tuple[int, str | None] | None:
    """The line registering an nvidia runtime and the default runtime the same file names (None: not set)."""
    registered = next(
        (
            no
            for no, line in enumerate(lines[:5000], start=1)
            if NVIDIA_REGISTERED.search(line[:MAX_LINE])
            and any(RUNTIMES_KEY.search(earlier[:MAX_LINE]) for earlier in lines[max(0, no - 4) : no])
        ),
        None,
    )
    if registered is None:
        return None
    default = None
    for line in lines[:5000]:
        found = DEFAULT_RUNTIME.search(line[:MAX_LINE])
        if found:
            default = (found.group("a") or found.group("b")).lower()
    return registered, default


def default_runtime_missing_match(lines: list[str]) -> Match | None:
    """A pasted engine config registers the nvidia runtime without making it the default, where the text's GPU work
    takes the default runtime (Kubernetes, OpenPAI, a Jetson build) and fails: the container runtime cause."""
    block = _config_block(lines)
    if block is None:
        return None
    registered, default = block
    if default == "nvidia":
        return None
    head = lines[:5000]
    jetson_build = any(JETSON.search(line[:MAX_LINE]) for line in head) and any(
        JETSON_CONTAINER_WORK.search(line[:MAX_LINE]) for line in head
    )
    if not jetson_build and not any(NEEDS_DEFAULT.search(line[:MAX_LINE]) for line in head):
        return None
    if not any(TROUBLE.search(line[:MAX_LINE]) for line in lines[:5000]):
        return None
    cited = lines[registered - 1].strip()[:500]
    return Match("docker_no_gpu_runtime", registered, cited, True, 0.85)
