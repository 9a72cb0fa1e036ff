"""Diagnostic reports of libraries built on torch (issue #14, round 5): `python -m xformers.info` cut before its
pytorch.* lines, DeepSpeed's ds_report, `python -m bitsandbytes`, sglang's check_env, torch.__config__.show() and
nvcc --version. Each is recognised by its own layout (never refused), and read for the facts it states so the usual
rules decide; a report of a healthy machine claims nothing. The texts are synthetic, written in each tool's layout
as its source prints it (see gpuassist/ingest/env_reports.py)."""

from __future__ import annotations

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import UnreadableInput, load_text
from gpuassist.ingest.env_reports import report_facts
from gpuassist.ingest.text import clean_lines


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


def _kinds(text: str) -> list[str]:
    return list(load_text(text).meta["input_kinds"])


XFORMERS_FEATURES_ONLY = """\
xFormers 0.0.27
memory_efficient_attention.ckF:                    unavailable
memory_efficient_attention.cutlassF-pt:            available
memory_efficient_attention.fa2F@2.5.6-pt:          available
swiglu.dual_gemm_silu:                             available
is_triton_available:                               True
"""


def test_xformers_info_cut_before_its_torch_lines_is_read_not_refused() -> None:
    report = load_text(XFORMERS_FEATURES_ONLY)
    assert report.meta["input_kinds"] == ["env_fork"]
    assert not any(f.severity is Severity.ERROR for f in report.findings)


def test_a_text_about_nothing_is_still_refused() -> None:
    with pytest.raises(UnreadableInput):
        load_text("Lunch menu:\nsoup: available\nbread: unavailable\n")


DS_REPORT_CPU = """\
DeepSpeed general environment info:
torch install path ............... ['/home/u/venv/lib/python3.10/site-packages/torch']
torch version .................... 2.2.1
deepspeed install path ........... ['/home/u/venv/lib/python3.10/site-packages/deepspeed']
deepspeed info ................... 0.13.5, unknown, unknown
torch cuda version ............... None
torch hip version ................ None
nvcc version ..................... 12.2
deepspeed wheel compiled w. ...... torch 2.2, cuda 12.2
"""
DS_REPORT_CUDA = DS_REPORT_CPU.replace("cuda version ............... None", "cuda version ............... 12.1")


def test_ds_report_reads_torchs_cuda_not_nvccs() -> None:
    facts = report_facts(clean_lines(DS_REPORT_CPU), {})
    assert facts == {"torch.version": "2.2.1", "torch.cuda_build": None}
    assert _kinds(DS_REPORT_CPU) == ["env_fork"]
    assert _ids(DS_REPORT_CPU)[:1] == ["cpu_only_build"]


def test_ds_report_of_a_cuda_build_claims_no_build_problem() -> None:
    facts = report_facts(clean_lines(DS_REPORT_CUDA), {})
    assert facts["torch.cuda_build"] == "12.1"
    assert "cpu_only_build" not in _ids(DS_REPORT_CUDA)


BNB_UNAVAILABLE = """\
=================== bitsandbytes v0.44.1 ===================
Platform: Linux-5.15.0-105-generic-x86_64-with-glibc2.35
  libc: glibc-2.35
Python: 3.10.12
PyTorch: 2.4.0+cu121
  CUDA: 12.1
  HIP: N/A
  XPU: N/A
Related packages:
  accelerate: 0.33.0
=============================================================
PyTorch says CUDA is not available. Possible reasons:
1. CUDA driver not installed
2. Using a CPU-only PyTorch build
3. No GPU detected
"""
BNB_WORKING = """\
=================== bitsandbytes v0.44.1 ===================
PyTorch: 2.4.0+cu121
  CUDA: 12.1
  HIP: N/A
=============================================================
PyTorch settings found: CUDA_VERSION=121, Highest Compute Capability: 8.9.
Checking that the library is importable and CUDA is callable...
SUCCESS!
"""


def test_bitsandbytes_report_states_build_and_availability() -> None:
    facts = report_facts(clean_lines(BNB_UNAVAILABLE), {})
    assert facts == {"torch.version": "2.4.0+cu121", "torch.cuda_build": "12.1", "cuda.available": False}
    assert report_facts(clean_lines(BNB_WORKING), {})["cuda.available"] is True


def test_bitsandbytes_list_of_possible_reasons_is_not_a_claim() -> None:
    # Its "Using a CPU-only PyTorch build" is printed on every machine; this one has a CUDA build.
    assert "cpu_only_build" not in _ids(BNB_UNAVAILABLE)
    assert not any(f.severity is Severity.ERROR for f in load_text(BNB_WORKING).findings)


def test_pytorch_line_outside_a_bitsandbytes_report_is_not_read_by_it() -> None:
    assert report_facts(clean_lines("PyTorch: 2.4.0+cu121\n  CUDA: 12.1\n"), {}) == {}


