"""Environment reports other than torch's collect_env: detectron2's and mmcv's collect_env, mmengine's OrderedDict of
it, torch's get_env_info() fields in a web UI's sysinfo JSON and `python -m xformers.info`. Each names torch's facts
its own way; the paste reader takes the same facts from them as from collect_env. The texts are synthetic, written
in each tool's layout."""

from __future__ import annotations

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.ingest.paste_facts import env_table_facts
from gpuassist.ingest.text import clean_lines

DETECTRON2_CPU = """\
----------------------  ------------------------------------------------------------
sys.platform            linux
Python                  3.9.7 (default, Sep 16 2021, 13:09:58) [GCC 7.5.0]
numpy                   1.21.2
detectron2              0.6 @/opt/venv/lib/python3.9/site-packages/detectron2
Compiler                GCC 9.4
CUDA compiler           not available
DETECTRON2_ENV_MODULE   <not set>
PyTorch                 1.10.1+cpu @/opt/venv/lib/python3.9/site-packages/torch
PyTorch debug build     False
GPU available           No: torch.cuda.is_available() == False
Pillow                  8.4.0
torchvision             0.11.2+cpu @/opt/venv/lib/python3.9/site-packages/torchvision
----------------------  ------------------------------------------------------------
"""

DETECTRON2_GPU = """\
sys.platform            linux
PyTorch                 1.12.1+cu113 @/srv/env/lib/python3.8/site-packages/torch
PyTorch debug build     False
GPU available           Yes
GPU 0,1                 NVIDIA RTX A5000 (arch=8.6)
Driver version          515.65.01
CUDA_HOME               /usr/local/cuda-11.3
"""

MMCV_ENV = """\
sys.platform: linux
Python: 3.8.13 (default, Mar 28 2022, 11:38:47) [GCC 7.5.0]
CUDA available: True
GPU 0: Tesla T4
CUDA_HOME: /usr/local/cuda
NVCC: Cuda compilation tools, release 11.1, V11.1.105
PyTorch: 1.9.0+cu111
PyTorch compiling details: PyTorch built with:
  - GCC 7.3
"""

MMENGINE_DICT = (
    "OrderedDict([('sys.platform', 'linux'), ('Python', '3.10.4'), ('CUDA available', False), "
    "('numpy_random_seed', 1234), ('PyTorch', '2.1.0+cpu'), ('TorchVision', '0.16.0+cpu')])\n"
)

SYSINFO_JSON = """\
    "Torch env info": {
        "torch_version": "2.1.2+cu121",
        "is_debug_build": "False",
        "cuda_compiled_version": "12.1",
        "os": "Microsoft Windows 11 Home",
        "is_cuda_available": "True",
        "nvidia_driver_version": "537.58",
        "nvidia_gpu_models": "GPU 0: NVIDIA GeForce RTX 3060",
        "cudnn_version": null,
"""

XFORMERS_INFO_CPU = """\
xFormers 0.0.23
memory_efficient_attention.cutlassF:               unavailable
pytorch.version:                                   2.1.0+cpu
pytorch.cuda:                                      not available
"""


def _facts(text: str) -> dict[str, object]:
    return env_table_facts(clean_lines(text), set(), {})


def test_detectron2_report_of_a_cpu_build_is_read_and_blamed() -> None:
    report = load_text(DETECTRON2_CPU, label="d2.txt")
    assert report.meta["input_kinds"] == ["env_fork"]
    assert report.facts.value("torch.version") == "1.10.1+cpu"
    assert report.facts.value("cuda.available") is False
    first = report.findings[0]
    assert first.id == "cpu_only_build"
    assert any(e.fact == "pasted.line" and "1.10.1+cpu" in str(e.value) for e in first.evidence)


def test_detectron2_report_of_a_working_gpu_claims_nothing() -> None:
    report = load_text(DETECTRON2_GPU)
    assert report.meta["input_kinds"] == ["env_fork"]
    assert report.facts.value("cuda.available") is True
    assert report.facts.value("driver.version") == "515.65.01"
    assert [g["name"] for g in report.facts.value("reported.gpus")] == ["NVIDIA RTX A5000", "NVIDIA RTX A5000"]
    assert not report.has_error


def test_mmcv_report_is_read() -> None:
    facts = _facts(MMCV_ENV)
    assert facts["torch.version"] == "1.9.0+cu111"
    assert facts["torch.cuda_build"] == "11.1"
    assert facts["cuda.available"] is True
    assert facts["reported.gpus"] == [{"index": 0, "name": "Tesla T4"}]
    assert "env_fork" in load_text(MMCV_ENV).meta["input_kinds"]


def test_mmengine_ordered_dict_of_a_cpu_build_is_blamed() -> None:
    report = load_text(MMENGINE_DICT)
    assert report.facts.value("cuda.available") is False
    assert report.findings[0].id == "cpu_only_build"


def test_sysinfo_json_of_torchs_env_info_states_the_build_and_gpu() -> None:
    report = load_text(SYSINFO_JSON)
    assert report.meta["input_kinds"] == ["env_fork"]
    assert report.facts.value("torch.version") == "2.1.2+cu121"
    assert report.facts.value("driver.version") == "537.58"
    assert report.facts.value("reported.gpus") == [{"index": 0, "name": "NVIDIA GeForce RTX 3060"}]
    assert not any(f.severity is Severity.ERROR for f in report.findings)
    assert not any("which torch build runs" in m for m in report.meta["missing_facts"])


def test_xformers_info_of_a_cpu_torch() -> None:
    report = load_text(XFORMERS_INFO_CPU)
    assert report.facts.value("cuda.available") is False
    assert report.findings[0].id == "cpu_only_build"


