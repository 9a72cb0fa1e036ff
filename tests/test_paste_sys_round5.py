"""System-side classes of issue #14, round 5: machines whose only graphics are integrated, benign NVRM lines next to
the open module's parameter, nccl-tests' CUDA failure lines, the Kubernetes device plugin without the NVIDIA runtime,
and the missing /dev/nvidia-uvm node. Every text is synthetic, written in the program's own format (sources in the
modules' docstrings); each mechanism has a counter-example that must not fire."""

from __future__ import annotations

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.ingest.errors import Match
from gpuassist.ingest.igpu_only import integrated_only_match
from gpuassist.ingest.orchestration import (
    device_plugin_without_runtime_match,
    login_node_match,
    toolkit_ldconfig_match,
    uvm_device_missing_match,
    working_smi_rules_out_module,
)
from gpuassist.ingest.text import clean_lines
from gpuassist.knowledge.messages import lookup


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


def _errors(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings if f.severity is Severity.ERROR]


# ------------------------------------------------------------------------------ integrated graphics only

IGPU_SENTENCE = """\
Error CUDA driver version is insufficient for CUDA runtime version at line 88 in file C:\\src\\kernels.cu
Traceback (most recent call last):
  File "C:\\Users\\me\\train.py", line 3, in <module>
RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version

My laptop only has Intel integrated graphics, Windows 11, torch 2.1.0+cu121.
"""

IGPU_TASK_MANAGER = """\
torch.cuda.is_available() returns False and I get
AssertionError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver
Task manager shows:
GPU 0
Intel(R) UHD Graphics 620
"""

IGPU_WMIC = """\
RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version
PS C:\\> wmic path win32_VideoController get name
Name
AMD Radeon(TM) Graphics
"""

HYBRID_LAPTOP = """\
RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version
I'm using the integrated Intel GPU for the display and an RTX 3060 Laptop GPU for compute.
"""

IGPU_INSTEAD_OF_DEDICATED = """\
RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version
My games run on the integrated graphics instead of the dedicated card.
"""


def test_integrated_graphics_sentence_reads_no_gpu_not_old_driver() -> None:
    ids = _ids(IGPU_SENTENCE)
    assert ids[:1] == ["no_nvidia_gpu"]
    assert "driver_too_old" not in ids  # the runtime's message for a missing driver library, not an old driver


def test_task_manager_and_wmic_listings_name_the_only_adapter() -> None:
    assert _ids(IGPU_TASK_MANAGER)[:1] == ["no_nvidia_gpu"]
    assert _ids(IGPU_WMIC)[:1] == ["no_nvidia_gpu"]
    match = integrated_only_match(clean_lines(IGPU_WMIC))
    assert match is not None and "Radeon" in match.line


def test_hybrid_laptop_with_nvidia_named_is_not_gpu_less() -> None:
    assert integrated_only_match(clean_lines(HYBRID_LAPTOP)) is None
    assert "no_nvidia_gpu" not in _errors(HYBRID_LAPTOP)


def test_integrated_used_instead_of_dedicated_is_not_gpu_less() -> None:
    assert integrated_only_match(clean_lines(IGPU_INSTEAD_OF_DEDICATED)) is None


# ----------------------------------------------------------------------- NVRM noise vs the open module's refusal

OPEN_MODULE_PARAMETER_SET = """\
I had to add
options nvidia NVreg_OpenRmEnableUnsupportedGpus=1
to /etc/modprobe.d/nvidia.conf. Everything works (nvidia-smi is fine, training runs on the GPU), but dmesg shows:
[    1.80] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  535.54.03  Release Build
[    1.92] NVRM objClInitPcieChipset: *** Chipset Setup Function Error!
"""

OPEN_MODULE_REFUSES = """\
[    3.51] NVRM: Open nvidia.ko is only ready for use on Data Center GPUs.
[    3.51] NVRM: To force use of Open nvidia.ko on other GPUs, see the
[    3.51] NVRM: 'OpenRmEnableUnsupportedGpus' kernel module parameter described
[    3.51] NVRM: in the README.
"""


