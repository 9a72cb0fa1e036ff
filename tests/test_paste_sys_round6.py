"""System-side classes of issue #14, round 6: the GPU needing a reset behind CUDA's "busy or unavailable", a lone
power-draw ERR! in nvidia-smi's table, the GSP firmware of another driver release than the kernel module, the
container runtime hook without nvidia-container-cli, and a machine stated to have no NVIDIA GPU beside a GPU request
failing. Every text is synthetic, written in the program's own format (sources in the modules' docstrings and the
message table's rows); each mechanism has a counter-example that must not fire."""

from __future__ import annotations

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.ingest.container_smi import image_without_smi
from gpuassist.ingest.errors import Match
from gpuassist.ingest.gpu_error_state import default_mode_rules_out_compute_mode, error_state_explains_unavailable
from gpuassist.ingest.gpuless_machine import stated_gpuless_machine
from gpuassist.ingest.job_devices import requested_gpus_not_in_job
from gpuassist.ingest.text import clean_lines
from gpuassist.ingest.wsl_no_device import wsl_no_device_first


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


def _errors(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings if f.severity is Severity.ERROR]


# ------------------------------------------------------------------------------ a GPU that needs a reset

RESET_REQUIRED = """\
>>> torch.ones(4, device="cuda:3")
RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable
$ sudo dmesg | tail -2
[ 8812.004411] NVRM: GPU3 rpcRmApiAlloc_GSP: GspRmAlloc failed: status=0x00000062
[ 8812.004420] NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required [NV_ERR_RESET_REQUIRED]\
 (0x00000062) returned from status @ kernel_channel.c:1999
"""

RESET_REQUIRED_SMI_Q = """\
RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable
$ nvidia-smi -q -i 1 | grep -A2 "Reset Status"
    GPU Reset Status
        Reset Required                    : Yes
        Drain and Reset Recommended       : No
"""

BUSY_COMPUTE_MODE = """\
RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable
$ nvidia-smi --query-gpu=index,compute_mode --format=csv
index, compute_mode
0, Exclusive_Process
"""


def test_reset_required_in_the_kernel_log_explains_busy_or_unavailable() -> None:
    ids = _errors(RESET_REQUIRED)
    assert ids[0] == "gpu_xid_fault"
    assert "compute_mode_exclusive_or_prohibited" not in _ids(RESET_REQUIRED)


def test_reset_required_in_smi_q_explains_busy_or_unavailable() -> None:
    assert _errors(RESET_REQUIRED_SMI_Q)[0] == "gpu_xid_fault"
    assert "compute_mode_exclusive_or_prohibited" not in _ids(RESET_REQUIRED_SMI_Q)


def test_busy_without_an_error_state_stays_compute_mode() -> None:
    ids = _ids(BUSY_COMPUTE_MODE)
    assert ids[0] == "compute_mode_exclusive_or_prohibited"
    assert "gpu_xid_fault" not in ids


def test_error_state_keeps_a_compute_mode_the_text_shows_itself() -> None:
    shown = Match("compute_mode_exclusive_or_prohibited", 3, "0, Exclusive_Process", True, 0.9)
    fault = Match("gpu_xid_fault", 5, "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.", True, 0.9)
    busy = Match("compute_mode_exclusive_or_prohibited", 1, "CUDA-capable device(s) is/are busy or unavailable", True)
    assert error_state_explains_unavailable([shown, fault]) == [shown, fault]
    assert error_state_explains_unavailable([busy, fault]) == [fault]
    assert error_state_explains_unavailable([busy]) == [busy]


# ------------------------------------------------------------------------------ nvidia-smi's ERR! fields

POWER_ERR_ONLY = """\
+-------------------------------+----------------------+----------------------+
|   0  Tesla T4            On   | 00000000:00:1E.0 Off |                    0 |
| N/A   41C    P8   ERR! /  70W |      2MiB / 15360MiB |      0%      Default |
+-------------------------------+----------------------+----------------------+
"""

ALL_FIELDS_ERR = """\
+-------------------------------+----------------------+----------------------+
|   0  Tesla T4            On   | 00000000:00:1E.0 Off |                    0 |
| ERR!  ERR!  ERR!    ERR! / ERR! |      0MiB / 15360MiB |    ERR!      Default |
+-------------------------------+----------------------+----------------------+
"""


def test_lone_power_err_is_no_fault() -> None:
    assert "gpu_xid_fault" not in _ids(POWER_ERR_ONLY)


