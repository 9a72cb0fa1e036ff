"""Robustness of the system-side readers (issue #14): the same cause pasted by the next user.

Each variant restates a system-side corpus text (``base``: its file in tests/data/errors) the way another user
pastes the SAME problem: another driver, GPU, distro, host name or timestamp; dmesg, ``dmesg -T``/``-x``/``-H``,
``/dev/kmsg``'s ``<4>`` level, /var/log/kern.log's double prefix, journalctl's short/-precise/-iso/-full/-monotonic
and ``-o json``/``json-pretty``; Docker vs docker compose vs Podman vs containerd/CRI-O vs Kubernetes event wording;
a Docker json-file log; PowerShell vs cmd; a forum's wrapped line, HTML escapes, curly quotes; a text cut before its
last line; prose in other words. Every message is written from the program that prints it (``why`` names it), not
from what gpuassist's patterns accept. Decoys beside them use the same formats and words for a healthy system, a
question, another runtime or device: they must claim no error. The texts are written here, not taken from a thread.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.ingest.structured_logs import log_lines


class Variant(NamedTuple):
    name: str
    expect: str
    base: str  # the corpus text (tests/data/errors) whose cause this restates
    why: str  # what differs, and where the format comes from
    text: str


class Decoy(NamedTuple):
    name: str
    why: str
    text: str
    banned: tuple[str, ...] = ()


V = Variant
API_MISMATCH = (
    "NVRM: API mismatch: the client has the version {client}, but",
    "NVRM: this kernel module has the version {module}.  Please",
    "NVRM: make sure that this kernel module and all NVIDIA driver",
    "NVRM: components have the same version.",
)
LEGACY = (
    "NVRM: The NVIDIA {gpu} GPU installed in this system is",
    "NVRM:  supported through the NVIDIA {branch}.xx Legacy drivers. Please",
    "NVRM:  visit http://www.nvidia.com/object/unix.html for more",
    "NVRM:  information.  The {driver} NVIDIA driver will ignore",
    "NVRM:  this GPU.  Continuing probe...",
)
DRIVER_TOO_OLD = (
    "RuntimeError: The NVIDIA driver on your system is too old (found version {found}). Please update your GPU "
    "driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx "
    "Alternatively, go to: https://pytorch.org to install a PyTorch version that has been compiled with your "
    "version of the CUDA driver."
)
# runc >= 1.1 via containerd's shim, as docker >= 23, docker compose and Kubernetes print a failing prestart hook
SHIM = (
    "failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: "
    "error during container init: error running hook #0: error running hook: exit status 1, stdout: , stderr: "
    "Auto-detected mode as 'legacy'"
)
ARCH_TOO_NEW = (
    "{gpu} with CUDA capability sm_120 is not compatible with the current PyTorch installation.",
    "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.",
)
ERR_802 = (
    "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions "
    "before calling NumCudaDevices() that might have already set the error? Error {code}: {words} (Triggered "
    "internally at /pytorch/c10/cuda/CUDAFunctions.cpp:109.)"
)


def _log(prefix: str, lines: tuple[str, ...], **values: str) -> str:
    return "".join(f"{prefix}{line.format(**values)}\n" for line in lines)


def _journal_json(*messages: str, pretty: bool = False) -> str:
    """journalctl -o json (one object a line) or -o json-pretty (tab-indented objects back to back)."""
    out = []
    for n, message in enumerate(messages):
        fields = {
            "__REALTIME_TIMESTAMP": str(1764032523000000 + n),
            "_HOSTNAME": "gpu07",
            "_TRANSPORT": "kernel",
            "SYSLOG_IDENTIFIER": "kernel",
            "PRIORITY": "3",
            "MESSAGE": message,
        }
        if pretty:
            body = ",\n".join(f'\t"{k}" : {_json_str(v)}' for k, v in fields.items())
            out.append("{\n" + body + "\n}\n")
        else:
            out.append("{" + ",".join(f'"{k}":{_json_str(v)}' for k, v in fields.items()) + "}\n")
    return "".join(out)


def _json_str(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


VARIANTS = [
    # ------------------------------------------------ driver_library_mismatch
    V(
        "mismatch-smi-with-nvml-library-line",
        "driver_library_mismatch",
        "illinois-scicomp-machine-shop-maintenance-60-nvml-mismatch.txt",
        "nvidia-smi >= 535 prints the NVML library version under the error; other host and driver",
        "user@gpu-node07:~$ nvidia-smi\nFailed to initialize NVML: Driver/library version mismatch\n"
        "NVML library version: 550.127\n",
    ),
    V(
        "mismatch-kern-log-double-prefix",
        "driver_library_mismatch",
        "NVIDIA-nvidia-docker-182-journalctl-api-mismatch.txt",
        "/var/log/kern.log (rsyslog) keeps the kernel's [uptime] after the syslog prefix; osapi.c's four lines",
        _log("Mar  3 09:14:22 ws-4 kernel: [ 1234.567890] ", API_MISMATCH, client="545.29.06", module="545.23.08"),
    ),
    V(
        "mismatch-dmesg-T-continuation-indent",
        "driver_library_mismatch",
        "stackhpc-ansible-slurm-appliance-287-journal-api-mismatch.txt",
        "dmesg -T prints a human date; util-linux indents a record's continuation lines under it",
        "[Tue Mar  3 09:14:22 2026] "
        + _log("                           ", API_MISMATCH, client="570.133.07", module="570.124.06").lstrip(),
    ),
    V(
        "mismatch-dmesg-x-facility-level",
        "driver_library_mismatch",
        "stackhpc-ansible-slurm-appliance-287-journal-api-mismatch.txt",
        "dmesg -x (--decode) puts 'kern  :err   : ' before the timestamp",
        _log("kern  :err   : [  812.004211] ", API_MISMATCH, client="560.35.03", module="560.28.03"),
    ),
    V(
        "mismatch-markdown-indented-code",
        "driver_library_mismatch",
        "Frogging-Family-nvidia-all-394-dmesg-api-mismatch-client-pid.txt",
        "a Markdown code block made by indenting four spaces",
        _log("    [ 1234.567890] ", API_MISMATCH[:2], client="545.29.06", module="545.23.08"),
    ),
    V(
        "mismatch-journal-short-precise",
        "driver_library_mismatch",
        "NVIDIA-nvidia-docker-182-journalctl-api-mismatch.txt",
        "journalctl -o short-precise: microseconds after the seconds",
        _log("Nov 25 01:02:03.123456 lab-pc kernel: ", API_MISMATCH[:2], client="535.216.01", module="535.183.01"),
    ),
    V(
        "mismatch-journal-short-monotonic",
        "driver_library_mismatch",
        "NVIDIA-nvidia-docker-182-journalctl-api-mismatch.txt",
        "journalctl -o short-monotonic: [uptime] then host and identifier",
        _log("[  812.004211] lab-pc kernel: ", API_MISMATCH[:2], client="535.216.01", module="535.183.01"),
    ),
    V(
        "mismatch-kernel-cut-after-first-line",
        "driver_library_mismatch",
        "Frogging-Family-nvidia-all-394-dmesg-api-mismatch-client-pid.txt",
        "the paste stops after osapi.c's first line",
        _log("[ 1234.567890] ", API_MISMATCH[:1], client="545.29.06"),
    ),
    V(
        "mismatch-journal-json",
        "driver_library_mismatch",
        "stackhpc-ansible-slurm-appliance-287-journal-api-mismatch.txt",
        "journalctl -k -o json: one journald export object a line, the kernel line in MESSAGE (was refused as JSON)",
        _journal_json(
            *(line.format(client="550.120", module="550.107.02") for line in API_MISMATCH[:2]),
        ),
    ),
    V(
        "mismatch-cuda-803-torch",
        "driver_library_mismatch",
        "illinois-scicomp-machine-shop-maintenance-60-nvml-mismatch.txt",
        "the CUDA runtime's view of the same state: cudaErrorSystemDriverMismatch (803) through torch",
        "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
        "NumCudaDevices() that might have already set the error? Error 803: system has unsupported display driver / "
        "cuda driver combination\n",
    ),
    V(
        "mismatch-docker-runc-shim",
        "driver_library_mismatch",
        "apache-mxnet-21114-ci-nvidia-container-cli-nvml-mismatch.txt",
        "docker >= 23 wraps libnvidia-container's configure.c 'initialization error: nvml error' in runc's shim words",
        f"docker: Error response from daemon: failed to create task for container: {SHIM}\n"
        "nvidia-container-cli: initialization error: nvml error: driver/library version mismatch: unknown.\n",
    ),
    V(
        "mismatch-kubernetes-event",
        "driver_library_mismatch",
        "apache-mxnet-21114-ci-nvidia-container-cli-nvml-mismatch.txt",
        "kubectl describe pod: kubelet's event wraps containerd's 'failed to create containerd task'",
        f"  Warning  Failed     12s (x3 over 40s)  kubelet  Error: failed to create containerd task: {SHIM}\n"
        "nvidia-container-cli: initialization error: nvml error: driver/library version mismatch: unknown\n",
    ),
    V(
        "mismatch-wrapped-by-forum",
        "driver_library_mismatch",
        "illinois-scicomp-machine-shop-maintenance-60-nvml-mismatch.txt",
        "a narrow forum column breaks nvidia-smi's line before its last word",
        "$ nvidia-smi\nFailed to initialize NVML: Driver/library version\nmismatch\n",
    ),
    V(
        "mismatch-html-escaped-quote",
        "driver_library_mismatch",
        "apache-mxnet-21114-ci-nvidia-container-cli-nvml-mismatch.txt",
        "copied from a mail archive: '>' quoting written as &gt;",
        "&gt; nvidia-container-cli: initialization error: nvml error: driver/library version mismatch: unknown.\n",
    ),
    V(
        "mismatch-prose-after-upgrade",
        "driver_library_mismatch",
        "illinois-scicomp-machine-shop-maintenance-60-nvml-mismatch.txt",
        "the user's own words around nvidia-smi's message",
        'After apt upgraded the nvidia packages last night nvidia-smi just says "Failed to initialize NVML: '
        "Driver/library version mismatch\" and torch.cuda.is_available() is False. I haven't rebooted yet.\n",
    ),
    # ------------------------------------------------ nvidia_module_not_loaded
    V(
        "module-smi-failed-zsh-prompt",
        "nvidia_module_not_loaded",
        "junxnone-tio-206-nvidia-smi-failed-after-kernel-update.txt",
        "nvidia-smi's failure under a starship/zsh prompt",
        "❯ nvidia-smi\nNVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that "
        "the latest NVIDIA driver is installed and running.\n\n",
    ),
    V(
        "module-smi-failed-wrapped",
        "nvidia_module_not_loaded",
        "junxnone-tio-206-nvidia-smi-failed-after-kernel-update.txt",
        "the same message wrapped at ~70 columns by a forum",
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA\ndriver. Make sure that the latest "
        "NVIDIA driver is installed and\nrunning.\n",
    ),
    V(
        "module-modules-load-key-rejected",
        "nvidia_module_not_loaded",
        "NixOS-nixpkgs-267335-journalctl-nvidia-uvm-no-such-device.txt",
        "systemd-modules-load's 'Failed to insert module' with Secure Boot's errno text (kmod strerror)",
        "Nov 25 01:02:03 fedora systemd-modules-load[612]: Failed to insert module 'nvidia': Key was rejected by "
        "service\n",
    ),
    V(
        "module-probe-not-called-iso",
        "nvidia_module_not_loaded",
        "mattshma-bigdata-133-dmesg-probe-routine-not-called.txt",
        "journalctl -o short-iso; nv.c's older wording naming nouveau/rivafb",
        _log(
            "2026-11-25T01:02:03.123456+00:00 node3 kernel: ",
            (
                "NVRM: The NVIDIA probe routine was not called for 1 device(s).",
                "NVRM: This can occur when a driver such as:",
                "NVRM: nouveau, rivafb, nvidiafb or rivatv",
                "NVRM: was loaded and obtained ownership of the NVIDIA device(s).",
            ),
        ),
    ),
    V(
        "module-probe-not-called-kern-log",
        "nvidia_module_not_loaded",
        "mattshma-bigdata-133-dmesg-probe-routine-not-called.txt",
        "kern.log's double prefix; nv.c's newer 'another driver was loaded' wording",
        _log(
            "Nov 25 01:02:03 pc kernel: [    6.101010] ",
            (
                "NVRM: The NVIDIA probe routine was not called for 1 device(s).",
                "NVRM: This can occur when another driver was loaded and ",
                "NVRM: obtained ownership of the NVIDIA device(s).",
                "NVRM: Try unloading the conflicting kernel module (and/or",
            ),
        ),
    ),
    V(
        "module-persistenced-no-device-files",
        "nvidia_module_not_loaded",
        "NixOS-nixpkgs-267335-journalctl-nvidia-uvm-no-such-device.txt",
        "nvidia-persistenced's syslog line (nvidia-persistenced.c setup_devices) in journalctl (was read as nothing)",
        "Nov 25 01:02:03 host nvidia-persistenced[1021]: Failed to query NVIDIA devices. Please ensure that the "
        "NVIDIA device files (/dev/nvidia*) exist, and that user 0 has read and write permissions for those files.\n",
    ),
    V(
        "module-modprobe-key-rejected",
        "nvidia_module_not_loaded",
        "NixOS-nixpkgs-267335-journalctl-nvidia-uvm-no-such-device.txt",
        "kmod's modprobe wording of the same Secure Boot refusal (tools/modprobe.c 'could not insert')",
        "$ sudo modprobe nvidia\nmodprobe: ERROR: could not insert 'nvidia': Key was rejected by service\n",
    ),
    V(
        "module-not-built-for-kernel",
        "nvidia_module_not_loaded",
        "CachyOS-linux-cachyos-118-nvidia-smi-failed-dkms.txt",
        "kmod's 'Module nvidia not found in directory' after a kernel update",
        "$ sudo modprobe nvidia\nmodprobe: FATAL: Module nvidia not found in directory /lib/modules/6.11.0-9-generic\n",
    ),
    V(
        "module-dkms-bad-return",
        "nvidia_module_not_loaded",
        "CachyOS-linux-cachyos-118-nvidia-smi-failed-dkms.txt",
        "DKMS 3.x's build failure lines for the nvidia module",
        "Building module:\nCleaning build area...\n'make' -j16 NV_EXCLUDE_BUILD_MODULES='' "
        "KERNEL_UNAME=6.8.0-49-generic modules...(bad exit status: 2)\nError! Bad return status for module build on "
        "kernel: 6.8.0-49-generic (x86_64)\nConsult /var/lib/dkms/nvidia/550.120/build/make.log for more "
        "information.\n",
    ),
    # ------------------------------------------------ driver_too_old
    V(
        "too-old-requirement-podman-crun",
        "driver_too_old",
        "NVIDIA-nvidia-docker-1442-requirement-cuda110.txt",
        "Podman runs the toolkit's OCI hook through crun: crun's hook error above libnvidia-container's requirement",
        "Error: OCI runtime error: crun: error executing hook `/usr/bin/nvidia-container-toolkit` (exit code: 1)\n"
        "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.6, please update your driver to "
        "a newer version, or use an earlier cuda container\n",
    ),
    V(
        "too-old-requirement-compose-runc",
        "driver_too_old",
        "NVIDIA-nvidia-docker-1442-requirement-cuda110.txt",
        "docker compose prints the daemon's error without 'docker:'; runc's newer shim wording",
        f"Error response from daemon: failed to create task for container: {SHIM}\n"
        "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please update your driver to "
        "a newer version, or use an earlier cuda container: unknown\n",
    ),
    V(
        "too-old-kubectl-events-json",
        "driver_too_old",
        "NVIDIA-nvidia-docker-1442-requirement-cuda110.txt",
        "kubectl get events -o json: the event's message inside a List's items (was refused as JSON)",
        '{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"Event","reason":"Failed","type":"Warning",'
        '"message":"Error: failed to create containerd task: '
        + SHIM
        + "\\nnvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.4, please update your driver "
        'to a newer version, or use an earlier cuda container: unknown"}],"kind":"List","metadata":'
        '{"resourceVersion":""}}\n',
    ),
    V(
        "too-old-torch-linux-traceback",
        "driver_too_old",
        "lllyasviel-forge-2053-driver-too-old-press-any-key.txt",
        "torch/cuda/__init__.py _check_driver on Linux with a 12.2 driver (found version 12020)",
        '  File "/home/ana/.venv/lib/python3.12/site-packages/torch/cuda/__init__.py", line 372, in _lazy_init\n'
        "    torch._C._cuda_init()\n" + DRIVER_TOO_OLD.format(found="12020") + "\n",
    ),
    V(
        "too-old-torch-wrapped",
        "driver_too_old",
        "lllyasviel-forge-2053-driver-too-old-press-any-key.txt",
        "the same message wrapped mid-sentence, cut after the URL",
        "RuntimeError: The NVIDIA driver on your system is too old (found version\n11040). Please update your GPU "
        "driver by downloading and installing a new\nversion from the URL: http://www.nvidia.com/Download/index.aspx\n",
    ),
    V(
        "too-old-docker-json-file-log",
        "driver_too_old",
        "lllyasviel-forge-2053-driver-too-old-press-any-key.txt",
        "a container's log under Docker's json-file driver ({log, stream, time}) (was refused as JSON)",
        '{"log":"' + DRIVER_TOO_OLD.format(found="11080") + '\\n","stream":"stderr",'
        '"time":"2026-11-25T01:02:03.123456789Z"}\n',
    ),
    V(
        "too-old-compose-service-prefix",
        "driver_too_old",
        "lllyasviel-forge-2053-driver-too-old-press-any-key.txt",
        "docker compose logs prefixes each line with '<service>-1  | '",
        "ollama-1  | " + DRIVER_TOO_OLD.format(found="11080") + "\n",
    ),
    V(
        "too-old-compose-ansi-colours",
        "driver_too_old",
        "lllyasviel-forge-2053-driver-too-old-press-any-key.txt",
        "docker compose logs saved with its colour codes around the service prefix",
        "\x1b[36mollama-1  |\x1b[0m " + DRIVER_TOO_OLD.format(found="11080") + "\n",
    ),
    V(
        "too-old-windows-crlf-wrapped",
        "driver_too_old",
        "lllyasviel-forge-2053-driver-too-old-press-any-key.txt",
        "a Windows console copy: CRLF line ends, the message broken before '(found'",
        DRIVER_TOO_OLD.format(found="11070").replace(" (found", "\r\n(found")
        + "\r\nPress any key to continue . . .\r\n",
    ),
    V(
        "too-old-kubectl-logs-timestamps",
        "driver_too_old",
        "lllyasviel-forge-2053-driver-too-old-press-any-key.txt",
        "kubectl logs --timestamps: an RFC 3339 nanosecond stamp before each line",
        "2026-11-25T01:02:03.123456789Z " + DRIVER_TOO_OLD.format(found="12020") + "\n",
    ),
    # ------------------------------------------------ docker_no_gpu_runtime
    V(
        "runtime-compose-select-driver",
        "docker_no_gpu_runtime",
        "infiniflow-ragflow-9573-docker-driver-nvidia.txt",
        "docker compose up with deploy.resources.reservations.devices: the daemon's error without 'docker:'",
        "$ docker compose up\n[+] Running 1/0\n ✔ Container ollama  Created\nAttaching to ollama\n"
        'Error response from daemon: could not select device driver "nvidia" with capabilities: [[gpu]]\n',
    ),
    V(
        "runtime-select-driver-wrapped",
        "docker_no_gpu_runtime",
        "infiniflow-ragflow-9573-docker-driver-nvidia.txt",
        "a forum wraps the daemon's message before 'capabilities'",
        'docker: Error response from daemon: could not select device driver "nvidia" with\ncapabilities: [[gpu]].\n',
    ),
    V(
        "runtime-select-driver-curly-quotes",
        "docker_no_gpu_runtime",
        "infiniflow-ragflow-9573-docker-driver-nvidia.txt",
        "a forum editor turns the quotes curly",
        "docker: Error response from daemon: could not select device driver \u201cnvidia\u201d with capabilities: "
        "[[gpu]].\n",
    ),
    V(
        "runtime-select-driver-html-escaped",
        "docker_no_gpu_runtime",
        "infiniflow-ragflow-9573-docker-driver-nvidia.txt",
        "copied from a page's source: quotes as &quot; (was read as nothing)",
        "docker: Error response from daemon: could not select device driver &quot;nvidia&quot; with capabilities: "
        "[[gpu]].\n",
    ),
    V(
        "runtime-ci-timestamp",
        "docker_no_gpu_runtime",
        "infiniflow-ragflow-9573-docker-driver-nvidia.txt",
        "a GitHub Actions log: 7-digit fraction timestamp before each line",
        '2026-11-25T01:02:03.1234567Z docker: Error response from daemon: could not select device driver "nvidia" '
        "with capabilities: [[gpu]].\n",
    ),
    V(
        "runtime-unknown-runtime-docker-run",
        "docker_no_gpu_runtime",
        "NVIDIA-AI-IOT-live-vlm-webui-28-orin-nano-jp623-unknown-runtime-nvidia.txt",
        "docker run --runtime nvidia on a host whose daemon.json has no nvidia runtime, with the CLI's help hint",
        "docker: Error response from daemon: unknown or invalid runtime name: nvidia.\nSee 'docker run --help'.\n",
    ),
    V(
        "runtime-unknown-runtime-compose-v1",
        "docker_no_gpu_runtime",
        "NVIDIA-AI-IOT-live-vlm-webui-28-orin-nano-jp623-unknown-runtime-nvidia.txt",
        "docker-compose v1 with runtime: nvidia",
        "ERROR: for app  Cannot create container for service app: unknown runtime specified nvidia\n",
    ),
    V(
        "runtime-podman-cdi-unresolvable",
        "docker_no_gpu_runtime",
        "infiniflow-ragflow-9573-docker-driver-nvidia.txt",
        "Podman's CDI: no spec generated (nvidia-ctk cdi generate never run)",
        "$ podman run --rm --device nvidia.com/gpu=all ubuntu nvidia-smi -L\n"
        "Error: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all\n",
    ),
    V(
        "runtime-docker-cdi-unresolvable",
        "docker_no_gpu_runtime",
        "infiniflow-ragflow-9573-docker-driver-nvidia.txt",
        "the nvidia runtime in CDI mode (nvidia-container-runtime's modifier) with no spec",
        "Error response from daemon: failed to create task for container: failed to create shim task: OCI runtime "
        "create failed: could not apply required modification to OCI specification: error modifying OCI spec: "
        "failed to inject CDI devices: unresolvable CDI devices nvidia.com/gpu=all: unknown\n",
    ),
    V(
        "runtime-crio-runtime-handler",
        "docker_no_gpu_runtime",
        "NVIDIA-AI-IOT-live-vlm-webui-28-orin-nano-jp623-unknown-runtime-nvidia.txt",
        "CRI-O's handler lookup for RuntimeClass nvidia (internal/config: 'failed to find runtime handler %s from "
        "runtime list %v') (was read as nothing)",
        "  Warning  FailedCreatePodSandBox  3s (x5 over 61s)  kubelet  Failed to create pod sandbox: rpc error: "
        "code = Unknown desc = failed to find runtime handler nvidia from runtime list map[crun:0xc0004a6000 "
        "runc:0xc0004a6090]\n",
    ),
    V(
        "runtime-podman-default-runtime",
        "docker_no_gpu_runtime",
        "NVIDIA-AI-IOT-live-vlm-webui-28-orin-nano-jp623-unknown-runtime-nvidia.txt",
        "podman --runtime nvidia with no [engine.runtimes] entry (libpod/runtime.go: 'default OCI runtime %q not "
        "found') (was read as nothing)",
        "$ podman --runtime nvidia run --rm nvidia/cuda:12.4.1-base-ubuntu22.04 nvidia-smi\n"
        'Error: default OCI runtime "nvidia" not found: invalid argument\n',
    ),
    V(
        "runtime-k8s-device-plugin-no-toolkit",
        "docker_no_gpu_runtime",
        "infiniflow-ragflow-9573-docker-driver-nvidia.txt",
        "k8s-device-plugin's klog lines when containerd does not run it with the nvidia runtime (factory.go)",
        "I1125 01:02:03.123456       1 main.go:317] Retrieving plugins.\n"
        "E1125 01:02:03.123789       1 factory.go:87] Incompatible strategy detected auto\n"
        "E1125 01:02:03.123801       1 factory.go:88] If this is a GPU node, did you configure the NVIDIA "
        "Container Toolkit?\n"
        "I1125 01:02:03.123900       1 main.go:346] No devices found. Waiting indefinitely.\n",
    ),
    V(
        "runtime-exec-nvidia-smi-not-found",
        "docker_no_gpu_runtime",
        "infiniflow-ragflow-9573-docker-driver-nvidia.txt",
        "docker run without --gpus: runc cannot exec nvidia-smi, which only the toolkit mounts",
        "$ docker run --rm -it nvidia/cuda:12.6.2-base-ubuntu24.04 nvidia-smi\ndocker: Error response from daemon: "
        "failed to create task for container: failed to create shim task: OCI runtime create failed: runc create "
        'failed: unable to start container process: error during container init: exec: "nvidia-smi": executable '
        "file not found in $PATH: unknown\n",
    ),
    V(
        "runtime-ngc-banner-no-driver",
        "docker_no_gpu_runtime",
        "infiniflow-ragflow-9573-docker-driver-nvidia.txt",
        "an NGC image's start banner when run without the toolkit",
        "WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.\n"
        "   Use the NVIDIA Container Toolkit to start this container with GPU support; see\n"
        "   https://docs.nvidia.com/datacenter/cloud-native/ .\n",
    ),
    V(
        "runtime-zero-width-space",
        "docker_no_gpu_runtime",
        "infiniflow-ragflow-9573-docker-driver-nvidia.txt",
        "copied from a web page or chat client that put an invisible U+200B inside the message (was read as nothing)",
        'docker: Error response from daemon: could not select device\u200b driver "nvidia" with capabilities: '
        "[[gpu]].\n",
    ),
    V(
        "runtime-mail-quote-twice",
        "docker_no_gpu_runtime",
        "infiniflow-ragflow-9573-docker-driver-nvidia.txt",
        "a reply quoting a reply: '> > ' before the message",
        '> > docker: Error response from daemon: could not select device driver "nvidia" with capabilities: [[gpu]].\n',
    ),
    # ------------------------------------------------ container_gpu_access_lost
    V(
        "lost-nvml-unknown-in-container",
        "container_gpu_access_lost",
        "dstackai-dstack-2601-lambda-nvml-unknown-error-daemon-reload.txt",
        "a root shell in a container (hex host name) and NVML's 'Unknown Error'",
        "root@5f2c1e9b7a3d:/workspace# nvidia-smi\nFailed to initialize NVML: Unknown Error\n",
    ),
    V(
        "lost-podman-after-daemon-reload",
        "container_gpu_access_lost",
        "dstackai-dstack-2601-lambda-nvml-unknown-error-daemon-reload.txt",
        "podman exec instead of ssh; the user's own account of when it broke",
        "$ podman exec -it llm nvidia-smi\nFailed to initialize NVML: Unknown Error\nIt worked when the container "
        "started; after `systemctl daemon-reload` on the host it stopped.\n",
    ),
    V(
        "lost-kubernetes-prose",
        "container_gpu_access_lost",
        "NVIDIA-nvidia-docker-1671-nvml-unknown-error-after-random-time.txt",
        "the same failure told about a pod",
        "Our pods get the GPU at start but after a few hours `kubectl exec -it trainer-0 -- nvidia-smi` prints "
        "`Failed to initialize NVML: Unknown Error` until the pod is restarted. containerd 1.7, systemd cgroup "
        "driver.\n",
    ),
    # ------------------------------------------------ driver_does_not_support_gpu
    V(
        "legacy-470-journal",
        "driver_does_not_support_gpu",
        "fgci-org-ansible-role-cuda-16-m2070-legacy-390-dmesg.txt",
        "journalctl's syslog prefix on every line of nv-pci.c's legacy notice; another GPU, branch and driver",
        _log("Nov 25 01:02:03 arch kernel: ", LEGACY, gpu="GeForce GTX 780", branch="470", driver="550.78"),
    ),
    V(
        "legacy-kmsg-level",
        "driver_does_not_support_gpu",
        "fgci-org-ansible-role-cuda-16-m2070-legacy-390-dmesg.txt",
        "/dev/kmsg or dmesg -r keeps the '<4>' level before the timestamp",
        _log("<4>[    5.123456] ", LEGACY, gpu="GeForce GTX 680", branch="470", driver="535.154.05"),
    ),
    V(
        "legacy-cut-after-two-lines",
        "driver_does_not_support_gpu",
        "fgci-org-ansible-role-cuda-16-m2070-legacy-390-dmesg.txt",
        "the paste stops before 'will ignore this GPU'",
        _log("[    5.123456] ", LEGACY[:2], gpu="Quadro K4000", branch="470"),
    ),
    V(
        "open-module-without-gsp",
        "driver_does_not_support_gpu",
        "siderolabs-talos-8764-gt710-legacy-470-kern-log.txt",
        "the open kernel module on a pre-Turing GPU (osapi.c 'not supported by open nvidia.ko'), dmesg indent",
        "[    4.201339] NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:1e84)\n"
        "               NVRM: installed in this system is not supported by open\n"
        "               NVRM: nvidia.ko because it does not include the required GPU\n"
        "               NVRM: System Processor (GSP).\n",
    ),
    # ------------------------------------------------ gpu_xid_fault
    V(
        "xid79-journal-iso",
        "gpu_xid_fault",
        "NVIDIA-open-gpu-kernel-modules-1010-journal-xid79.txt",
        "journalctl -o short-iso; the open module's Xid with pid='<unknown>'",
        "2026-11-25T01:02:03+00:00 dgx02 kernel: NVRM: Xid (PCI:0000:b7:00): 79, pid='<unknown>', name=<unknown>, "
        "GPU has fallen off the bus.\n",
    ),
    V(
        "xid79-dmesg-human",
        "gpu_xid_fault",
        "NVIDIA-open-gpu-kernel-modules-1010-journal-xid79.txt",
        "dmesg -H: the first line dated, the next ones relative '[  +0.000004]'",
        "[Nov25 01:02] NVRM: GPU at PCI:0000:41:00: GPU-1b2c3d4e-0000-1111-2222-333344445555\n"
        "[  +0.000004] NVRM: Xid (PCI:0000:41:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
        "[  +0.000002] NVRM: GPU 0000:41:00.0: GPU has fallen off the bus.\n",
    ),
    V(
        "xid48-kern-log",
        "gpu_xid_fault",
        "Bumblebee-Project-Bumblebee-677-xid-32-31-card-failure.txt",
        "kern.log's double prefix; a DBE Xid with its text",
        "Nov 25 01:02:03 a100-3 kernel: [88123.456789] NVRM: Xid (PCI:0000:07:00): 48, pid=2211, name=python3, An "
        "uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 6, "
        "subpartition 0.\n",
    ),
    V(
        "xid119-journal-short-full",
        "gpu_xid_fault",
        "NVIDIA-open-gpu-kernel-modules-1010-journal-xid79.txt",
        "journalctl -o short-full (weekday, ISO date, zone); GSP RPC timeout Xid 119",
        "Wed 2026-11-25 01:02:03 UTC gpu-node-12 kernel: NVRM: Xid (PCI:0000:ca:00): 119, pid=8812, name=python, "
        "Timeout after 6s of waiting for RPC response from GPU0 GSP! Expected function 76 (GSP_RM_CONTROL) "
        "(0x20800a4c 0x4).\n",
    ),
    V(
        "xid79-journal-json",
        "gpu_xid_fault",
        "NVIDIA-open-gpu-kernel-modules-1010-journal-xid79.txt",
        "journalctl -o json (was refused: 'not a gpuassist report')",
        _journal_json("NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."),
    ),
    V(
        "xid79-journal-json-pretty",
        "gpu_xid_fault",
        "NVIDIA-open-gpu-kernel-modules-1010-journal-xid79.txt",
        "journalctl -o json-pretty: tab-indented objects (was refused)",
        _journal_json(
            "NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
            pretty=True,
        ),
    ),
    V(
        "fallen-off-bus-dmesg-T-no-xid",
        "gpu_xid_fault",
        "NVIDIA-NVSentinel-155-dmesg-fallen-off-bus-no-xid.txt",
        "dmesg -T; osinit.c's 'GPU has fallen off the bus' without an Xid line",
        "[Tue Nov 25 01:02:03 2026] NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.\n"
        "[Tue Nov 25 01:02:03 2026] NVRM: GPU 0000:3b:00.0: GPU serial number is 1321xxxxxxxxx.\n",
    ),
    V(
        "smi-device-handle-unknown",
        "gpu_xid_fault",
        "pdbear-syno-nvidia-gpu-driver-22-tesla-p4-device-handle-unknown.txt",
        "nvidia-smi's handle error with a space before the bus id",
        "$ nvidia-smi\nUnable to determine the device handle for GPU 0000:65:00.0: Unknown Error\n",
    ),
    V(
        "smi-device-handle-gpu-lost",
        "gpu_xid_fault",
        "pdbear-syno-nvidia-gpu-driver-22-tesla-p4-device-handle-unknown.txt",
        "the same handle error with NVML's 'GPU is lost' text",
        "$ nvidia-smi\nUnable to determine the device handle for GPU0000:3B:00.0: GPU is lost.  Reboot the system "
        "to recover this GPU\n",
    ),
    # ------------------------------------------------ no_nvidia_gpu
    V(
        "no-gpu-docker-empty-driver",
        "no_nvidia_gpu",
        "fboulnois-stable-diffusion-docker-82-intel-xe-no-nvidia-gpu.txt",
        "docker run --gpus on a machine with only an Intel iGPU (empty driver name)",
        'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].\n'
        "This laptop only has Intel Iris Xe graphics.\n",
    ),
    V(
        "no-gpu-compose-empty-driver-radeon",
        "no_nvidia_gpu",
        "fboulnois-stable-diffusion-docker-82-intel-xe-no-nvidia-gpu.txt",
        "docker compose, an AMD iGPU",
        'docker compose up -d\nError response from daemon: could not select device driver "" with capabilities: '
        "[[gpu]]\nMy laptop has a Radeon 780M only.\n",
    ),
    # ------------------------------------------------ fabric_manager_missing
    V(
        "fabric-802-repl-hgx",
        "fabric_manager_missing",
        "NVIDIA-gpu-operator-1043-cuda-validator-802-fabricmanager.txt",
        "torch's CUDA init warning with cudaErrorSystemNotReady on an HGX node",
        "$ python -c 'import torch; print(torch.cuda.is_available())'\n"
        + ERR_802.format(code="802", words="system not yet initialized")
        + "\nFalse\nThe node is an HGX H100 8-GPU.\n",
    ),
    V(
        "fabric-802-wrapped",
        "fabric_manager_missing",
        "NVIDIA-gpu-operator-2781-b200-fabric-manager-wrong-path-802.txt",
        "the same words wrapped by a forum; the user's DGX",
        "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling\n"
        "NumCudaDevices() that might have already set the error? Error 802: system not yet\ninitialized\n"
        "on our DGX H100 after a driver upgrade\n",
    ),
    V(
        "fabric-unit-version-check",
        "fabric_manager_missing",
        "NVIDIA-gpu-driver-container-735-fabricmanager-590-vs-driver-580.txt",
        "systemctl status of the unit with nv-fabricmanager's version check in its journal tail",
        "$ systemctl status nvidia-fabricmanager\n× nvidia-fabricmanager.service - NVIDIA fabric manager service\n"
        "     Loaded: loaded (/lib/systemd/system/nvidia-fabricmanager.service; enabled; vendor preset: enabled)\n"
        "     Active: failed (Result: exit-code) since Tue 2026-11-24 22:10:01 UTC; 3h ago\n"
        "Nov 24 22:10:01 hgx01 nv-fabricmanager[2214]: fabric manager NVIDIA GPU driver interface version "
        "570.86.15 don't match with driver version 570.124.06. Please update with matching NVIDIA driver package.\n",
    ),
    V(
        "fabric-802-cuda-validator",
        "fabric_manager_missing",
        "NVIDIA-gpu-operator-1043-cuda-validator-802-fabricmanager.txt",
        "the GPU operator's cuda-validator (vectorAdd sample) printing cudaGetErrorString of 802",
        "[Vector addition of 50000 elements]\nFailed to allocate device vector A (error code system not yet "
        "initialized)!\n",
    ),
    # ------------------------------------------------ forward_compat_unsupported_hw
    V(
        "fwd-compat-804-torch",
        "forward_compat_unsupported_hw",
        "NVIDIA-gpu-operator-277-cuda-validator-forward-compat-driver-450.txt",
        "torch's CUDA init warning with cudaErrorCompatNotSupportedOnDevice",
        ERR_802.format(code="804", words="forward compatibility was attempted on non supported HW") + "\n",
    ),
    V(
        "fwd-compat-804-device-query",
        "forward_compat_unsupported_hw",
        "NVIDIA-gpu-operator-277-cuda-validator-forward-compat-driver-450.txt",
        "cuda-samples deviceQuery's failure lines",
        "./deviceQuery Starting...\n\n CUDA Device Query (Runtime API) version (CUDART static linking)\n\n"
        "cudaGetDeviceCount returned 804\n-> forward compatibility was attempted on non supported HW\n"
        "Result = FAIL\n",
    ),
    # ------------------------------------------------ gpu_arch_too_new_for_build / gpu_arch_dropped_from_build
    V(
        "arch-new-5090-container",
        "gpu_arch_too_new_for_build",
        "lmoe-wyoming-xtts-1-container-rtx5060ti-sm120-warning.txt",
        "torch's _check_cubins warning from dist-packages in a container; another GPU",
        "/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py:230: UserWarning: \n"
        + _log("", ARCH_TOO_NEW, gpu="NVIDIA GeForce RTX 5090"),
    ),
    V(
        "arch-new-windows-workstation",
        "gpu_arch_too_new_for_build",
        "lllyasviel-FramePack-702-rtx5080-windows.txt",
        "a Windows conda path and a workstation Blackwell name",
        "C:\\Users\\kim\\miniconda3\\envs\\sd\\Lib\\site-packages\\torch\\cuda\\__init__.py:287: UserWarning:\n"
        + _log("", ARCH_TOO_NEW, gpu="NVIDIA RTX PRO 6000 Blackwell Workstation Edition"),
    ),
    V(
        "arch-new-cut-before-supports",
        "gpu_arch_too_new_for_build",
        "lmoe-wyoming-xtts-1-container-rtx5060ti-sm120-warning.txt",
        "the paste stops before the build's list",
        "/home/u/venv/lib/python3.12/site-packages/torch/cuda/__init__.py:230: UserWarning:\n"
        + _log("", ARCH_TOO_NEW[:1], gpu="NVIDIA GeForce RTX 5070 Ti"),
    ),
    V(
        "arch-new-compose-prefix",
        "gpu_arch_too_new_for_build",
        "lmoe-wyoming-xtts-1-container-rtx5060ti-sm120-warning.txt",
        "docker compose logs' '<service>-1  | ' before every line",
        "comfyui-1  | /opt/venv/lib/python3.12/site-packages/torch/cuda/__init__.py:287: UserWarning:\n"
        + _log("comfyui-1  | ", ARCH_TOO_NEW, gpu="NVIDIA GeForce RTX 5090"),
    ),
    V(
        "arch-new-systemd-unit-journal",
        "gpu_arch_too_new_for_build",
        "lmoe-wyoming-xtts-1-container-rtx5060ti-sm120-warning.txt",
        "a service's stderr in journalctl: 'host python3[pid]: ' before every line",
        "Nov 25 01:02:03 srv python3[2211]: /srv/app/.venv/lib/python3.11/site-packages/torch/cuda/__init__.py:230: "
        "UserWarning:\n" + _log("Nov 25 01:02:03 srv python3[2211]: ", ARCH_TOO_NEW, gpu="NVIDIA GeForce RTX 5060 Ti"),
    ),
    V(
        "arch-old-p100-range-wording",
        "gpu_arch_dropped_from_build",
        "peterjc123-pytorch-scripts-13-gtx960m-cc50-too-old.txt",
        "torch 2.x's _check_capability wording: 'Minimum and Maximum cuda capability supported by this version of "
        "PyTorch is (7.0) - (12.0)' (was read as nothing)",
        "/opt/conda/lib/python3.11/site-packages/torch/cuda/__init__.py:262: UserWarning: \n"
        "    Found GPU0 Tesla P100-PCIE-16GB which is of cuda capability 6.0.\n"
        "    Minimum and Maximum cuda capability supported by this version of PyTorch is\n    (7.0) - (12.0)\n",
    ),
    V(
        "arch-old-range-wording-joined",
        "gpu_arch_dropped_from_build",
        "peterjc123-pytorch-scripts-13-gtx960m-cc50-too-old.txt",
        "the same warning joined onto one line by a forum (was read as nothing)",
        "UserWarning: Found GPU0 NVIDIA GeForce GTX 1070 which is of cuda capability 6.1. Minimum and Maximum cuda "
        "capability supported by this version of PyTorch is (7.0) - (12.0) warnings.warn(\n",
    ),
    V(
        "arch-old-range-wording-docker-logs",
        "gpu_arch_dropped_from_build",
        "triton-inference-server-server-3-k80-no-kernel-image-available.txt",
        "docker logs of a container, a laptop Pascal GPU (was read as nothing)",
        "$ docker logs whisper\n/usr/local/lib/python3.10/site-packages/torch/cuda/__init__.py:283: UserWarning:\n"
        "    Found GPU0 NVIDIA GeForce MX350 which is of cuda capability 6.1.\n"
        "    Minimum and Maximum cuda capability supported by this version of PyTorch is\n    (7.0) - (12.0)\n\n"
        "  warnings.warn(\n",
    ),
    V(
        "arch-old-k80-no-kernel-image",
        "gpu_arch_dropped_from_build",
        "triton-inference-server-server-3-k80-no-kernel-image-available.txt",
        "the CUDA error torch raises, with the GPU named by the user",
        "Tesla K80, torch 2.1.0+cu118\nRuntimeError: CUDA error: no kernel image is available for execution on the "
        "device\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
        "might be incorrect.\n",
    ),
    # ------------------------------------------------ wsl_libcuda_problem
    V(
        "wsl-blocked-from-powershell",
        "wsl_libcuda_problem",
        "staralt-dxgkrnl-dkms-7-gpu-pv-guest-smi-gpu-access-blocked.txt",
        "entered WSL from PowerShell; NVML's 'GPU access blocked by the operating system'",
        "PS C:\\Users\\me> wsl\nme@DESKTOP-7Q2:/mnt/c/Users/me$ nvidia-smi\nFailed to initialize NVML: GPU access "
        "blocked by the operating system\nFailed to properly shut down NVML: GPU access blocked by the operating "
        "system\n",
    ),
    V(
        "wsl-blocked-prose",
        "wsl_libcuda_problem",
        "staralt-dxgkrnl-dkms-7-gpu-pv-guest-smi-gpu-access-blocked.txt",
        "the user's sentence around the same message",
        "Windows 11 23H2, WSL2 Ubuntu-24.04, driver 566.14. Inside WSL `nvidia-smi` prints `Failed to initialize "
        "NVML: GPU access blocked by the operating system`.\n",
    ),
    V(
        "wsl-smi-failed-inside",
        "wsl_libcuda_problem",
        "microsoft-WSL-3847-wsl1-nvidia-smi-no-gpu.txt",
        "nvidia-smi's driver failure inside WSL while Windows sees the card",
        "In WSL2 Ubuntu 22.04:\n$ nvidia-smi\nNVIDIA-SMI has failed because it couldn't communicate with the NVIDIA "
        "driver. Make sure that the latest NVIDIA driver is installed and running.\nOn Windows nvidia-smi shows my "
        "RTX 4070 fine.\n",
    ),
    # ------------------------------------------------ jetson_needs_nvidia_wheel
    V(
        "jetson-orin-pypi-wheel",
        "jetson_needs_nvidia_wheel",
        "pinokiocomputer-pinokio-1027-jetson-orin-pypi-torch.txt",
        "JetPack/L4T named by the user, pip's PyPI wheel, the REPL's answer",
        "Jetson AGX Orin, JetPack 6.1 (L4T R36.4.0)\n$ pip install torch\n"
        "$ python3 -c 'import torch; print(torch.__version__, torch.cuda.is_available())'\n2.5.1 False\n",
    ),
    V(
        "jetson-nv-tegra-release",
        "jetson_needs_nvidia_wheel",
        "Lmy0217-PyTorch-aarch64-3-jetson-nano-cpu-wheel.txt",
        "/etc/nv_tegra_release's line instead of a board name",
        "$ cat /etc/nv_tegra_release\n# R35 (release), REVISION: 4.1, GCID: 33958178, BOARD: t186ref, EABI: aarch64, "
        "DATE: Tue Aug  1 19:57:35 UTC 2023\n$ pip3 install torch torchvision\n"
        "$ python3 -c 'import torch; print(torch.cuda.is_available())'\nFalse\n",
    ),
    V(
        "jetson-tegrastats-and-repl",
        "jetson_needs_nvidia_wheel",
        "Lmy0217-PyTorch-aarch64-3-jetson-nano-cpu-wheel.txt",
        "a tegrastats line (the Jetson's own tool) above the REPL",
        "RAM 3402/7620MB (lfb 2x4MB) SWAP 0/3810MB CPU [12%@1510,8%@1510,10%@1510,9%@1510,off,off] GR3D_FREQ 0% "
        "cpu@47.2C soc2@45.9C\n>>> import torch\n>>> torch.__version__\n'2.5.1'\n>>> torch.cuda.is_available()\n"
        "False\n",
    ),
    V(
        "jetson-prose",
        "jetson_needs_nvidia_wheel",
        "RVC-Boss-GPT-SoVITS-621-orin-board-webui-no-gpu.txt",
        "prose: 'returns False', PyPI named",
        "On my Jetson Orin Nano (JetPack 6.2) torch.cuda.is_available() returns False. I installed torch with pip "
        "from PyPI. nvidia-smi isn't there but tegrastats shows GR3D_FREQ 0%.\n",
    ),
    # ------------------------------------------------ torch_import_error
    V(
        "import-winerror126-cmd-portable",
        "torch_import_error",
        "Pathos14489-Pantella-14-winerror126-fbgemm-embedded-python.txt",
        "cmd prompt of a portable (embedded Python) install",
        "C:\\AI\\ComfyUI_windows_portable>.\\python_embeded\\python.exe -s ComfyUI\\main.py\nOSError: [WinError "
        '126] The specified module could not be found. Error loading "C:\\AI\\ComfyUI_windows_portable\\'
        'python_embeded\\Lib\\site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies.\n',
    ),
    V(
        "import-winerror126-powershell-traceback",
        "torch_import_error",
        "Pathos14489-Pantella-14-winerror126-fbgemm-embedded-python.txt",
        "PowerShell prompt, the full traceback from torch/__init__.py",
        "PS C:\\Users\\ana\\project> python train.py\nTraceback (most recent call last):\n"
        '  File "C:\\Users\\ana\\project\\train.py", line 1, in <module>\n    import torch\n'
        '  File "C:\\Users\\ana\\AppData\\Local\\Programs\\Python\\Python312\\Lib\\site-packages\\torch\\'
        '__init__.py", line 148, in <module>\n    raise err\nOSError: [WinError 126] The specified module could not '
        'be found. Error loading "C:\\Users\\ana\\AppData\\Local\\Programs\\Python\\Python312\\Lib\\site-packages\\'
        'torch\\lib\\fbgemm.dll" or one of its dependencies.\n',
    ),
    V(
        "import-winerror1114-powershell",
        "torch_import_error",
        "Pathos14489-Pantella-14-winerror126-fbgemm-embedded-python.txt",
        "WinError 1114 (DLL init routine failed) on c10.dll, PowerShell",
        'PS D:\\proj> python -c "import torch"\nOSError: [WinError 1114] A dynamic link library (DLL) initialization '
        'routine failed. Error loading "D:\\proj\\.venv\\Lib\\site-packages\\torch\\lib\\c10.dll" or one of its '
        "dependencies.\n",
    ),
    # ------------------------------------------------ cpu_only_build
    V(
        "cpu-build-not-compiled-linux",
        "cpu_only_build",
        "ahrm-UnstableFusion-41-windows-not-compiled.txt",
        "the same assertion from a Linux conda env",
        '  File "/home/u/miniconda3/envs/x/lib/python3.11/site-packages/torch/cuda/__init__.py", line 310, in '
        '_lazy_init\n    raise AssertionError("Torch not compiled with CUDA enabled")\n'
        "AssertionError: Torch not compiled with CUDA enabled\n",
    ),
    V(
        "cpu-build-powershell-with-smi",
        "cpu_only_build",
        "C0untFloyd-roop-unleashed-445-wddm-smi-torch-false.txt",
        "PowerShell: torch's +cpu version beside nvidia-smi's header on Windows",
        'PS C:\\Users\\dev> python -c "import torch; print(torch.__version__, torch.cuda.is_available())"\n'
        "2.5.1+cpu False\nPS C:\\Users\\dev> nvidia-smi\n"
        "| NVIDIA-SMI 566.36                 Driver Version: 566.36         CUDA Version: 12.7     |\n",
    ),
    V(
        "cpu-build-cmd",
        "cpu_only_build",
        "C0untFloyd-roop-unleashed-445-wddm-smi-torch-false.txt",
        "cmd.exe prompt (no 'PS')",
        'C:\\Users\\dev>python -c "import torch; print(torch.__version__); print(torch.cuda.is_available())"\n'
        "2.6.0+cpu\nFalse\n",
    ),
    # ------------------------------------------------ uvm_wedged_after_suspend
    V(
        "uvm-unknown-after-resume",
        "uvm_wedged_after_suspend",
        "NVIDIA-nvidia-container-toolkit-1155-rootless-docker-gpu-lost-after-suspend.txt",
        "torch's CUDA init warning for cudaErrorUnknown after resume",
        "After the laptop resumes from suspend:\nUserWarning: CUDA initialization: CUDA unknown error - this may be "
        "due to an incorrectly set up environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program "
        "start. Setting the available devices to be zero. (Triggered internally at "
        "../c10/cuda/CUDAFunctions.cpp:108.)\n",
    ),
    V(
        "uvm-prose-reload-fixes",
        "uvm_wedged_after_suspend",
        "NVIDIA-nvidia-container-toolkit-1155-rootless-docker-gpu-lost-after-suspend.txt",
        "the user's words: sleep, then reloading nvidia_uvm fixes it",
        'Every time I resume from sleep, torch.cuda.is_available() gives False with "CUDA unknown error - this may '
        'be due to an incorrectly set up environment"; after sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm it '
        "works again.\n",
    ),
    # ------------------------------------------------ scheduler_no_gpu_allocated
    V(
        "slurm-srun-without-gres",
        "scheduler_no_gpu_allocated",
        "NVIDIA-pyxis-47-slurm-enroot-no-dev-nvidia-cgroup-constraindevices.txt",
        "srun without --gres/--gpus: torch finds no driver, CUDA_VISIBLE_DEVICES empty",
        "$ srun -p gpu --pty python -c 'import torch; print(torch.cuda.is_available())'\n"
        "/home/u/.venv/lib/python3.11/site-packages/torch/cuda/__init__.py:128: UserWarning: CUDA initialization: "
        "Found no NVIDIA driver on your system.\nFalse\n$ echo $CUDA_VISIBLE_DEVICES\n\n",
    ),
    V(
        "slurm-sbatch-prose",
        "scheduler_no_gpu_allocated",
        "glotzerlab-signac-flow-59-sbatch-no-gpu-count-given-gres.txt",
        "sbatch told in prose; nvidia-smi's 'No devices were found' in the job",
        'My sbatch script has #SBATCH -p gpu but no --gres / --gpus line. Inside the job nvidia-smi says "No '
        'devices were found" and torch.cuda.is_available() is False, while on the login node... well the login '
        "node has no GPU.\n",
    ),
    V(
        "slurm-without-gres-in-words",
        "scheduler_no_gpu_allocated",
        "glotzerlab-signac-flow-59-sbatch-no-gpu-count-given-gres.txt",
        "the request named only as what was missing ('sbatch -p gpu but without --gres=gpu:1'; Slurm's gres.html: no "
        "request, no GPU) (was read as a job that asked)",
        "My slurm job doesn't detect the GPU (torch.cuda.is_available() is False) - turns out I submitted with "
        "sbatch -p gpu but without --gres=gpu:1.\n",
    ),
    V(
        "slurm-forgot-gpus-srun",
        "scheduler_no_gpu_allocated",
        "glotzerlab-signac-flow-59-sbatch-no-gpu-count-given-gres.txt",
        "'I forgot to add --gpus=1' before a quoted srun without it (was read as a job that asked)",
        "I forgot to add --gpus=1: `srun -p gpu python train.py` and torch.cuda.is_available() returns False\n",
    ),
    V(
        "k8s-pod-without-limit-in-words",
        "scheduler_no_gpu_allocated",
        "NVIDIA-pyxis-47-slurm-enroot-no-dev-nvidia-cgroup-constraindevices.txt",
        "the Kubernetes form of a job that asked for no GPU, told in words (the device plugin gives GPUs only for an "
        "nvidia.com/gpu limit: Kubernetes docs 'Schedule GPUs') (was read as nothing)",
        "The pod can't see the GPU: torch.cuda.is_available() returns False in the pod. The deployment has no "
        "resources.limits for nvidia.com/gpu.\n",
    ),
    V(
        "k8s-pod-didnt-set-gpu",
        "scheduler_no_gpu_allocated",
        "NVIDIA-pyxis-47-slurm-enroot-no-dev-nvidia-cgroup-constraindevices.txt",
        "the same in other words ('I didn't set nvidia.com/gpu') (was read as nothing)",
        "torch.cuda.is_available() is False inside the pod; I didn't set nvidia.com/gpu in the container's limits.\n",
    ),
    V(
        "k8s-insufficient-gpu",
        "scheduler_no_gpu_allocated",
        "NVIDIA-pyxis-47-slurm-enroot-no-dev-nvidia-cgroup-constraindevices.txt",
        "kube-scheduler's FailedScheduling event for the extended resource nvidia.com/gpu",
        "  Warning  FailedScheduling  2m  default-scheduler  0/4 nodes are available: 4 Insufficient nvidia.com/gpu. "
        "preemption: 0/4 nodes are available: 4 No preemption victims found for incoming pod.\n",
    ),
    # ------------------------------------------------ no_nvidia_driver
    V(
        "no-driver-ctk-libnvidia-ml",
        "no_nvidia_driver",
        "OE4T-meta-tegra-1456-nvidia-container-cli-libcuda-so-1-missing-on-host.txt",
        "libnvidia-container's dlopen failure of NVML (no driver on the host)",
        "nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared "
        "object file: no such file or directory: unknown\n",
    ),
    V(
        "no-driver-ctk-libnvidia-ml-containerd",
        "no_nvidia_driver",
        "OE4T-meta-tegra-1456-nvidia-container-cli-libcuda-so-1-missing-on-host.txt",
        "the same inside containerd's 'failed to create containerd task' (Kubernetes)",
        "Error: failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create "
        "failed: unable to start container process: error during container init: error running hook #0: error "
        "running hook: exit status 1, stdout: , stderr: nvidia-container-cli: initialization error: load library "
        "failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory: unknown\n",
    ),
    V(
        "no-driver-torch-warning",
        "no_nvidia_driver",
        "OE4T-meta-tegra-1456-nvidia-container-cli-libcuda-so-1-missing-on-host.txt",
        "torch's _check_driver wording as a CUDA init warning",
        "UserWarning: CUDA initialization: Found no NVIDIA driver on your system. Please check that you have an "
        "NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx (Triggered internally at "
        "/pytorch/c10/cuda/CUDAFunctions.cpp:109.)\n",
    ),
    V(
        "no-driver-powershell-smi-not-recognized",
        "no_nvidia_driver",
        "peci1-nvidia-htop-23-nvidia-smi-missing-nouveau.txt",
        "PowerShell's CommandNotFoundException text for nvidia-smi",
        "PS C:\\Users\\me> nvidia-smi\nnvidia-smi : The term 'nvidia-smi' is not recognized as the name of a cmdlet, "
        "function, script file, or operable program. Check the spelling of the name, or if a path was included, "
        "verify that the path is correct and try again.\nAt line:1 char:1\n",
    ),
    V(
        "no-driver-cmd-smi-not-recognized",
        "no_nvidia_driver",
        "peci1-nvidia-htop-23-nvidia-smi-missing-nouveau.txt",
        "cmd.exe's wording, wrapped by cmd itself",
        "C:\\Users\\me>nvidia-smi\n'nvidia-smi' is not recognized as an internal or external command,\noperable "
        "program or batch file.\n",
    ),
    # ------------------------------------------------ nccl_error_or_timeout
    V(
        "nccl-shm-kubernetes",
        "nccl_error_or_timeout",
        "NVIDIA-nccl-342-docker-dev-shm-64mb-posix-fallocate.txt",
        "NCCL >= 2.12's shmutils.cc wording in a pod (64 MB /dev/shm), torch's DistBackendError",
        "trainer-0: misc/shmutils.cc:72 NCCL WARN Error: failed to extend /dev/shm/nccl-Xa9k2 to 9637892 bytes\n"
        "trainer-0: misc/shmutils.cc:113 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-Xa9k2 "
        "(size 9637888)\ntorch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
        "ProcessGroupNCCL.cpp:1970, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version "
        "2.21.5\n",
    ),
    V(
        "nccl-shm-docker-run",
        "nccl_error_or_timeout",
        "NVIDIA-nccl-342-docker-dev-shm-64mb-posix-fallocate.txt",
        "docker run without --shm-size, an NGC image",
        "docker run --gpus all -it nvcr.io/nvidia/pytorch:24.10-py3 torchrun --nproc_per_node 4 train.py\n"
        "NCCL WARN Error: failed to extend /dev/shm/nccl-hO9dK3 to 33030148 bytes\nNCCL WARN Error while creating "
        "shared memory segment /dev/shm/nccl-hO9dK3 (size 33030144)\n",
    ),
]

DECOYS = [
    Decoy(
        "healthy-module-load-kern-log",
        "the module's load banner under kern.log's double prefix",
        "Nov 25 01:02:03 ws kernel: [    4.123456] nvidia: loading out-of-tree module taints kernel.\n"
        "Nov 25 01:02:03 ws kernel: [    4.223456] nvidia-nvlink: Nvlink Core is being initialized, major device "
        "number 236\nNov 25 01:02:03 ws kernel: [    4.323456] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  "
        "550.127.05  Tue Oct  8 03:25:24 UTC 2024\n",
    ),
    Decoy(
        "healthy-open-module-iso",
        "journalctl -o short-iso of a healthy boot with the open module and nvidia-drm",
        "2026-11-25T01:02:03+00:00 gpu01 kernel: NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  "
        "570.124.06  Release Build  (dvs-builder@U16-I3-B03-4-1)  Wed Feb 26 01:32:20 UTC 2025\n"
        "2026-11-25T01:02:05+00:00 gpu01 kernel: [drm] Initialized nvidia-drm 0.0.0 20160202 for 0000:01:00.0 on "
        "minor 1\n",
    ),
    Decoy(
        "healthy-journal-json",
        "journalctl -o json of the same healthy banner: read as a log, no error",
        _journal_json("NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.127.05  Tue Oct  8 03:25:24 UTC 2024"),
    ),
    Decoy(
        "healthy-docker-json-file-log",
        "Docker json-file lines of a run that uses the GPU",
        '{"log":"GPU available: True (cuda), used: True\\n","stream":"stderr","time":"2026-11-25T01:02:03.1Z"}\n'
        '{"log":"LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [0]\\n","stream":"stderr","time":"2026-11-25T01:02:03.2Z"}\n',
    ),
    Decoy(
        "healthy-kubectl-events-json",
        "kubectl get events -o json of a pod that was scheduled and started",
        '{"apiVersion":"v1","items":[{"kind":"Event","reason":"Scheduled","type":"Normal","message":"Successfully '
        'assigned default/trainer-0 to gpu-node-3"},{"kind":"Event","reason":"Started","type":"Normal","message":'
        '"Started container trainer"}],"kind":"List"}\n',
    ),
    Decoy(
        "healthy-device-plugin",
        "k8s-device-plugin's klog lines when it registers with the kubelet",
        "I1125 01:02:03.100000       1 main.go:317] Retrieving plugins.\n"
        "I1125 01:02:03.200000       1 server.go:216] Starting GRPC server for 'nvidia.com/gpu'\n"
        "I1125 01:02:03.400000       1 server.go:154] Registered device plugin for 'nvidia.com/gpu' with Kubelet\n",
        ("docker_no_gpu_runtime",),
    ),
    Decoy(
        "podman-cdi-works",
        "Podman with a CDI spec listing the GPU",
        "$ podman run --rm --device nvidia.com/gpu=all ubuntu nvidia-smi -L\n"
        "GPU 0: NVIDIA GeForce RTX 4090 (UUID: GPU-6c3b1e2a-1111-2222-3333-444455556666)\n",
        ("docker_no_gpu_runtime",),
    ),
    Decoy(
        "crio-handler-for-another-runtime",
        "the CRI-O handler error for gVisor's runsc: not the NVIDIA runtime",
        "  Warning  FailedCreatePodSandBox  3s  kubelet  Failed to create pod sandbox: rpc error: code = Unknown "
        "desc = failed to find runtime handler runsc from runtime list map[crun:0xc0004a6000 runc:0xc0004a6090]\n",
        ("docker_no_gpu_runtime",),
    ),
    Decoy(
        "persistenced-at-boot-then-cuda-works",
        "persistenced's boot-time complaint (it can run before the device files exist) beside CUDA working",
        "Mar 21 09:54:03 desk nvidia-persistenced: Failed to query NVIDIA devices. Please ensure that the NVIDIA "
        "device files (/dev/nvidia*) exist, and that user 121 has read and write permissions for those files.\n"
        '$ python3 -c "import torch; print(torch.cuda.is_available(), torch.cuda.get_device_name(0))"\n'
        "True NVIDIA GeForce RTX 3060\n",
    ),
    Decoy(
        "slurm-job-that-asked",
        "a quoted sbatch that does request a GPU: the allocation is not the reading (many other causes)",
        "I submit with `sbatch -p gpu --gres=gpu:1 job.sh` and torch.cuda.is_available() returns False in the job.\n",
        ("scheduler_no_gpu_allocated",),
    ),
    Decoy(
        "k8s-pod-that-asked",
        "a pod with an nvidia.com/gpu limit that still sees no GPU: not the missing request",
        "torch.cuda.is_available() is False inside the pod although it has nvidia.com/gpu: 1 in its limits.\n",
        ("scheduler_no_gpu_allocated",),
    ),
    Decoy(
        "k8s-node-advertises-no-gpu",
        "a node whose capacity lists no nvidia.com/gpu: the device plugin's side, not the pod's request",
        "kubectl describe node gpu-1: Capacity shows no nvidia.com/gpu, and torch.cuda.is_available() is False in "
        "the pod.\n",
        ("scheduler_no_gpu_allocated",),
    ),
    Decoy(
        "k8s-no-limit-but-cuda-works",
        "no GPU limit while CUDA works (a default nvidia runtime exposes the GPUs anyway): nothing to blame",
        "The pod has no resources.limits for nvidia.com/gpu but everything works, torch.cuda.is_available() is True.\n",
        ("scheduler_no_gpu_allocated",),
    ),
    Decoy(
        "k8s-insufficient-cpu",
        "the scheduler's event for CPU, not nvidia.com/gpu",
        "  Warning  FailedScheduling  2m  default-scheduler  0/4 nodes are available: 4 Insufficient cpu.\n",
        ("scheduler_no_gpu_allocated",),
    ),
    Decoy(
        "gb10-range-warning-same-major",
        "torch's range warning for sm_121 on a build up to sm_120: a cubin for 12.0 runs on 12.1 (same major)",
        "UserWarning: Found GPU0 NVIDIA GB10 which is of cuda capability 12.1.\n"
        "Minimum and Maximum cuda capability supported by this version of PyTorch is (8.0) - (12.0)\n",
        ("gpu_arch_too_new_for_build", "gpu_arch_dropped_from_build"),
    ),
    Decoy(
        "wsl-ldconfig-warning-cuda-works",
        "ldconfig's cosmetic WSL warning during apt, CUDA available",
        "Processing triggers for libc-bin (2.39-0ubuntu8.3) ...\n/sbin/ldconfig.real: /usr/lib/wsl/lib/libcuda.so.1 "
        "is not a symbolic link\n\n$ python3 -c 'import torch; print(torch.cuda.is_available())'\nTrue\n",
        ("wsl_libcuda_problem",),
    ),
    Decoy(
        "wsl-ldconfig-warning-quoted",
        "the same warning quoted in a sentence without ldconfig's prefix (was claimed as broken WSL CUDA)",
        "Docs: the message `/usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link` printed by ldconfig in WSL is "
        "harmless noise.\n",
        ("wsl_libcuda_problem",),
    ),
    Decoy(
        "html-escaped-url-stays",
        "an escaped URL query in a healthy report: '&amp;' read back, '&para' left alone",
        "See https://forums.developer.nvidia.com/search?q=nvidia-smi&amp;page=2&para=1 for threads; nvidia-smi "
        "works fine here and torch.cuda.is_available() is True.\n",
    ),
]

# The same words with more than one cause the text cannot tell apart: a warning among the named causes, no error.
AMBIGUOUS = [
    (
        "modprobe-nvidia-no-such-device",
        # kmod's "could not insert" with ENODEV: nvidia_init_module probed no device (no GPU, a GPU the branch
        # dropped, or another driver holding it)
        "$ sudo modprobe nvidia\nmodprobe: ERROR: could not insert 'nvidia': No such device\n",
        {"driver_does_not_support_gpu", "nvidia_module_not_loaded", "no_nvidia_gpu"},
    ),
    (
        "nvrm-no-nvidia-gpu-found-journal",
        # nv.c's newer wording of "No NVIDIA graphics adapter found!": also printed after a branch ignores a legacy GPU
        "Nov 25 01:02:03 box kernel: NVRM: No NVIDIA GPU found.\nNov 25 01:02:03 box kernel: NVRM: NVIDIA init module "
        "failed!\n",
        {"driver_does_not_support_gpu", "no_nvidia_gpu"},
    ),
]


@pytest.mark.parametrize("variant", VARIANTS, ids=[v.name for v in VARIANTS])
def test_the_same_cause_in_another_users_words_comes_first(variant: Variant) -> None:
    findings = load_text(variant.text).findings
    assert findings, f"nothing read ({variant.why})"
    assert findings[0].id == variant.expect, (
        f"{variant.why}: first {[f.id for f in findings[:3]]}, expected {variant.expect} (as in {variant.base})"
    )


@pytest.mark.parametrize("decoy", DECOYS, ids=[d.name for d in DECOYS])
def test_the_same_formats_for_a_healthy_system_claim_no_error(decoy: Decoy) -> None:
    findings = load_text(decoy.text).findings
    errors = [f.id for f in findings if f.severity is Severity.ERROR]
    assert not errors, decoy.why
    claimed = {f.id for f in findings if f.severity is not Severity.INFO}
    assert not claimed & set(decoy.banned), decoy.why


@pytest.mark.parametrize(("text", "causes"), [(t, c) for _, t, c in AMBIGUOUS], ids=[n for n, _, _ in AMBIGUOUS])
def test_words_of_several_causes_name_them_without_an_error(text: str, causes: set[str]) -> None:
    findings = load_text(text).findings
    assert not [f.id for f in findings if f.severity is Severity.ERROR]
    claimed = [f.id for f in findings if f.severity is Severity.WARNING]
    assert claimed and claimed[0] in causes


def test_structured_logs_unwrap_only_log_records() -> None:
    """journald's byte-array MESSAGE is decoded; a document that is not a list of records is left to the report
    reader (a report, a config, a record without a message)."""
    binary = '{"SYSLOG_IDENTIFIER":"kernel","MESSAGE":[78,86,82,77,58,32,88,105,100]}\n'
    assert log_lines(binary) == "kernel: NVRM: Xid\n"
    assert log_lines('{"schema": "gpuassist.report/1", "message": "x"}') is None
    assert log_lines('{"runtimes": {"nvidia": {"path": "nvidia-container-runtime"}}}') is None
    assert log_lines('{"log": "a"}\n{"other": 1}\n') is None
    assert log_lines('{"log": "a"} trailing words') is None