def test_module_parameter_already_set_with_benign_nvrm_line_claims_nothing() -> None:
    assert _errors(OPEN_MODULE_PARAMETER_SET) == []


def test_open_module_refusal_is_still_read() -> None:
    assert _ids(OPEN_MODULE_REFUSES)[:1] == ["driver_does_not_support_gpu"]


# ------------------------------------------------------------------------------ nccl-tests' CUDACHECK lines

NCCL_TESTS_UNKNOWN = """\
$ srun --gpus=8 --container-image=myimage ./build/all_reduce_perf -b 8 -e 128M -g 1
# Using devices
node-3: Test CUDA failure common.cu:900 'unknown error'
 .. node-3 pid 1234: Test failure common.cu:850
"""

NCCL_TESTS_NO_DEVICE = """\
node-7: Test CUDA failure common.cu:761 'no CUDA-capable device is detected'
"""

NCCL_TESTS_NCCL_FAILURE = """\
node-7: Test NCCL failure common.cu:1005 'unhandled system error'
"""


def test_nccl_tests_unknown_error_points_at_the_uvm_module() -> None:
    assert _ids(NCCL_TESTS_UNKNOWN)[:1] == ["uvm_wedged_after_suspend"]


def test_nccl_tests_line_is_read_through_the_cuda_table() -> None:
    assert "no_nvidia_gpu" in _ids(NCCL_TESTS_NO_DEVICE)


def test_nccl_failure_line_is_not_a_cuda_init_failure() -> None:
    assert "uvm_wedged_after_suspend" not in _ids(NCCL_TESTS_NCCL_FAILURE)


# ------------------------------------------------------------------------------ the Kubernetes device plugin

PLUGIN_OLD = """\
2018/01/04 06:08:15 Loading NVML
2018/01/04 06:08:15 Failed to start nvml with error: could not load NVML library.
2018/01/04 06:08:15 If this is a GPU node, did you set the docker default runtime to `nvidia`?
"""

PLUGIN_NEW = """\
I1119 17:44:43.345400       1 main.go:317] Retrieving plugins.
I1119 17:44:43.345460       1 factory.go:48] Detected non-NVML platform: could not load NVML library: \
libnvidia-ml.so.1: cannot open shared object file: No such file or directory
E1119 17:44:43.345466       1 factory.go:112] Incompatible platform detected
E1119 17:44:43.345479       1 factory.go:113] If this is a GPU node, did you configure the NVIDIA Container Toolkit?
I1119 17:44:43.345499       1 main.go:381] No devices found. Waiting indefinitely.
"""

PLUGIN_DRIVER_MISMATCH = """\
2023/05/04 06:08:15 Loading NVML
2023/05/04 06:08:15 Failed to initialize NVML: Driver/library version mismatch.
2023/05/04 06:08:15 If this is a GPU node, did you set the docker default runtime to `nvidia`?
"""

NVML_MISSING_OUTSIDE_PLUGIN = """\
>>> import pynvml; pynvml.nvmlInit()
pynvml.NVMLError_LibraryNotFound: NVML Shared Library Not Found
"""


def test_device_plugin_without_nvml_is_the_runtime_not_injecting_the_driver() -> None:
    assert _ids(PLUGIN_OLD)[:1] == ["docker_no_gpu_runtime"]
    assert _ids(PLUGIN_NEW)[:1] == ["docker_no_gpu_runtime"]


def test_device_plugin_reporting_a_driver_fault_keeps_that_fault() -> None:
    assert device_plugin_without_runtime_match(clean_lines(PLUGIN_DRIVER_MISMATCH)) is None
    assert _ids(PLUGIN_DRIVER_MISMATCH)[:1] == ["driver_library_mismatch"]


def test_nvml_missing_outside_a_plugin_log_is_not_read_as_the_plugin() -> None:
    assert device_plugin_without_runtime_match(clean_lines(NVML_MISSING_OUTSIDE_PLUGIN)) is None


