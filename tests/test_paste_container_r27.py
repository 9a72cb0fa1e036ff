"""Round 27 (issue #14): container texts whose driver side is read from the message's source.

- libcuda.so.1 missing after a `docker run` with no GPU request: no image ships libcuda (the NVIDIA runtime mounts
  it from the host), so the container was not given the GPU; the host's driver is not judged.
- nvidia-docker 1.0's "Could not load UVM kernel module" (nvidia-modprobe -u failed) and a runtime missing
  /dev/nvidiactl: the host's NVIDIA modules are not loaded.
- A runtime missing /dev/nvidia-uvm on a host the text says rebooted (or with no nvidia nodes at all), never slept:
  the modules are not loaded, not a UVM module broken by a suspend.
Synthetic texts, each with a counter-example that must not fire.
"""

from __future__ import annotations

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


# ------------------------------------------------------------------ libcuda.so.1 missing in a GPU-less container

RUN_WITHOUT_GPU = (
    "Trying the published image on my workstation:\n"
    "$ docker run --rm -it example/llm-server:cuda12 --model /models/a.gguf\n"
    "/app/server: error while loading shared libraries: libcuda.so.1: cannot open shared object file: "
    "No such file or directory\n"
)
TF_IN_RUN_WITHOUT_GPU = (
    "podman run -it docker.io/tensorflow/tensorflow:latest-gpu python -c 'import tensorflow'\n"
    "W dso_loader.cc:64] Could not load dynamic library 'libcuda.so.1'; dlerror: libcuda.so.1: cannot open shared "
    "object file: No such file or directory\n"
)


STUB_IN_RUN_WITHOUT_GPU = (
    "docker run -it --rm -e LD_LIBRARY_PATH=/usr/local/cuda/lib64/stubs example/trainer:cu121 python train.py\n"
    "RuntimeError: CUDA driver initialization failed: CUDA driver is a stub library\n"
)


@pytest.mark.parametrize("text", [RUN_WITHOUT_GPU, TF_IN_RUN_WITHOUT_GPU, STUB_IN_RUN_WITHOUT_GPU])
def test_libcuda_missing_after_gpu_less_run_is_the_runtime(text: str) -> None:
    ids = _ids(text)
    assert ids and ids[0] == "docker_no_gpu_runtime"
    assert "no_nvidia_driver" not in ids
    assert "wsl_libcuda_problem" not in ids


def test_libcuda_missing_with_gpus_flag_is_not_the_runtime() -> None:
    """With the GPU requested the runtime was asked for: the missing library stays a possibility, never a verdict."""
    text = RUN_WITHOUT_GPU.replace("docker run --rm -it", "docker run --gpus all --rm -it")
    findings = load_text(text).findings
    assert not any(f.id == "docker_no_gpu_runtime" and f.severity is Severity.ERROR for f in findings)


def test_libcuda_missing_without_container_is_not_the_runtime() -> None:
    text = (
        "$ ./server --model /models/a.gguf\n"
        "./server: error while loading shared libraries: libcuda.so.1: cannot open shared object file: "
        "No such file or directory\n"
    )
    assert "docker_no_gpu_runtime" not in _ids(text)


# ------------------------------------------------------------------ nvidia-docker 1.0 / runtime: modules not loaded


@pytest.mark.parametrize(
    "line",
    [
        "nvidia-docker | 2017/03/02 10:11:12 Error: Could not load UVM kernel module",
        "nvidia-docker-plugin | 2017/03/02 10:11:12 Error: Could not load UVM kernel module. Is nvidia-modprobe "
        "installed?",
        "docker: Error response from daemon: error gathering device information while adding custom device "
        '"/dev/nvidiactl": no such file or directory.',
    ],
)
def test_module_cannot_load_is_module_not_loaded(line: str) -> None:
    ids = _ids(f"Our GPU containers stopped starting today.\n{line}\n")
    assert ids and ids[0] == "nvidia_module_not_loaded"
    assert "uvm_wedged_after_suspend" not in ids


def test_other_custom_device_is_not_module() -> None:
    text = (
        "docker: Error response from daemon: error gathering device information while adding custom device "
        '"/dev/video0": no such file or directory.\n'
    )
    assert "nvidia_module_not_loaded" not in _ids(text)


