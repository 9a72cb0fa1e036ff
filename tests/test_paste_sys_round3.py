"""Issue #14, round 3 (system kinds): facts read in every form so the existing rules decide (MIG state, a batch
job's GPU request, a 32-bit Python), whole message families (module loading), and kernel messages whose reading
was wrong. Each mechanism has a synthetic text that fires and a counter-example that must not."""

from __future__ import annotations

import pytest

from gpuassist.facts import Facts
from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.ingest.mig_facts import mig_facts
from gpuassist.ingest.python_arch import python_arch_facts
from gpuassist.ingest.scheduler_facts import scheduler_facts
from gpuassist.rules.visibility import mig_multiple_instances


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


def _claimed(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings if f.severity is not Severity.INFO]


# --- MIG state in every form ----------------------------------------------------------------------------------------

SMI_HEAD = (
    "+-----------------------------------------------------------------------------------------+\n"
    "| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
    "|-----------------------------------------+----------------------+----------------------+\n"
    "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
    "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |\n"
    "|                                         |                      |               MIG M. |\n"
    "|=========================================+======================+======================|\n"
    "|   0  NVIDIA H100 80GB HBM3          On  | 00000000:19:00.0 Off |                    0 |\n"
    "| N/A   31C    P0              70W / 700W |     88MiB / 81559MiB |     N/A      Default |\n"
)


@pytest.mark.parametrize(
    "text",
    [
        SMI_HEAD + "|                                         |                      |              Enabled |\n",
        "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-5e3a)\n  MIG 3g.40gb     Device  0: (UUID: MIG-aa)\n"
        "  MIG 3g.40gb     Device  1: (UUID: MIG-bb)\ntorch.cuda.device_count() returns 1\n",
        "    MIG Mode\n        Current                           : Enabled\n"
        "        Pending                           : Enabled\ntorch.cuda.is_available() False\n",
        "Our A100 is split with MIG into 7 instances (1g.10gb), torch.cuda.device_count() shows only one GPU.\n",
    ],
)
def test_mig_enabled_in_any_form_is_the_mig_reading(text: str) -> None:
    assert _ids(text)[0] == "mig_multiple_instances"


@pytest.mark.parametrize(
    "text",
    [
        SMI_HEAD + "|                                         |                      |             Disabled |\n",
        "MIG mode is disabled on this A100 and torch.cuda.is_available() is False\n",
        "mig welding robot: torch.cuda.is_available() returns False\n",
    ],
)
def test_mig_off_or_one_device_or_another_mig_is_not_the_mig_reading(text: str) -> None:
    assert "mig_multiple_instances" not in _ids(text)


def test_one_listed_mig_device_is_not_the_mig_problem() -> None:
    """CUDA enumerates a single MIG device: the rule stays silent (a catalogue guess on the line may remain)."""
    facts = Facts({"reported.mig_mode": "enabled", "reported.mig_devices": ["MIG 3g.20gb Device 0:"]})
    assert mig_multiple_instances(facts) is None
    facts = Facts({"reported.mig_mode": "enabled", "reported.mig_devices": ["MIG 1g.10gb Device 0:"] * 2})
    assert mig_multiple_instances(facts) is not None


def test_mig_facts_read_the_table_cell_and_the_devices() -> None:
    sources: dict[str, tuple[int, str]] = {}
    text = SMI_HEAD + "|                                         |                      |              Enabled |\n"
    assert mig_facts(text.splitlines(), sources)["reported.mig_mode"] == "enabled"
    assert "reported.mig_mode" in sources
    listed = mig_facts(["  MIG 1g.10gb Device 0: (UUID: MIG-1)", "  MIG 1g.10gb Device 1: (UUID: MIG-2)"], {})
    assert len(listed["reported.mig_devices"]) == 2


