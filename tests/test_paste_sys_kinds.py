"""The general mechanisms behind the held-out misses of batch after-rules-17 (kernel logs, nvidia-smi, containers,
Jetson; tests/data/errors/index.d/after-rules-17.json): short synthetic texts in the formats the tools print, each
with a counter-example that must not get the same verdict."""

from __future__ import annotations

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.ingest.kernel_log import wrapped_messages
from gpuassist.ingest.paste_facts import repl_facts
from gpuassist.report.model import Report


def _ids(report: Report) -> list[str]:
    return [f.id for f in report.findings]


def _claimed(report: Report) -> list[str]:
    return [f.id for f in report.findings if f.severity is not Severity.INFO]


# --- the driver's kernel messages, wrapped over several NVRM: lines ---------------------------------------------

WRAPPED_MISMATCH = (
    "[  812.004211] nvidia-uvm: Loaded the UVM driver, major device number 510.\n"
    "[  815.331902] NVRM: API mismatch: the client 'nvidia-smi' (pid 48211)\n"
    "               NVRM: has the version 580.95.05, but this kernel module has\n"
    "               NVRM: the version 580.82.07.  Please make sure that this\n"
    "               NVRM: kernel module and all NVIDIA driver components\n"
    "               NVRM: have the same version.\n"
)


def test_a_wrapped_nvrm_message_is_read_whole() -> None:
    joined = wrapped_messages(WRAPPED_MISMATCH.splitlines())
    assert [no for no, _ in joined] == [2]
    assert "the client 'nvidia-smi' (pid 48211) has the version 580.95.05, but this kernel module" in joined[0][1]


def test_the_newer_api_mismatch_wording_names_the_mismatch() -> None:
    report = load_text(WRAPPED_MISMATCH)
    assert report.findings[0].id == "driver_library_mismatch"
    assert report.findings[0].severity is Severity.ERROR


def test_a_line_with_its_own_timestamp_starts_a_new_message() -> None:
    text = (
        "[    4.100000] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  580.82.07  Release Build\n"
        "[    4.200000] NVRM: GPU 0000:65:00.0: RmInitAdapter succeeded\n"
    )
    assert wrapped_messages(text.splitlines()) == []  # two one-line messages, nothing to join
    syslog = "Jan 12 08:00:01 node7 kernel: NVRM: API mismatch: the client has the version 1.1, but#012NVRM: this"
    assert wrapped_messages([syslog]) == []  # one line, already read line by line


LEGACY_GPU = (
    "[Tue Mar  3 10:12:55 2026] NVRM: The NVIDIA Quadro K2000 GPU installed in this system is\n"
    "                           NVRM:  supported through the NVIDIA 470.xx Legacy drivers. Please\n"
    "                           NVRM:  visit http://www.nvidia.com/object/unix.html for more\n"
    "                           NVRM:  information.  The 580.82.07 NVIDIA driver will ignore\n"
    "                           NVRM:  this GPU.  Continuing probe...\n"
    "[Tue Mar  3 10:12:55 2026] NVRM: No NVIDIA GPU found.\n"
)


def test_a_legacy_gpu_refused_by_a_newer_driver_is_the_driver_branch_not_a_missing_gpu() -> None:
    report = load_text(LEGACY_GPU)
    assert report.findings[0].id == "driver_does_not_support_gpu"
    assert "no_nvidia_gpu" not in _claimed(report)


def test_a_gpu_without_gsp_refused_by_the_open_modules_is_the_driver_flavour() -> None:
    text = (
        "Feb 02 19:41:07 box kernel: NVRM: The NVIDIA GPU 0000:2b:00.0 (PCI ID: 10de:1c82)\n"
        "                            NVRM: installed in this system is not supported by open\n"
        "                            NVRM: nvidia.ko because it does not include the required GPU\n"
        "                            NVRM: System Processor (GSP).\n"
        "Feb 02 19:41:07 box kernel: NVRM: None of the NVIDIA devices were initialized.\n"
    )
    assert load_text(text).findings[0].id == "driver_does_not_support_gpu"


def test_a_supported_gpu_loading_is_not_a_refusal() -> None:
    text = (
        "[    3.900000] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  580.82.07  Tue Aug 26 2025\n"
        "[    3.950000] nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  580.82.07\n"
    )
    assert "driver_does_not_support_gpu" not in _ids(load_text(text))


# --- the user's own hardware list names only non-NVIDIA graphics --------------------------------------------------

INTEL_ONLY = (
    'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].\n'
    "My machine:\n"
    "OS Name: Ubuntu 24.04.1 LTS\n"
    "Processor: 13th Gen Intel Core i5-1335U x 12\n"
    "Graphics: Intel Graphics (RPL-U)\n"
    "Memory: 16.0 GiB\n"
)


def test_a_machine_whose_only_graphics_is_intel_has_no_nvidia_gpu() -> None:
    report = load_text(INTEL_ONLY)
    assert report.findings[0].id == "no_nvidia_gpu"
    assert "docker_no_gpu_runtime" not in _claimed(report)  # installing the toolkit would not give it a GPU