# ------------------------------------------------------------------ /dev/nvidia-uvm missing: reboot vs suspend

UVM_LINE = (
    'Error response from daemon: error gathering device information while adding custom device "/dev/nvidia-uvm": '
    "no such file or directory\n"
)


@pytest.mark.parametrize(
    "story",
    [
        "After the server rebooted last night our inference container no longer starts:\n",
        "The cloud host got a kernel update from unattended-upgrades and the service container fails:\n",
        "The service container fails, and ls shows no /dev/nvidia0 or anything nvidia in /dev.\n",
        "The service container fails. I cd into /dev and no nvidia entries are there.\n",
    ],
)
def test_uvm_node_missing_after_reboot_is_module_not_loaded(story: str) -> None:
    ids = _ids(story + UVM_LINE)
    assert ids and ids[0] == "nvidia_module_not_loaded"
    assert "uvm_wedged_after_suspend" not in ids


@pytest.mark.parametrize(
    "story",
    [
        "After the workstation resumed from suspend our container no longer starts:\n",
        "Our container no longer starts:\n",
        "Our container fails to start. Should I reboot the server?\n",
        "The container fails; restarting the container did not help:\n",
    ],
)
def test_uvm_node_missing_without_reboot_keeps_suspend_reading(story: str) -> None:
    ids = _ids(story + UVM_LINE)
    assert ids and ids[0] == "uvm_wedged_after_suspend"


# ------------------------------------------------------------------ the reporter's fix was another torch build

IMAGE_WORDS = (
    "CUDA is not available in the example/serve:1.0-gpu docker image\n"
    "torch.cuda.is_available() returns False inside the container, so inference runs on the CPU.\n"
)


@pytest.mark.parametrize(
    "fix",
    [
        "Installing `pip install torch==2.1.0+cu118 -f https://download.pytorch.org/whl/torch_stable.html` in the "
        "Dockerfile instead of plain torch. I was able to fix the issue through this.\n",
        "I ran conda install pytorch pytorch-cuda=11.8 -c pytorch -c nvidia in the image and that fixed it.\n",
    ],
)
def test_torch_reinstall_fix_rules_out_runtime_guess(fix: str) -> None:
    assert "docker_no_gpu_runtime" in _ids(IMAGE_WORDS)  # the guess the words make on their own
    assert "docker_no_gpu_runtime" not in _ids(IMAGE_WORDS + fix)


@pytest.mark.parametrize(
    "fix",
    [
        "I tried pip install torch==2.1.0+cu118 in the image but it never fixed it.\n",
        "Installing the NVIDIA container toolkit on the host fixed it.\n",
        "Would pip install torch==2.1.0+cu118 in the image have fixed it?\n",
    ],
)
def test_denied_or_other_fix_keeps_runtime_guess(fix: str) -> None:
    assert "docker_no_gpu_runtime" in _ids(IMAGE_WORDS + fix)


def test_nvidia_docker1_nvml_blames_nothing() -> None:
    """nvidia-docker 1.0's plugin runs on the host; its NVML library missing is a driver absent or one not in the
    loader's cache (nvidia-smi may work): recognised, no cause claimed, and never the container runtime."""
    text = (
        "nvidia-docker-plugin | 2017/10/29 16:23:21 Loading NVIDIA management library\n"
        "nvidia-docker-plugin | 2017/10/29 16:23:21 Error: Could not load NVML library\n"
    )
    assert _ids(text) == []


def test_nvidia_docker1_log_is_the_host_side() -> None:
    """A no-driver guess from nvidia-docker 1.0's own log is the host's: not turned into the container runtime."""
    text = "nvidia-docker | 2016/05/02 10:11:12 Error: unsupported CUDA version: 7.5 < 0.0\n"
    ids = _ids(text)
    assert ids and ids[0] == "no_nvidia_driver"
    assert "docker_no_gpu_runtime" not in ids


def test_nvml_library_words_from_a_device_plugin_are_the_runtime() -> None:
    """The same words from another Go binding (a device plugin in a pod) are the pod's runtime, read elsewhere."""
    text = "I1203 nvidia-device-plugin: Loading NVML\nE1203 could not load NVML library\n"
    ids = _ids(text)
    assert ids and ids[0] == "docker_no_gpu_runtime"
