"""System-side classes read in round 9: the container stack's CUDA-version requirement in every generation, the
container reading needing a container in the text, torch's "no driver" under WSL.

Synthetic texts written for these tests, each with a counter-example that must not fire."""

from __future__ import annotations

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text


def _first(text: str) -> str | None:
    findings = load_text(text).findings
    return findings[0].id if findings else None


def _claimed(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings if f.severity in (Severity.ERROR, Severity.WARNING)]


# ------------------------------------------------------------------ the container's CUDA-version requirement


@pytest.mark.parametrize(
    "line",
    [
        # nvidia-docker 1.0's own image check
        "nvidia-docker | 2016/09/02 10:11:12 Error: unsupported CUDA version: driver 7.5 < image 8.0.44",
        # libnvidia-container, with and without the CLI's prefix, Docker's and Podman's wrappers
        "docker: Error response from daemon: OCI runtime create failed: container_linux.go:349: starting container "
        'process caused "process_linux.go:449: container init caused \\"process_linux.go:432: running prestart '
        'hook 1 caused \\\\\\"error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: '
        "requirement error: unsatisfied condition: cuda>=11.2, please update your driver to a newer version, or "
        'use an earlier cuda container\\\\\\\\n\\\\\\"\\"": unknown.',
        "Error: OCI runtime error: crun: error executing hook `/usr/bin/nvidia-container-toolkit` (exit code: 1) "
        "nvidia-container-cli: requirement error: unsatisfied condition: driver>=525, please update your driver",
        # the last alternative of NVIDIA_REQUIRE_CUDA printed (forward-compatibility clauses), spaced as dsl.c writes it
        "nvidia-container-cli: requirement error: unsatisfied condition: brand = tesla, please update your driver to "
        "a newer version, or use an earlier cuda container: unknown.",
        "stderr: nvidia-container-cli: requirement error: unsatisfied condition: driver < 471, please update",
        "nvidia-container-cli: requirement error: unsatisfied condition: cuda >= 12.2, please update your driver",
        # the Go runtime's form (csv / cdi modes)
        "nvidia-container-runtime: requirements not met: unsatisfied condition: cuda>=12.6 (cuda=12.4)",
    ],
)
def test_container_cuda_requirement_is_the_driver_too_old(line: str) -> None:
    assert _first(line) == "driver_too_old"


def test_nvidia_docker_reading_no_cuda_driver_is_no_old_driver() -> None:
    # cudaDriverGetVersion() gives 0 when no libcuda loads: 'driver 0.0' is no usable driver, not an old one.
    text = "nvidia-docker | 2017/02/08 14:01:45 Error: unsupported CUDA version: driver 0.0 < image 8.0.61"
    claimed = _claimed(text)
    assert "driver_too_old" not in claimed
    assert "no_nvidia_driver" in claimed


def test_a_gpu_arch_requirement_is_no_driver_verdict() -> None:
    text = "nvidia-container-cli: requirement error: unsatisfied condition: arch>=7.0, please update your driver"
    assert "driver_too_old" not in _claimed(text)


# ------------------------------------------------------------------ a container reading needs a container


NO_DRIVER = "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU"


def test_no_driver_under_wsl2_is_wsl_and_no_container_without_one() -> None:
    text = f"I run the training script under Ubuntu 22.04 on WSL2, RTX 4070 on the Windows side.\n{NO_DRIVER}\n"
    claimed = _claimed(text)
    assert claimed[0] == "wsl_libcuda_problem"
    assert "docker_no_gpu_runtime" not in claimed


def test_no_driver_under_wsl1_is_wsl_first() -> None:
    text = f"Windows 10, Ubuntu 20.04 in WSL 1, GTX 1080.\n{NO_DRIVER}\n"
    assert _first(text) == "wsl_libcuda_problem"


