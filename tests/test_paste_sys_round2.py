"""Round 2 of issue #14, system kinds: the general mechanisms behind the held-out misses of batches after-rules-25
and -26 (kernel logs, containers, Jetson, mixed). Each is tested on synthetic texts written in other words or
another tool's format than the thread it came from, each with a counter-example that must not get the verdict."""

from __future__ import annotations

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.ingest.system_causes import says_gpu_unused
from gpuassist.report.model import Report
from gpuassist.rules.gpu_stacks import local_torch_build


def _ids(report: Report) -> list[str]:
    return [f.id for f in report.findings]


def _claimed(report: Report) -> list[str]:
    return [f.id for f in report.findings if f.severity is not Severity.INFO]


def _errors(report: Report) -> list[str]:
    return [f.id for f in report.findings if f.severity is Severity.ERROR]


# --- the open kernel module refusing a GPU that is not a data-centre one -------------------------------------------

OPEN_MODULE_SYSLOG = (
    "Mar  3 10:12:01 node kernel: [    5.1] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  525.60.11\n"
    "Mar  3 10:12:01 node kernel: [    9.0] NVRM: Open nvidia.ko is only ready for use on Data Center GPUs.\n"
    "Mar  3 10:12:01 node kernel: [    9.0] NVRM: To force use of Open nvidia.ko on other GPUs, see the\n"
    "Mar  3 10:12:01 node kernel: [    9.0] NVRM: 'OpenRmEnableUnsupportedGpus' kernel module parameter described\n"
    "Mar  3 10:12:01 node kernel: [    9.0] NVRM: in the README.\n"
    "Mar  3 10:12:01 node kernel: [    9.1] NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:667)\n"
    "$ nvidia-smi\n"
    "No devices were found\n"
)


def test_the_open_module_refusing_a_geforce_is_the_driver_not_supporting_it() -> None:
    report = load_text(OPEN_MODULE_SYSLOG)
    assert _ids(report)[0] == "driver_does_not_support_gpu"
    assert "gpu_xid_fault" not in _claimed(report)  # RmInitAdapter failing is the refusal's consequence
    assert "OpenRmEnableUnsupportedGpus" in report.findings[0].fix


def test_the_refusal_only_named_by_its_module_parameter_in_a_node_log() -> None:
    text = "driver: To force use of Open nvidia.ko on other GPUs, see the 'OpenRmEnableUnsupportedGpus' parameter\n"
    assert _ids(load_text(text))[0] == "driver_does_not_support_gpu"


def test_rm_init_adapter_failing_alone_stays_a_possible_gpu_fault() -> None:
    text = (
        "[    2.1] NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x62:0x65:1879)\n"
        "[    2.2] NVRM: GPU 0000:01:00.0: rm_init_adapter failed, device minor number 0\n"
    )
    report = load_text(text)
    assert _ids(report) == ["gpu_xid_fault"]
    assert report.findings[0].severity is Severity.WARNING
    assert "driver_does_not_support_gpu" not in _ids(report)


# --- a driver's refusal of the GPU explains nvidia-smi failing to talk to it ----------------------------------------

LEGACY_WITH_SMI = (
    "$ nvidia-smi\n"
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA "
    "driver is installed and running.\n"
    "$ sudo dmesg | grep NVRM\n"
    "[    3.2] NVRM: The NVIDIA GeForce GTX 760 GPU installed in this system is\n"
    "[    3.2] NVRM:  supported through the NVIDIA 470.xx Legacy drivers. Please\n"
    "[    3.2] NVRM:  visit http://www.nvidia.com/object/unix.html for more\n"
    "[    3.2] NVRM:  information.  The 550.54.14 NVIDIA driver will ignore\n"
    "[    3.2] NVRM:  this GPU.  Continuing probe...\n"
    "[    3.2] NVRM: No NVIDIA GPU found.\n"
)


def test_a_legacy_gpu_refusal_explains_nvidia_smi_failing() -> None:
    report = load_text(LEGACY_WITH_SMI)
    assert _ids(report)[0] == "driver_does_not_support_gpu"
    assert "nvidia_module_not_loaded" not in _claimed(report)


def test_nvidia_smi_failing_with_secure_boot_keeps_the_module_reading() -> None:
    text = (
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"
        "modprobe: ERROR: could not insert 'nvidia': Key was rejected by service\n"
    )
    assert _ids(load_text(text))[0] == "nvidia_module_not_loaded"


