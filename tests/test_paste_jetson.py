"""Jetson texts read against NVIDIA's JetPack facts (gpuassist/ingest/jetson_texts.py, paste_facts.JETSON_RELEASE).

Every text here is synthetic, written in the layout of the tool that prints it (dpkg -l, jtop, /etc/nv_tegra_release,
pip, the Python REPL); each mechanism has a text where it must fire and one where it must not (a healthy board, an
ARM server, a PC)."""

from __future__ import annotations

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import jetson_texts, load_text
from gpuassist.ingest.python_c import python_c_facts
from gpuassist.ingest.text import clean_lines


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


def _claims(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings if f.severity in (Severity.ERROR, Severity.WARNING)]


def _jetson(text: str) -> bool:
    return bool(load_text(text).facts.value("platform.jetson"))


# --- the board recognised from L4T's own outputs --------------------------------------------------------------

BOARD_OUTPUTS = {
    "dpkg": "ii  nvidia-l4t-core   36.3.0-20240506102626   arm64   NVIDIA Core Package\n",
    "apt show": "Package: nvidia-jetpack\nVersion: 6.0+b106\nArchitecture: arm64\n",
    "jtop": " Machine: aarch64\n L4T: 35.4.1\n Jetpack: 5.1.2\n",
    "nv_tegra_release": "# R32 (release), REVISION: 7.4, GCID: 33514132, BOARD: t210ref, EABI: aarch64\n",
    "board config only": "BOARD: t186ref, EABI: aarch64\n",
    "JetPack wheel folder": (
        "wget https://developer.download.nvidia.com/compute/redist/jp/v512/pytorch/"
        "torch-2.1.0a0+41361538.nv23.06-cp38-cp38-linux_aarch64.whl\n"
    ),
    "jetson-containers image": "docker run --runtime nvidia -it dustynv/pytorch:2.1-r36.2.0\n",
}


@pytest.mark.parametrize("name", sorted(BOARD_OUTPUTS))
def test_l4t_outputs_name_a_jetson(name: str) -> None:
    text = BOARD_OUTPUTS[name] + ">>> import torch\n>>> torch.cuda.is_available()\nTrue\n"
    assert _jetson(text), name
    assert _claims(text) == []  # a working board stays clean


ARM_SERVERS = {
    "GH200 collect_env": (
        "OS: Ubuntu 22.04.4 LTS (aarch64)\nPython platform: Linux-6.8.0-1013-nvidia-64k-aarch64-with-glibc2.35\n"
        "GPU models and configuration: GPU 0: NVIDIA GH200 480GB\nModel name: Neoverse-V2\n"
    ),
    "DGX Spark": "DGX Spark (GB10), DGX OS 7, kernel 6.11.0-1016-nvidia, aarch64\n",
    "Grace server dpkg": "ii  nvidia-driver-570-open  570.133.20-0ubuntu1  arm64  NVIDIA driver metapackage\n",
}


@pytest.mark.parametrize("name", sorted(ARM_SERVERS))
def test_an_arm_server_is_not_a_jetson(name: str) -> None:
    text = ARM_SERVERS[name] + ">>> torch.cuda.is_available()\nFalse\n"
    assert not _jetson(text), name
    assert "jetson_needs_nvidia_wheel" not in _ids(text)


def test_a_cpu_torch_on_an_arm_server_is_a_cpu_build_not_the_jetson_reading() -> None:
    text = ARM_SERVERS["GH200 collect_env"] + "PyTorch version: 2.5.1+cpu\nCUDA used to build PyTorch: None\n"
    ids = _ids(text)
    assert ids[:1] == ["cpu_only_build"]
    assert "jetson_needs_nvidia_wheel" not in ids


# --- a JetPack wheel's system dependency missing: the wheel is right, install the library ----------------------

IMPORT_FAILS = """\
Jetson AGX Orin, JetPack 6.1
>>> import torch
Traceback (most recent call last):
  File "<stdin>", line 1, in <module>
  File "/usr/local/lib/python3.10/dist-packages/torch/__init__.py", line 290, in <module>
    from torch._C import *  # noqa: F403
ImportError: {lib}: cannot open shared object file: No such file or directory
"""