# ------------------------------------------------------------------------------------ /dev/nvidia-uvm missing

CONTAINER_CLI_UVM = """\
enroot-nsenter: failed to create user namespace
nvidia-container-cli: mount error: stat failed: /dev/nvidia-uvm: no such file or directory
"""

LISTING_WITHOUT_UVM_AND_FAILURE = """\
>>> torch.cuda.is_available()
UserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly set up environment
False
$ ls /dev/nvidia*
/dev/nvidia0  /dev/nvidiactl  /dev/nvidia-modeset
"""

LISTING_WITHOUT_UVM_NO_FAILURE = """\
$ ls /dev/nvidia*
/dev/nvidia0  /dev/nvidiactl  /dev/nvidia-modeset
"""


def test_runtime_stat_error_on_the_uvm_node_is_the_module() -> None:
    assert _ids(CONTAINER_CLI_UVM)[:1] == ["uvm_wedged_after_suspend"]


def test_device_listing_without_uvm_beside_a_cuda_failure_is_the_module() -> None:
    match = uvm_device_missing_match(clean_lines(LISTING_WITHOUT_UVM_AND_FAILURE))
    assert match is not None and match.specific
    assert _ids(LISTING_WITHOUT_UVM_AND_FAILURE)[:1] == ["uvm_wedged_after_suspend"]


def test_device_listing_without_uvm_alone_is_normal() -> None:
    # nvidia_uvm loads on demand at the first CUDA call: its absence before one is no fault.
    assert uvm_device_missing_match(clean_lines(LISTING_WITHOUT_UVM_NO_FAILURE)) is None


# ------------------------------------------------------------------------------ Singularity/Apptainer --nv

SINGULARITY_LOGIN_NODE = """\
$ srun -p debug singularity exec --nv img.sif python train.py
INFO:    Could not find any nv files on this host!
RuntimeError: No CUDA GPUs are available
"""

SINGULARITY_NO_DRIVER = """\
$ apptainer exec --nv img.sif python train.py
INFO:    Could not find any nv files on this host!
RuntimeError: No CUDA GPUs are available
"""

SINGULARITY_CPU_COMMAND = """\
$ singularity exec --nv img.sif which flow
INFO:    Could not find any nv files on this host!
/usr/bin/flow
"""


def test_nv_files_missing_in_a_job_is_a_node_without_gpu() -> None:
    assert _ids(SINGULARITY_LOGIN_NODE)[:1] == ["scheduler_no_gpu_allocated"]


def test_nv_files_missing_outside_a_scheduler_is_a_node_without_driver() -> None:
    assert _ids(SINGULARITY_NO_DRIVER)[:1] == ["no_nvidia_driver"]


def test_nv_files_warning_alone_is_recognised_and_claims_nothing() -> None:
    report = load_text(SINGULARITY_CPU_COMMAND)
    assert [f.id for f in report.findings if f.severity is not Severity.INFO] == []


# ------------------------------------------------------------------------------ the toolkit's ldconfig

LDCACHE = "nvidia-container-cli: ldcache error: open failed: /sbin/ldconfig.real: no such file or directory: unknown\n"
LDCACHE_OTHER = "nvidia-container-cli: mount error: file creation failed: /merged/usr/bin/nvidia-smi: file exists\n"


def test_toolkit_ldconfig_path_missing_is_the_runtime_setup() -> None:
    assert _ids(LDCACHE)[:1] == ["docker_no_gpu_runtime"]
    assert "docker_no_gpu_runtime" not in _errors(LDCACHE)  # a possibility: the config, not a missing runtime
    assert toolkit_ldconfig_match(clean_lines(LDCACHE_OTHER)) is None


# ------------------------------------------------------------------------------ lsmod without nvidia_uvm

