"""Round 14 (issue #14, system side): message families and host facts read from their sources, each with a
synthetic text that must be read and a counter-example that must not fire."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


# ---- nvidia-docker 1.0's image check, in its early wording (label < version, no words) -------------------------


@pytest.mark.parametrize(
    "line",
    [
        "nvidia-docker | 2016/05/02 10:11:12 Error: unsupported CUDA version: 8.0 < 7.5",
        "nvidia-docker | 2016/06/20 08:00:01 Error: unsupported CUDA version: 8.0.44 < 7.0",
    ],
)
def test_early_nvidia_docker_cuda_check_is_an_old_driver(line: str) -> None:
    assert _ids(f"$ nvidia-docker run --rm nvidia/cuda nvidia-smi\n{line}\n")[:1] == ["driver_too_old"]


def test_early_nvidia_docker_driver_zero_is_no_usable_driver_not_an_old_one() -> None:
    ids = _ids("nvidia-docker | 2016/05/02 10:11:12 Error: unsupported CUDA version: 7.5 < 0.0\n")
    assert "driver_too_old" not in ids


def test_a_tool_listing_its_supported_cuda_versions_is_not_the_driver_check() -> None:
    text = "docker build failed\nError: unsupported CUDA version: 12.9 (supported: [12.4 12.6])\n"
    assert "driver_too_old" not in _ids(text)


# ---- nvidia-smi answering in the same text rules out "no driver" -----------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        "0, GPU-1a2b3c4d-0000-1111-2222-333344445555, NVIDIA GeForce RTX 2080, 41, 3, 512, 8192",
        "GPU 0: NVIDIA RTX A4000 (UUID: GPU-1a2b3c4d-0000-1111-2222-333344445555)",
        "NVIDIA GeForce RTX 3060, 551.86",
    ],
)
def test_smi_not_on_path_for_a_tool_while_smi_answers_is_no_missing_driver(answer: str) -> None:
    text = (
        "C:\\Users\\ana> nvtop-lite\n"
        "'nvidia-smi' is not recognized as an internal or external command,\n"
        "operable program or batch file.\n"
        f"C:\\Users\\ana> nvidia-smi --query-gpu=index,uuid,name --format=csv,noheader\n{answer}\n"
    )
    assert "no_nvidia_driver" not in _ids(text)


def test_smi_not_recognized_alone_still_suggests_no_driver() -> None:
    text = (
        "C:\\Users\\ana> nvidia-smi\n"
        "'nvidia-smi' is not recognized as an internal or external command,\n"
        "operable program or batch file.\n"
    )
    assert "no_nvidia_driver" in _ids(text)


# ---- Docker's GPU request on a Mac ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "error",
    [
        'Error response from daemon: could not select device driver "" with capabilities: [[gpu]]',
        "docker: Error response from daemon: unknown or invalid runtime name: nvidia.",
    ],
)
def test_docker_gpu_request_on_a_mac_is_no_nvidia_gpu(error: str) -> None:
    text = f"Running the compose file on my MacBook Air M2 (macOS 14)\n{error}\n"
    ids = _ids(text)
    assert ids[:1] == ["no_nvidia_gpu"]
    assert "docker_no_gpu_runtime" not in ids


def test_toolkit_without_nvml_on_a_mac_is_the_mac_reading_not_the_toolkit() -> None:
    text = (
        "Running the compose file on my MacBook Air M2 (macOS 14)\n"
        "nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared "
        "object file: no such file or directory: unknown.\n"
    )
    ids = _ids(text)
    assert ids[:1] in (["no_nvidia_gpu"], ["macos_no_cuda_use_mps"])
    assert "docker_no_gpu_runtime" not in ids


def test_docker_gpu_request_on_linux_is_still_the_toolkit() -> None:
    text = (
        "Ubuntu 22.04, RTX 3090\n"
        'Error response from daemon: could not select device driver "" with capabilities: [[gpu]]\n'
    )
    assert _ids(text)[:1] == ["docker_no_gpu_runtime"]


# ---- an image built for another CPU than the host's ----------------------------------------------------------

MISMATCH = (
    "WARNING: The requested image's platform (linux/amd64) does not match the detected host platform "
    "(linux/arm64/v8) and no specific platform was requested\n"
    "docker: Error response from daemon: failed to create task for container: OCI runtime create failed: "
    "error running hook #0: error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: "
    "initialization error: driver error: failed to process request: unknown.\n"
)


def test_amd64_image_on_a_jetson_is_the_jetpack_container() -> None:
    text = "$ cat /etc/nv_tegra_release\n# R35 (release), REVISION: 4.1\n$ docker run --runtime nvidia my/cuda-app\n"
    ids = _ids(text + MISMATCH)
    assert ids[:1] == ["jetson_needs_nvidia_wheel"]
    assert "docker_no_gpu_runtime" not in ids


def test_same_platform_image_keeps_the_runtime_reading() -> None:
    text = (
        "Ubuntu 22.04 x86_64\n"
        'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].\n'
    )
    assert "docker_no_gpu_runtime" in _ids(text)


# ---- the GPU stopped after the host slept, in words ------------------------------------------------------------


def test_gpu_stopping_after_resume_is_uvm_after_suspend() -> None:
    text = (
        "Since waking up from sleep, CUDA no longer works in my container and the model runs on the CPU.\n"
        "nvidia-smi still shows the card.\n"
    )
    assert _ids(text)[:1] == ["uvm_wedged_after_suspend"]


@pytest.mark.parametrize(
    "text",
    [
        "After resuming the training job from a checkpoint, the GPU runs out of memory and fails.\n",
        "After suspend my wifi stops working. The GPU is fine and CUDA trains normally.\n",
        "After the Slurm job was suspended and resumed, the GPU fails with out of memory.\n",
        "When my script calls time.sleep(30) between batches the GPU stops working.\n",
    ],
)
def test_resuming_a_job_or_another_device_is_not_suspend(text: str) -> None:
    assert "uvm_wedged_after_suspend" not in _ids(text)


# ---- NVML's Unknown Error in a container, told in words --------------------------------------------------------


def test_nvml_unknown_in_words_in_a_pod_that_worked_first_is_access_lost() -> None:
    text = (
        "Our Kubernetes pod runs fine, but after 3 days nvidia-smi in it says nvml init failed with unknown error.\n"
        "Restarting the pod works again.\n"
    )
    assert _ids(text)[:1] == ["container_gpu_access_lost"]


def test_nvml_failure_in_words_without_a_container_is_not_access_lost() -> None:
    text = "On my laptop nvidia-smi says NVML initialization failed, unknown reason, after a few days of uptime.\n"
    assert "container_gpu_access_lost" not in _ids(text)


# ---- a driver module said not loaded, or its /dev node missing, in words ---------------------------------------


def test_uvm_and_modeset_said_missing_is_the_driver_modules_not_loaded() -> None:
    text = (
        "Since the node rebooted every container launch fails: the runtime says the nvidia_modeset kernel module "
        "is not loaded and it cannot find /dev/nvidia-uvm.\n"
    )
    assert _ids(text)[:1] == ["nvidia_module_not_loaded"]


def test_uvm_alone_said_not_loaded_after_a_sleep_is_the_uvm_reading() -> None:
    text = "After the node woke from suspend my jobs fail: pyxis says the nvidia_uvm module is not loaded.\n"
    assert _ids(text)[:1] == ["uvm_wedged_after_suspend"]


def test_uvm_alone_said_not_loaded_after_a_reboot_is_the_module_class() -> None:
    # Round 18: with no sleep in the text the UVM module was never loaded (boot-time loading), the module class.
    text = "After a reboot my jobs fail: pyxis says the nvidia_uvm module is not loaded.\n"
    assert _ids(text)[:1] == ["nvidia_module_not_loaded"]


@pytest.mark.parametrize(
    "text",
    [
        "Is the nvidia_uvm module not loaded? My CUDA program fails.\n",
        "CUDA fails with an error. The nouveau module is not loaded and lsmod shows nvidia_uvm loaded.\n",
    ],
)
def test_a_question_or_another_module_is_not_a_driver_module_missing(text: str) -> None:
    ids = _ids(text)
    assert "nvidia_module_not_loaded" not in ids
    assert "uvm_wedged_after_suspend" not in ids


def test_platform_mismatch_does_not_hide_a_daemon_without_the_nvidia_driver() -> None:
    text = (
        "Ubuntu 22.04 on a GH200 (aarch64)\n"
        "WARNING: The requested image's platform (linux/amd64) does not match the detected host platform "
        "(linux/arm64/v8) and no specific platform was requested\n"
        'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].\n'
    )
    assert _ids(text)[:1] == ["docker_no_gpu_runtime"]