@pytest.mark.parametrize(
    ("lib", "provides"),
    [
        ("libopenblas.so.0", "OpenBLAS"),
        ("libmpi_cxx.so.40", "Open MPI"),
        ("libomp.so.5", "LLVM OpenMP"),
        ("libcusparseLt.so.0", "cuSPARSELt"),
        ("libcudss.so.0", "cuDSS"),
    ],
)
def test_a_jetpack_wheel_dependency_missing_is_an_import_error_with_its_install(lib: str, provides: str) -> None:
    report = load_text(IMPORT_FAILS.format(lib=lib))
    first = report.findings[0]
    assert first.id == "torch_import_error"
    assert first.severity is Severity.ERROR
    assert provides in first.fix
    assert "jetson_needs_nvidia_wheel" not in [f.id for f in report.findings]


def test_the_dependency_reading_needs_a_jetson() -> None:
    # The same library missing on a PC is the generic import failure, without the JetPack install step.
    report = load_text(
        IMPORT_FAILS.format(lib="libcusparseLt.so.0").replace("Jetson AGX Orin, JetPack 6.1", "Ubuntu PC")
    )
    assert not report.facts.value("platform.jetson")
    assert all("JetPack" not in f.fix for f in report.findings)


def test_a_generic_wheel_beside_the_missing_library_keeps_the_jetson_reading() -> None:
    text = (
        "pip3 install torch\n  Downloading torch-2.3.1-cp310-cp310-manylinux_2_17_aarch64.manylinux2014_aarch64.whl\n"
        + IMPORT_FAILS.format(lib="libcusparseLt.so.0")
    )
    assert "torch_import_error" not in _ids(text)[:1]
    assert jetson_texts.shows_generic_wheel(clean_lines(text))


def test_a_cuda_library_of_another_jetpack_stays_the_wheel_reading() -> None:
    # libcudart 10.2 is JetPack 4's CUDA: a wheel built for another JetPack, not a package to install.
    text = IMPORT_FAILS.format(lib="libcudart.so.10.2").replace("JetPack 6.1", "JetPack 5.1")
    assert _ids(text)[:1] == ["jetson_needs_nvidia_wheel"]


# --- "no kernel image" and driver complaints on a Jetson -----------------------------------------------------

NO_KERNEL = """\
Jetson Xavier NX, L4T R35.4.1
>>> x = torch.ones(3, device="cuda")
RuntimeError: CUDA error: no kernel image is available for execution on the device
"""


def test_no_kernel_image_on_a_jetson_is_a_wheel_not_built_for_the_board() -> None:
    ids = _ids(NO_KERNEL)
    assert ids[:1] == ["jetson_needs_nvidia_wheel"]
    assert not {"gpu_arch_too_new_for_build", "gpu_arch_dropped_from_build"} & set(_claims(NO_KERNEL))


def test_no_kernel_image_on_a_pc_keeps_the_arch_readings() -> None:
    text = NO_KERNEL.replace("Jetson Xavier NX, L4T R35.4.1", "GeForce RTX 5090, driver 575.51")
    assert "jetson_needs_nvidia_wheel" not in _ids(text)


DRIVER_TOO_OLD = """\
Jetson AGX Orin 64GB, JetPack 6.2 (L4T 36.4.3)
pip install torch
Successfully installed torch-2.11.0 nvidia-cuda-runtime-13.0.96
>>> torch.cuda.is_available()
UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 12060). Please update \
your GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx
False
"""


def test_a_driver_complaint_on_a_jetson_is_the_wheel_for_another_jetpack() -> None:
    claims = _claims(DRIVER_TOO_OLD)
    assert claims[:1] == ["jetson_needs_nvidia_wheel"]
    assert "driver_too_old" not in claims


def test_the_driver_complaint_on_a_pc_stays() -> None:
    text = DRIVER_TOO_OLD.replace("Jetson AGX Orin 64GB, JetPack 6.2 (L4T 36.4.3)", "Ubuntu 22.04, GeForce RTX 3060")
    assert "driver_too_old" in _claims(text)


# --- the user's "CUDA is not available" ---------------------------------------------------------------------