def test_err_in_every_field_is_still_read_as_a_fault() -> None:
    assert "gpu_xid_fault" in _ids(ALL_FIELDS_ERR)


# ------------------------------------------------------------------------------ GSP firmware of another release

GSP_FIRMWARE_MISMATCH = """\
$ modinfo nvidia | grep ^version
version:        570.133.07
$ journalctl -k -b | grep NVRM
kernel: NVRM: GPU0 _kgspFwContainerVerifyVersion: GSP firmware image version mismatch: got version 570.144,\
 expected version 570.133.07
kernel: NVRM: GPU0 kgspInitRm_IMPL: Error preparing GSP-RM image
kernel: NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x61:0x0:1697)
"""

GSP_TIMEOUT = """\
kernel: NVRM: GPU0 Timeout waiting for RPC from GSP! Expected function 76 (GSP_RM_CONTROL) (0x2080014b 0x5).
"""


def test_gsp_firmware_of_another_release_is_a_version_mismatch() -> None:
    assert _errors(GSP_FIRMWARE_MISMATCH)[0] == "driver_library_mismatch"


def test_gsp_timeout_is_not_a_version_mismatch() -> None:
    assert "driver_library_mismatch" not in _ids(GSP_TIMEOUT)


# ------------------------------------------------------------------------------ the hook without its CLI

HOOK_WITHOUT_CLI = """\
$ docker run --rm --runtime=nvidia nvidia/cuda:12.4.1-base-ubuntu22.04 nvidia-smi
docker: Error response from daemon: OCI runtime create failed: container_linux.go:345: starting container\
 process caused "process_linux.go:424: container init caused \\"process_linux.go:407: running prestart hook 1\
 caused \\\\\\"error running hook: exit status 1, stdout: , stderr: nvidia-container-runtime-hook: couldn't\
 find binary nvidia-container-cli in /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin : exec:\
 \\\\\\\\\\\\\\"nvidia-container-cli\\\\\\\\\\\\\\": executable file not found in $PATH\\\\\\\\n\\\\\\"\\"":\
 unknown.
"""

CLI_INITIALIZATION_ERROR = """\
docker: Error response from daemon: failed to create task for container: OCI runtime create failed: error\
 running hook #0: error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: initialization\
 error: load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory:\
 unknown.
"""


def test_hook_without_nvidia_container_cli_is_a_toolkit_problem() -> None:
    assert _errors(HOOK_WITHOUT_CLI)[0] == "docker_no_gpu_runtime"


def test_cli_that_runs_and_fails_is_not_a_missing_cli() -> None:
    errors = _errors(CLI_INITIALIZATION_ERROR)
    assert not errors or errors[0] != "docker_no_gpu_runtime"


# ------------------------------------------------------------------------------ a machine without an NVIDIA GPU

WSL_NO_ADAPTERS_NO_GPU = """\
$ docker compose up
Error response from daemon: nvidia-container-cli: initialization error: WSL environment detected but no\
 adapters were found: unknown
This is a Surface laptop on Windows 11 with WSL2; it doesn't have a dedicated graphics card, only what the CPU has.
"""

WSL_NO_ADAPTERS_ALONE = """\
$ docker compose up
Error response from daemon: nvidia-container-cli: initialization error: WSL environment detected but no\
 adapters were found: unknown
Windows 11, WSL2, Docker Desktop 4.30.
"""

NO_GPU_IN_PASSING = """\
Error response from daemon: nvidia-container-cli: initialization error: WSL environment detected but no\
 adapters were found: unknown
My desktop has an RTX 4070; the old laptop without a dedicated GPU is not involved.
"""

CONTAINER_WITHOUT_GPU = """\
RuntimeError: No CUDA GPUs are available
The container doesn't have a dedicated GPU assigned, the host has four.
"""


def test_stated_gpuless_machine_explains_wsl_no_adapters() -> None:
    ids = _errors(WSL_NO_ADAPTERS_NO_GPU)
    assert ids[0] == "no_nvidia_gpu"
    assert "wsl_libcuda_problem" not in _ids(WSL_NO_ADAPTERS_NO_GPU)


def test_wsl_no_adapters_alone_is_not_read_as_no_gpu() -> None:
    assert "no_nvidia_gpu" not in _ids(WSL_NO_ADAPTERS_ALONE)


