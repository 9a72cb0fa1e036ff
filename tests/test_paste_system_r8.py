"""Round 8 (issue #14), system side: CUDA's "busy or unavailable" on a WDDM host, nouveau holding a GPU NVIDIA's
driver is meant for, nvidia-smi missing on a cluster, a scheduler job quoted in prose, and a container started
without Docker's GPU flag beside the host's report. Synthetic texts written for these tests, each with a
counter-example that must not fire."""

from __future__ import annotations

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.ingest.cluster_texts import quoted_job_without_gpu, smi_missing_on_cluster
from gpuassist.ingest.container_boundary import (
    compose_without_gpu_reservation,
    container_started_without_gpu,
    run_without_gpu_beside_host_report,
)
from gpuassist.ingest.errors import Match
from gpuassist.knowledge import messages


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


def _claimed(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings if f.severity is not Severity.INFO]


# --- CUDA error 46 (cudaErrorDevicesUnavailable) in every printed form; the compute mode on a WDDM host ------------


def test_error_46_read_in_its_forms() -> None:
    for line in (
        "RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable",
        "RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable",
        "training fails: CUDA-capable device is/are busy or unavailable",
    ):
        rows = messages.lookup(line)
        assert any(r.fields.get("code") == 46 for r in rows), line


def test_busy_retyped_without_plural_is_the_compute_mode_on_a_linux_cluster() -> None:
    text = (
        "Our 8-GPU node: DDP with 2 ranks stops with CUDA-capable device is/are busy or unavailable,\n"
        "a single rank trains fine. Ubuntu 22.04, driver 550.\n"
    )
    assert _ids(text)[:1] == ["compute_mode_exclusive_or_prohibited"]


def test_busy_on_a_windows_host_is_not_the_compute_mode() -> None:
    text = (
        ">>> import torch\n>>> torch.cuda.is_available()\nTrue\n>>> torch.zeros(1).cuda()\n"
        "RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable\n"
        'PS C:\\Users\\me> python -c "import platform; print(platform.platform())"\nWindows-10-10.0.22631-SP0\n'
    )
    assert "compute_mode_exclusive_or_prohibited" not in _claimed(text)


@pytest.mark.parametrize(
    "message", ["CUDA-capable device(s) is/are busy or unavailable", "all CUDA-capable devices are busy or unavailable"]
)
def test_busy_on_windows_with_a_tcc_gpu_keeps_the_compute_mode(message: str) -> None:
    text = (
        "C:\\> nvidia-smi\n"
        "|   0  Tesla V100-PCIE-32GB          TCC  | 00000000:3B:00.0 Off |                    0 |\n"
        f"RuntimeError: CUDA error: {message}\n"
        "Windows Server 2019, C:\\Python311\\python.exe\n"
    )
    assert "compute_mode_exclusive_or_prohibited" in _claimed(text)


# --- nouveau bound to the GPU NVIDIA's driver was meant for -----------------------------------------------------

NOUVEAU_PROBE = (
    "[    4.101] nouveau 0000:02:00.0: NVIDIA TU104 (164000a1)\n[    4.300] nouveau 0000:02:00.0: DRM: VRAM: 8192 MiB\n"
)


def test_nouveau_bound_despite_its_blacklist_is_the_module_not_loading() -> None:
    text = (
        "Display runs on the integrated Intel graphics, the card is for compute only.\n"
        "[    0.000] Command line: BOOT_IMAGE=/vmlinuz root=/dev/sda2 ro modprobe.blacklist=nouveau\n" + NOUVEAU_PROBE
    )
    ids = _claimed(text)
    assert ids[:1] == ["nvidia_module_not_loaded"]
    assert "no_nvidia_gpu" not in ids  # nouveau's probe names an NVIDIA chip: the GPU is there


def test_nouveau_bound_after_installing_the_driver_packages() -> None:
    text = "I installed akmod-nvidia and rebooted, dmesg still shows:\n" + NOUVEAU_PROBE
    assert _claimed(text)[:1] == ["nvidia_module_not_loaded"]