LSMOD_NO_UVM_FAILING = """\
$ lsmod | grep nvidia
nvidia_drm             94208  6
nvidia_modeset       1515520  12 nvidia_drm
nvidia              62455808  710 nvidia_modeset
$ python3 -c 'import torch; torch.cuda.init()'
RuntimeError: CUDA driver initialization failed, you might not have a CUDA gpu.
"""

LSMOD_NO_UVM_IDLE = """\
$ lsmod | grep nvidia
nvidia_drm             94208  6
nvidia_modeset       1515520  12 nvidia_drm
nvidia              62455808  710 nvidia_modeset
"""

LSMOD_WITH_UVM_FAILING = """\
$ lsmod
Module                  Size  Used by
nvidia_uvm           1806336  0
nvidia_drm             94208  6
nvidia              62455808  710 nvidia_uvm,nvidia_drm
snd_hda_intel          57344  3
RuntimeError: CUDA driver initialization failed, you might not have a CUDA gpu.
"""


def test_lsmod_without_uvm_beside_a_cuda_failure_is_the_module() -> None:
    assert uvm_device_missing_match(clean_lines(LSMOD_NO_UVM_FAILING)) is not None
    assert _ids(LSMOD_NO_UVM_FAILING)[:1] == ["uvm_wedged_after_suspend"]


def test_lsmod_without_uvm_alone_or_with_uvm_loaded_is_no_listing_verdict() -> None:
    assert uvm_device_missing_match(clean_lines(LSMOD_NO_UVM_IDLE)) is None
    assert uvm_device_missing_match(clean_lines(LSMOD_WITH_UVM_FAILING)) is None


# ------------------------------------------------------------------------------ the container stack's own errors

HOOK_REFUSES_GPUS_FLAG = """\
$ docker run --rm --gpus all my/image:latest python3 -c 'import torch'
docker: Error response from daemon: failed to create task for container: OCI runtime create failed: runc create \
failed: error running prestart hook #0: exit status 1, stdout: , stderr: Auto-detected mode as 'csv'
invoking the NVIDIA Container Runtime Hook directly (e.g. specifying the docker --gpus flag) is not supported. \
Please use the NVIDIA Container Runtime (e.g. specify the --runtime=nvidia flag) instead.: unknown.
"""

POD_WITHOUT_NVIDIA_RUNTIME = """\
Events:
  Warning  FailedCreatePodSandBox  12s (x9 over 2m)  kubelet  Failed to create pod sandbox: rpc error: code = \
Unknown desc = failed to get sandbox runtime: no runtime for "nvidia" is configured
"""

DRIVER_SERVICE = """\
docker: Error response from daemon: OCI runtime create failed: error running hook #0: error running hook: \
exit status 1, stdout: , stderr: nvidia-container-cli: initialization error: driver error: failed to process \
request: unknown.
"""

UNKNOWN_DEVICE = "stderr: nvidia-container-cli: device error: 3: unknown device: unknown.\n"
DEVICE_FILTERS = (
    "nvidia-container-cli: mount error: failed to add device rules: unable to find any existing device filters "
    "attached to the cgroup: bpf_prog_query(BPF_CGROUP_DEVICE) failed: operation not permitted: unknown\n"
)
IMAGE_HOLDS_DRIVER = (
    "nvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2/9a/merged/usr/lib/"
    "x86_64-linux-gnu/libcuda.so.1: file exists: unknown.\n"
)
# A config file that names the runtime (no error) must not read as the runtime missing.
RUNTIME_CONFIGURED = """\
$ cat /etc/docker/daemon.json
{"default-runtime": "nvidia", "runtimes": {"nvidia": {"path": "nvidia-container-runtime", "runtimeArgs": []}}}
"""


def test_the_hook_refusing_gpus_flag_and_a_runtimeclass_without_runtime_are_the_runtime() -> None:
    assert _errors(HOOK_REFUSES_GPUS_FLAG)[:1] == ["docker_no_gpu_runtime"]
    assert _errors(POD_WITHOUT_NVIDIA_RUNTIME)[:1] == ["docker_no_gpu_runtime"]