def test_a_secure_boot_refusal_beside_a_gpu_refusal_is_kept_as_its_own_cause() -> None:
    report = load_text(LEGACY_WITH_SMI + "modprobe: ERROR: could not insert 'nvidia': Required key not available\n")
    assert {"driver_does_not_support_gpu", "nvidia_module_not_loaded"} <= set(_claimed(report))


# --- status 802 in every spelling: Fabric Manager --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "NCCL WARN Cuda failure 'system not yet initialized'\n",
        "cudaGetDeviceCount returned 802 -> cudaErrorSystemNotReady\n",
        "E0101 cuda_driver.cc:282] failed call to cuInit: CUDA_ERROR_SYSTEM_NOT_READY\n",
        "[Vector addition of 50000 elements]\n"
        "Failed to allocate device vector A (error code system not yet initialised)!\n",
        "$ nvidia-smi -q | grep -A2 Fabric\n    Fabric\n        State                 : In Progress\n"
        "        Status                : N/A\n",
        "The GPU fabric stays 'Not Started' on every GPU of the node and CUDA cannot start.\n",
    ],
)
def test_status_802_in_any_words_is_fabric_manager(text: str) -> None:
    assert _ids(load_text(text))[0] == "fabric_manager_missing"


def test_a_completed_fabric_is_not_fabric_manager() -> None:
    text = (
        "    Fabric\n        State                 : Completed\n        Status                : Success\n"
        "torch.cuda.is_available() False\n"
    )
    assert "fabric_manager_missing" not in _ids(load_text(text))


# --- the nvidia-uvm module missing -----------------------------------------------------------------------------------


def test_the_uvm_device_missing_is_the_uvm_reading() -> None:
    text = (
        "failed call to cuInit: CUDA_ERROR_UNKNOWN: unknown error\n"
        "failed to open /dev/nvidia-uvm: No such file or directory\n"
    )
    assert _ids(load_text(text))[0] == "uvm_wedged_after_suspend"


def test_the_uvm_module_not_installed_is_the_module_class() -> None:
    # Round 18: a UVM module modprobe cannot find for the running kernel cannot be reloaded; it is not installed.
    line = "modprobe: FATAL: Module nvidia-uvm not found in directory /lib/modules/5.15.0-91-generic"
    text = f"failed call to cuInit: CUDA_ERROR_UNKNOWN: unknown error\n{line}\n"
    assert _ids(load_text(text))[0] == "nvidia_module_not_loaded"


@pytest.mark.parametrize(
    "line",
    [
        "modprobe: ERROR: could not insert 'nvidia_535_uvm': No such device",
        "Nov 13 22:33:04 host systemd-modules-load[500]: Failed to insert module 'nvidia_uvm': No such device",
        "modprobe: ERROR: could not insert 'nvidia_drm': No such device",
    ],
)
def test_a_companion_module_refused_for_no_device_is_the_core_module_not_up(line: str) -> None:
    """nvidia_uvm/nvidia_drm get ENODEV when the core nvidia module has no GPU up (messages.json kmod), not a wedged
    UVM after suspend (NixOS/nixpkgs#267335: nvidia_uvm inserted before the GPU was available)."""
    report = load_text(f"$ sudo journalctl -b\n{line}\ntorch.cuda.is_available() returns False\n")
    assert _ids(report)[0] == "nvidia_module_not_loaded"


def test_the_core_module_refused_for_no_device_stays_the_driver_reading() -> None:
    """Counter-example: the core module's own ENODEV is the driver refusing the GPU, not a companion module."""
    report = load_text("modprobe: ERROR: could not insert 'nvidia': No such device\n")
    assert _ids(report)[0] == "driver_does_not_support_gpu"


def test_the_uvm_module_loaded_says_nothing() -> None:
    text = "[  812.0] nvidia-uvm: Loaded the UVM driver, major device number 510.\ncrw-rw-rw- 1 root /dev/nvidia-uvm\n"
    assert "uvm_wedged_after_suspend" not in _ids(load_text(text))