def test_nouveau_probe_alone_is_not_the_module_verdict() -> None:
    # No NVIDIA driver named, installed or blacklisting nouveau: a machine on nouveau is not a module failure.
    findings = load_text("dmesg after boot:\n" + NOUVEAU_PROBE).findings
    assert not any(f.id == "nvidia_module_not_loaded" and f.severity is Severity.ERROR for f in findings)


# --- nvidia-smi missing on a cluster ----------------------------------------------------------------------------


def test_smi_missing_on_a_cluster_is_not_a_driver_verdict() -> None:
    text = "On our university HPC cluster:\n$ nvidia-smi\n-bash: nvidia-smi: command not found\n"
    ids = _claimed(text)
    assert "no_nvidia_driver" not in ids and "nvidia_module_not_loaded" not in ids
    assert ids[:1] == ["scheduler_no_gpu_allocated"]


def test_smi_missing_on_a_laptop_keeps_the_driver_reading() -> None:
    text = "Fresh Ubuntu install on my laptop with an RTX 3060:\n$ nvidia-smi\nnvidia-smi: command not found\n"
    assert "no_nvidia_driver" in _claimed(text)
    assert "scheduler_no_gpu_allocated" not in _ids(text)


def test_smi_missing_in_a_container_on_a_cluster_is_left_to_the_container_readers() -> None:
    lines = ["our cluster runs the job in a docker container", "bash: nvidia-smi: command not found"]
    guess = Match("no_nvidia_driver", 2, lines[1], False, 0.6)
    assert smi_missing_on_cluster(lines, [guess]) == [guess]


# --- a scheduler job quoted in prose ----------------------------------------------------------------------------


def test_quoted_request_form_said_not_to_work_reads_the_allocation() -> None:
    text = (
        "On our new cluster `#SBATCH --gres=gpu:a100:1` is ignored for batch jobs, torch then says that no GPUs are "
        "available inside the job.\n"
    )
    assert _ids(text)[:1] == ["scheduler_no_gpu_allocated"]


def test_two_request_forms_set_against_each_other_read_the_allocation() -> None:
    lines = [
        "The wiki's job script has `#PBS -l select=1:ngpus=1`, the admins told us to submit with `qsub -gpu 1`.",
        "Before that, no GPU was found by the program.",
    ]
    found = quoted_job_without_gpu(lines, unavailable=False)
    assert found is not None and found.id == "scheduler_no_gpu_allocated" and not found.specific


def test_quoted_job_without_request_is_read_and_one_plain_request_is_not() -> None:
    without = quoted_job_without_gpu(["I run `sbatch -p short train.sh`", "no GPU was found"], unavailable=False)
    assert without is not None and not without.specific
    # A job that asked for a GPU the ordinary way has many other causes: not the allocation.
    assert quoted_job_without_gpu(["I run `sbatch --gpus=1 train.sh`", "no GPU was found"], unavailable=False) is None


def test_quoted_job_with_cuda_working_reads_nothing() -> None:
    lines = ["I submit with `sbatch --gpus=2 train.sh` and the model trains on both GPUs, only slowly."]
    assert quoted_job_without_gpu(lines, unavailable=False) is None


# --- the container started without Docker's GPU flag, beside the host's report ----------------------------------

HOST_COLLECT_ENV = (
    "Collecting environment information...\n"
    "PyTorch version: 2.5.1+cu124\nIs debug build: False\nCUDA used to build PyTorch: 12.4\n"
    "OS: Ubuntu 22.04.4 LTS (x86_64)\nPython version: 3.11.9\nIs CUDA available: True\n"
    "GPU models and configuration: GPU 0: NVIDIA A100-SXM4-80GB\nNvidia driver version: 550.54.15\n"
)


def test_container_run_without_gpus_beats_the_hosts_healthy_report() -> None:
    text = HOST_COLLECT_ENV + "\nI forgot to pass --gpus all to docker run, so the server inside runs on CPU.\n"
    assert _ids(text)[:1] == ["docker_no_gpu_runtime"]