def test_driver_service_failure_is_the_host_driver_as_a_possibility() -> None:
    assert _ids(DRIVER_SERVICE)[:1] == ["no_nvidia_driver"]
    assert _errors(DRIVER_SERVICE) == []


def test_device_and_cgroup_errors_read_their_causes_as_possibilities() -> None:
    assert _ids(UNKNOWN_DEVICE)[:1] == ["cuda_visible_devices_hides_gpus"]
    assert _ids(DEVICE_FILTERS)[:1] == ["docker_no_gpu_runtime"]
    assert _errors(UNKNOWN_DEVICE) == [] and _errors(DEVICE_FILTERS) == []


def test_driver_files_in_the_image_and_a_configured_runtime_claim_nothing() -> None:
    assert _errors(IMAGE_HOLDS_DRIVER) == []
    assert "docker_no_gpu_runtime" not in _ids(IMAGE_HOLDS_DRIVER)
    assert _ids(RUNTIME_CONFIGURED) == []


# ------------------------------------------------------------------------------ kernel lines beside a working GPU

KERNEL_RETRY_WORKING = """\
[    2.310] NVRM: GPU 0000:02:00.0: RmInitAdapter failed! (0x24:0x65:1447)
[    4.902] NVRM: Xid (PCI:0000:02:00): 109, pid=1201, name=gnome-shell, Ch 00000011, errorString CTX SWITCH TIMEOUT
Apart from these boot messages the card is fine: the GPU works normally and my models train on it.
"""

KERNEL_RETRY_FAILING = """\
[    2.310] NVRM: GPU 0000:02:00.0: RmInitAdapter failed! (0x24:0x65:1447)
The GPU works fine in the BIOS test, but:
$ nvidia-smi
No devices were found
"""

KERNEL_RETRY_WORKS_ELSEWHERE = """\
[    2.310] NVRM: GPU 0000:02:00.0: RmInitAdapter failed! (0x24:0x65:1447)
The GPU works fine on Windows on the same laptop.
"""

ECC_WORKING = """\
[ 9001.2] NVRM: Xid (PCI:0000:3b:00): 48, pid=1, name=swapper/0, An uncorrectable double bit error (DBE) has been \
detected on GPU in the framebuffer at partition 2, subpartition 1.
The GPU still works fine after a reboot.
"""


def _warnings(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings if f.severity is Severity.WARNING]


def test_kernel_possibilities_are_not_claimed_when_the_text_says_the_gpu_works() -> None:
    report = load_text(KERNEL_RETRY_WORKING)
    assert [f.id for f in report.findings if f.severity is not Severity.INFO] == []
    assert any(f.id == "gpu_xid_fault" and "Not claimed" in f.explanation for f in report.findings)


KERNEL_RETRY_CUDA_FAILS_IN_WORDS = """\
[    2.310] NVRM: GPU 0000:02:00.0: RmInitAdapter failed! (0x24:0x65:1447)
nvidia-smi works fine, but CUDA fails in every training script.
"""


def test_a_failure_in_the_text_or_a_gpu_working_elsewhere_keeps_the_kernel_possibility() -> None:
    assert "gpu_xid_fault" in _warnings(KERNEL_RETRY_FAILING)
    assert "gpu_xid_fault" in _warnings(KERNEL_RETRY_CUDA_FAILS_IN_WORDS)
    assert "gpu_xid_fault" in _warnings(KERNEL_RETRY_WORKS_ELSEWHERE)


def test_a_hardware_verdict_stays_although_the_gpu_still_works() -> None:
    assert _errors(ECC_WORKING)[:1] == ["gpu_xid_fault"]


# ------------------------------------------------------------------------------ a cluster's login node

LOGIN_NODE_NO_GPU = """\
Our university cluster uses PBS. When I start the script from the head node it says:
  File "train.py", line 12, in <module>
    model = model.cuda()
RuntimeError: No CUDA GPUs are available
"""