def test_statement_beside_a_named_nvidia_gpu_or_about_a_container_does_not_count() -> None:
    assert stated_gpuless_machine(clean_lines(NO_GPU_IN_PASSING)) is None
    assert stated_gpuless_machine(clean_lines(CONTAINER_WITHOUT_GPU)) is None
    said = stated_gpuless_machine(clean_lines(WSL_NO_ADAPTERS_NO_GPU))
    assert said is not None and said.id == "no_nvidia_gpu" and said.line_no == 3


# ------------------------------------------------------------------------------ the GPU flag after the image

SINGULARITY_NV_AFTER_IMAGE = """\
#SBATCH --gres=gpu:2
module load apptainer
singularity exec /data/images/pytorch-24.03.sif --nv python train.py
/.singularity.d/actions/exec: 9: exec: --nv: not found
"""

DOCKER_GPUS_AFTER_IMAGE = """\
$ docker run -it nvcr.io/nvidia/pytorch:24.03-py3 --gpus all nvidia-smi
docker: Error response from daemon: failed to create task for container: failed to create shim task: OCI runtime \
create failed: runc create failed: unable to start container process: exec: "--gpus": executable file not found in \
$PATH: unknown.
"""

PROGRAM_NOT_IN_IMAGE = """\
/.singularity.d/actions/exec: 9: exec: python: not found
docker: Error response from daemon: exec: "python3": executable file not found in $PATH: unknown.
"""


def test_gpu_flag_after_the_image_is_a_container_without_gpu() -> None:
    assert _errors(SINGULARITY_NV_AFTER_IMAGE)[0] == "docker_no_gpu_runtime"
    assert _errors(DOCKER_GPUS_AFTER_IMAGE)[0] == "docker_no_gpu_runtime"


def test_a_program_missing_from_the_image_is_not_the_gpu_flag() -> None:
    assert "docker_no_gpu_runtime" not in _ids(PROGRAM_NOT_IN_IMAGE)


# ------------------------------------------------------------------------------ nvidia-smi missing in a CUDA image

SMI_MISSING_IN_CUDA_IMAGE = """\
docker run -it nvidia/cuda:12.1.1-cudnn8-devel-ubuntu22.04 bash
root@3f2a9c:/# nvcc --version | tail -1
Build cuda_12.1.r12.1/compiler.32688072_0
root@3f2a9c:/# nvidia-smi
bash: nvidia-smi: command not found
"""

SMI_MISSING_ON_HOST = """\
$ nvidia-smi
bash: nvidia-smi: command not found
$ lspci | grep -i nvidia
01:00.0 VGA compatible controller: NVIDIA Corporation GA104 [GeForce RTX 3070] (rev a1)
"""

SMI_WORKS_IN_IMAGE = """\
FROM nvidia/cuda:11.8.0-runtime-ubuntu22.04
$ nvidia-smi
| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |
$ nvtop
bash: nvtop: command not found, nvidia-smi shows the GPU
"""


def test_smi_missing_in_a_cuda_image_is_a_container_without_gpu() -> None:
    assert _errors(SMI_MISSING_IN_CUDA_IMAGE)[0] == "docker_no_gpu_runtime"


def test_smi_missing_on_a_host_or_working_in_the_image_is_not_read_so() -> None:
    assert image_without_smi(clean_lines(SMI_MISSING_ON_HOST)) is None
    assert "docker_no_gpu_runtime" not in _ids(SMI_MISSING_ON_HOST)
    assert image_without_smi(clean_lines(SMI_WORKS_IN_IMAGE)) is None


# ------------------------------------------------------------------------------ a GPU job without GPU device nodes

JOB_ASKED_NO_NODES = """\
user@login01:~$ srun -p a100 --gres=gpu:2 --container-image=nvcr.io/nvidia/pytorch:24.03-py3 ls /dev/nvidia[01]
ls: cannot access '/dev/nvidia0': No such file or directory
ls: cannot access '/dev/nvidia1': No such file or directory
RuntimeError: CUDA error: no CUDA-capable device is detected
"""

JOB_NOT_ASKED_NO_NODES = """\
user@login01:~$ srun -p a100 --time=10 ls -l /dev/nvidia0
ls: cannot access '/dev/nvidia0': No such file or directory
"""

HOST_WITHOUT_NODES = """\
$ ls -l /dev/nvidia0
ls: cannot access '/dev/nvidia0': No such file or directory
$ nvidia-smi
NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.
"""


def test_job_that_asked_for_gpus_without_device_nodes_got_no_allocation() -> None:
    ids = _errors(JOB_ASKED_NO_NODES)
    assert ids[0] == "scheduler_no_gpu_allocated"
    assert "no_nvidia_gpu" not in _ids(JOB_ASKED_NO_NODES)


