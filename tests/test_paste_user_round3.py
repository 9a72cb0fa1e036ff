"""The general mechanisms behind the user-kind held-out misses of batches 28-32 (prose, traceback, install, repl,
collect_env): each is a table or a fact read in any wording, tested on synthetic texts unlike the corpus ones, each
with a counter-example that must not give the same verdict."""

from __future__ import annotations

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.knowledge.wheels import capability_from_name, cuda_predates, first_cuda_for
from gpuassist.report.model import Report


def _ids(report: Report) -> list[str]:
    return [f.id for f in report.findings]


def _first(text: str) -> str | None:
    report = load_text(text)
    return report.findings[0].id if report.findings else None


COLLECT_ENV = """Collecting environment information...
PyTorch version: {torch}
Is debug build: False
CUDA used to build PyTorch: {cuda}
ROCM used to build PyTorch: N/A

OS: Ubuntu 18.04.5 LTS (x86_64)
Python version: 3.7 (64-bit runtime)
Is CUDA available: True
CUDA runtime version: 10.1.243
GPU models and configuration: GPU 0: {gpu}
Nvidia driver version: 460.32.03
"""


# ---------------------------------------------------- a CUDA toolkit older than the GPU's architecture family


def test_first_cuda_for_each_architecture_family() -> None:
    assert first_cuda_for("8.6") == "11.0"  # sm_80 cubins run on 8.6: the family's first CUDA decides
    assert first_cuda_for("9.0") == "11.8"
    assert first_cuda_for("12.0") == "12.8"
    assert cuda_predates("10.2", "8.0") == "11.0"
    assert cuda_predates("11.1", "8.6") is None
    assert cuda_predates("11.8", "8.9") is None  # same family as sm_80
    assert cuda_predates("12.6", "12.0") == "12.8"
    assert cuda_predates("None", "8.0") is None


@pytest.mark.parametrize(
    ("torch", "cuda", "gpu"),
    [
        ("1.6.0", "10.1", "GeForce RTX 3080"),  # no wheel table for 1.x: the toolkit decides
        ("1.12.1", "11.3", "NVIDIA H100 80GB HBM3"),
        ("1.8.1+cu102", "10.2", "A100-SXM4-80GB"),
    ],
)
def test_build_from_an_older_cuda_than_the_gpu_family(torch: str, cuda: str, gpu: str) -> None:
    report = load_text(COLLECT_ENV.format(torch=torch, cuda=cuda, gpu=gpu))
    assert _ids(report)[0] == "gpu_arch_too_new_for_build"
    assert f"CUDA {cuda}" in report.findings[0].explanation


@pytest.mark.parametrize(
    ("torch", "cuda", "gpu"),
    [
        ("1.7.1+cu110", "11.0", "GeForce RTX 3090"),  # an sm_80 cubin runs on sm_86
        ("1.13.1+cu117", "11.7", "NVIDIA A100-SXM4-40GB"),
        ("1.8.1+cu102", "10.2", "Tesla V100-SXM2-16GB"),
    ],
)
def test_build_whose_cuda_knows_the_gpu_family_is_not_blamed(torch: str, cuda: str, gpu: str) -> None:
    assert "gpu_arch_too_new_for_build" not in _ids(load_text(COLLECT_ENV.format(torch=torch, cuda=cuda, gpu=gpu)))


# ------------------------------------------------------------------- Kepler / Fermi / old Maxwell by name


@pytest.mark.parametrize(
    ("name", "cc"),
    [
        ("NVIDIA GeForce GT 730", "3.5"),
        ("GeForce GT 730M", "3.0"),
        ("GeForce GTX 680", "3.0"),
        ("Tesla K10.G2.8GB", "3.0"),
        ("GeForce GTX 560 Ti", "2.1"),
        ("Quadro 4000", "2.0"),
        ("GeForce MX130", "5.0"),
        ("Quadro RTX 4000", "7.5"),  # not the Fermi Quadro 4000
        ("GeForce GTX TITAN X", "5.2"),  # not Kepler's GTX TITAN
    ],
)
def test_gpu_table_knows_older_families(name: str, cc: str) -> None:
    assert capability_from_name(name) == cc


def test_ambiguous_names_stay_unknown() -> None:
    assert capability_from_name("GeForce GT 640") is None  # sold as Fermi 2.1, Kepler 3.0 and 3.5