LOGIN_NODE_OOM = """\
I submit with sbatch from the login node; the job log on the GPU node says:
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.77 GiB total capacity)
"""


def test_no_gpu_on_the_login_node_is_the_job_not_sent_to_a_gpu_node() -> None:
    assert _ids(LOGIN_NODE_NO_GPU)[:1] == ["scheduler_no_gpu_allocated"]
    assert "scheduler_no_gpu_allocated" not in _errors(LOGIN_NODE_NO_GPU)  # the likeliest reading, not a verdict


def test_the_login_node_named_beside_a_working_gpu_claims_no_scheduler_cause() -> None:
    assert login_node_match(clean_lines(LOGIN_NODE_OOM), unavailable=False) is None
    assert "scheduler_no_gpu_allocated" not in _ids(LOGIN_NODE_OOM)


# ------------------------------------------------------------------------------ dxdiag's display section

DXDIAG_IGPU_ONLY = """\
---------------
Display Devices
---------------
           Card name: Intel(R) UHD Graphics 630
        Manufacturer: Intel Corporation
           Chip type: Intel(R) UHD Graphics Family
RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver
"""

DXDIAG_HYBRID = """\
---------------
Display Devices
---------------
           Card name: Intel(R) UHD Graphics 630
        Manufacturer: Intel Corporation
           Card name: NVIDIA GeForce GTX 1650
        Manufacturer: NVIDIA
RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver
"""


def test_dxdiag_listing_only_an_integrated_adapter_is_no_nvidia_gpu() -> None:
    assert _errors(DXDIAG_IGPU_ONLY)[:1] == ["no_nvidia_gpu"]


def test_dxdiag_listing_an_nvidia_card_too_is_not_no_nvidia_gpu() -> None:
    assert "no_nvidia_gpu" not in _errors(DXDIAG_HYBRID)


# ------------------------------------------------------------------------------ nvidia-smi works, CUDA says 999

SMI_WORKS_CUDA_999 = """\
$ nvidia-smi
| NVIDIA-SMI 550.90.07              Driver Version: 550.90.07      CUDA Version: 12.4     |
|   0  NVIDIA RTX A4000               Off |   00000000:65:00.0 Off |                  Off |
$ python3 -c 'import torch; torch.randn(2).cuda()'
RuntimeError: CUDA error: unknown error
"""

SMI_FAILS_CUDA_999 = """\
host$ nvidia-smi
| NVIDIA-SMI 550.90.07              Driver Version: 550.90.07      CUDA Version: 12.4     |
container$ nvidia-smi
Failed to initialize NVML: Unknown Error
RuntimeError: CUDA error: unknown error
"""


def test_working_nvidia_smi_leaves_the_uvm_reading_without_the_module_guess() -> None:
    ids = _ids(SMI_WORKS_CUDA_999)
    assert ids[:1] == ["uvm_wedged_after_suspend"]
    assert "nvidia_module_not_loaded" not in ids and "no_nvidia_driver" not in ids


def test_nvidia_smi_failing_elsewhere_in_the_text_keeps_the_other_readings() -> None:
    guess = Match("nvidia_module_not_loaded", 5, "RuntimeError: CUDA error: unknown error", False, 0.3)
    assert working_smi_rules_out_module(clean_lines(SMI_FAILS_CUDA_999), [guess]) == [guess]
    assert working_smi_rules_out_module(clean_lines(SMI_WORKS_CUDA_999), [guess]) == []
    assert "nvidia_module_not_loaded" in _ids(SMI_FAILS_CUDA_999)


# ------------------------------------------------------------------------------ the device plugin found no device

PLUGIN_NO_DEVICES = """\
$ kubectl -n kube-system logs ds/nvidia-device-plugin-daemonset
I0312 08:01:02.000001       1 main.go:317] Retrieving plugins.
I0312 08:01:02.000002       1 main.go:381] No devices found. Waiting indefinitely.
"""