def test_a_training_scripts_gpu_flag_is_not_dockers() -> None:
    assert container_started_without_gpu(["without --gpu 0 the script trains on the CPU, as documented"]) is None


def test_slurm_gpus_flag_is_not_dockers() -> None:
    lines = ["#SBATCH -p cpu", "without --gpus the job gets no GPU", "the container image is ours"]
    assert container_started_without_gpu(lines) is None


def test_a_run_line_with_the_flag_reads_nothing() -> None:
    lines = ["docker run --gpus all -it myimage", "without --gpus all it would run on the CPU"]
    assert container_started_without_gpu(lines) is None


def test_run_line_without_gpu_flag_and_cuda_failure_beside_a_host_report() -> None:
    text = (
        HOST_COLLECT_ENV + "\n$ docker run -it --rm -p 8000:8000 myorg/server:latest\n"
        "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed "
        "a driver from http://www.nvidia.com/Download/index.aspx\n"
    )
    assert _ids(text)[:1] == ["docker_no_gpu_runtime"]


def test_run_line_with_a_gpu_flag_beside_a_host_report_is_not_read() -> None:
    lines = ["Is CUDA available: True", "$ docker run --gpus all -it myimg", "RuntimeError: No CUDA GPUs are available"]
    assert run_without_gpu_beside_host_report(lines, host_cuda_works=True) is None
    # Without a report saying CUDA works the paste reader's own container-run reading decides.
    assert run_without_gpu_beside_host_report(lines[1:], host_cuda_works=False) is None


COMPOSE = "services:\n  api:\n    image: myorg/llm:1.2\n    ports:\n      - 8000:8000\n"


def test_compose_file_without_a_gpu_reservation_beside_cuda_failing() -> None:
    text = "docker-compose.yml:\n" + COMPOSE + "\nThe api logs: RuntimeError: No CUDA GPUs are available\n"
    assert "docker_no_gpu_runtime" in _claimed(text)


def test_compose_file_with_a_gpu_reservation_is_not_read() -> None:
    lines = [
        *COMPOSE.splitlines(),
        "    deploy:",
        "      resources:",
        "        reservations:",
        "          devices:",
        "            - driver: nvidia",
        "              capabilities: [gpu]",
        "RuntimeError: No CUDA GPUs are available",
    ]
    assert compose_without_gpu_reservation(lines, unavailable=True) is None


def test_smi_missing_on_a_clusters_gpu_node_keeps_the_driver_reading() -> None:
    text = (
        "On our HPC cluster, logged in on a GPU node with an A100:\n$ nvidia-smi\nbash: nvidia-smi: command not found\n"
    )
    assert "scheduler_no_gpu_allocated" not in _ids(text)
    assert "no_nvidia_driver" in _claimed(text)


def test_lspci_listing_the_nvidia_module_beside_nouveau_in_use() -> None:
    text = (
        "01:00.0 VGA compatible controller: NVIDIA Corporation GA104 [GeForce RTX 3070] (rev a1)\n"
        "\tKernel driver in use: nouveau\n\tKernel modules: nvidiafb, nouveau, nvidia_drm, nvidia\n"
        "torch.cuda.is_available() returns False\n"
    )
    assert _claimed(text)[:1] == ["nvidia_module_not_loaded"]


def test_lspci_with_nouveau_only_is_not_the_module_verdict() -> None:
    text = (
        "01:00.0 VGA compatible controller: NVIDIA Corporation GA104 [GeForce RTX 3070] (rev a1)\n"
        "\tKernel driver in use: nouveau\n\tKernel modules: nvidiafb, nouveau\n"
    )
    findings = load_text(text).findings
    assert not any(f.id == "nvidia_module_not_loaded" and f.severity is Severity.ERROR for f in findings)


def test_flag_left_out_on_purpose_is_not_read() -> None:
    lines = ["We start the container without --gpus all because this server has no GPU; requests time out after 60 s."]
    assert container_started_without_gpu(lines) is None


def test_flag_absent_without_a_consequence_is_not_read() -> None:
    assert container_started_without_gpu(["The README's example runs without --gpus all, see below."]) is None