def test_no_driver_in_a_container_keeps_the_container_reading() -> None:
    text = f"$ docker run -it my/trainer:latest python train.py\n{NO_DRIVER}\n"
    assert "docker_no_gpu_runtime" in _claimed(text)


def test_no_driver_on_a_plain_linux_host_stays_a_driver_reading() -> None:
    text = f"Ubuntu 22.04 desktop, fresh install.\n{NO_DRIVER}\n"
    claimed = _claimed(text)
    assert claimed[0] == "no_nvidia_driver"
    assert "docker_no_gpu_runtime" not in claimed


# ------------------------------------------------------------------ a driver shown installed is no missing driver

SMI_FAILED = (
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA "
    "driver is installed and running."
)


@pytest.mark.parametrize(
    "shown",
    [
        "$ modinfo nvidia | head -2\nfilename:       /lib/modules/6.5.0-14-generic/updates/dkms/nvidia.ko\n"
        "version:        535.129.03",
        "$ ls /opt/drivers/nvidia/lib/modules\nnvidia.ko  nvidia-modeset.ko  nvidia-uvm.ko",
        "$ dkms status\nnvidia/550.54.14, 6.8.0-45-generic, x86_64: installed",
        "Installation of the NVIDIA Accelerated Graphics Driver for Linux-x86_64 (version: 550.54.14) is now complete.",
        "$ dpkg -l | grep nvidia-driver\nii  nvidia-driver-535  535.129.03-0ubuntu1  amd64  NVIDIA driver metapackage",
        "Since yesterday's reboot nvidia-smi doesn't work anymore.",
        "The NVIDIA drivers are already installed on this server.",
    ],
)
def test_a_driver_shown_installed_rules_out_no_driver(shown: str) -> None:
    text = f"{shown}\n$ nvidia-smi doesn't work\n{SMI_FAILED}\n$ lsmod | grep nvidia returns nothing\n"
    claimed = _claimed(text)
    assert "no_nvidia_driver" not in claimed
    assert claimed[0] == "nvidia_module_not_loaded"


def test_nvidia_smi_advice_alone_keeps_the_no_driver_guess() -> None:
    # "Make sure that the latest NVIDIA driver is installed" is nvidia-smi's advice, not a statement.
    text = f"Fresh Ubuntu 22.04 on a new RTX 4090 box. nvidia-smi doesn't work:\n{SMI_FAILED}\n"
    assert "no_nvidia_driver" in _claimed(text)


# ------------------------------------------------------------------ an engine config without nvidia as default

DAEMON_JSON_NO_DEFAULT = """$ cat /etc/docker/daemon.json
{
  "log-driver": "json-file",
  "runtimes": {
    "nvidia": {
      "path": "nvidia-container-runtime",
      "runtimeArgs": []
    }
  }
}"""
DAEMON_JSON_DEFAULT = DAEMON_JSON_NO_DEFAULT.replace('"log-driver": "json-file",', '"default-runtime": "nvidia",')
POD_PENDING = (
    "$ kubectl describe pod cuda-vector-add\n"
    "  Warning  FailedScheduling  default-scheduler  0/3 nodes are available: 3 Insufficient nvidia.com/gpu."
)


def test_daemon_json_without_nvidia_default_under_kubernetes_is_the_runtime() -> None:
    claimed = _claimed(f"{DAEMON_JSON_NO_DEFAULT}\n{POD_PENDING}\n")
    assert claimed[0] == "docker_no_gpu_runtime"


def test_containerd_config_with_runc_default_under_kubernetes_is_the_runtime() -> None:
    toml = (
        '[plugins."io.containerd.grpc.v1.cri".containerd]\n  default_runtime_name = "runc"\n'
        '  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]\n'
        '    runtime_type = "io.containerd.runc.v2"\n'
    )
    assert _claimed(f"{toml}{POD_PENDING}\n")[0] == "docker_no_gpu_runtime"