OTHER_VENDOR_PLUGIN = """\
$ kubectl -n kube-system logs ds/acme-npu-device-plugin
2024/03/12 08:01:02 No devices found. Waiting indefinitely.
"""


def test_nvidia_device_plugin_without_devices_is_the_runtime_as_likeliest_reading() -> None:
    assert _ids(PLUGIN_NO_DEVICES)[:1] == ["docker_no_gpu_runtime"]
    assert _errors(PLUGIN_NO_DEVICES) == []


def test_another_vendors_plugin_without_devices_is_not_read() -> None:
    assert device_plugin_without_runtime_match(clean_lines(OTHER_VENDOR_PLUGIN)) is None


DEVICE_OPEN_FAILED = "[   12.0] NVRM: nvidia_frontend_open: minor 1, module->open() failed, error -5\n"
DEVICE_OPEN_FAILED_WORKS = DEVICE_OPEN_FAILED + "It only happens once at boot; the GPU works fine afterwards.\n"


def test_a_failed_device_open_is_an_adapter_fault_possibility_unless_the_gpu_works() -> None:
    assert _warnings(DEVICE_OPEN_FAILED)[:1] == ["gpu_xid_fault"]
    assert _warnings(DEVICE_OPEN_FAILED_WORKS) == [] and _errors(DEVICE_OPEN_FAILED_WORKS) == []


CDI_SPEC_STALE = """\
$ podman run --rm --device nvidia.com/gpu=all docker.io/library/ubuntu nvidia-smi
Error: crun: cannot stat `/usr/lib64/libnvidia-ml.so.550.54.14`: No such file or directory: OCI runtime attempted \
to invoke a command that was not found
"""
LIBRARY_NOT_FOUND_BY_LDD = "\tlibcuda.so.1 => not found\n"


def test_a_cdi_spec_naming_removed_driver_files_is_the_container_setup() -> None:
    assert _ids(CDI_SPEC_STALE)[:1] == ["docker_no_gpu_runtime"]
    assert "docker_no_gpu_runtime" not in _ids(LIBRARY_NOT_FOUND_BY_LDD)


TOOLKIT_NOT_INSTALLED = (
    "docker: Error response from daemon: failed to create shim task: OCI runtime create failed: error running hook "
    '#0: error running hook: exec: "nvidia-container-runtime-hook": executable file not found in $PATH: unknown.\n'
)
OTHER_HOOK_MISSING = (
    'error running hook #0: error running hook: exec: "oci-systemd-hook": executable file not found in $PATH\n'
)


def test_the_nvidia_hook_not_installed_is_the_runtime_missing() -> None:
    assert _errors(TOOLKIT_NOT_INSTALLED)[:1] == ["docker_no_gpu_runtime"]
    assert not [row for row in lookup(OTHER_HOOK_MISSING) if row.family == "container"]


SINGULARITY_SMI_ABSENT = """\
$ apptainer exec --nv cuda.sif nvidia-smi
WARNING: Could not find any nv files on this host!
FATAL:   "nvidia-smi": executable file not found in $PATH
"""


def test_nv_files_missing_and_no_nvidia_smi_in_the_container_is_a_node_without_driver() -> None:
    assert _ids(SINGULARITY_SMI_ABSENT)[:1] == ["no_nvidia_driver"]
    assert _errors(SINGULARITY_SMI_ABSENT) == []


# ------------------------------------------------------------------------------ enroot / pyxis GPU hook

ENROOT_UVM_CUDA_FAILS = """\
$ srun -N1 --gpus=1 --container-image=./pytorch.sqsh python3 train.py
[WARN] Kernel module nvidia_uvm is not loaded. Make sure the NVIDIA device driver is installed and loaded.
RuntimeError: CUDA error: unknown error
"""

ENROOT_UVM_SMI_ONLY = """\
$ srun -N1 --gpus=1 --container-image=./pytorch.sqsh nvidia-smi -L
[WARN] Kernel module nvidia_uvm is not loaded. Make sure the NVIDIA device driver is installed and loaded.
GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-8f00)
"""