def test_cuda_is_not_available_in_words_counts_as_unavailable() -> None:
    text = "System is an NVIDIA Jetson Orin\nRuntimeError: CUDA is not available. Pytorch is too slow on CPU.\n"
    assert _ids(text)[:1] == ["jetson_needs_nvidia_wheel"]


def test_a_jetson_monitor_log_without_torch_stays_clean() -> None:
    text = "RAM 2870/7620MB (lfb 2x4MB) CPU [12%@1510,8%@1510] GR3D_FREQ 0%@[305] cpu@45.5C gpu@44C\n"
    assert _claims(text) == []


# --- `python -c "...print(...)..."` and its output lines --------------------------------------------------------

PYTHON_C_CHECK = """\
nvidia@orin:~$ python3 -c "import torch; print(torch.__version__); print(torch.cuda.is_available())"
2.4.0
False
nvidia@orin:~$ cat /etc/nv_tegra_release
# R36 (release), REVISION: 3.0, GCID: 36191598, BOARD: generic, EABI: aarch64, DATE: Mon May  6 17:34:21 UTC 2024
"""


def test_a_python_c_check_states_the_version_and_availability() -> None:
    report = load_text(PYTHON_C_CHECK)
    assert report.facts.value("torch.version") == "2.4.0"
    assert report.facts.value("cuda.available") is False
    assert [f.id for f in report.findings][:1] == ["jetson_needs_nvidia_wheel"]


def test_one_print_with_several_values_and_a_warning_between() -> None:
    text = (
        "$ python -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())'\n"
        "/usr/lib/python3/dist-packages/torch/cuda/__init__.py:118: UserWarning: CUDA initialization: CUDA driver "
        "initialization failed, you might not have a CUDA gpu.\n"
        "  return torch._C._cuda_getDeviceCount() > 0\n"
        "2.3.0 12.2 False\n"
    )
    facts = python_c_facts(clean_lines(text), {})
    assert facts == {"torch.version": "2.3.0", "torch.cuda_build": "12.2", "cuda.available": False}


@pytest.mark.parametrize(
    "text",
    [
        # the output was not pasted: the next command follows
        "$ python3 -c 'import torch; print(torch.cuda.is_available())'\n$ nvidia-smi\n",
        # an f-string prints words that are not the bare values
        "$ python3 -c \"import torch; print(f'cuda: {torch.cuda.is_available()}')\"\ncuda: True\n",
        # the program failed instead of printing
        "$ python3 -c 'import torch; print(torch.cuda.is_available())'\nTraceback (most recent call last):\n",
        # a word count that does not match the print's arguments
        "$ python3 -c 'import torch; print(torch.__version__, torch.cuda.is_available())'\n2.4.0\n",
    ],
)
def test_a_python_c_check_without_a_readable_answer_states_nothing(text: str) -> None:
    assert python_c_facts(clean_lines(text), {}) == {}


# --- JetPack 7 (Thor, L4T R38+): the ARM-server CUDA 13, for which PyPI's aarch64 +cu130 wheels are built ----------

THOR = """\
# R38 (release), REVISION: 2.1, GCID: 41844464, BOARD: generic, EABI: aarch64, DATE: Thu Aug 21 03:34:05 UTC 2025
>>> import torch
>>> torch.__version__
'{version}'
>>> torch.cuda.is_available()
False
"""


def test_a_cpu_torch_on_jetpack_7_points_to_pypis_cuda_13_wheel() -> None:
    report = load_text(THOR.format(version="2.9.1+cpu"))
    first = report.findings[0]
    assert first.id == "jetson_needs_nvidia_wheel"
    assert "cu130" in first.fix
    assert "redist/jp" not in first.fix


def test_a_cuda_13_torch_on_jetpack_7_is_not_the_wrong_wheel() -> None:
    assert "jetson_needs_nvidia_wheel" not in _ids(THOR.format(version="2.11.0+cu130"))


def test_a_cpu_torch_on_jetpack_6_points_to_nvidias_jetpack_wheel() -> None:
    report = load_text(
        THOR.format(version="2.5.1+cpu").replace("# R38 (release), REVISION: 2.1", "# R36 (release), REVISION: 4.3")
    )
    first = report.findings[0]
    assert first.id == "jetson_needs_nvidia_wheel"
    assert "redist/jp/v61" in first.fix