# --- a batch job without a GPU request ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        'srun python -c "import torch; print(torch.cuda.is_available())"\nFalse\n',
        "#!/bin/bash\n#SBATCH -N 1\n#SBATCH --time=01:00:00\npython train.py\n"
        "RuntimeError: No CUDA GPUs are available\n",
        "$ salloc -N1 -p compute\n$ python -c 'import torch; print(torch.cuda.is_available())'\nFalse\n",
    ],
)
def test_a_job_shown_without_a_gpu_request_is_the_scheduler_reading(text: str) -> None:
    report = load_text(text)
    assert report.findings[0].id == "scheduler_no_gpu_allocated"
    assert "$SLURM_JOB_ID" in report.findings[0].fix or "--gres=gpu" in report.findings[0].fix


@pytest.mark.parametrize(
    "text",
    [
        "srun --gres=gpu:1 python train.py\ntorch.cuda.is_available() returns False\n",
        "#SBATCH --gpus-per-node=4\n#SBATCH -N 2\nRuntimeError: No CUDA GPUs are available\n",
        'srun -G 1 python -c "import torch; print(torch.cuda.is_available())"\nTrue\n',
    ],
)
def test_a_job_that_asked_for_gpus_is_not_the_scheduler_reading(text: str) -> None:
    report = load_text(text)
    # "No CUDA GPUs are available" keeps the scheduler among its generic possibilities, never as the verdict.
    assert not any(f.id == "scheduler_no_gpu_allocated" and f.severity is Severity.ERROR for f in report.findings)
    assert not report.findings or report.findings[0].id != "scheduler_no_gpu_allocated"


def test_a_job_that_is_not_about_the_gpu_gives_no_scheduler_facts() -> None:
    assert scheduler_facts(["srun hostname", "node12"], {}) == {}
    assert scheduler_facts(["sbatch --gres=gpu:2 job.sh", "cuda"], {})["scheduler.gpus"]


# --- a 32-bit Python -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "C:\\Python\\Python37-32\\Scripts>pip install torch\n"
        "ERROR: Could not find a version that satisfies the requirement torch (from versions: 0.1.2, 0.1.2.post1)\n"
        "ERROR: No matching distribution found for torch\n",
        "Python 3.8.10 (tags/v3.8.10:3d8993a, May  3 2021, 11:34:34) [MSC v.1928 32 bit (Intel)] on win32\n"
        ">>> import torch\nModuleNotFoundError: No module named 'torch'\n",
    ],
)
def test_a_32_bit_python_has_no_torch_wheel(text: str) -> None:
    assert _ids(text)[0] == "no_wheel_for_platform"


def test_a_64_bit_python_and_a_win32_wheel_name_are_not_32_bit() -> None:
    banner = "Python 3.10.11 (tags/v3.10.11:7d4cc5a, Apr  5 2023) [MSC v.1929 64 bit (AMD64)] on win32"
    assert python_arch_facts([banner], {}) == {}
    assert python_arch_facts(["pip install numpy-1.19.0-cp38-cp38-win32.whl"], {}) == {}


def test_a_cpu_version_pip_could_not_find_is_not_installed() -> None:
    text = (
        "pip install torch==1.5.1+cpu -f https://download.pytorch.org/whl/torch_stable.html\n"
        "ERROR: No matching distribution found for torch==1.5.1+cpu\n"
    )
    assert "cpu_only_build" not in _claimed(text)


def test_an_installed_cpu_version_is_still_read() -> None:
    text = ">>> torch.__version__\n'2.1.0+cpu'\n>>> torch.cuda.is_available()\nFalse\n"
    assert _ids(text)[0] == "cpu_only_build"


# --- kernel messages: the legacy "no adapter" wording, GSP at load, Jetson illegal instruction -----------------------


def test_the_legacy_no_adapter_message_is_no_nvidia_gpu() -> None:
    text = "[  4.1] NVRM: No NVIDIA graphics adapter found!\n[  4.1] NVRM: NVIDIA init module failed!\n"
    assert _claimed(text) == ["no_nvidia_gpu"]


def test_gsp_failing_at_load_is_the_driver_not_supporting_the_gpu() -> None:
    text = (
        "[ 3.59] NVRM kgspInitRm_IMPL: missing NVDEC0 engine, cannot initialize GSP-RM\n"
        "[ 3.59] NVRM RmInitAdapter: Cannot initialize GSP firmware RM\n"
        "[ 3.59] NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x63:0x56:1689)\n"
    )
    ids = _claimed(text)
    assert ids[0] == "driver_does_not_support_gpu"
    assert "gpu_xid_fault" not in ids  # the adapter failure is the GSP failure's consequence