def test_no_kernel_image_with_an_old_gpu_named_is_the_dropped_arch() -> None:
    text = (
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
        "My card is a GeForce GTX 770, is it too old?"
    )
    assert _first(text) == "gpu_arch_dropped_from_build"


# ---------------------------------------------------------------- torch's device-mismatch message family


@pytest.mark.parametrize(
    "line",
    [
        "RuntimeError: Input, output and indices must be on the current device",
        "RuntimeError: Input and hidden tensors are not at the same device, found input tensor at cuda:0 and hidden "
        "tensor at cpu",
        "RuntimeError: module must have its parameters and buffers on device cuda:0 (device_ids[0]) but found one of "
        "them on device: cpu",
        "RuntimeError: Expected tensor for argument #1 'input' to have the same device as tensor for argument #2 "
        "'weight'; but device 1 does not equal 0 (while checking arguments for cudnn_convolution)",
        "RuntimeError: Expected object of backend CUDA but got backend CPU for argument #3 'index'",
    ],
)
def test_device_mismatch_messages(line: str) -> None:
    assert _first(f'Traceback (most recent call last):\n  File "train.py", line 9, in <module>\n{line}') == (
        "tensors_on_different_devices"
    )


def test_device_index_error_is_not_a_device_mismatch() -> None:
    text = "RuntimeError: CUDA error: invalid device ordinal\nCUDA kernel errors might be asynchronously reported"
    assert "tensors_on_different_devices" not in _ids(load_text(text))


# ------------------------------------------------------------------------------ Lightning's device line


def test_lightning_gpu_available_but_unused() -> None:
    text = "GPU available: True (cuda), used: False\nTPU available: False, using: 0 TPU cores\nEpoch 0: 3%"
    report = load_text(text)
    assert _ids(report)[0] == "workload_left_on_cpu"


def test_lightning_gpu_used_is_healthy() -> None:
    text = "GPU available: True (cuda), used: True\nTPU available: False, using: 0 TPU cores\nLOCAL_RANK: 0"
    assert "workload_left_on_cpu" not in _ids(load_text(text))


# ------------------------------------------------------------------------- the NVIDIA module's DKMS build


@pytest.mark.parametrize(
    "text",
    [
        "==> dkms install --no-depmod nvidia/555.42.02 -k 6.11.0-arch1-1\nAutoinstall on 6.11.0-arch1-1 failed for "
        "module(s) nvidia(10).",
        "Error! Build of nvidia.ko failed for: 6.8.0-40-generic (x86_64)\nnvidia-smi not working after update",
        "after the kernel update the nvidia DKMS build stops with error 10 and torch sees no GPU",
    ],
)
def test_dkms_build_failure_is_the_module_not_loaded(text: str) -> None:
    assert _first(text) == "nvidia_module_not_loaded"


def test_dkms_error_of_another_module_is_not_nvidia() -> None:
    text = "Autoinstall on 6.8.0-40-generic failed for module(s) virtualbox(10).\ntorch.cuda.is_available() is True"
    assert "nvidia_module_not_loaded" not in _ids(load_text(text))


# ---------------------------------------------------------------- driver and nvidia-smi in other spellings


def test_driver_too_old_without_the_space() -> None:
    text = "AssertionError: The NVIDIA driver on your system is too old(found version 9010). Please update"
    assert _first(text) == "driver_too_old"


def test_nvidia_smi_failure_in_the_users_words() -> None:
    assert _first("After the upgrade nvidia-smi can't communicate with the NVIDIA driver anymore.") == (
        "nvidia_module_not_loaded"
    )


def test_nvidia_smi_working_is_not_the_failure() -> None:
    assert "nvidia_module_not_loaded" not in _ids(
        load_text("nvidia-smi works and shows my RTX 3060, but my script runs slowly. torch 2.3.0+cu121")
    )


# --------------------------------------------------------------------- conda-forge's CPU package named


@pytest.mark.parametrize(
    "text",
    [
        "mamba resolved to pytorch-cpu even though I asked for cudatoolkit 11.8, so cuda is not available",
        "conda install gave me `pytorch_cpu` instead of the GPU one",
    ],
)
def test_cpu_package_named_as_installed(text: str) -> None:
    assert _first(text) == "cpu_only_build"


def test_cpu_package_asked_for_is_not_the_cause() -> None:
    text = "I ran conda install pytorch-cpu -c conda-forge on the login node, that is fine. On the GPU node it fails."
    assert "cpu_only_build" not in _ids(load_text(text))