@pytest.mark.parametrize(
    "message",
    [
        "UserWarning: CUDA initialization: CUDA driver version is insufficient for CUDA runtime version",
        "RuntimeError: CUDA error: the provided PTX was compiled with an unsupported toolchain.",
        "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a "
        "driver from http://www.nvidia.com/Download/index.aspx",
    ],
)
def test_a_build_asking_for_another_driver_on_a_jetson_is_the_wheel(message: str) -> None:
    text = f"Jetson Xavier NX (JetPack 5.1.2)\n>>> import torch\n{message}\n"
    claims = _claims(text)
    assert claims[:1] == ["jetson_needs_nvidia_wheel"]
    assert not {"driver_too_old", "no_nvidia_driver"} & set(claims)


JETSON_CONTAINER = """\
sudo docker run --runtime nvidia -it --rm dustynv/pytorch:2.1-{tag}
on my Jetson Xavier NX with L4T R35.4.1
>>> torch.cuda.is_available()
False
"""


def test_a_jetson_containers_image_of_another_jetpack_is_the_release_mismatch() -> None:
    report = load_text(JETSON_CONTAINER.format(tag="r36.2.0"))
    first = report.findings[0]
    assert first.id == "jetson_needs_nvidia_wheel"
    assert first.severity is Severity.ERROR
    assert any("dustynv/pytorch:2.1-r36.2.0" in str(e.value) for e in first.evidence)


def test_a_jetson_containers_image_of_the_boards_jetpack_is_not_a_mismatch() -> None:
    # Only the usual guess remains (CUDA unavailable on a Jetson), not the mismatch verdict.
    report = load_text(JETSON_CONTAINER.format(tag="r35.4.1"))
    assert all(f.severity is not Severity.ERROR for f in report.findings)


@pytest.mark.parametrize(
    "line",
    [
        "GPU models and configuration: GPU 0: NVIDIA GH200 480GB",
        "| NVIDIA GB10                    On  |   0000000F:01:00.0 Off |                  N/A |",
        "Model name:                      Neoverse-V2",
        "I am on a DGX Spark",
    ],
)
def test_a_grace_system_is_an_arm_machine_not_a_jetson(line: str) -> None:
    facts = load_text(line + "\ntorch.cuda.is_available() returns False\n").facts
    assert facts.value("host.machine") == "aarch64"
    assert not facts.value("platform.jetson")


@pytest.mark.parametrize(
    "line",
    ["01:00.0 3D controller: NVIDIA Corporation GH100 [H100 PCIe] (rev a1)", "NVIDIA GeForce RTX 5090 (GB202)"],
)
def test_a_gpu_die_name_does_not_make_an_arm_machine(line: str) -> None:
    assert load_text(line + "\ntorch.cuda.is_available() returns False\n").facts.value("host.machine") != "aarch64"


# --- an image or wheel for a JetPack the named module cannot run --------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # JetPack 5 image on a Nano (JetPack 4 is its last)
        "Jetson Nano, docker run --runtime nvidia nvcr.io/nvidia/l4t-pytorch:r35.2.1-pth2.0-py3\n"
        "torch.cuda.is_available() returns False\n",
        # JetPack 6 wheel index on a Xavier (JetPack 5 is its last)
        "Jetson AGX Xavier\npip3 install torch --index-url https://pypi.jetson-ai-lab.dev/jp6/cu126\n"
        "ImportError: libcublas.so.12: cannot open shared object file: No such file or directory\n",
        # JetPack 4.6.1 wheel on an Orin (JetPack 5 is its first)
        "AGX Orin devkit\nwget https://developer.download.nvidia.com/compute/redist/jp/v461/pytorch/torch-1.11.0a0+17540c5-"
        "cp36-cp36m-linux_aarch64.whl\ntorch.cuda.is_available() is False\n",
    ],
)
def test_an_artefact_for_a_jetpack_the_board_cannot_run_is_the_mismatch(text: str) -> None:
    report = load_text(text)
    first = report.findings[0]
    assert first.id == "jetson_needs_nvidia_wheel"
    assert first.severity is Severity.ERROR


