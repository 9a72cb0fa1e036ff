"""Round 22 (issue #14): a Kubernetes pod on a GPU node whose nvidia-smi is missing or blank ran without the NVIDIA
runtime (RuntimeClass / containerd default_runtime_name), not on a host without a driver. Synthetic texts and
counter-examples."""

from __future__ import annotations

from gpuassist.ingest import load_text


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


def test_pod_on_gpu_node_without_nvidia_smi_is_the_runtime() -> None:
    text = (
        "Deployed our inference image with kubectl apply on a k3s cluster; the GPU nodes have an A10 each.\n"
        "Pod log:\n"
        "sh: 1: nvidia-smi: not found\n"
        "No GPU found, running on CPU\n"
    )
    ids = _ids(text)
    assert ids[:1] == ["docker_no_gpu_runtime"]
    assert "no_nvidia_driver" not in ids


def test_blank_nvidia_smi_in_pod_is_the_runtime() -> None:
    text = (
        "Under Kubernetes with containerd the pod's /usr/bin/nvidia-smi is an empty file, while "
        "`ctr run --rm --gpus 0 docker.io/nvidia/cuda:12.2.0-base-ubuntu22.04 t nvidia-smi` works on the node.\n"
    )
    assert _ids(text)[:1] == ["docker_no_gpu_runtime"]


def test_pod_without_the_node_gpu_shown_is_no_verdict() -> None:
    # nothing says the node has a GPU or a driver: the runtime is not claimed outright
    text = "Running in a pod on our kubernetes cluster:\nbash: nvidia-smi: command not found\n"
    ids = load_text(text).findings
    assert not any(f.id == "docker_no_gpu_runtime" and f.severity.name == "ERROR" for f in ids)


def test_host_without_pod_words_is_not_the_runtime() -> None:
    # the same nvidia-smi line on a plain host with an RTX card: a driver question, not a container runtime
    text = "Fresh Ubuntu install with an RTX 3060:\n$ nvidia-smi\nnvidia-smi: command not found\n"
    assert "docker_no_gpu_runtime" not in _ids(text)