# --- nvidia-smi missing, in every shell's words; an NVIDIA GPU bound to nouveau --------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "FileNotFoundError: [Errno 2] No such file or directory: 'nvidia-smi'",
        "'nvidia-smi' is not recognized as an internal or external command, operable program or batch file.",
        "nvidia-smi : The term 'nvidia-smi' is not recognized as the name of a cmdlet, function, script file",
        "zsh: command not found: nvidia-smi",
        "fish: Unknown command: nvidia-smi",
        "which: no nvidia-smi in (/usr/local/sbin:/usr/local/bin:/usr/bin)",
    ],
)
def test_nvidia_smi_missing_in_any_shell_is_a_possible_missing_driver(line: str) -> None:
    report = load_text(line + "\n")
    assert _ids(report)[0] == "no_nvidia_driver"
    assert report.findings[0].severity is Severity.WARNING


def test_nvidia_smi_present_says_no_missing_driver() -> None:
    text = "$ which nvidia-smi\n/usr/bin/nvidia-smi\ntorch.cuda.is_available() False\n"
    assert "no_nvidia_driver" not in _errors(load_text(text))


NOUVEAU_LSPCI = (
    "01:00.0 VGA compatible controller: NVIDIA Corporation TU106 [GeForce RTX 2060] (rev a1)\n"
    "\tKernel driver in use: nouveau\n"
    "\tKernel modules: nvidiafb, nouveau\n"
)


def test_nouveau_driving_the_gpu_with_no_nvidia_smi_is_no_nvidia_driver() -> None:
    report = load_text("$ nvidia-smi\nzsh: command not found: nvidia-smi\n" + NOUVEAU_LSPCI)
    assert _ids(report)[0] == "no_nvidia_driver"
    assert report.findings[0].severity is Severity.ERROR


def test_nouveau_with_an_installed_nvidia_smi_is_the_kernel_module() -> None:
    smi = (
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest "
        "NVIDIA driver is installed and running.\n"
    )
    report = load_text(smi + NOUVEAU_LSPCI)
    assert _ids(report)[0] == "nvidia_module_not_loaded"
    assert "no_nvidia_driver" not in _errors(report)


# --- Jetson: named in any form, the GPU idle in the user's words ------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Board: Jetson AGX Orin 64GB, JetPack 6.0 (L4T 36.3)\nI installed torch 2.3.0 and trained, but the GPU "
        "utilization stays at 0% in tegrastats while the CPU cores are all at 100%.\n",
        "我的orin开发板上跑yolov8，torch版本2.1.0，训练时不能使用GPU，jtop里GPU一直是0%\n",
        "On the AGX Orin the wheels from pytorch.org don't use CUDA at all; torch 2.0.1 imports fine.\n",
        "jetson orin nano, torch 2.5.1: my app can't detect the GPU\n",
    ],
)
def test_a_jetson_whose_gpu_stays_idle_needs_the_jetpack_wheel(text: str) -> None:
    assert _ids(load_text(text))[0] == "jetson_needs_nvidia_wheel"


def test_a_jetson_with_nvidias_build_and_a_busy_gpu_is_not_blamed() -> None:
    text = (
        "Jetson AGX Orin, JetPack 5.1.2\n"
        "torch 2.1.0a0+41361538.nv23.06, torch.cuda.is_available() True\n"
        "The GPU is at 99% in jtop while training, but inference is slow.\n"
    )
    assert "jetson_needs_nvidia_wheel" not in _ids(load_text(text))


def test_an_idle_gpu_on_a_desktop_is_not_a_jetson_wheel() -> None:
    text = "RTX 3090, Ubuntu 22.04, torch 2.3.0+cu121. The GPU appears idle during training, nvidia-smi shows 0%.\n"
    assert "jetson_needs_nvidia_wheel" not in _ids(load_text(text))


def test_gpu_unused_phrases() -> None:
    assert says_gpu_unused(["there is no activity on the GPU"])
    assert says_gpu_unused(["webui检测不到显卡"])
    assert says_gpu_unused(["PyTorch doesn't use the GPU"])
    assert not says_gpu_unused(["the GPU is busy and uses 15 GB"])
    assert not says_gpu_unused(["I don't use conda"])


def test_an_import_crash_with_a_source_built_torch_on_a_jetson_is_not_the_wheel() -> None:
    text = (
        "nano@jetson-nano:~$ python3\n"
        ">>> import torch\n"
        "Illegal instruction (core dumped)\n"
        "nano@jetson-nano:~$ OPENBLAS_CORETYPE=ARMV8 python3\n"
        ">>> import torch\n"
        ">>> torch.__version__\n"
        "'1.10.0a0+git36449ea'\n"
    )
    report = load_text(text)
    assert "jetson_needs_nvidia_wheel" not in _claimed(report)
    assert "source_build_without_cuda" not in _claimed(report)
    assert not _errors(report)