def test_the_installer_refusal_names_the_default_runtime() -> None:
    text = 'TASK [requirement] fatal: [gpu-node-3]: FAILED! => {"msg": "The default runtime is not set correctly"}'
    assert _first(text) == "docker_no_gpu_runtime"


def test_daemon_json_with_nvidia_default_is_no_runtime_verdict() -> None:
    text = f"{DAEMON_JSON_DEFAULT}\n{POD_PENDING}\n"
    assert not any(f.id == "docker_no_gpu_runtime" and f.severity is Severity.ERROR for f in load_text(text).findings)


def test_daemon_json_without_default_beside_docker_gpus_is_no_verdict() -> None:
    # docker run --gpus uses the hook whatever the default runtime: the file is fine there.
    text = (
        f"{DAEMON_JSON_NO_DEFAULT}\n$ docker run --rm --gpus all nvidia/cuda:12.4.1-base nvidia-smi\nNo devices found\n"
    )
    assert not any(f.id == "docker_no_gpu_runtime" and f.severity is Severity.ERROR for f in load_text(text).findings)


# ------------------------------------------------------------------ a Jetson container without the NVIDIA runtime


def test_jetson_container_with_an_empty_board_library_is_the_runtime() -> None:
    text = (
        "Jetson Nano, JetPack 4.6 [L4T 32.6.1]\n$ docker run -it dustynv/ros:foxy-pytorch-l4t-r32.6.1\n"
        "python3: error while loading shared libraries: libcudnn.so.8: file too short\n"
    )
    assert _first(text) == "docker_no_gpu_runtime"


def test_jetson_container_without_libcuda_is_the_runtime() -> None:
    text = (
        "AGX Orin, L4T R35.4.1, inside the l4t-base container:\n"
        "OSError: libcuda.so.1: cannot open shared object file: No such file or directory\n"
    )
    assert _first(text) == "docker_no_gpu_runtime"


def test_an_empty_library_on_the_board_itself_is_no_container_verdict() -> None:
    text = (
        "Jetson Xavier NX, JetPack 5.1\n./app: error while loading shared libraries: libnvinfer.so.8: file too short\n"
    )
    assert "docker_no_gpu_runtime" not in _claimed(text)


def test_an_empty_library_in_a_container_off_jetson_is_not_this_reading() -> None:
    text = "$ docker run -it myimage\n./app: error while loading shared libraries: libnvinfer.so.8: file too short\n"
    assert not any(f.id == "docker_no_gpu_runtime" and f.severity is Severity.ERROR for f in load_text(text).findings)


def test_a_jetpack_4_container_without_cuda_is_the_runtime() -> None:
    # L4T r32's runtime mounts the board's CUDA: without it the container has no /usr/local/cuda.
    text = (
        "Jetson Nano, JetPack 4.6 (L4T R32.6.1)\n$ sudo docker run -it --rm nvcr.io/nvidia/l4t-base:r32.6.1\n"
        "root@c:/# ls /usr/local/cuda\nls: cannot access '/usr/local/cuda': No such file or directory\n"
    )
    assert _first(text) == "docker_no_gpu_runtime"


def test_a_jetpack_5_base_container_without_cuda_is_the_image_not_the_runtime() -> None:
    # From r34 l4t-base carries no CUDA by design (l4t-cuda / l4t-jetpack do).
    text = (
        "AGX Orin, JetPack 5.1 (L4T R35.2.1)\n"
        "$ sudo docker run -it --rm --runtime nvidia nvcr.io/nvidia/l4t-base:r35.2.1\n"
        "root@c:/# ls /usr/local/cuda\nls: cannot access '/usr/local/cuda': No such file or directory\n"
    )
    assert "docker_no_gpu_runtime" not in _claimed(text)


def test_said_working_before_rules_out_no_driver() -> None:
    text = f"nvidia-smi was working before I rebooted the server.\n{SMI_FAILED}\n"
    assert "no_nvidia_driver" not in _claimed(text)


# ------------------------------------------------------------------ the NGC images' own driver check