ENROOT_NO_CLI = """\
slurmstepd: error: pyxis: printing enroot log file:
slurmstepd: error: pyxis:     [ERROR] Command not found: nvidia-container-cli, see https://github.com/NVIDIA/libnvidia-container
slurmstepd: error: pyxis:     [ERROR] /etc/enroot/hooks.d/98-nvidia.sh exited with return code 1
"""


def test_enroot_uvm_warning_beside_a_cuda_failure_is_the_module() -> None:
    assert _errors(ENROOT_UVM_CUDA_FAILS)[:1] == ["uvm_wedged_after_suspend"]


def test_enroot_uvm_warning_without_a_cuda_failure_claims_nothing() -> None:
    assert uvm_device_missing_match(clean_lines(ENROOT_UVM_SMI_ONLY)) is None
    assert "uvm_wedged_after_suspend" not in _ids(ENROOT_UVM_SMI_ONLY)


def test_enroot_hook_without_the_container_cli_is_the_runtime_missing() -> None:
    assert _errors(ENROOT_NO_CLI)[:1] == ["docker_no_gpu_runtime"]


# ------------------------------------------------------------------------------ a Kubernetes node advertising no GPU

PENDING = """\
$ kubectl describe pod job-7
  Warning  FailedScheduling  30s  default-scheduler  0/2 nodes are available: 2 Insufficient nvidia.com/gpu.
"""
NODE = """\
$ kubectl describe node worker-gpu
Capacity:
  cpu:                64
  nvidia.com/gpu:     {count}
Allocatable:
  cpu:                64
  nvidia.com/gpu:     {count}
"""


def test_a_node_advertising_zero_gpus_explains_the_pending_pod() -> None:
    ids = _ids(PENDING + NODE.format(count=0))
    assert ids[:1] == ["docker_no_gpu_runtime"]
    assert "scheduler_no_gpu_allocated" not in _errors(PENDING + NODE.format(count=0))


def test_a_pending_pod_beside_a_node_with_gpus_stays_the_request() -> None:
    assert _errors(PENDING)[:1] == ["scheduler_no_gpu_allocated"]
    assert _errors(PENDING + NODE.format(count=4))[:1] == ["scheduler_no_gpu_allocated"]
    assert "docker_no_gpu_runtime" not in _ids(PENDING + NODE.format(count=4))


# ------------------------------------------------------------------------------ 999 inside WSL

WSL_999 = """\
$ uname -r
5.15.167.4-microsoft-standard-WSL2
$ python3 -c 'import torch; torch.ones(1).cuda()'
RuntimeError: CUDA error: unknown error
"""
LINUX_999 = """\
$ uname -r
6.8.0-49-generic
$ python3 -c 'import torch; torch.ones(1).cuda()'
RuntimeError: CUDA error: unknown error
"""


def test_cuda_999_inside_wsl_reads_wsls_gpu_path_not_the_uvm_module() -> None:
    ids = _ids(WSL_999)
    assert ids[:1] == ["wsl_libcuda_problem"]
    assert "uvm_wedged_after_suspend" not in ids


def test_cuda_999_on_linux_keeps_the_uvm_reading() -> None:
    assert _ids(LINUX_999)[:1] == ["uvm_wedged_after_suspend"]


# ------------------------------------------------------------------------------ the GPU operator's driver container

DRIVER_CONTAINER_NO_HEADERS = """\
$ kubectl -n gpu-operator logs nvidia-driver-daemonset-7k2x9
Starting installation of NVIDIA driver version 550.90.07 for Linux kernel version 6.8.0-1019-gcp
Resolving Linux kernel version...
Could not resolve Linux kernel version
"""


def test_the_driver_container_without_kernel_packages_leaves_the_module_unloaded() -> None:
    assert _errors(DRIVER_CONTAINER_NO_HEADERS)[:1] == ["nvidia_module_not_loaded"]
    assert not lookup("Resolving Linux kernel version...")