def test_an_import_crash_after_pip_install_torch_on_a_jetson_is_the_wheel() -> None:
    text = "On my Jetson Nano I ran pip3 install torch and now import torch gives Illegal instruction (core dumped).\n"
    assert _ids(load_text(text))[0] == "jetson_needs_nvidia_wheel"


def test_a_source_build_without_cuda_off_a_jetson_is_still_suspected() -> None:
    text = "torch.__version__ '2.1.0a0+git5f3e2c1'\ntorch.cuda.is_available() False\n"
    assert "source_build_without_cuda" in _ids(load_text(text))


def test_local_torch_builds() -> None:
    assert local_torch_build("1.12.0a0+git67ece03")
    assert local_torch_build("2.1.0a0+41361538.nv23.06")
    assert not local_torch_build("2.5.1")
    assert not local_torch_build("2.3.0+cu121")


def test_a_jetson_app_that_cannot_see_the_gpu_with_no_library_named_is_the_wheel() -> None:
    report = load_text("I have an Orin board; after setting up the web UI it cannot detect the GPU.\n")
    assert _ids(report)[0] == "jetson_needs_nvidia_wheel"
    assert report.findings[0].severity is Severity.WARNING  # nothing shows which torch it runs


def test_a_jetson_question_about_opencv_not_using_the_gpu_is_not_the_torch_wheel() -> None:
    text = "Jetson Orin Nano: OpenCV dnn does not use the GPU, jtop shows the GPU idle\n"
    assert "jetson_needs_nvidia_wheel" not in _ids(load_text(text))


# --- the kernel module's other messages (NVIDIA's nv.c, modprobe, DKMS, lockdown) -----------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Mar 03 10:00:01 host kernel: Lockdown: modprobe: unsigned module loading is restricted; see man "
        "kernel_lockdown.7\n",
        "modprobe: ERROR: could not insert 'nvidia': Operation not permitted\n",
        "[    5.1] nvidia: Unknown symbol drm_gem_object_put (err -2)\n",
        "[    5.1] nvidia_drm: disagrees about version of symbol module_layout\n",
        "Error! Bad return status for module build on kernel: 6.5.0-14-generic (x86_64)\n"
        "Consult /var/lib/dkms/nvidia/535.129.03/build/make.log for more information.\n",
    ],
)
def test_a_module_refused_or_built_for_another_kernel_is_the_module_not_loaded(text: str) -> None:
    report = load_text(text)
    assert _ids(report)[0] == "nvidia_module_not_loaded"
    assert report.findings[0].severity is Severity.ERROR


def test_a_healthy_module_load_with_its_taint_notice_claims_nothing() -> None:
    text = (
        "[  3.0] nvidia: module verification failed: signature and/or required key missing - tainting kernel\n"
        "[  3.1] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024\n"
        "[  3.2] nvidia-uvm: Loaded the UVM driver, major device number 508.\n"
    )
    assert not _claimed(load_text(text))


def test_a_dkms_failure_of_another_module_is_not_nvidias() -> None:
    text = (
        "The NVIDIA driver installed fine, then VirtualBox failed:\n"
        "Consult /var/lib/dkms/virtualbox/6.1.38/build/make.log for more information.\n"
    )
    assert "nvidia_module_not_loaded" not in _ids(load_text(text))


@pytest.mark.parametrize(
    "text",
    [
        "modprobe: ERROR: could not insert 'nvidia': No such device\n",
        "[ 4.2] NVRM: The NVIDIA probe routine failed for 1 device(s).\n[ 4.2] NVRM: None of the NVIDIA devices were "
        "initialized.\n",
        "[ 4.2] NVRM: No NVIDIA GPU found.\n",
    ],
)
def test_the_module_finding_no_gpu_it_drives_is_a_guess(text: str) -> None:
    report = load_text(text)
    assert _ids(report)[0] == "driver_does_not_support_gpu"
    assert report.findings[0].severity is Severity.WARNING


def test_missing_power_cables_are_a_hardware_fault() -> None:
    text = "[ 4.2] NVRM: GPU 0000:01:00.0: GPU does not have the necessary power cables connected.\n"
    assert _ids(load_text(text))[0] == "gpu_xid_fault"


# --- containers: the device plugin's node has a driver; LXD/Incus's GPU listing without the toolkit ---------------