def _ngc(need: str, have: str) -> str:
    return (
        f"ERROR: This container was built for NVIDIA Driver Release {need} or later, but\n"
        f"       version {have} was detected and compatibility mode is UNAVAILABLE.\n"
    )


def test_ngc_check_with_a_driver_of_an_older_cuda_major_is_the_driver_too_old() -> None:
    assert _first(_ngc("530.30", "470.199.02")) == "driver_too_old"


def test_ngc_check_within_one_cuda_major_is_no_verdict() -> None:
    # 580 (CUDA 13.0) under an image built for 595 (CUDA 13.2): minor-version compatibility runs it.
    assert "driver_too_old" not in _claimed(_ngc("595.58", "580.126.09"))


def test_ngc_check_without_a_detected_version_is_no_verdict() -> None:
    text = (
        "triton-1  | ERROR: This container was built for NVIDIA Driver Release 515.48 or later, but\n"
        "triton-1  |        version  was detected and compatibility mode is UNAVAILABLE.\n"
    )
    assert _claimed(text) == []


def test_wsl_list_shows_wsl1_whatever_the_user_calls_it() -> None:
    text = (
        "Ubuntu on WSL2, RTX 3090.\n> wsl -l -v\n  NAME      STATE           VERSION\n"
        "* Ubuntu    Running         1\n"
        f"{NO_DRIVER}\n"
    )
    report = load_text(text)
    assert report.facts.value("platform.wsl") == "wsl1"
    assert report.findings[0].id == "wsl_libcuda_problem"


def test_wsl_list_with_version_2_stays_wsl2() -> None:
    text = f"> wsl -l -v\n  NAME      STATE           VERSION\n* Ubuntu-22.04    Running         2\n{NO_DRIVER}\n"
    assert load_text(text).facts.value("platform.wsl") == "wsl2"


def test_nvidia_docker_1_volume_plugin_missing_is_the_runtime() -> None:
    text = (
        "$ nvidia-docker run --rm nvidia/cuda:8.0-runtime nvidia-smi\n"
        "docker: Error response from daemon: create nvidia_driver_375.66: create nvidia_driver_375.66: Error looking "
        "up volume plugin nvidia-docker: legacy plugin: plugin not found.\n"
    )
    assert _first(text) == "docker_no_gpu_runtime"


def test_another_volume_plugin_missing_is_no_gpu_verdict() -> None:
    text = "docker: Error response from daemon: create data: Error looking up volume plugin rexray: plugin not found."
    assert _claimed(text) == []


def test_an_empty_board_library_with_the_runtime_in_use_is_not_the_runtime() -> None:
    # With --runtime nvidia the placeholders stay empty when the board lacks the components the CSV lists.
    text = (
        "Jetson Nano, JetPack 4.6.4 [L4T 32.7.4]\n"
        "$ sudo docker run --runtime nvidia -it dustynv/jetson-inference:r32.7.1\n"
        "imagenet: error while loading shared libraries: /usr/lib/aarch64-linux-gnu/libnvinfer.so.8: file too short\n"
    )
    assert "docker_no_gpu_runtime" not in _claimed(text)


def test_jetson_docker_build_without_nvidia_default_is_the_runtime() -> None:
    text = (
        "Jetson Xavier NX, L4T R32.5.1\n$ docker build -t myimg .\nStep 5/9 : RUN python3 setup.py install\n"
        "/bin/sh: 1: nvcc: not found\n" + DAEMON_JSON_NO_DEFAULT + "\n"
    )
    assert _first(text) == "docker_no_gpu_runtime"


def test_jetson_host_without_container_work_is_no_runtime_verdict() -> None:
    text = "Jetson Nano, JetPack 4.6\n$ nvcc --version\nbash: nvcc: command not found\n" + DAEMON_JSON_NO_DEFAULT + "\n"
    assert "docker_no_gpu_runtime" not in _claimed(text)