def test_a_gsp_timeout_at_run_time_stays_a_gpu_fault() -> None:
    text = "[9001.2] NVRM: GPU0 Timeout waiting for RPC from GSP! Expected function 76 (GSP_RM_CONTROL)\n"
    assert _ids(text)[0] == "gpu_xid_fault"


@pytest.mark.parametrize(
    "line",
    [
        "Failed to insert module 'nvidia_drm': No such device",
        "modprobe: FATAL: Module nvidia not found in directory /lib/modules/6.8.0-45-generic",
        "Consult /var/lib/dkms/nvidia/550.54.14/build/make.log for more information.",
        "modprobe: ERROR: could not insert 'nvidia': Exec format error",
    ],
)
def test_module_loading_failures_are_the_module_not_loaded(line: str) -> None:
    assert _ids(f"{line}\ntorch.cuda.is_available() returns False\n")[0] == "nvidia_module_not_loaded"


def test_a_dkms_build_of_another_module_is_not_nvidias() -> None:
    text = (
        "Error! Bad return status for module build on kernel: 6.1.0 (x86_64)\n"
        "Consult /var/lib/dkms/vboxhost/7.0/build/make.log for more information.\n"
    )
    # The DKMS line alone names no module: a guess at most, never an error verdict about NVIDIA.
    report = load_text(text + "nvidia-smi works fine\n")
    assert all(f.severity is not Severity.ERROR or f.id != "nvidia_module_not_loaded" for f in report.findings)


def test_illegal_instruction_on_a_jetson_is_not_the_torch_wheel() -> None:
    text = (
        "Jetson Nano, JetPack 4.6 (L4T R32.6.1)\n$ python3 train_ssd.py --data=data/fruit\n"
        "Illegal instruction (core dumped)\n"
    )
    assert "jetson_needs_nvidia_wheel" not in _claimed(text)


def test_a_jetson_torch_without_cuda_is_still_the_wheel() -> None:
    text = "Jetson Orin, JetPack 5.1 (L4T R35.2.1)\npip3 install torch\n>>> torch.cuda.is_available()\nFalse\n"
    assert _ids(text)[0] == "jetson_needs_nvidia_wheel"


# --- Jetson: a CUDA library missing at torch import; an L4T container of another JetPack line ------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Jetson Nano, JetPack 4.2 (CUDA 10.0)\n>>> import torch\n"
        "ImportError: libcudart.so.10.2: cannot open shared object file: No such file or directory\n",
        "docker run -it --runtime nvidia dustynv/l4t-pytorch:r32.7.1\n>>> import torch\n"
        "OSError: libcublas.so.10: cannot open shared object file: No such file or directory\n",
    ],
)
def test_a_cuda_library_missing_at_torch_import_on_a_jetson_is_the_jetpack_wheel(text: str) -> None:
    # (round 13: the container runs WITH the runtime; without it, r32's mounted CUDA is what is missing:
    # tests/test_paste_jetson_families.py)
    report = load_text(text)
    assert report.findings[0].id == "jetson_needs_nvidia_wheel"
    assert "torch_import_error" not in [f.id for f in report.findings]


def test_a_cuda_library_missing_off_a_jetson_is_not_the_jetpack_wheel() -> None:
    text = ">>> import torch\nImportError: libcudart.so.12: cannot open shared object file: No such file or directory\n"
    assert "jetson_needs_nvidia_wheel" not in _ids(text)


def test_an_l4t_container_of_another_jetpack_line_is_the_jetpack_container() -> None:
    text = (
        "Board: L4T 32.6.1 (JetPack 4.6)\n"
        "docker run --runtime nvidia -it nvcr.io/nvidia/l4t-pytorch:r35.2.1-pth2.0-py3\n"
        "cudaGetDeviceCount returned 3\n-> initialization error\n"
    )
    report = load_text(text)
    assert report.findings[0].id == "jetson_needs_nvidia_wheel"
    assert "docker_no_gpu_runtime" not in [f.id for f in report.findings]