def test_libcuda_missing_in_a_pod_given_the_gpu_by_the_device_plugin_is_the_runtime() -> None:
    text = (
        "Our pod requests nvidia.com/gpu: 1 and is scheduled, but inside it:\n"
        "OSError: libcuda.so.1: cannot open shared object file: No such file or directory\n"
    )
    report = load_text(text)
    assert _ids(report)[0] == "docker_no_gpu_runtime"
    assert "no_nvidia_driver" not in _claimed(report)


def test_libcuda_missing_in_a_plain_container_keeps_the_driver_guess() -> None:
    text = "inside the container:\nOSError: libcuda.so.1: cannot open shared object file: No such file or directory\n"
    report = load_text(text)
    assert _ids(report)[0] == "docker_no_gpu_runtime"
    assert "no_nvidia_driver" in _ids(report)  # nothing shows the host's driver


LXD_GPU = (
    "GPU:\n  NUMA node: 0\n  Vendor: NVIDIA Corporation (10de)\n  Product: TU104GL [Tesla T4] (1eb8)\n"
    "  Driver: nvidia (550.90.07)\n  NVIDIA information:\n    Architecture: {arch}\n    Brand: Tesla\n"
    "    Model: Tesla T4\n    CUDA Version: {cuda}\n    NVRM Version: {nvrm}\n    UUID: {uuid}\n"
)


def test_an_lxd_gpu_listing_with_empty_cuda_and_nvrm_fields_lacks_the_toolkit() -> None:
    report = load_text(LXD_GPU.format(arch="", cuda="", nvrm="", uuid=""))
    assert _ids(report)[0] == "docker_no_gpu_runtime"


def test_a_filled_lxd_gpu_listing_claims_nothing() -> None:
    text = LXD_GPU.format(arch="7.5", cuda="12.4", nvrm="550.90.07", uuid="GPU-5e1f2b6c")
    assert "docker_no_gpu_runtime" not in _ids(load_text(text))


# --- a Jetson whose non-JetPack CUDA build fails at first use ------------------------------------------------------


def test_a_conda_forge_cuda_torch_failing_at_first_use_on_a_jetson_is_the_wheel() -> None:
    text = (
        "Jetson AGX Orin, torch from conda-forge (the CUDA build):\n"
        ">>> torch.zeros(3).cuda()\n"
        "Traceback (most recent call last):\n"
        '  File "<stdin>", line 1, in <module>\n'
    )
    assert _ids(load_text(text))[0] == "jetson_needs_nvidia_wheel"


def test_an_out_of_memory_on_a_jetson_is_not_the_wheel() -> None:
    text = (
        "Jetson Orin Nano 8GB\n"
        "Traceback (most recent call last):\n"
        '  File "train.py", line 10, in <module>\n'
        "    x = x.to('cuda')\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 7.44 GiB total capacity)\n"
    )
    report = load_text(text)
    assert "jetson_needs_nvidia_wheel" not in _ids(report)


# --- a program-class Xid that follows one GPU across processes --------------------------------------------------------


def _xid(xid: int, pid: int, gpu: str = "0000:db:00") -> str:
    return f"[Sat Jan 30 00:05:20 2021] NVRM: Xid (PCI:{gpu}): {xid}, pid={pid}, Ch 00000008, intr 00000000.\n"


def test_an_mmu_fault_recurring_for_several_processes_on_one_gpu_is_the_gpus() -> None:
    report = load_text(_xid(31, 101) + _xid(31, 2202) + _xid(31, 3303))
    assert _ids(report)[0] == "gpu_xid_fault"


def test_a_lone_mmu_fault_stays_the_programs() -> None:
    report = load_text(_xid(31, 101) + _xid(31, 101))  # one process, one bad access logged twice
    assert "gpu_xid_fault" not in _ids(report)
    assert _ids(report)[0] == "cuda_illegal_memory_access"


def test_faults_spread_over_gpus_are_not_one_gpus_recurrence() -> None:
    report = load_text(_xid(31, 101, "0000:3d:00") + _xid(31, 202, "0000:db:00") + _xid(31, 303, "0000:1a:00"))
    assert "gpu_xid_fault" not in _ids(report)


# --- CUDA status codes and the container toolkit's errors, in every spelling -----------------------------------------