SGLANG_CPU = """\
Python: 3.10.14 (main, Mar 21 2024, 16:24:04) [GCC 11.2.0]
CUDA available: False
PyTorch: 2.5.1
sglang: 0.4.1.post3
flashinfer: Module Not Found
triton: 3.1.0
"""


def test_sglang_check_env_states_availability() -> None:
    report = load_text(SGLANG_CPU)
    assert report.meta["input_kinds"] == ["env_fork"]
    assert report.facts.value("cuda.available") is False
    assert report.facts.value("torch.version") == "2.5.1"


CONFIG_SHOW_CPU = """\
PyTorch built with:
  - GCC 9.3
  - C++ Version: 201703
  - CPU capability usage: AVX2
  - Build settings: BLAS_INFO=mkl, BUILD_TYPE=Release, TORCH_VERSION=2.1.0, USE_CUDA=OFF, USE_CUDNN=OFF, USE_NCCL=OFF
"""
NVCC = """\
nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2023 NVIDIA Corporation
Cuda compilation tools, release 12.1, V12.1.105
"""


def test_torch_config_show_of_a_cpu_build() -> None:
    assert _kinds(CONFIG_SHOW_CPU) == ["env_fork"]
    assert _ids(CONFIG_SHOW_CPU)[:1] == ["cpu_only_build"]


def test_nvcc_version_is_recognised_and_is_not_torchs_build() -> None:
    report = load_text(NVCC)
    assert report.meta["input_kinds"] == ["env_fork"]
    assert not report.facts.known("torch.cuda_build")
    assert not report.findings


# ------------------------------------------------- visibility set by the program itself (its arguments, its config)

WORKS_IN_SHELL_NOT_IN_SCRIPT = """\
If I run `python -c "import torch; print(torch.cuda.is_available())"` it prints True, and other repos train on the GPU.
With this repo's `python train.py --data ./data` I get:
RuntimeError: No CUDA GPUs are available
"""
FALSE_IN_SHELL = """\
With this repo's `python train.py --data ./data` I get:
RuntimeError: No CUDA GPUs are available
and `torch.cuda.is_available()` returns False in the shell too.
"""


def test_cuda_working_in_the_users_check_points_at_the_programs_visibility() -> None:
    ids = _ids(WORKS_IN_SHELL_NOT_IN_SCRIPT)
    assert ids[:1] == ["cuda_visible_devices_hides_gpus"]
    assert not {"no_nvidia_gpu", "no_nvidia_driver"} & set(ids)


def test_cuda_failing_in_the_shell_keeps_the_hardware_readings() -> None:
    assert "no_nvidia_gpu" in _ids(FALSE_IN_SHELL)


DEVICE_IDS_BEYOND_THE_GPUS = """\
  File "train.py", line 31, in <module>
    model = torch.nn.DataParallel(model, device_ids=opt.gpu_ids)
  File "/usr/lib/python3/dist-packages/torch/cuda/__init__.py", line 465, in get_device_properties
    raise AssertionError("Invalid device id")
AssertionError: Invalid device id
"""


def test_an_index_beyond_the_visible_gpus_is_a_visibility_reading() -> None:
    assert _ids(DEVICE_IDS_BEYOND_THE_GPUS)[:1] == ["cuda_visible_devices_hides_gpus"]


def test_another_programs_invalid_device_id_is_not_read() -> None:
    assert "cuda_visible_devices_hides_gpus" not in _ids(
        "Traceback (most recent call last):\nValueError: Invalid device id in config.yaml (CUDA)\n"
    )


# ------------------------------------------------- transformers / accelerate env, as printed and as Markdown

TRANSFORMERS_ENV_WSL = """\
- `transformers` version: 4.57.0
- Platform: Linux-5.15.167.4-microsoft-standard-WSL2-x86_64-with-glibc2.39
- Python version: 3.12.3
- PyTorch version (accelerator?): 2.8.0+cu128 (CUDA)
- Using distributed or parallel set-up in script?: <fill in>
- GPU type: NVIDIA GeForce RTX 4070
"""
# The same report as a user formats it for GitHub: "*" bullets, values in backticks.
TRANSFORMERS_ENV_MARKDOWN = """\
* `transformers` version: `4.57.0`
* Platform: `Linux-5.15.167.4-microsoft-standard-WSL2-x86_64-with-glibc2.39`
* PyTorch version (accelerator?): `2.8.0+cu128 (CUDA)`
* GPU type: `NVIDIA GeForce RTX 4070`
"""


def test_transformers_env_read_in_both_layouts() -> None:
    for text in (TRANSFORMERS_ENV_WSL, TRANSFORMERS_ENV_MARKDOWN):
        facts = load_text(text).facts
        assert facts.value("torch.version") == "2.8.0+cu128"
        assert facts.value("cuda.available") is True
        assert facts.value("reported.gpus") == [{"index": 0, "name": "NVIDIA GeForce RTX 4070"}]