def test_keys_outside_such_a_report_are_not_read() -> None:
    """A conda plan's "pytorch: old --> new" and a bug template's "PyTorch: 1.8" are no environment report."""
    conda_plan = (
        "The following packages will be UPDATED:\n\n"
        "    pytorch: 1.0.1-py37_cuda9.0.176_cudnn7.4.2_2 pytorch --> 1.1.0-py37_cuda10.0.130_cudnn7.5.1_0 pytorch\n"
        "GPU 0: GeForce GTX 1080\n"
    )
    template = "Environment\nPyTorch: 1.8\nCUDA available: no idea\nGPU 0: RTX 2070\n"
    assert _facts(conda_plan) == {}
    assert _facts(template) == {}
    assert _facts("sys.platform            linux\nPyTorch                 2.0.0\n") == {}  # one fact is not enough


LIGHTNING_CPU = (
    "<details>\n  <summary>Current environment</summary>\n\n"
    "* CUDA:\n\t- GPU:               None\n\t- available:         False\n\t- version:           None\n"
    "* Lightning:\n\t- lightning:         2.1.3\n\t- torch:             2.1.2+cpu\n"
    "* System:\n\t- OS:                Windows\n\t- python:            3.11.7\n\n</details>\n"
)
LIGHTNING_GPU = (
    "* CUDA:\n\t- GPU:\n\t\t- NVIDIA A100-SXM4-40GB\n\t\t- NVIDIA A100-SXM4-40GB\n"
    "\t- available:         True\n\t- version:           12.1\n"
    "* Packages:\n\t- numpy:             1.26.2\n\t- torch:             2.1.2\n"
    "* System:\n\t- OS:                Linux\n"
)


def test_lightning_report_of_a_cpu_build() -> None:
    report = load_text(LIGHTNING_CPU)
    assert report.meta["input_kinds"] == ["env_fork"]
    assert report.facts.value("cuda.available") is False
    assert report.facts.value("torch.version") == "2.1.2+cpu"
    assert report.facts.value("host.os") == "Windows"
    assert report.findings[0].id == "cpu_only_build"


def test_lightning_report_of_working_gpus() -> None:
    report = load_text(LIGHTNING_GPU)
    assert report.facts.value("cuda.available") is True
    assert report.facts.value("torch.cuda_build") == "12.1"
    assert [g["name"] for g in report.facts.value("reported.gpus")] == ["NVIDIA A100-SXM4-40GB"] * 2
    assert not report.has_error


def test_collect_envs_header_is_not_a_pip_session() -> None:
    """collect_env prints "Collecting environment information..." first; pip prints "Collecting <package>"."""
    text = (
        "Collecting environment information...\nPyTorch version: 2.2.1+cu121\nIs debug build: False\n"
        "CUDA used to build PyTorch: 12.1\nIs CUDA available: True\nGPU models and configuration: GPU 0: Tesla T4\n"
    )
    assert load_text(text).meta["input_kinds"] == ["collect_env"]
    assert "install" in load_text("Collecting torch==2.2.1\n  Downloading torch-2.2.1-cp310.whl\n").meta["input_kinds"]


def test_mmcv_collect_env_printed_as_a_dict() -> None:
    """mmcv's issue template: print(collect_env()) (one line) or pprint of it (a key a line)."""
    one_line = (
        "{'sys.platform': 'linux', 'Python': '3.8.10', 'CUDA available': False, 'GCC': 'gcc 9.4.0', "
        "'PyTorch': '1.12.1+cpu', 'TorchVision': '0.13.1+cpu', 'MMCV': '1.7.0'}\n"
    )
    report = load_text(one_line)
    assert report.meta["input_kinds"] == ["env_fork"]
    assert report.findings[0].id == "cpu_only_build"
    pprinted = "{'CUDA available': True,\n 'GPU 0,1,2,3': 'Tesla V100-SXM2-32GB',\n 'PyTorch': '1.10.0+cu113',\n}\n"
    facts = _facts(pprinted)
    assert facts["cuda.available"] is True
    assert len(facts["reported.gpus"]) == 4


def test_a_rule_of_dashes_in_a_log_is_not_a_notebook() -> None:
    """mmengine frames its environment with a rule of dashes; IPython's traceback header has one too, but only
    IPython's is followed by "XxxError   Traceback (most recent call last)"."""
    log = (
        "2024/05/02 10:00:00 - mmengine - INFO - \n" + "-" * 60 + "\nSystem environment:\n"
        "    sys.platform: linux\n    CUDA available: True\n    GPU 0: NVIDIA L4\n    PyTorch: 2.1.0+cu121\n"
    )
    report = load_text(log)
    assert report.meta["input_kinds"] == ["env_fork"]
    assert not report.has_error


def test_xformers_import_warning_names_the_torch_it_found() -> None:
    text = (
        "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
        "    PyTorch 2.3.1+cu121 with CUDA 1201 (you have 2.3.1+cu118)\n"
        "    Python  3.11.9 (you have 3.11.9)\n"
    )
    report = load_text(text)
    assert report.meta["input_kinds"] == ["env_fork"]
    assert report.facts.value("torch.version") == "2.3.1+cu118"
    assert report.facts.value("torch.cuda_build") == "11.8"
    assert not report.has_error  # a CUDA torch that xFormers was not built for: not why the GPU is unused
    cpu = load_text(text.replace("(you have 2.3.1+cu118)", "(you have 2.3.1+cpu)"))
    assert cpu.findings[0].id == "cpu_only_build"