def test_an_nvidia_gpu_named_beside_the_igpu_keeps_the_container_reading() -> None:
    text = INTEL_ONLY.replace("Memory: 16.0 GiB", "GPU: NVIDIA GeForce RTX 4050 Laptop GPU\nMemory: 16.0 GiB")
    report = load_text(text)
    assert report.findings[0].id == "docker_no_gpu_runtime"
    assert "no_nvidia_gpu" not in _claimed(report)


# --- a container started without any GPU request --------------------------------------------------------------------

GPU_LESS_RUN = (
    "$ docker run -it -v /usr/lib/x86_64-linux-gnu:/hostlibs -v /usr/bin/nvidia-smi:/usr/bin/nvidia-smi myimage bash\n"
    "root@4f2a9c1e:/# nvidia-smi\n"
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA "
    "driver is installed and running.\n"
)


def test_nvidia_smi_failing_in_a_container_given_no_gpu_is_the_container() -> None:
    report = load_text(GPU_LESS_RUN)
    assert report.findings[0].id == "docker_no_gpu_runtime"
    assert "nvidia_module_not_loaded" not in _claimed(report)  # the host's module is not what this shows


def test_the_same_failure_with_a_gpu_request_still_reads_as_the_driver() -> None:
    report = load_text(GPU_LESS_RUN.replace("docker run -it", "docker run --gpus all -it"))
    assert report.findings[0].id == "nvidia_module_not_loaded"


def test_libcuda_missing_in_a_kubernetes_pod_is_the_runtime_not_wsl() -> None:
    text = (
        "We run the training image on our Kubernetes cluster with the NVIDIA device plugin.\n"
        "OSError: libcuda.so.1: cannot open shared object file: No such file or directory\n"
    )
    report = load_text(text)
    assert report.findings[0].id == "docker_no_gpu_runtime"
    assert "wsl_libcuda_problem" not in _ids(report)


def test_libcuda_missing_without_a_container_keeps_its_other_readings() -> None:
    report = load_text("OSError: libcuda.so.1: cannot open shared object file: No such file or directory\n")
    assert "docker_no_gpu_runtime" not in _ids(report)


# --- several REPL sessions; Jetson named by module or image --------------------------------------------------------

TWO_SESSIONS = (
    "Python 3.10.12 (main, Nov  6 2024, 20:22:13) [GCC 11.4.0] on linux\n"
    ">>> import torch\n"
    ">>> torch.__version__\n"
    "'2.3.1'\n"
    ">>> torch.cuda.is_available()\n"
    "False\n"
    "and in the l4t-pytorch:r36.2.0 image:\n"
    "Python 3.10.12 (main, Nov  6 2024, 20:22:13) [GCC 11.4.0] on linux\n"
    ">>> import torch\n"
    ">>> torch.__version__\n"
    "'2.2.0a0+81ea7a4.nv24.01'\n"
    ">>> torch.cuda.is_available()\n"
    "True\n"
)


def test_the_failing_session_is_the_one_diagnosed() -> None:
    sources: dict[str, tuple[int, str]] = {}
    facts = repl_facts(TWO_SESSIONS.splitlines(), sources)
    assert facts["torch.version"] == "2.3.1" and facts["cuda.available"] is False
    assert sources["torch.version"][0] == 3


def test_a_later_session_without_a_failure_overrides_as_before() -> None:
    text = TWO_SESSIONS.replace("False", "True")
    facts = repl_facts(text.splitlines(), {})
    assert facts["torch.version"] == "2.2.0a0+81ea7a4.nv24.01"


def test_a_pypi_torch_failing_on_an_orin_needs_the_jetpack_wheel() -> None:
    text = "On our AGX Orin dev kit:\n" + TWO_SESSIONS
    report = load_text(text)
    assert report.findings[0].id == "jetson_needs_nvidia_wheel"
    assert report.findings[0].severity is Severity.ERROR
    assert "docker_no_gpu_runtime" not in _claimed(report)


def test_a_working_nvidia_build_on_an_orin_is_healthy() -> None:
    text = "On our AGX Orin dev kit:\n" + TWO_SESSIONS.split("and in the")[1].split("\n", 1)[1]
    report = load_text(text)
    assert not report.has_error


# --- a verdict from stated facts is not diluted with word-based guesses ---------------------------------------------


def test_a_cpu_build_in_a_container_is_the_build_not_the_container() -> None:
    text = (
        "Inside the docker container torch does not see the GPU:\n"
        ">>> import torch\n"
        ">>> torch.__version__\n"
        "'2.4.0+cpu'\n"
        ">>> torch.cuda.is_available()\n"
        "False\n"
    )
    report = load_text(text)
    assert report.findings[0].id == "cpu_only_build"
    assert "docker_no_gpu_runtime" not in _ids(report)