def test_healthy_wsl_report_does_not_blame_its_platform() -> None:
    for text in (TRANSFORMERS_ENV_WSL, TRANSFORMERS_ENV_MARKDOWN):
        assert _ids(text) == []


def test_wsl_platform_with_cuda_not_working_keeps_its_guess() -> None:
    failing = TRANSFORMERS_ENV_WSL.replace("(CUDA)", "(NA)").replace("- GPU type: NVIDIA GeForce RTX 4070\n", "")
    assert "wsl_libcuda_problem" in _ids(failing + "RuntimeError: No CUDA GPUs are available\n")


# ------------------------------------------------------------------------------------------------- pip show torch

PIP_SHOW_WINDOWS = """\
C:\\Users\\me> pip show torch
Name: torch
Version: 2.4.1
Summary: Tensors and Dynamic neural networks in Python with strong GPU acceleration
Location: C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python311\\Lib\\site-packages
"""


def test_pip_show_of_an_untagged_torch_on_windows_is_pypis_cpu_build() -> None:
    report = load_text(PIP_SHOW_WINDOWS)
    assert report.facts.value("torch.version") == "2.4.1"
    assert report.facts.value("torch.cuda_build") is None
    assert _ids(PIP_SHOW_WINDOWS)[:1] == ["cpu_only_build"]


def test_pip_show_of_a_tagged_or_linux_torch_states_no_cpu_build() -> None:
    tagged = PIP_SHOW_WINDOWS.replace("Version: 2.4.1", "Version: 2.4.1+cu121")
    assert "cpu_only_build" not in _ids(tagged)
    linux = "$ pip show torch\nName: torch\nVersion: 2.4.1\nLocation: /home/me/.venv/lib/python3.11/site-packages\n"
    assert "cpu_only_build" not in _ids(linux)


def test_xformers_info_lines_with_long_names_have_one_space() -> None:
    # "{:<40} {}".format(...): a feature name of 40 characters or more is followed by a single space.
    text = "memory_efficient_attention.flshattF@v2.3.6: available\nmemory_efficient_attention.cutlassB-pt: available\n"
    assert load_text(text).meta["input_kinds"] == ["env_fork"]


BNB_OLD_CPU_LIBRARY = """\
===================================BUG REPORT===================================
CUDA SETUP: PyTorch settings found: CUDA_VERSION=118, Highest Compute Capability: 8.6.
CUDA SETUP: Required library version not found: libbitsandbytes_cuda118.so. Maybe you need to compile it from source?
CUDA SETUP: Defaulting to libbitsandbytes_cpu.so...
CUDA SETUP: CUDA detection failed! Possible reasons:
2. CUDA driver not installed
UserWarning: The installed version of bitsandbytes was compiled without GPU support.
"""


def test_old_bitsandbytes_setup_log_states_torch_cuda_works_and_blames_nothing_of_torchs() -> None:
    report = load_text(BNB_OLD_CPU_LIBRARY)
    assert report.facts.value("cuda.available") is True
    assert not {"cpu_only_build", "no_nvidia_driver"} & {f.id for f in report.findings}


HUB_ENV = """\
Copy-and-paste the text below in your GitHub issue.

- huggingface_hub version: 0.26.2
- Platform: Windows-10-10.0.22631-SP0
- Python version: 3.11.9
- Running in notebook ?: No
- FastAI: N/A
- Tensorflow: N/A
- Torch: 2.5.1+cpu
- Jinja2: 3.1.4
"""


def test_huggingface_cli_env_states_torchs_build() -> None:
    facts = report_facts(clean_lines(HUB_ENV), {})
    assert facts == {"torch.version": "2.5.1+cpu", "torch.cuda_build": None}
    assert report_facts(clean_lines(HUB_ENV.replace("2.5.1+cpu", "2.5.1+cu121")), {})["torch.cuda_build"] == "12.1"
    # "- Torch:" outside that report is someone's list, not read here; "N/A" is no torch at all.
    assert report_facts(clean_lines("- Torch: 2.5.1+cpu\n"), {}) == {}
    assert report_facts(clean_lines(HUB_ENV.replace("2.5.1+cpu", "N/A")), {}) == {}


def test_huggingface_cli_env_untagged_torch_on_windows_is_pypis_cpu_build() -> None:
    # "- Torch:" is importlib.metadata's version: a wheel from PyPI has no local tag, and PyPI's Windows torch is CPU.
    untagged = HUB_ENV.replace("2.5.1+cpu", "2.5.1")
    assert _ids(untagged)[:1] == ["cpu_only_build"]
    linux = untagged.replace("Windows-10-10.0.22631-SP0", "Linux-6.8.0-45-generic-x86_64-with-glibc2.39")
    assert "cpu_only_build" not in _ids(linux)