@pytest.mark.parametrize(
    "text",
    [
        # the board's own JetPack line
        "Jetson Orin Nano, running nvcr.io/nvidia/l4t-pytorch:r35.2.1-pth2.0-py3\n>>> torch.cuda.is_available()\n"
        "False\n",
        # two generations named: nothing to hold the image to
        "Works on my AGX Orin with dustynv/pytorch:2.1-r36.2.0; the same on my Jetson Nano fails.\n"
        "torch.cuda.is_available() returns False\n",
        # the GPU works in it
        "Jetson Nano with nvcr.io/nvidia/l4t-pytorch:r35.2.1-pth2.0-py3\n>>> torch.cuda.is_available()\nTrue\n",
    ],
)
def test_no_mismatch_verdict_without_a_single_board_that_cannot_run_it(text: str) -> None:
    assert all(f.severity is not Severity.ERROR for f in load_text(text).findings)


# --- CUDA works on the board, the program runs on the CPU -----------------------------------------------------------

WORKS_ON_CPU = """\
Jetson AGX Orin, JetPack 5.1.2, torch 2.1.0a0+41361538.nv23.06
>>> torch.cuda.is_available()
True
{line}
inference takes 300 ms per frame and tegrastats shows GR3D_FREQ 0%
"""


@pytest.mark.parametrize(
    "line",
    [
        "Using device: cpu",
        'device = torch.device("cpu")',
        "Ultralytics YOLOv8.0.200 Python-3.8.10 torch-2.1.0a0+41361538.nv23.06 CPU (ARMv8 Processor rev 1 (v8l))",
    ],
)
def test_a_working_jetson_whose_program_runs_on_the_cpu_is_work_left_on_the_cpu(line: str) -> None:
    ids = _ids(WORKS_ON_CPU.format(line=line))
    assert ids[:1] == ["workload_left_on_cpu"]
    assert "jetson_needs_nvidia_wheel" not in ids


def test_a_working_jetson_with_an_idle_gpu_alone_names_no_cause() -> None:
    # GR3D at 0 % with CUDA working could be the model on the CPU, a data-bound loop or TensorRT elsewhere.
    assert _claims(WORKS_ON_CPU.format(line="")) == []


def test_the_cpu_device_without_working_cuda_stays_the_wheel_reading() -> None:
    text = WORKS_ON_CPU.format(line="Using device: cpu").replace("True", "False")
    assert _ids(text)[:1] == ["jetson_needs_nvidia_wheel"]


def test_conda_pytorch_channel_on_a_jetson_is_the_generic_build() -> None:
    text = (
        "Jetson AGX Orin 64GB\nconda install pytorch torchvision pytorch-cuda=11.8 -c pytorch -c nvidia\n"
        "torch.cuda.is_available() is False\n"
    )
    first = load_text(text).findings[0]
    assert (first.id, first.severity) == ("jetson_needs_nvidia_wheel", Severity.ERROR)


DRIVER_INIT_FAILED = """\
{where}
torch                    2.6.0
UserWarning: CUDA initialization: CUDA driver initialization failed, you might not have a CUDA gpu.
"""


def test_a_container_guess_needs_a_container_in_the_text() -> None:
    claims = _claims(DRIVER_INIT_FAILED.format(where="jetson orin nano super, pip list | grep torch"))
    assert claims[:1] == ["jetson_needs_nvidia_wheel"]
    assert "docker_no_gpu_runtime" not in claims


def test_the_container_guess_stays_where_the_text_runs_a_container() -> None:
    where = "jetson orin nano super, inside docker run -it ubuntu:22.04 (no --runtime nvidia)"
    assert "docker_no_gpu_runtime" in _claims(DRIVER_INIT_FAILED.format(where=where))


AMD64_HOST = """\
docker run --gpus all -it --rm dustynv/ros:foxy-pytorch-l4t-r32.5.0
WARNING: The requested image's platform (linux/arm64) does not match the detected host platform (linux/amd64) and no \
specific platform was requested
{extra}root@8bc8:/# python3 -c "import torch; print(torch.cuda.is_available())"
False
"""