def test_an_l4t_container_of_the_boards_own_line_is_not_a_mismatch() -> None:
    text = (
        "Board: L4T R35.3.1 (JetPack 5.1.1)\n"
        "docker run --runtime nvidia -it nvcr.io/nvidia/l4t-pytorch:r35.2.1-pth2.0-py3\n"
        ">>> torch.cuda.is_available()\nTrue\n"
    )
    assert not _claimed(text)


def test_a_wheel_built_on_a_jetson_run_elsewhere_is_not_the_jetpack_wheel() -> None:
    text = (
        "I built torch on a Jetson; it does not work on my ARM server without an NVIDIA GPU:\n>>> import torch\n"
        "OSError: libcurand.so.10: cannot open shared object file: No such file or directory\n"
    )
    assert "jetson_needs_nvidia_wheel" not in _claimed(text)


# --- WSL 2: the driver libraries come from Windows ------------------------------------------------------------------

TOOLKIT_NO_NVML = (
    "nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object "
    "file: no such file or directory: unknown\n"
)


def test_a_driver_library_missing_in_wsl2_is_wsls_gpu_path() -> None:
    report = load_text("I'm using WSL2 with Docker Desktop, RTX 3090.\n" + TOOLKIT_NO_NVML)
    assert report.findings[0].id == "wsl_libcuda_problem"
    assert "no_nvidia_driver" not in [f.id for f in report.findings]


def test_a_driver_library_missing_on_linux_stays_the_driver_reading() -> None:
    ids = _ids("Ubuntu 22.04 server, RTX 3090\n" + TOOLKIT_NO_NVML)
    assert "wsl_libcuda_problem" not in ids
    assert ids[0] == "no_nvidia_driver"


# --- a container whose nvidia-smi shows no CUDA version -------------------------------------------------------------

SMI_NO_CUDA_HEADER = "| NVIDIA-SMI 470.57.02    Driver Version: 470.57.02    CUDA Version: N/A      |\n"


def test_smi_without_cuda_in_a_container_is_the_runtime_not_mounting_libcuda() -> None:
    text = "$ docker run --gpus all -it ubuntu:22.04 bash\n" + SMI_NO_CUDA_HEADER + "torch.cuda.is_available() False\n"
    assert _ids(text)[0] == "docker_no_gpu_runtime"


def test_smi_without_cuda_outside_a_container_is_not_the_container() -> None:
    assert "docker_no_gpu_runtime" not in _claimed(SMI_NO_CUDA_HEADER + "torch.cuda.is_available() False\n")


# --- the user states there is no NVIDIA GPU (the catalogue's no_nvidia_gpu statement pattern, in more forms) ---------


@pytest.mark.parametrize(
    "text",
    [
        "I ran torch.cuda.is_available() on a computer without an nvidia graphics card and Python just exits.\n",
        "We have no NVIDIA GPU here.\nRuntimeError: Found no NVIDIA driver on your system.\n",
    ],
)
def test_a_stated_machine_without_nvidia_gpu_is_no_nvidia_gpu(text: str) -> None:
    report = load_text(text)
    assert report.findings[0].id == "no_nvidia_gpu"
    assert "no_nvidia_driver" not in _claimed(text)


def test_a_program_without_an_nvidia_requirement_is_not_a_machine_without_one() -> None:
    text = "Can this model run without an NVIDIA GPU? torch.cuda.is_available() is True on my RTX 3060.\n"
    assert "no_nvidia_gpu" not in _claimed(text)


def test_another_machine_without_a_gpu_and_no_cuda_call_is_not_the_verdict() -> None:
    text = (
        "My Jetson-built wheel works on the Jetson but not on an ARM machine without an NVIDIA GPU:\n>>> import torch\n"
        "OSError: libcurand.so.10: cannot open shared object file: No such file or directory\n"
    )
    assert "no_nvidia_gpu" not in [f.id for f in load_text(text).findings if f.severity is Severity.ERROR]