@pytest.mark.parametrize(
    ("text", "cause"),
    [
        (
            "Failed to allocate device vector A (error code forward compatibility was attempted on non "
            "supported HW)!\n",
            "forward_compat_unsupported_hw",
        ),
        ("cuInit returned CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE\n", "forward_compat_unsupported_hw"),
        (
            "nvidia-container-cli: initialization error: nvml error: driver/library version mismatch: unknown\n",
            "driver_library_mismatch",
        ),
        ("cuInit: CUDA_ERROR_SYSTEM_DRIVER_MISMATCH\n", "driver_library_mismatch"),
    ],
)
def test_status_codes_named_by_another_tool(text: str, cause: str) -> None:
    assert _ids(load_text(text))[0] == cause


def test_the_toolkit_finding_no_driver_library_is_a_possible_missing_driver() -> None:
    text = (
        "nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared "
        "object file: no such file or directory: unknown\n"
    )
    report = load_text(text)
    assert _ids(report)[0] == "no_nvidia_driver"
    assert report.findings[0].severity is Severity.WARNING


def test_the_toolkit_on_wsl_with_no_adapter_is_wsls_gpu_path() -> None:
    text = "nvidia-container-cli: initialization error: WSL environment detected but no adapters were found: unknown\n"
    assert _ids(load_text(text))[0] == "wsl_libcuda_problem"


# --- the GPU's error state in nvidia-smi, Windows and the kernel's words (guesses) -----------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "|   0  NVIDIA GeForce RTX 3090    Off  | 00000000:01:00.0 Off |                  N/A |\n"
        "|ERR!  ERR!  ERR!    ERR! / ERR! |   0MiB / 24576MiB |    ERR!      Default |\n",
        "[ 9000.1] NVRM: krcWatchdogCallbackVblankRecovery: RC watchdog: GPU is probably locked!\n",
        "Device Manager: the NVIDIA GPU says Windows has stopped this device because it has reported problems. "
        "(Code 43)\n",
        "[ 6.1] NVRM: _kgspBootGspRm: unexpected WPR2 already up, cannot proceed with booting GSP\n",
    ],
)
def test_a_gpu_in_an_error_state_is_a_possible_fault(text: str) -> None:
    report = load_text(text)
    assert _ids(report)[0] == "gpu_xid_fault"
    assert report.findings[0].severity is Severity.WARNING


def test_no_devices_found_is_a_refused_or_faulted_gpu_guess() -> None:
    report = load_text("$ nvidia-smi\nNo devices were found\n")
    assert _ids(report)[:2] == ["driver_does_not_support_gpu", "gpu_xid_fault"]
    assert all(f.severity is Severity.WARNING for f in report.findings)


def test_a_healthy_nvidia_smi_row_is_no_fault() -> None:
    text = (
        "|   0  NVIDIA GeForce RTX 3090    Off  | 00000000:01:00.0 Off |                  N/A |\n"
        "| 30%   35C    P8    20W / 350W |      1MiB / 24576MiB |      0%      Default |\n"
    )
    assert "gpu_xid_fault" not in _ids(load_text(text))


def test_nouveau_alone_is_a_guess_between_no_driver_and_the_module() -> None:
    report = load_text(NOUVEAU_LSPCI + "torch.cuda.is_available() False\n")
    assert {"no_nvidia_driver", "nvidia_module_not_loaded"} <= set(_ids(report)[:3])
    assert not _errors(report)


@pytest.mark.parametrize(
    "named",
    [
        "Xavier AGX 32GB",
        "JP5.1.2",
        "NVIDIA Tegra X1",
        "Tegra194",
        "GPU: ga10b",
        "R35 (release), REVISION: 4.1, GCID: 33958178",
        "my orin开发板",
        "jtop shows",
    ],
)
def test_a_jetson_named_in_any_form_with_torch_unavailable_gets_the_jetpack_wheel(named: str) -> None:
    text = f"{named}\ntorch 2.1.0, torch.cuda.is_available() returns False\n"
    assert _ids(load_text(text))[0] == "jetson_needs_nvidia_wheel"


@pytest.mark.parametrize("words", ["strategic integrated graphics", "JPEG 5.1 decoder", "Xavier is my colleague"])
def test_words_that_only_look_like_a_jetson_are_not_one(words: str) -> None:
    text = f"{words}\ntorch 2.1.0, torch.cuda.is_available() returns False\n"
    assert "jetson_needs_nvidia_wheel" not in _ids(load_text(text))