def test_a_jetson_image_on_an_x86_host_is_not_a_jetson() -> None:
    report = load_text(AMD64_HOST.format(extra=""))
    assert not report.facts.value("platform.jetson")
    assert report.facts.value("host.machine") == "x86_64"
    assert "jetson_needs_nvidia_wheel" not in [f.id for f in report.findings]


def test_the_board_named_beside_the_warning_keeps_the_jetson() -> None:
    assert _jetson(AMD64_HOST.format(extra="(this is on my Jetson Xavier NX)\n"))


STATIC_TLS = """\
Jetson Orin NX, JetPack 5.1.1
>>> {statement}
Traceback (most recent call last):
  File "<stdin>", line 1, in <module>
ImportError: /lib/aarch64-linux-gnu/libgomp.so.1: cannot allocate memory in static TLS block
"""


def test_torch_failing_on_the_static_tls_block_is_an_import_error_fixed_by_preloading() -> None:
    first = load_text(STATIC_TLS.format(statement="import torch")).findings[0]
    assert first.id == "torch_import_error"
    assert "export LD_PRELOAD=/lib/aarch64-linux-gnu/libgomp.so.1" in first.fix


def test_another_module_on_the_static_tls_block_is_not_torchs_import() -> None:
    report = load_text(STATIC_TLS.format(statement="from sklearn.cluster import KMeans"))
    assert all("LD_PRELOAD" not in f.fix for f in report.findings)


@pytest.mark.parametrize(
    ("kernel", "folder"),
    [("4.9.253-tegra", "jp/v461/"), ("5.10.120-tegra", "jp/v512/"), ("5.15.136-tegra", "jp/v61/")],
)
def test_the_tegra_kernel_series_names_the_jetpack_the_fix_points_to(kernel: str, folder: str) -> None:
    text = (
        f"PyTorch version: 2.1.0+cpu\nCUDA used to build PyTorch: None\nOS: Ubuntu 20.04.6 LTS (aarch64)\n"
        f"Python platform: Linux-{kernel}-aarch64-with-glibc2.31\nIs CUDA available: False\n"
    )
    first = load_text(text).findings[0]
    assert first.id == "jetson_needs_nvidia_wheel"
    assert folder in first.fix


def test_the_fix_for_jetpack_6_names_the_jetson_ai_lab_index() -> None:
    text = "Linux-5.15.148-tegra-aarch64\n>>> torch.__version__\n'2.5.1'\n>>> torch.cuda.is_available()\nFalse\n"
    assert "pypi.jetson-ai-lab.io/jp6/cu126" in load_text(text).findings[0].fix


NO_SMI = """\
{machine}
$ nvidia-smi
bash: nvidia-smi: command not found
>>> import torch
>>> torch.cuda.is_available()
{available}
"""


def test_nvidia_smi_missing_on_a_working_jetson_is_normal() -> None:
    assert _claims(NO_SMI.format(machine="Jetson Xavier NX (JetPack 5.1.2)", available="True")) == []


def test_nvidia_smi_missing_on_a_pc_stays_a_driver_sign() -> None:
    text = NO_SMI.format(machine="Ubuntu 22.04 desktop with a GeForce RTX 3060", available="False")
    assert "no_nvidia_driver" in _claims(text)


JETSON_RELEASE_REPORT = """\
Model: NVIDIA Jetson AGX Orin Developer Kit - Jetpack 6.0 [L4T 36.3.0]
Platform:
 - Distribution: Ubuntu 22.04 Jammy Jellyfish
 - Release: 5.15.136-tegra
Libraries:
 - CUDA: 12.2.140
 - cuDNN: 8.9.4.25
"""


def test_a_jetson_report_with_nothing_wrong_names_no_cause() -> None:
    assert _claims(JETSON_RELEASE_REPORT) == []


def test_the_same_report_with_cuda_unavailable_gets_the_wheel_guess() -> None:
    assert _ids(JETSON_RELEASE_REPORT + "torch.cuda.is_available() returns False\n")[:1] == [
        "jetson_needs_nvidia_wheel"
    ]


