"""Round 6 (issue #14): environment reports from machines without an NVIDIA GPU, posted where nobody asked for CUDA.

The texts are written for these tests (collect_env's field names, an Ultralytics-style banner, an XPU section);
each reading has a counter-example where the text does give a reason to expect CUDA and the claim must stay.
"""

from __future__ import annotations

from gpuassist.findings import Severity
from gpuassist.ingest import fitting_build, load_text
from gpuassist.report.model import Report


def _errors(report: Report) -> list[str]:
    return [f.id for f in report.findings if f.severity is Severity.ERROR]


def _first(report: Report) -> tuple[str, Severity] | None:
    return (report.findings[0].id, report.findings[0].severity) if report.findings else None


CPU_LAPTOP_COLLECT_ENV = """\
PyTorch version: 2.5.1+cpu
Is debug build: False
CUDA used to build PyTorch: None
ROCM used to build PyTorch: N/A

OS: Microsoft Windows 11 Home
GCC version: Could not collect
Clang version: Could not collect
CMake version: Could not collect
Libc version: N/A

Python version: 3.11.9 (tags/v3.11.9:de54cf5, Apr  2 2024, 10:12:12) [MSC v.1938 64 bit (AMD64)] (64-bit runtime)
Python platform: Windows-10-10.0.22631-SP0
Is CUDA available: False
CUDA runtime version: No CUDA
CUDA_MODULE_LOADING set to: N/A
GPU models and configuration: No CUDA
Nvidia driver version: No CUDA
cuDNN version: No CUDA
HIP runtime version: N/A
MIOpen runtime version: N/A
Is XNNPACK available: True

Versions of relevant libraries:
[pip3] numpy==1.26.4
[pip3] torch==2.5.1+cpu
[pip3] torchvision==0.20.1+cpu
"""


def test_cpu_build_on_a_report_without_nvidia_gpu_is_information() -> None:
    report = load_text(CPU_LAPTOP_COLLECT_ENV)
    assert _first(report) == ("cpu_only_build", Severity.INFO)
    assert not _errors(report)
    assert "If it has one" in report.findings[0].fix  # the CUDA install is still there for a GPU machine


def test_cpu_build_stays_an_error_when_the_user_wants_the_gpu() -> None:
    text = "My RTX 3060 is never used, training runs on the CPU only.\n" + CPU_LAPTOP_COLLECT_ENV
    assert _first(load_text(text)) == ("cpu_only_build", Severity.ERROR)


def test_cpu_build_stays_an_error_after_a_cuda_error_message() -> None:
    text = (
        CPU_LAPTOP_COLLECT_ENV
        + '  File "train.py", line 12, in <module>\n    model.cuda()\n'
        + "AssertionError: Torch not compiled with CUDA enabled\n"
    )
    assert "cpu_only_build" in _errors(load_text(text))


BANNER = """\
Detector 3.1.4 Python-3.12.1 torch-2.4.1+cpu CPU (Intel Core(TM) i7-8565U 1.80GHz)
Setup complete (8 CPUs, 15.8 GB RAM, 210.0/476.0 GB disk)
"""


def test_cpu_build_banner_of_a_cpu_machine_is_information() -> None:
    report = load_text(BANNER)
    assert not _errors(report)
    assert report.findings and report.findings[0].id == "cpu_only_build"


def test_banner_with_an_nvidia_device_elsewhere_keeps_the_error() -> None:
    text = BANNER + "nvidia-smi shows the GeForce GTX 1650 with driver 551.86\n"
    assert "cpu_only_build" in _errors(load_text(text))


MAC_COLLECT_ENV = """\
PyTorch version: 2.3.0
Is debug build: False
CUDA used to build PyTorch: None
ROCM used to build PyTorch: N/A

OS: macOS 14.5 (arm64)
GCC version: Could not collect
Clang version: 15.0.0 (clang-1500.3.9.4)
CMake version: Could not collect
Libc version: N/A

Python version: 3.12.3 (main, Apr  9 2024, 08:09:14) [Clang 15.0.0 (clang-1500.3.9.4)] (64-bit runtime)
Python platform: macOS-14.5-arm64-arm-64bit
Is CUDA available: False
CUDA runtime version: No CUDA
CUDA_MODULE_LOADING set to: N/A
GPU models and configuration: No CUDA
Nvidia driver version: No CUDA
cuDNN version: No CUDA
HIP runtime version: N/A
MIOpen runtime version: N/A
Is XNNPACK available: True

CPU:
Apple M2 Pro
"""


def test_mac_report_without_a_word_about_mps_is_information() -> None:
    report = load_text(MAC_COLLECT_ENV)
    assert _first(report) == ("macos_no_cuda_use_mps", Severity.INFO)
    assert "MPS is not available" not in report.findings[0].title


def test_mac_report_where_mps_is_shown_unavailable_keeps_the_error() -> None:
    text = MAC_COLLECT_ENV + ">>> import torch\n>>> torch.backends.mps.is_available()\nFalse\n"
    report = load_text(text)
    assert report.facts.value("mps.available") is False
    assert "macos_no_cuda_use_mps" in _errors(report)


