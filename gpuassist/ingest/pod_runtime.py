"""A Kubernetes pod on a GPU node whose nvidia-smi is missing or an empty file: the pod ran without the NVIDIA runtime.

The evidence space (NVIDIA's own documentation):
- NVIDIA Container Toolkit, "Driver capabilities" and "Installing the NVIDIA Container Toolkit": nvidia-smi, NVML and
  libcuda are not in any image; the toolkit's runtime (nvidia-container-runtime and its hook) mounts them from the
  host's driver into a container it is asked to give the GPU (utility = nvidia-smi/NVML, compute = libcuda).
- NVIDIA k8s-device-plugin README ("Configure containerd" / "Configure CRI-O") and the GPU Operator docs: under
  Kubernetes the kubelet's runtime (containerd, CRI-O) must run the pod with the nvidia runtime, either as
  containerd's ``default_runtime_name = "nvidia"`` (``nvidia-ctk runtime configure --runtime=containerd
  --set-as-default``) or by a RuntimeClass the pod names (``runtimeClassName: nvidia``). A pod run by plain runc gets
  no driver files: ``nvidia-smi: command not found``, or an nvidia-smi path that exists but is empty when the
  image's mount point is left unfilled.
So in a pod (kubectl, Kubernetes/k8s/k0s/k3s/microk8s, a RuntimeClass, "in a pod") on a node the text shows to have
the GPU (a GPU node said, the GPU named or detected, nvidia-smi or ``--gpus`` working outside the pod, another
runtime working), nvidia-smi missing or blank is the runtime cause, not a host without a driver: the driver and GPU
guesses the bare nvidia-smi line makes give way. A pod text without the node's GPU shown stays with the guesses, and
a text that shows CUDA working is left alone.
"""

from __future__ import annotations

import re

from gpuassist.ingest.container_smi import SMI_MISSING
from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.report.model import Report

POD = re.compile(
    r"\bkubectl\b|\b(?:kubernetes|k8s|k0s|k3s|microk8s|rke2)\b|\bruntimeClassName\b|\bRuntimeClass\b|"
    r"\b(?:in|inside|within|from) (?:a |the |my |our |this )?(?:k8s |kubernetes )?pods?\b|\bpod spec\b",
    re.IGNORECASE,
)
# nvidia-smi present in the pod but empty: "mapped into a container as a blank file", "nvidia-smi is 0 bytes".
SMI_BLANK = re.compile(
    r"nvidia-smi\b[^.\n]{0,60}\b(?:blank|empty|zero[- ]byte|0[- ]bytes?)\b(?: file)?|"
    r"\b(?:blank|empty|zero[- ]byte|0[- ]byte) file\b[^.\n]{0,40}\bnvidia-smi\b",
    re.IGNORECASE,
)
# The node has the GPU: said ("gpu enabled node", "GPU nodes"), detected, named, or working outside the pod.
NODE_GPU = re.compile(
    r"\bgpu[- ](?:enabled |capable |equipped )?(?:nodes?|workers?|hosts?)\b|\bNVIDIA GPU (?:detected|found)\b|"
    r"\b(?:RTX|GTX|Quadro|Tesla)\s?[A-Z]?\d{3,4}\b|\b[AHLT]\d{1,3}(?:\s?(?:PCIe|SXM\d?))?\s+GPU\b|"
    r"\s--gpus[= ]\S+|\bNVIDIA-SMI\s+\d+\.\d+|Driver Version:\s*\d+",
    re.IGNORECASE,
)
# What a pod with no driver files inside would be blamed on by the bare nvidia-smi line.
HOST_GUESSES = frozenset(
    {"no_nvidia_driver", "no_nvidia_gpu", "nvidia_module_not_loaded", "wsl_libcuda_problem", "docker_no_gpu_runtime"}
)


def _first(lines: list[str], pattern: re.Pattern[str]) -> tuple[int, str] | None:
    return next(((no, line) for no, line in enumerate(lines, start=1) if pattern.search(line[:MAX_LINE])), None)


def pod_without_nvidia_runtime(lines: list[str], report: Report, matches: list[Match]) -> list[Match]:
    """The pod's missing or blank nvidia-smi on a GPU node: the pod ran without the NVIDIA runtime (a verdict)."""
    if report.facts.value("cuda.available") is True:
        return matches
    if any(m.specific and m.id not in HOST_GUESSES for m in matches):
        return matches  # the text names another cause outright
    if any(m.specific and m.id in HOST_GUESSES and m.id != "docker_no_gpu_runtime" for m in matches):
        return matches  # a driver or GPU cause the text states outright stays
    smi = _first(lines, SMI_MISSING) or _first(lines, SMI_BLANK)
    if smi is None or _first(lines, POD) is None or _first(lines, NODE_GPU) is None:
        return matches
    kept = [m for m in matches if m.id not in HOST_GUESSES]
    return [*kept, Match("docker_no_gpu_runtime", smi[0], smi[1].strip()[:500], True, 0.9)]