def test_a_cuda_torchvision_pin_is_a_request_not_the_installed_build() -> None:
    text = (
        "My new card kept using the CPU because the installer put the CPU version of pytorch there.\n"
        "pip install torchvision==0.20.0+cu124 --index-url https://download.pytorch.org/whl/cu124\n"
        '    "torchvision==0.20.0+cu124",'
    )
    assert _first(text) == "cpu_only_build"


def test_a_running_cuda_build_still_rules_out_the_cpu_words() -> None:
    text = "I thought pip installed the CPU version of torch, but torch.__version__ prints 2.4.0+cu124"
    assert "cpu_only_build" not in _ids(load_text(text))


# --------------------------------------------------------------------------------------- MIG in words


@pytest.mark.parametrize(
    "text",
    [
        "Our H100 has MIG enabled (3 instances) and torch.cuda.device_count() returns 1.",
        "On the A30 with Multi-Instance GPU turned on, torch sees only one GPU.",
    ],
)
def test_mig_stated_and_one_device_seen(text: str) -> None:
    assert _first(text) == "mig_multiple_instances"


def test_one_device_without_mig_is_not_mig() -> None:
    assert "mig_multiple_instances" not in _ids(load_text("I have two RTX 3090 but torch.cuda.device_count() is 1"))


def test_mig_without_a_short_count_is_not_blamed() -> None:
    text = "MIG is enabled on our A100 and training works on MIG-4f2c... with torch 2.1.0+cu121; loss is NaN though"
    assert "mig_multiple_instances" not in _ids(load_text(text))


# ---------------------------------------------------------------- an idle GPU while data loading is slow


@pytest.mark.parametrize(
    "text",
    [
        "GPU utilization stays around 5% during training; I think the dataloader (num_workers=0) is the bottleneck",
        "Training on cuda is slow: low GPU usage and most time is spent loading the images from disk",
    ],
)
def test_idle_gpu_with_data_loading_named(text: str) -> None:
    report = load_text(text)
    assert _ids(report)[0] == "dataloader_starvation"
    assert report.findings[0].severity is Severity.WARNING


def test_idle_gpu_with_the_work_on_the_cpu_is_not_the_loader() -> None:
    text = "GPU utilization is 0% and the DataLoader is fine; the model runs on the CPU (device='cpu') by mistake"
    assert "dataloader_starvation" not in _ids(load_text(text))


def test_loader_named_without_an_idle_gpu_is_not_blamed() -> None:
    text = "My dataloader with num_workers=8 hangs after epoch 1, GPU utilization is 98% before that"
    assert "dataloader_starvation" not in _ids(load_text(text))


# ------------------------------------------------------------------- a Slurm step that asked for no GPU


def test_srun_without_a_gpu_request() -> None:
    text = (
        "$ srun -p compute -t 10 python -c 'import torch; print(torch.cuda.is_available())'\n"
        "False\n"
        "on the login node the same prints True"
    )
    assert _first(text) == "scheduler_no_gpu_allocated"


def test_sbatch_script_without_gres_and_cuda_unavailable() -> None:
    text = "#SBATCH --job-name=train\n#SBATCH --time=02:00:00\npython train.py\ntorch.cuda.is_available() returns False"
    assert _first(text) == "scheduler_no_gpu_allocated"


def test_srun_with_a_gpu_request_is_not_the_allocation() -> None:
    text = "$ srun --gres=gpu:1 python -c 'import torch; print(torch.cuda.is_available())'\nFalse"
    assert "scheduler_no_gpu_allocated" not in _ids(load_text(text))


# ------------------------------------------------------------- resolved by a CUDA_VISIBLE_DEVICES change


def test_resolution_by_visible_devices_drops_the_no_gpu_guesses() -> None:
    text = (
        "RuntimeError: No CUDA GPUs are available\n"
        "Fixed it: the script had CUDA_VISIBLE_DEVICES hard-coded, now\n"
        "os.environ['CUDA_VISIBLE_DEVICES'] = '0'"
    )
    report = load_text(text)
    assert _ids(report) == ["cuda_visible_devices_hides_gpus"]


def test_visible_devices_as_a_workaround_for_another_error_is_not_the_cause() -> None:
    text = (
        "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 23.69 GiB total capacity)\n"
        "Fixed by running on the other card: CUDA_VISIBLE_DEVICES=1 python train.py"
    )
    assert "cuda_visible_devices_hides_gpus" not in _ids(load_text(text))