XPU_SECTION = """\
==============================
      Intel XPU / GPU Info
==============================
Is XPU available             : True
XPU runtime version          : 20240901
Intel GPU models             :
GPU 0: Intel(R) Arc(TM) A770 Graphics
GPU 1: Intel(R) Arc(TM) A770 Graphics
"""


def test_xpu_host_report_claims_no_missing_nvidia_gpu() -> None:
    report = load_text(XPU_SECTION)
    assert report.facts.value("xpu.available") is True
    assert not _errors(report)


def test_intel_graphics_without_xpu_and_a_cuda_complaint_keeps_no_nvidia_gpu() -> None:
    text = XPU_SECTION.replace(": True", ": False") + "I want to use my GPU but CUDA is not available.\n"
    assert "no_nvidia_gpu" in _errors(load_text(text))


def test_accelerator_facts_read_fields_and_repl_answers() -> None:
    sources: dict[str, tuple[int, str]] = {}
    lines = ["- Is XPU available: False", ">>> torch.backends.mps.is_available()", "True", "MPS available: False"]
    assert fitting_build.accelerator_facts(lines, sources) == {"xpu.available": False, "mps.available": True}
    assert sources["mps.available"][0] == 2
    assert fitting_build.accelerator_facts(["torch.xpu.is_available() is used below", "True"], {}) == {}


def test_collect_env_cut_before_its_gpu_lines_does_not_show_there_is_none() -> None:
    cut = CPU_LAPTOP_COLLECT_ENV.split("Is CUDA available")[0]
    assert "cpu_only_build" in _errors(load_text(cut))


def test_empty_report_fields_are_no_error_but_a_cuda_library_error_is() -> None:
    fork = BANNER + "CUDA                None\nGPU                 N/A\n"
    assert not _errors(load_text(fork))
    nccl = BANNER + "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled\n"
    assert "cpu_only_build" in _errors(load_text(nccl))


HF_ENV = """\
- `transformers` version: 4.44.2
- Platform: Linux-6.5.0-41-generic-x86_64-with-glibc2.35
- Python version: 3.10.12
- PyTorch version (GPU?): 2.4.0+cpu (False)
- Using distributed or parallel set-up in script?: no
- Using GPU in script?: {answer}
"""


def test_template_question_answered_no_is_no_wish_for_the_gpu() -> None:
    assert not _errors(load_text(HF_ENV.format(answer="No")))
    assert "cpu_only_build" in _errors(load_text(HF_ENV.format(answer="yes, the RTX 4070")))


def test_an_xpu_build_is_no_cpu_only_build() -> None:
    text = CPU_LAPTOP_COLLECT_ENV.replace("2.5.1+cpu", "2.7.1+xpu")
    assert "cpu_only_build" not in [f.id for f in load_text(text).findings]
    assert "cpu_only_build" in [f.id for f in load_text(CPU_LAPTOP_COLLECT_ENV).findings]


CUDA_BUILD_NO_DEVICE = (
    CPU_LAPTOP_COLLECT_ENV.replace("OS: Microsoft Windows 11 Home", "OS: Ubuntu 22.04.4 LTS (x86_64)")
    .replace("Windows-10-10.0.22631-SP0", "Linux-5.15.0-105-generic-x86_64-with-glibc2.35")
    .replace("2.5.1+cpu", "2.5.1+cu124")
    .replace("CUDA used to build PyTorch: None", "CUDA used to build PyTorch: 12.4")
    .replace("GPU models and configuration: No CUDA", "GPU models and configuration: Could not collect")
    .replace("Nvidia driver version: No CUDA", "Nvidia driver version: Could not collect")
)


def test_cuda_build_without_device_on_a_report_asking_nothing_lists_guesses_as_information() -> None:
    report = load_text(CUDA_BUILD_NO_DEVICE)
    assert report.findings and not [f for f in report.findings if f.severity is not Severity.INFO]
    assert report.findings[0].title.startswith("If this machine has an NVIDIA GPU")


def test_cuda_build_without_device_where_the_user_wants_cuda_keeps_the_guesses() -> None:
    text = "torch.cuda.is_available() returns False although I installed the CUDA wheel.\n" + CUDA_BUILD_NO_DEVICE
    report = load_text(text)
    assert report.findings[0].severity is Severity.WARNING
    assert report.findings[0].title.startswith("Possible cause")


def test_a_banner_that_selected_mps_says_mps_works() -> None:
    report = load_text("Detector 3.1.4 Python-3.11.7 torch-2.2.0 MPS (Apple M1 Pro)\n")
    assert report.facts.value("mps.available") is True
    assert not [f for f in report.findings if f.severity is not Severity.INFO]
    cpu = load_text("Detector 3.1.4 Python-3.11.7 torch-2.2.0 CPU (Apple M1 Pro)\n")
    assert cpu.facts.value("mps.available") is None