def test_a_cpu_build_in_the_users_words_is_out_once_cuda_works_on_the_board() -> None:
    text = (
        "pip3 install torch gave me a CPU build, so I installed NVIDIA's wheel instead.\n"
        "Now on my Jetson Orin Nano:\n>>> torch.cuda.is_available()\nTrue\n"
    )
    assert _claims(text) == []


UNDEFINED_CUDA_SYMBOL = """\
{machine}
>>> import torch
ImportError: /usr/local/lib/python3.8/dist-packages/torch/lib/libtorch_cuda.so: undefined symbol: \
cusparseSpSM_analysis, version libcusparse.so.11
"""


def test_a_newer_cuda_symbol_on_a_jetson_is_a_wheel_for_a_newer_jetpack() -> None:
    ids = _claims(UNDEFINED_CUDA_SYMBOL.format(machine="Jetson Xavier NX, L4T R35.1.0"))
    assert ids[:1] == ["jetson_needs_nvidia_wheel"]
    assert "ld_library_path_shadowing" not in ids


def test_the_same_symbol_on_a_pc_keeps_the_shadowing_reading() -> None:
    ids = _claims(UNDEFINED_CUDA_SYMBOL.format(machine="Ubuntu 22.04, GeForce RTX 3090"))
    assert "jetson_needs_nvidia_wheel" not in ids
    assert "ld_library_path_shadowing" in ids


# --- an ARM server's torch from PyPI (CPU-only up to 2.10) ---------------------------------------------------------

ARM_SERVER_PIP = """\
On our GH200 node:
$ pip install {spec}
Successfully installed torch-{version}
$ python -c "import torch; print(torch.__version__, torch.cuda.is_available())"
{version} False
"""


def test_pypis_aarch64_torch_below_2_11_on_an_arm_server_is_the_cpu_build() -> None:
    report = load_text(ARM_SERVER_PIP.format(spec="torch==2.5.1", version="2.5.1"))
    assert report.facts.value("torch.cuda_build") is None and report.facts.known("torch.cuda_build")
    assert [f.id for f in report.findings][:1] == ["cpu_only_build"]


@pytest.mark.parametrize(
    ("spec", "version", "machine"),
    [
        # another index: the download index's aarch64 CUDA builds
        ("torch==2.5.1 --index-url https://download.pytorch.org/whl/cu124", "2.5.1", "GH200"),
        # PyPI's aarch64 torch is a CUDA 13 build from 2.11 on
        ("torch", "2.11.0", "GH200"),
        # an x86 server: PyPI's Linux x86 wheel is a CUDA build
        ("torch==2.5.1", "2.5.1", "x86_64 server with an H100"),
    ],
)
def test_no_cpu_build_is_inferred_without_pypis_aarch64_wheel_below_2_11(spec: str, version: str, machine: str) -> None:
    text = ARM_SERVER_PIP.format(spec=spec, version=version).replace("GH200", machine)
    assert not load_text(text).facts.known("torch.cuda_build")


@pytest.mark.parametrize(
    "sentence",
    [
        "When I run detection on my Jetson Nano with pytorch 2.3.1 it still uses the CPU.",
        "Jetson Orin NX, JetPack 6.1: torch 2.5.1 installed, but inference runs on CPU only.",
        "Jetson Nano with torch 1.13\nAssertionError: Invalid CUDA '--device 0' requested, use '--device cpu' or pass "
        "valid CUDA device(s)",
    ],
)
def test_work_said_to_run_on_the_cpu_of_a_jetson_gets_the_wheel_reading(sentence: str) -> None:
    assert _ids(sentence + "\n")[:1] == ["jetson_needs_nvidia_wheel"]


@pytest.mark.parametrize(
    "sentence",
    [
        # a second GPU asked for: the first may well exist
        "Jetson Orin NX with torch 2.1\nAssertionError: Invalid CUDA '--device 1' requested, use '--device cpu'",
        # the CPU named for something else
        "Jetson Orin NX with torch 2.1: the preprocessing uses the CPU cores, the GPU is busy with the model.",
    ],
)
def test_no_wheel_reading_from_a_cpu_mention_that_is_not_the_work(sentence: str) -> None:
    assert "jetson_needs_nvidia_wheel" not in _ids(sentence + "\n")