# ------------------------------------------------------------- the shadowing library before the import error


def test_shadowing_library_message_comes_before_the_import_failure() -> None:
    text = (
        ">>> import torch\n"
        "OSError: /opt/conda/envs/x/lib/python3.10/site-packages/torch/lib/../../nvidia/cublas/lib/libcublas.so.12: "
        "undefined symbol: cublasLt_for_cublas_HSS, version libcublasLt.so.12"
    )
    assert _ids(load_text(text))[:2] == ["ld_library_path_shadowing", "torch_import_error"]


# ------------------------------------------------------------- a data-centre GPU named in the user's sentence


def test_data_centre_gpu_in_words_with_an_old_build() -> None:
    report = load_text("We are using an H100 box; torch.__version__ is 1.12.1+cu113 and every matmul fails")
    assert report.facts.value("reported.gpus") == [{"index": 0, "name": "H100"}]
    assert _ids(report)[0] == "gpu_arch_too_new_for_build"


def test_data_centre_gpu_in_words_with_a_fitting_build() -> None:
    report = load_text("I have an a100 machine and torch 1.13.1+cu117; the loss becomes NaN after 3 epochs")
    assert report.facts.value("reported.gpus") == [{"index": 0, "name": "a100"}]
    assert "gpu_arch_too_new_for_build" not in _ids(report)


def test_a_model_number_in_another_sense_is_not_a_gpu() -> None:
    report = load_text("my T4-based cluster name is odd; I have 100 images and torch 2.1.0+cu121 on CPU")
    assert report.facts.value("reported.gpus") is None


# ------------------------------------------------------------------------ the build a project pins


def test_pinned_build_too_old_for_the_stated_gpu() -> None:
    text = "requirements.txt pins torch==1.6.0+cu101 but I'm using an RTX 4090. Do I need to build from source?"
    report = load_text(text)
    assert _ids(report)[0] == "gpu_arch_too_new_for_build"
    assert report.findings[0].title.startswith("The pinned torch 1.6.0+cu101")


def test_installed_build_wins_over_the_pin() -> None:
    text = (
        "The requirement says torch==1.7.1+cu101, so I took a newer one.\n"
        "torch.__version__ prints 1.13.1+cu117 and on my RTX 3090 training runs, only slower than the paper."
    )
    assert "gpu_arch_too_new_for_build" not in _ids(load_text(text))


def test_an_install_command_is_not_a_pin() -> None:
    text = "I have an RTX 3090.\npip install torch==1.7.1+cu101 -f https://download.pytorch.org/whl/torch_stable.html"
    assert "gpu_arch_too_new_for_build" not in _ids(load_text(text))


@pytest.mark.parametrize(
    "text",
    [
        "| GPU  Name        Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
        "| Fan  Temp  Perf  Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |\n"
        "|                                |                      |               MIG M. |\n"
        "|   0  NVIDIA A100-SXM4-40GB  On  | 00000000:07:00.0 Off |                    0 |\n"
        "|                                |                      |             Disabled |\n"
        "but torch.cuda.device_count() returns 1 although the node has 2 GPUs",
        "MIG mode: Disabled on both cards, still torch sees only one GPU",
    ],
)
def test_mig_column_or_mig_off_is_not_mig(text: str) -> None:
    assert "mig_multiple_instances" not in _ids(load_text(text))


# ----------------------------------------------------------- a resolver's versions are not the installed torch


@pytest.mark.parametrize(
    "text",
    [
        "/Users/me/.venv\n  × No solution found when resolving dependencies:\n"
        "  ╰─▶ Because torch==2.5.1+cpu has no wheels with a matching platform tag (e.g., `macosx_14_0_x86_64`) and\n"
        "      you require torch==2.5.1+cpu, we can conclude that your requirements are unsatisfiable.",
        "ERROR: Cannot install torch==2.3.0+cpu because these package versions have conflicting dependencies.\n"
        "The conflict is caused by:\n    The user requested torch==2.3.0+cpu\nResolutionImpossible",
    ],
)
def test_resolver_versions_are_not_the_installed_build(text: str) -> None:
    report = load_text(text)
    assert report.facts.value("torch.version") is None
    assert "cpu_only_build" not in _ids(report)


def test_a_plus_cpu_version_in_prose_is_still_the_installed_build() -> None:
    report = load_text("After the update my torch is 2.5.1+cpu and cuda is not available any more")
    assert report.facts.value("torch.version") == "2.5.1+cpu"