# --- batch after-rules-22: WSL's driver path, Windows' nvidia-smi, a Jetson log without torch ------------------------

SMI_FAILED = (
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA "
    "driver is installed and running.\n"
)


def test_nvidia_smi_failing_inside_wsl_is_wsls_gpu_path_not_a_kernel_module() -> None:
    report = load_text("Running Ubuntu 22.04 under WSL on Windows 11:\n$ nvidia-smi\n" + SMI_FAILED)
    assert report.findings[0].id == "wsl_libcuda_problem"
    assert "nvidia_module_not_loaded" not in _ids(report)


def test_the_same_failure_on_a_linux_host_is_the_kernel_module() -> None:
    report = load_text("Ubuntu 22.04 server:\n$ nvidia-smi\n" + SMI_FAILED)
    assert report.findings[0].id == "nvidia_module_not_loaded"


WINDOWS_SMI = (
    "+-----------------------------------------------------------------------------------------+\n"
    "| NVIDIA-SMI 560.94                 Driver Version: 560.94         CUDA Version: 12.6     |\n"
    "|-----------------------------------------+------------------------+----------------------+\n"
    "| GPU  Name                  Driver-Model | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n"
    "|=========================================+========================+======================|\n"
    "|   0  NVIDIA GeForce RTX 4060      WDDM  |   00000000:01:00.0  On |                  N/A |\n"
    "+-----------------------------------------+------------------------+----------------------+\n"
    ">>> import torch\n"
    ">>> torch.cuda.is_available()\n"
    "False\n"
)


def test_windows_nvidia_smi_names_the_os_and_the_gpu() -> None:
    report = load_text(WINDOWS_SMI)
    assert report.facts.value("host.os") == "Windows"
    assert [g["name"] for g in report.facts.value("reported.gpus")] == ["NVIDIA GeForce RTX 4060"]
    assert report.findings[0].id == "cpu_only_build"  # PyPI's Windows torch is the CPU build: the likeliest reading


def test_a_linux_nvidia_smi_table_does_not_say_windows() -> None:
    report = load_text(WINDOWS_SMI.replace("WDDM ", " Off ").replace("Driver-Model", "Persistence-M"))
    assert report.facts.value("host.os") != "Windows"


def test_a_jetson_log_without_torch_claims_no_wheel_problem() -> None:
    text = "agent: kernel 5.15.148-tegra, GPU Orin (nvgpu) usage 0, temperature 0\n"
    assert "jetson_needs_nvidia_wheel" not in _claimed(load_text(text))


def test_a_jetson_with_torch_failing_still_gets_the_wheel_reading() -> None:
    text = "kernel 5.15.148-tegra\n>>> import torch\n>>> torch.cuda.is_available()\nFalse\n"
    assert load_text(text).findings[0].id == "jetson_needs_nvidia_wheel"


def test_a_message_split_over_prefixed_kern_log_lines_is_read_whole() -> None:
    text = (
        "Mar  3 10:12:55 node4 kernel: [ 5.311902] NVRM: API mismatch: the client 'Xorg' (pid 1204)\n"
        "Mar  3 10:12:55 node4 kernel: [ 5.311905] NVRM: has the version 580.95.05, but this kernel module has\n"
        "Mar  3 10:12:55 node4 kernel: [ 5.311906] NVRM: the version 580.82.07.  Please make sure that this\n"
        "Mar  3 10:12:55 node4 kernel: [ 5.311907] NVRM: kernel module and all NVIDIA driver components\n"
        "Mar  3 10:12:55 node4 kernel: [ 5.311908] NVRM: have the same version.\n"
        "Mar  3 10:12:56 node4 kernel: [ 5.400001] NVRM: GPU at PCI:0000:65:00: GPU-1f2e\n"
    )
    joined = wrapped_messages(text.splitlines())
    assert [no for no, _ in joined] == [1]  # the GPU line after the finished sentence is a message of its own
    assert load_text(text).findings[0].id == "driver_library_mismatch"


def test_nvidia_smi_q_driver_model_says_windows() -> None:
    text = (
        "==============NVSMI LOG==============\n"
        "Driver Version                            : 560.94\n"
        "CUDA Version                              : 12.6\n"
        "    Product Name                          : NVIDIA GeForce RTX 3060\n"
        "    Driver Model\n"
        "        Current                           : WDDM\n"
        "        Pending                           : WDDM\n"
    )
    assert load_text(text).facts.value("host.os") == "Windows"


def test_a_macs_hardware_list_is_left_to_the_mac_reading() -> None:
    text = (
        "AssertionError: Torch not compiled with CUDA enabled\n"
        "Model: MacBook Pro (14-inch, 2023)\n"
        "Chip: Apple M2 Pro\n"
        "Graphics: Apple M2 Pro\n"
    )
    report = load_text(text)
    assert report.findings[0].id == "macos_no_cuda_use_mps"
    assert "no_nvidia_gpu" not in _claimed(report)