@pytest.mark.parametrize(
    "text",
    [
        "Mar 03 10:00:01 gpu1 systemd[1]: Failed to start NVIDIA fabric manager service.\n",
        "nv-fabricmanager: fabric manager version 535.104.05 is incompatible with the NVIDIA driver 535.86.10\n",
    ],
)
def test_fabric_manager_failing_in_the_journal(text: str) -> None:
    assert _ids(load_text(text))[0] == "fabric_manager_missing"


def test_fabric_manager_with_nothing_to_do_on_a_machine_without_nvswitch_is_not_the_cause() -> None:
    text = (
        "Mar 03 10:00:01 gpu1 nv-fabricmanager[1234]: request to query NVSwitch device information from NVSwitch "
        "driver failed with error:WARNING Nothing to do\ntorch.cuda.is_available() False\n"
    )
    assert "fabric_manager_missing" not in _ids(load_text(text))


@pytest.mark.parametrize("error", ["Exec format error", "Invalid argument", "Unknown symbol in module"])
def test_modprobe_refusing_a_module_built_for_another_kernel(error: str) -> None:
    assert _ids(load_text(f"modprobe: ERROR: could not insert 'nvidia': {error}\n"))[0] == "nvidia_module_not_loaded"


def test_the_legacy_message_cut_off_mid_word() -> None:
    text = (
        "[  3.2] NVRM: The NVIDIA GeForce GTX 680 GPU installed in this system is\n"
        "[  3.2] NVRM:  supported through the NVIDIA 470.xx Legacy dri"
    )
    assert _ids(load_text(text))[0] == "driver_does_not_support_gpu"


def test_the_device_plugin_asking_for_the_container_toolkit_is_the_runtime() -> None:
    text = (
        "I0425 10:00:00.000 main.go:256] Retreiving plugins.\n"
        "E0425 10:00:00.000 factory.go:87] Incompatible strategy detected auto\n"
        "E0425 10:00:00.000 factory.go:88] If this is a GPU node, did you configure the NVIDIA Container Toolkit?\n"
    )
    assert _ids(load_text(text))[0] == "docker_no_gpu_runtime"


def test_the_device_plugin_serving_gpus_claims_nothing() -> None:
    text = (
        "I0425 10:00:00.000 main.go:256] Retreiving plugins.\n"
        "I0425 10:00:00.000 server.go:176] Starting GRPC server for 'nvidia.com/gpu'\n"
        "I0425 10:00:00.000 server.go:224] Registered device plugin for 'nvidia.com/gpu' with Kubelet\n"
    )
    assert not _claimed(load_text(text))


def test_the_windows_installer_finding_no_compatible_hardware_is_a_possible_unsupported_gpu() -> None:
    text = "NVIDIA Installer cannot continue\nThis graphics driver could not find compatible graphics hardware.\n"
    report = load_text(text)
    assert _ids(report)[0] == "driver_does_not_support_gpu"
    assert report.findings[0].severity is Severity.WARNING


def test_windows_basic_display_adapter_is_a_possible_missing_driver() -> None:
    text = "Display adapters: Microsoft Basic Display Adapter\ntorch.cuda.is_available() False\n"
    assert _ids(load_text(text))[0] == "no_nvidia_driver"


def test_nvidia_smi_cut_off_mid_sentence_still_reads_as_the_module() -> None:
    text = "$ nvidia-smi\nNVIDIA-SMI has failed because it couldn't communicate with the NVIDIA dri"
    assert _ids(load_text(text))[0] == "nvidia_module_not_loaded"


@pytest.mark.parametrize(
    "line",
    [
        "NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure that the NVIDIA Display "
        "Driver is properly installed and present in your system.",
        "NVIDIA-SMI has failed because it couldn't find nvml.dll",
    ],
)
def test_nvidia_smi_without_its_library_is_a_possible_missing_driver(line: str) -> None:
    report = load_text(line + "\n")
    assert _ids(report)[0] == "no_nvidia_driver"
    assert report.findings[0].severity is Severity.WARNING


# --- any kernel-side cause the log names explains nvidia-smi failing to talk to the driver ------------------------


def test_an_api_mismatch_explains_nvidia_smi_failing() -> None:
    text = (
        "$ nvidia-smi\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"
        "[ 812.1] NVRM: API mismatch: the client has the version 550.120, but\n"
        "[ 812.1] NVRM: this kernel module has the version 550.107.02.  Please\n"
        "[ 812.1] NVRM: make sure that this kernel module and all NVIDIA driver\n"
    )
    report = load_text(text)
    assert _ids(report)[0] == "driver_library_mismatch"
    assert "nvidia_module_not_loaded" not in _claimed(report)