def test_missing_nodes_without_a_gpu_request_or_a_job_are_not_this_reading() -> None:
    assert requested_gpus_not_in_job(clean_lines(JOB_NOT_ASKED_NO_NODES)) is None
    assert requested_gpus_not_in_job(clean_lines(HOST_WITHOUT_NODES)) is None
    assert "scheduler_no_gpu_allocated" not in _ids(HOST_WITHOUT_NODES)


# ------------------------------------------------------------------------------ "no device" inside WSL2

WSL_NO_DEVICE = """\
Ubuntu 22.04 under WSL2 on Windows 11, RTX card works in Windows.
numba.cuda.cudadrv.error.CudaSupportError: Error at driver init: Call to cuInit results in CUDA_ERROR_NO_DEVICE (100)
"""

LINUX_NO_DEVICE = """\
Ubuntu 22.04 server.
numba.cuda.cudadrv.error.CudaSupportError: Error at driver init: Call to cuInit results in CUDA_ERROR_NO_DEVICE (100)
"""


def test_no_device_in_wsl_reads_wsl_libcuda_first() -> None:
    assert _ids(WSL_NO_DEVICE)[0] == "wsl_libcuda_problem"


def test_no_device_outside_wsl_is_not_blamed_on_wsl() -> None:
    assert "wsl_libcuda_problem" not in _ids(LINUX_NO_DEVICE)


def test_wsl_reading_yields_to_a_specific_cause() -> None:
    no_device = Match("no_nvidia_gpu", 2, "CUDA_ERROR_NO_DEVICE (100)", False, 0.4)
    stated = Match("no_nvidia_gpu", 1, "my laptop has no NVIDIA GPU", True, 0.8)
    assert wsl_no_device_first(True, [no_device, stated]) == [no_device, stated]
    assert wsl_no_device_first(False, [no_device]) == [no_device]
    assert [m.id for m in wsl_no_device_first(True, [no_device])] == ["no_nvidia_gpu", "wsl_libcuda_problem"]


def test_something_else_not_found_beside_nvidia_smi_is_not_a_missing_smi() -> None:
    text = "docker run nvidia/cuda:12.1.1-runtime-ubuntu22.04 python3 t.py\nnvidia-smi is fine, libcudnn.so.8 not found"
    assert image_without_smi(clean_lines(text)) is None


def test_smi_missing_in_an_image_whose_tag_names_cuda() -> None:
    text = "docker run -it --rm someone/comfyui-docker:ubuntu24_cuda12.8-latest\n!! ERROR: nvidia-smi not found"
    assert _errors(text)[0] == "docker_no_gpu_runtime"


# ------------------------------------------------------------------------------ busy with the compute mode shown

BUSY_DEFAULT_TABLE = """\
RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable
| NVIDIA-SMI 535.161.07             Driver Version: 535.161.07   CUDA Version: 12.2     |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|   0  NVIDIA A10G                    On  | 00000000:00:1E.0 Off |                    0 |
|  0%   24C    P8              16W / 300W |      4MiB / 23028MiB |      0%      Default |
"""

BUSY_EXCLUSIVE_TABLE = BUSY_DEFAULT_TABLE.replace("0%      Default |", "0%   E. Process |")

BUSY_DEFAULT_QUERY = """\
RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable
$ nvidia-smi -q | grep "Compute Mode"
    Compute Mode                          : Default
"""


def test_default_compute_mode_shown_rules_out_the_compute_mode_reading() -> None:
    assert "compute_mode_exclusive_or_prohibited" not in _ids(BUSY_DEFAULT_TABLE)
    assert "compute_mode_exclusive_or_prohibited" not in _ids(BUSY_DEFAULT_QUERY)


def test_exclusive_compute_mode_shown_keeps_the_compute_mode_reading() -> None:
    assert _errors(BUSY_EXCLUSIVE_TABLE)[0] == "compute_mode_exclusive_or_prohibited"
    busy = Match("compute_mode_exclusive_or_prohibited", 1, "CUDA-capable device(s) is/are busy or unavailable", True)
    assert default_mode_rules_out_compute_mode(clean_lines(BUSY_EXCLUSIVE_TABLE), [busy]) == [busy]
    assert default_mode_rules_out_compute_mode(clean_lines(BUSY_COMPUTE_MODE.splitlines()[0]), [busy]) == [busy]
