"""What users really paste: the kinds of text `diagnose --from` reads, alone or mixed, the errors of a GPU
that works (info, exit 0), and the paths a paste blames. Real texts come from the corpus (tests/data);
short texts below reproduce the exact formats PyTorch, nvidia-smi and the shells print."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import UnreadableInput, load, load_text

DATA = Path(__file__).parent / "data"
ERRORS = DATA / "errors"
PASTES = DATA / "pastes"


def _load(name: str) -> object:
    directory = PASTES if (PASTES / name).exists() else ERRORS
    return load((directory / name).read_bytes(), label=name)


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("mattshma-bigdata-133-dmesg-probe-routine-not-called.txt", "kernel_log"),
        ("stackhpc-ansible-slurm-appliance-287-journal-api-mismatch.txt", "kernel_log"),
        ("SyneRBI-PETRIC2-27-container-cuda128-windows-smi.txt", "nvidia_smi"),
        ("SyneRBI-PETRIC2-27-container-cuda128-windows-smi.txt", "container"),
        ("SyneRBI-PETRIC2-27-container-cuda128-windows-smi.txt", "windows"),
        ("NVIDIA-nvidia-container-toolkit-1227-nvml-unknown-error-daemon-reload.txt", "nvidia_smi"),
        ("pinokiocomputer-pinokio-1027-jetson-orin-pypi-torch.txt", "jetson"),
        ("conda-conda-11001-conda-install-cpuonly-picked.txt", "install"),
        ("cedarconnor-SPAG4d-1-cu121-index-python313.txt", "install"),
        ("kohya-ss-sd-scripts-39-repl-gpu-fine-accelerate-config.txt", "repl"),
        ("ShivamShrirao-diffusers-18-diffusers-env-wsl1.txt", "env_fork"),
        ("kohya-ss-sd-scripts-1597-powershell-fbgemm-dll.txt", "windows"),
        ("pytorch-122924-windows-pypi-2.2.2-rtx4080.txt", "collect_env"),
        ("xinge008-Cylinder3D-109-oom-t4-backward.txt", "traceback"),
    ],
)
def test_the_report_names_the_kinds_of_text_it_read(name: str, kind: str) -> None:
    report = _load(name)
    assert kind in report.meta["input_kinds"]
    assert report.meta["source_label"].endswith(f"({name})")


def test_a_kernel_log_starting_with_a_bracket_is_not_read_as_json() -> None:
    text = (ERRORS / "mattshma-bigdata-133-dmesg-probe-routine-not-called.txt").read_text()
    assert text.startswith("[")
    report = load_text(text)
    assert report.findings[0].id == "nvidia_module_not_loaded"
    with pytest.raises(UnreadableInput, match="not a gpuassist report object"):
        load_text("[1, 2, 3]")  # JSON that parses is still judged as JSON


def test_jupyter_notebook_traceback_is_named() -> None:
    text = (
        "---------------------------------------------------------------------------\n"
        "AssertionError                            Traceback (most recent call last)\n"
        "Cell In[3], line 2\n      1 import torch\n----> 2 torch.zeros(1).cuda()\n\n"
        "AssertionError: Torch not compiled with CUDA enabled\n"
    )
    report = load_text(text)
    assert "jupyter" in report.meta["input_kinds"]
    assert report.findings[0].id == "cpu_only_build"


# --- errors of a GPU that works --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "fid", "step"),
    [
        ("microsoft-computervision-recipes-561-oom-4gb.txt", "cuda_out_of_memory", "batch size"),
        ("milesial-Pytorch-UNet-258-nll-assert-n-classes.txt", "cuda_device_side_assert", "CUDA_LAUNCH_BLOCKING=1"),
        ("VITA-Group-TEGNAS-19-illegal-memory-access.txt", "cuda_illegal_memory_access", "CUDA_LAUNCH_BLOCKING=1"),
        ("XPixelGroup-BasicSR-737-nccl-watchdog-timeout.txt", "nccl_error_or_timeout", "NCCL_DEBUG=INFO"),
        ("VICO-UoE-MTPSL-3-mat1-mat2-shapes.txt", "tensor_shape_mismatch", "shape"),
    ],
)
def test_errors_of_a_working_gpu_are_info_with_the_next_step(name: str, fid: str, step: str) -> None:
    report = _load(name)
    first = report.findings[0]
    assert (first.id, first.severity) == (fid, Severity.INFO)
    assert step in first.fix
    assert not report.has_error
    assert not any(f.severity is not Severity.INFO for f in report.findings), [f.id for f in report.findings]


@pytest.mark.slow
def test_cli_says_the_gpu_is_in_use_and_exits_0() -> None:
    path = ERRORS / "eps696-aphantasia-22-oom-6gb.txt"
    p = subprocess.run(
        [sys.executable, "-m", "gpuassist", "diagnose", "--from", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    assert "Your GPU is in use" in p.stdout
    j = subprocess.run(
        [sys.executable, "-m", "gpuassist", "diagnose", "--from", str(path), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    data = json.loads(j.stdout)
    assert data["findings"][0]["id"] == "cuda_out_of_memory" and data["findings"][0]["severity"] == "info"


@pytest.mark.slow
def test_cli_exit_2_only_for_text_about_nothing_gpu(tmp_path: Path) -> None:
    about = tmp_path / "about.txt"
    about.write_text("my GPU is not used by pytorch, any idea?\n")
    other = tmp_path / "other.txt"
    other.write_text("ERROR: disk quota exceeded on /home\n")
    for path, rc in ((about, 0), (other, 2)):
        p = subprocess.run(
            [sys.executable, "-m", "gpuassist", "diagnose", "--from", str(path)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert p.returncode == rc, (path, p.stdout, p.stderr)
    p = subprocess.run(
        [sys.executable, "-m", "gpuassist", "diagnose", "--from", str(about)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "does not show the cause" in p.stdout


# PyTorch's out-of-memory message (2.1+ layout): the numbers say who holds the memory.
OOM_OTHERS = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity "
    "of 23.65 GiB of which 9.06 MiB is free. Process 4121 has 21.20 GiB memory in use. Including "
    "non-PyTorch memory, this process has 2.42 GiB memory in use. Of the allocated memory 1.90 GiB is "
    "allocated by PyTorch, and 25.55 MiB is reserved by PyTorch but unallocated."
)
OOM_OWN = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
    "23.65 GiB of which 1.06 GiB is free. Including non-PyTorch memory, this process has 22.57 GiB memory in "
    "use. Of the allocated memory 21.30 GiB is allocated by PyTorch, and 0.87 GiB is reserved by PyTorch but "
    "unallocated."
)


def test_out_of_memory_held_by_another_process_blames_it() -> None:
    report = load_text(OOM_OTHERS)
    assert report.findings[0].id == "gpu_memory_held_by_others"
    assert "cuda_out_of_memory" not in [f.id for f in report.findings]
    own = load_text(OOM_OWN)
    assert own.findings[0].id == "cuda_out_of_memory" and own.findings[0].severity is Severity.INFO


# --- paths to blame ----------------------------------------------------------------------------------------


def test_a_system_cudnn_that_fails_is_blamed_by_its_path() -> None:
    report = _load("andimarafioti-florence2-finetuning-2-cudnn-from-usr-local-cuda.txt")
    first = report.findings[0]
    assert first.id == "ld_library_path_shadowing" and first.severity is Severity.ERROR
    assert "/usr/local/cuda-12.1/lib" in first.title
    assert "grep -v '^/usr/local/cuda-12.1/lib/\\?$'" in first.fix
    assert "reinstall" not in first.fix.lower()


def test_ld_library_path_in_the_paste_gives_the_exact_export() -> None:
    text = (
        "$ echo $LD_LIBRARY_PATH\n"
        "LD_LIBRARY_PATH=/usr/local/cuda-11.2/lib64:/opt/intel/lib\n"
        "$ python -c 'import torch'\n"
        "ImportError: /usr/local/cuda-11.2/lib64/libcublas.so.11: undefined symbol: cublasLtGetStatusString, "
        "version libcublasLt.so.11\n"
    )
    report = load_text(text)
    first = report.findings[0]
    assert first.id == "ld_library_path_shadowing"
    assert "export LD_LIBRARY_PATH=/opt/intel/lib" in first.fix
    assert "LD_LIBRARY_PATH (/usr/local/cuda-11.2/lib64)" in first.explanation


def test_a_library_inside_the_wheel_is_not_blamed_on_the_path() -> None:
    text = (
        "OSError: /home/u/venv/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: "
        "ncclCommRegister\n"
    )
    report = load_text(text)
    assert "ld_library_path_shadowing" not in [f.id for f in report.findings]


def test_torch_from_user_site_next_to_an_env_is_blamed() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/ana/miniconda3/envs/sd/lib/python3.10/site-packages/diffusers/__init__.py", line 3, '
        "in <module>\n    import torch\n"
        '  File "/home/ana/.local/lib/python3.10/site-packages/torch/__init__.py", line 290, in <module>\n'
        "    from torch._C import *\n"
        "AssertionError: Torch not compiled with CUDA enabled\n"
    )
    report = load_text(text)
    first = report.findings[0]
    assert first.id == "stale_or_shadowed_torch"
    assert "PYTHONNOUSERSITE=1" in first.fix and "pip uninstall -y torch" in first.fix


# --- facts other tools print, and mixed pastes --------------------------------------------------------------


SMI_HEADER = (
    "+-----------------------------------------------------------------------------+\n"
    "| NVIDIA-SMI 470.199.02   Driver Version: 470.199.02   CUDA Version: 11.4     |\n"
    "|-------------------------------+----------------------+----------------------+\n"
    "|   0  NVIDIA GeForce ...  Off  | 00000000:01:00.0  On |                  N/A |\n"
)


def test_mixed_paste_combines_collect_env_and_nvidia_smi() -> None:
    collect = (
        (PASTES / "this-machine-2.13-cpu.txt")
        .read_text()
        .replace("2.13.0+cpu", "2.1.0+cu121")
        .replace("CUDA used to build PyTorch: Could not collect", "CUDA used to build PyTorch: 12.1")
        .replace("Is CUDA available: False", "Is CUDA available: False")
    )
    report = load_text(collect + "\n$ nvidia-smi\n" + SMI_HEADER)
    assert report.meta["input_kinds"][:2] == ["collect_env", "nvidia_smi"]
    first = report.findings[0]
    assert first.id == "driver_too_old", [f.id for f in report.findings]
    assert report.facts.value("cuda.driver_version") == 11040


def test_repl_session_facts() -> None:
    text = (
        ">>> import torch\n>>> torch.__version__\n'2.0.1+cpu'\n>>> torch.version.cuda\n"
        ">>> torch.cuda.is_available()\nFalse\n"
    )
    report = load_text(text)
    assert report.facts.value("torch.version") == "2.0.1+cpu"
    assert report.facts.value("torch.cuda_build") is None
    assert report.facts.value("cuda.available") is False
    first = report.findings[0]
    assert first.id == "cpu_only_build"
    assert any(e.fact == "pasted.line" and "torch.__version__" in str(e.value) for e in first.evidence)


def test_accelerate_env_with_cuda_working_claims_nothing() -> None:
    text = (
        "- `Accelerate` version: 0.28.0\n- Platform: Linux-5.4.0-173-generic-x86_64-with-glibc2.31\n"
        "- Python version: 3.10.14\n- PyTorch version (GPU?): 2.2.1+cu121 (True)\n"
        "- GPU type: NVIDIA A800-SXM4-80GB\n"
    )
    report = load_text(text)
    assert report.meta["input_kinds"] == ["env_fork"]
    assert report.facts.value("cuda.available") is True
    assert not report.has_error


def test_rosetta_from_the_pastes_own_words() -> None:
    text = (
        "OS: macOS 14.4 (x86_64)\nPython platform: macOS-14.4-x86_64-i386-64bit\nPyTorch version: 2.2.2\n"
        "CPU:\nApple M2 Pro\n"
    )
    report = load_text(text)
    assert report.findings[0].id == "macos_rosetta_x86_python"


def test_container_started_without_a_gpu_is_blamed() -> None:
    report = _load("floydhub-dockerfiles-3-docker-run-without-nvidia-ipython.txt")
    first = report.findings[0]
    assert first.id == "docker_no_gpu_runtime"
    assert any("docker run" in str(e.value) for e in first.evidence)
    healthy = load_text(
        "$ docker run --gpus all -it img python\n>>> import torch\n>>> torch.cuda.is_available()\nTrue\n"
    )
    assert "docker_no_gpu_runtime" not in [f.id for f in healthy.findings]