def test_a_gpu_fallen_off_the_bus_explains_nvidia_smi_failing() -> None:
    text = (
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"
        "[ 9.1] NVRM: Xid (PCI:0000:01:00): 79, pid=0, GPU has fallen off the bus.\n"
    )
    report = load_text(text)
    assert _ids(report)[0] == "gpu_xid_fault"
    assert "nvidia_module_not_loaded" not in _claimed(report)


def test_a_module_built_for_another_kernel_stays_beside_an_xid() -> None:
    text = (
        "[ 5.1] nvidia: Unknown symbol drm_gem_object_put (err -2)\n"
        "[ 9.1] NVRM: Xid (PCI:0000:01:00): 79, pid=0, GPU has fallen off the bus.\n"
    )
    assert {"gpu_xid_fault", "nvidia_module_not_loaded"} <= set(_claimed(load_text(text)))


# --- a script's printout shows a CUDA build and an NVIDIA GPU ---------------------------------------------------------

TWO_RUNS = (
    "In the terminal:\nCUDA AVAILABLE:\nTrue\nCUDA VERSION:\n12.1\nCUDA DEVICE:\nNVIDIA GeForce RTX 4070\n"
    "Inside train.py:\nCUDA AVAILABLE:\nFalse\nCUDA VERSION:\n12.1\n"
    "RuntimeError: No CUDA GPUs are available\n"
)


def test_a_printed_cuda_build_and_gpu_model_rule_out_cpu_build_and_no_gpu() -> None:
    report = load_text(TWO_RUNS)
    assert "cpu_only_build" not in _ids(report)
    assert "no_nvidia_gpu" not in _ids(report)
    assert _ids(report)[0] == "cuda_visible_devices_hides_gpus"


def test_nvidia_smis_cuda_version_is_not_the_builds() -> None:
    text = (
        "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |\n"
        "torch 2.1.0+cpu\ntorch.cuda.is_available() False\n"
    )
    assert _ids(load_text(text))[0] == "cpu_only_build"


def test_nouveau_taking_the_gpu_in_dmesg_with_no_nvidia_smi_is_no_nvidia_driver() -> None:
    text = (
        "[    2.1] nouveau 0000:01:00.0: NVIDIA GA106 (b76000a1)\n$ nvidia-smi\nbash: nvidia-smi: command not found\n"
    )
    report = load_text(text)
    assert _ids(report)[0] == "no_nvidia_driver"
    assert report.findings[0].severity is Severity.ERROR


def test_a_nouveau_line_about_another_subsystem_is_not_the_gpu_bound() -> None:
    text = "[    2.3] nouveau: detected PR support, will not use DSM\ntorch.cuda.is_available() False\n"
    assert "no_nvidia_driver" not in _errors(load_text(text))


# --- counter-examples for the message families above -------------------------------------------------------------


def test_the_uvm_module_refused_is_not_the_main_module_finding_no_gpu() -> None:
    report = load_text("modprobe: ERROR: could not insert 'nvidia_uvm': No such device\n")
    assert "driver_does_not_support_gpu" not in _ids(report)


def test_a_module_load_that_found_its_gpu_claims_nothing() -> None:
    text = (
        "[ 4.1] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.14\n"
        "[ 4.2] nvidia 0000:01:00.0: vgaarb: changed VGA decodes: olddecodes=io+mem,decodes=none:owns=io+mem\n"
    )
    assert not _claimed(load_text(text))


def test_a_successful_status_from_another_tool_is_no_mismatch() -> None:
    text = "cuInit returned CUDA_SUCCESS\nnvidia-container-cli: initialization done\ntorch.cuda.is_available() True\n"
    assert not _claimed(load_text(text))


def test_a_windows_machine_with_the_nvidia_adapter_listed_is_not_the_basic_adapter() -> None:
    text = "Display adapters: NVIDIA GeForce RTX 3060\ntorch.cuda.is_available() False\n"
    assert "no_nvidia_driver" not in _errors(load_text(text))


def test_nvidia_smi_that_found_its_library_is_no_missing_driver() -> None:
    text = "| NVIDIA-SMI 550.54.14   Driver Version: 550.54.14   CUDA Version: 12.4 |\n"
    assert "no_nvidia_driver" not in _ids(load_text(text))
