"""Container orchestration and the unified-memory device, read from what their own programs print.

The NVIDIA Kubernetes device plugin (NVIDIA/k8s-device-plugin: main.go of v1.8-v0.9, cmd/nvidia-device-plugin and
internal/rm/factory.go since) runs in a pod and loads NVML from the driver the container runtime mounts into it.
When NVML cannot be loaded it logs, across versions:
  "Loading NVML" / "Failed to start nvml with error: could not load NVML library." (v1.8-v1.11)
  "Failed to initialize NVML: could not load NVML library." / "Failed to initialize NVML: ERROR_LIBRARY_NOT_FOUND."
  "Detected non-NVML platform: could not load NVML library: libnvidia-ml.so.1: cannot open shared object file"
  "Incompatible platform detected" / "Incompatible strategy detected auto"
followed by its hint "If this is a GPU node, did you set the docker default runtime to `nvidia`?" (old) or "... did
you configure the NVIDIA Container Toolkit?" (new). gpu-feature-discovery and forks (HAMi, Volcano vGPU, EKS vGPU)
print the same lines. On a GPU node whose driver works that means the runtime that started the plugin's pod did not
inject the driver: nvidia is not Docker's/containerd's default runtime, or the pod has no nvidia RuntimeClass,
which the container-runtime cause (docker_no_gpu_runtime) covers. A real driver fault the plugin reports with NVML's
own text (a version mismatch, "Unknown Error") is read by the NVML table, not here.

The unified-memory device /dev/nvidia-uvm exists only while the nvidia_uvm module is loaded. libcuda loads it on
first use through the setuid nvidia-modprobe (NVIDIA/nvidia-modprobe); a container, a rootless runtime (enroot,
pyxis, Singularity/Apptainer, rootless Podman) or a host without nvidia-modprobe cannot, and cuInit then fails
(CUDA_ERROR_UNKNOWN, 999, or an initialization error). libnvidia-container's own error names the node:
"nvidia-container-cli: mount error: stat failed: /dev/nvidia-uvm: no such file or directory". A `ls /dev/nvidia*`
that lists the GPU's nodes but not nvidia-uvm, beside a CUDA failure, says the same. Before any CUDA program has
run, a missing nvidia_uvm is normal (it loads on demand), so the listing alone is not a verdict. An `lsmod` listing
with the core module but no nvidia_uvm reads the same way; nvidia-smi's table beside CUDA's unknown/initialization
error rules out the module and driver guesses (nvidia-smi needs the nvidia module, not nvidia_uvm).

Clusters: Singularity/Apptainer's `--nv` warns "Could not find any nv files on this host!" on a node without the
driver (a login or CPU node; in a scheduler's text the job was not given a GPU node), nvidia-container-cli's ldcache
error names an ldconfig the distribution lacks (the toolkit's config), and the user's "on the login node" beside a
no-GPU failure says the work never went through the scheduler to a GPU node.
"""

from __future__ import annotations

import re

from gpuassist.ingest.cuda_working import smi_answered
from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

# --------------------------------------------------------------------------------------- the device plugin

NVML_NOT_LOADED = re.compile(
    r"could not load NVML library|ERROR_LIBRARY_NOT_FOUND|NVML Shared Library Not Found|"
    r"Failed to start nvml with error|Incompatible (?:platform|strategy) detected|"
    r"libnvidia-ml\.so(?:\.1)?: cannot open shared object file",
    re.IGNORECASE,
)
# The text is the device plugin's (or a fork's) log: its hint lines, its first line, or its name.
DEVICE_PLUGIN_LOG = re.compile(
    r"If this is a GPU node, did you (?:set the docker default runtime|configure the NVIDIA Container Toolkit)|"
    r"\bLoading NVML\b|k8s-device-plugin|nvidia-device-plugin|gpu-feature-discovery|\bdevice[- ]plugin\b|"
    r"Incompatible (?:platform|strategy) detected",
    re.IGNORECASE,
)


# The plugin started no device (cmd/nvidia-device-plugin/main.go startPlugins(); main.go of v1.x when NVML counted
# none): after an NVML failure it does not report (fail-on-init-error false), or with no GPU visible in its pod.
NO_DEVICES_WAITING = re.compile(r"No devices found\. Waiting indefinitely", re.IGNORECASE)


def device_plugin_without_runtime_match(lines: list[str]) -> Match | None:
    """The device plugin (or gpu-feature-discovery) could not load NVML inside its pod: the node's container runtime
    did not inject the driver, so the GPU is never advertised (docker_no_gpu_runtime, a verdict). Its bare "No
    devices found. Waiting indefinitely." (other vendors' plugins print it too, hence NVIDIA named in the text) is
    the same reading as the likeliest one: a pod without the NVIDIA runtime sees no GPU, as does a node whose
    driver is down."""
    if not any(DEVICE_PLUGIN_LOG.search(line[:MAX_LINE]) for line in lines):
        return None
    for no, line in enumerate(lines, start=1):
        if NVML_NOT_LOADED.search(line[:MAX_LINE]):
            return Match("docker_no_gpu_runtime", no, line.strip()[:500], True, 0.85)
    if not any("nvidia" in line[:MAX_LINE].lower() for line in lines):
        return None
    for no, line in enumerate(lines, start=1):
        if NO_DEVICES_WAITING.search(line[:MAX_LINE]):
            return Match("docker_no_gpu_runtime", no, line.strip()[:500], False, 0.6)
    return None


# ------------------------------------------------------------------------------- the nvidia-uvm device node

UVM_NODE_MISSING = re.compile(
    r"/dev/nvidia-uvm\b[^\n]{0,20}?:\s*no such file or directory|"
    r"cannot access '?/dev/nvidia-uvm\b|open(?:ing)? /dev/nvidia-uvm\b[^\n]{0,30}?failed",
    re.IGNORECASE,
)
# One entry of a `ls /dev/nvidia*` listing (plain or -l): the GPU's own nodes.
GPU_NODE = re.compile(r"(?:^|\s)(?:/dev/)?nvidia(?:\d+|ctl)\s*$|(?:^|\s)/dev/nvidia(?:\d+|ctl)\b")
UVM_NODE = re.compile(r"nvidia-uvm\b")
LS_DEV = re.compile(r"\bls\b[^\n]*?/dev/nvidia\*?")
# A CUDA program failed to start in the same text (the failure the missing node explains).
CUDA_INIT_FAILED = re.compile(
    r"unknown error|CUDA_ERROR_UNKNOWN|cudaErrorUnknown|\b999\b|initialization error|CUDA_ERROR_NOT_INITIALIZED|"
    r"CUDA driver initialization failed|cuInit\b[^\n]{0,40}fail|No CUDA GPUs are available|"
    r"no CUDA-capable device is detected|torch\.cuda\.is_available\(\)\s*(?:->|returns?|is|=)?\s*False",
    re.IGNORECASE,
)


def _listing_without_uvm(lines: list[str]) -> tuple[int, str] | None:
    """A `ls /dev/nvidia*` listing (the command, then its entries) that shows the GPU's nodes but no nvidia-uvm."""
    for no, line in enumerate(lines):
        if not LS_DEV.search(line[:MAX_LINE]):
            continue
        block: list[str] = []
        for entry in lines[no + 1 : no + 20]:
            if not entry.strip() or entry.lstrip().startswith(("$", "#", ">>>")):
                break
            block.append(entry[:MAX_LINE])
        joined = " ".join(block)
        if any(GPU_NODE.search(entry) for entry in block) and not UVM_NODE.search(joined):
            return no + 1, line.strip()[:500]
    return None


# One row of `lsmod` (name, size, use count, users): the core module and its companions.
LSMOD_ROW = re.compile(r"^\s*(nvidia(?:_\w+)?)\s+\d+\s+\d+\b")
LSMOD_CMD = re.compile(r"\blsmod\b")


def _lsmod_without_uvm(lines: list[str]) -> tuple[int, str] | None:
    """An `lsmod` listing (the command, then its rows) in which the core nvidia module is loaded but nvidia_uvm is
    not. Only rows that follow an lsmod command count: a grep for another name lists a subset."""
    for no, line in enumerate(lines):
        if not LSMOD_CMD.search(line[:MAX_LINE]) or re.search(r"grep\s+(?:-\w+\s+)*['\"]?nvidia_(?!uvm)", line):
            continue
        names: list[str] = []
        for entry in lines[no + 1 : no + 40]:
            row = LSMOD_ROW.match(entry[:MAX_LINE])
            if row is not None:
                names.append(row.group(1))
            elif entry.strip() and not re.match(r"^\s*(?:Module\s+Size|\w+\s+\d+\s+\d+)", entry):
                break
        if "nvidia" in names and "nvidia_uvm" not in names:
            return no + 1, line.strip()[:500]
    return None


# enroot's GPU hook (NVIDIA/enroot conf/hooks/98-nvidia.sh) checks /proc/modules when a container starts and warns
# "Kernel module nvidia_uvm is not loaded. Make sure the NVIDIA device driver is installed and loaded."
ENROOT_UVM_WARNING = re.compile(r"Kernel module nvidia_uvm is not loaded", re.IGNORECASE)


def _first(pattern: re.Pattern[str], lines: list[str]) -> tuple[int, str] | None:
    return next(
        ((no, line.strip()[:500]) for no, line in enumerate(lines, start=1) if pattern.search(line[:MAX_LINE])), None
    )


def uvm_device_missing_match(lines: list[str]) -> Match | None:
    """/dev/nvidia-uvm is missing (the nvidia_uvm module not loaded) and CUDA failed to start: the module is the
    cause (uvm_wedged_after_suspend, whose fix reloads it). The runtime's own stat/open error is a verdict alone;
    enroot's warning, or a `ls /dev/nvidia*` or `lsmod` listing with the GPU's nodes / core module but no
    nvidia-uvm, needs the failure beside it (the module loads on demand, so before a CUDA program ran its absence
    is normal)."""
    for no, line in enumerate(lines, start=1):
        if UVM_NODE_MISSING.search(line[:MAX_LINE]):
            return Match("uvm_wedged_after_suspend", no, line.strip()[:500], True, 0.85)
    listing = _first(ENROOT_UVM_WARNING, lines) or _listing_without_uvm(lines) or _lsmod_without_uvm(lines)
    if listing is not None and any(CUDA_INIT_FAILED.search(line[:MAX_LINE]) for line in lines):
        return Match("uvm_wedged_after_suspend", listing[0], listing[1], True, 0.8)
    return None


# ------------------------------------------------------------------------------- Singularity / Apptainer --nv

# `--nv` binds the host's NVIDIA libraries listed in nvliblist.conf, found through the ldconfig cache; on a host
# with none it warns and runs the container without them (Singularity/Apptainer, "Could not find any nv files on
# this host!"). That is a node without an NVIDIA driver: a login or CPU node (the job did not land on a GPU node)
# or a GPU node whose driver is not installed. Printed on its own it is harmless (a CPU-only command).
NO_NV_FILES = re.compile(r"Could not find any nv files on this host", re.IGNORECASE)
SCHEDULER_WORDS = re.compile(
    r"\b(?:srun|sbatch|salloc|squeue|qsub|bsub|SLURM_\w+|#SBATCH|#PBS|login node|compute node|partition)\b",
    re.IGNORECASE,
)


# `--nv` binds the host's nvidia-smi too: without the host's files the container has none ("FATAL: "nvidia-smi":
# executable file not found in $PATH"), the same failure as CUDA finding no GPU.
SMI_ABSENT_IN_CONTAINER = re.compile(
    r"nvidia-smi\\?['\"]?: executable file not found|nvidia-smi: (?:command )?not found"
)


def singularity_without_driver_match(lines: list[str], unavailable: bool) -> Match | None:
    """`--nv` found no NVIDIA driver libraries on the node and CUDA is then unavailable: in a scheduler's text the
    job ran on a node without a GPU (scheduler_no_gpu_allocated), otherwise the node has no driver (a possibility,
    since a CPU node is no_nvidia_gpu too). Without a CUDA failure the warning is no finding."""
    if not unavailable and not any(SMI_ABSENT_IN_CONTAINER.search(line[:MAX_LINE]) for line in lines):
        return None
    found = next(((no, line) for no, line in enumerate(lines, start=1) if NO_NV_FILES.search(line[:MAX_LINE])), None)
    if found is None:
        return None
    if any(SCHEDULER_WORDS.search(line[:MAX_LINE]) for line in lines):
        return Match("scheduler_no_gpu_allocated", found[0], found[1].strip()[:500], False, 0.8)
    return Match("no_nvidia_driver", found[0], found[1].strip()[:500], False, 0.6)


# libnvidia-container runs the ldconfig its config.toml names ("@/sbin/ldconfig.real" on Debian/Ubuntu packages);
# on a distribution without that file the hook fails before the container starts: the toolkit is misconfigured.
LDCACHE_ERROR = re.compile(r"nvidia-container-cli: ldcache error: open failed: \S*ldconfig\S*", re.IGNORECASE)


def toolkit_ldconfig_match(lines: list[str]) -> Match | None:
    """nvidia-container-cli could not run the ldconfig its config names: the container toolkit is set up wrong
    (docker_no_gpu_runtime, as a possibility: its fix is the toolkit's configuration)."""
    for no, line in enumerate(lines, start=1):
        if LDCACHE_ERROR.search(line[:MAX_LINE]):
            return Match("docker_no_gpu_runtime", no, line.strip()[:500], False, 0.7)
    return None


# ------------------------------------------------------------------------------- a cluster's login node

# The user ran the GPU program on the cluster's login (head, front-end, submit) node: those nodes have no GPU, or
# none for users, and the scheduler gives GPUs only to jobs ("I ran it on the login node", "from the head node").
LOGIN_NODE = re.compile(
    r"\b(?:on|from|in|at) (?:the |a |our |my )?(?:cluster'?s? )?(?:login|head|front[- ]?end|submit(?:ting)?) node\b|"
    r"\blogin node (?:has|have|with) no GPU",
    re.IGNORECASE,
)
# A program failing to find a GPU (not a GPU that faults or a build without CUDA, which a node cannot explain).
NO_GPU_FOUND = re.compile(
    r"No CUDA GPUs are available|no CUDA-capable device is detected|CUDA_ERROR_NO_DEVICE|"
    r"NVIDIA-SMI has failed|No devices were found|Found no NVIDIA driver on your system|"
    r"torch\.cuda\.is_available\(\)\s*(?:->|returns?|is|=)?\s*False",
    re.IGNORECASE,
)


def login_node_match(lines: list[str], unavailable: bool) -> Match | None:
    """The text says the program ran on a cluster's login node and CUDA found no GPU: the work was not sent to a GPU
    node through the scheduler (scheduler_no_gpu_allocated, the likeliest reading)."""
    if not unavailable and not any(NO_GPU_FOUND.search(line[:MAX_LINE]) for line in lines):
        return None
    for no, line in enumerate(lines, start=1):
        if LOGIN_NODE.search(line[:MAX_LINE]):
            return Match("scheduler_no_gpu_allocated", no, line.strip()[:500], False, 0.9)
    return None


# ------------------------------------------------------------------------------- nvidia-smi works, CUDA does not

# nvidia-smi's table (cuda_working.smi_answered) says the driver answered through the nvidia kernel module, which is
# therefore loaded; these lines say nvidia-smi itself failed.
SMI_FAILED = re.compile(
    r"NVIDIA-SMI has failed|Failed to initialize NVML|No devices were found|nvidia-smi: (?:command )?not found",
    re.IGNORECASE,
)
# CUDA's unknown (999) or initialization error: what a nvidia_uvm missing or broken gives while nvidia-smi works.
UVM_CLASS_ERROR = re.compile(
    r"CUDA unknown error|CUDA_ERROR_UNKNOWN|cudaErrorUnknown|CUDA error: unknown error|\(999\)|error 999\b|"
    r"CUDA driver initialization failed|CUDA_ERROR_NOT_INITIALIZED|CUDA error: initialization error",
    re.IGNORECASE,
)
MODULE_GUESSES = frozenset({"nvidia_module_not_loaded", "no_nvidia_driver"})


def working_smi_rules_out_module(lines: list[str], matches: list[Match]) -> list[Match]:
    """nvidia-smi printed its table (so the nvidia module runs and a driver is installed) and CUDA fails with the
    unknown or initialization error: the module and driver guesses those messages carry go, leaving the module
    nvidia-smi does not need (nvidia_uvm) and the other readings. Not when nvidia-smi also fails in the text."""
    cut = [line[:MAX_LINE] for line in lines]
    if not any(smi_answered(line) for line in cut) or any(SMI_FAILED.search(line) for line in cut):
        return matches
    if not any(UVM_CLASS_ERROR.search(line) for line in cut):
        return matches
    return [m for m in matches if m.specific or m.id not in MODULE_GUESSES]


# ------------------------------------------------------------------------------- a Kubernetes node with no GPU to give

# `kubectl describe node`: the node's Capacity/Allocatable list nvidia.com/gpu with 0 (the device plugin advertises
# none). "Insufficient nvidia.com/gpu" then follows from the node, not from the pod's request.
NODE_ZERO_GPUS = re.compile(r"^\s*nvidia\.com/gpu:?\s+0\s*$")
NODE_RESOURCES = re.compile(r"^\s*(?:Capacity|Allocatable):\s*$")


def node_without_gpus(lines: list[str], matches: list[Match]) -> list[Match]:
    """The text shows a node's Capacity/Allocatable with nvidia.com/gpu: 0: the device plugin advertises no GPU, most
    often because the node's container runtime does not give its pod the driver (docker_no_gpu_runtime, the
    likeliest reading). A pod's "Insufficient nvidia.com/gpu" is then that cause's consequence, as it is beside the
    device plugin's own verdict that it could not load NVML: kept as a possibility after it, not as a verdict on
    the pod's request."""
    cut = [line[:MAX_LINE] for line in lines]
    found = None
    for no, line in enumerate(cut):
        if NODE_RESOURCES.match(line):
            for k, entry in enumerate(cut[no + 1 : no + 30], start=no + 2):
                if NODE_ZERO_GPUS.match(entry):
                    found = (k, entry.strip())
                    break
                if not entry.startswith((" ", "\t")):
                    break
        if found is not None:
            break
    runtime_verdict = any(m.id == "docker_no_gpu_runtime" and m.specific for m in matches)
    if found is None and not runtime_verdict:
        return matches
    kept = [
        Match(m.id, m.line_no, m.line, False, min(m.weight, 0.5))
        if m.id == "scheduler_no_gpu_allocated" and "nvidia.com/gpu" in m.line
        else m
        for m in matches
    ]
    if found is None or any(m.id == "docker_no_gpu_runtime" for m in kept):
        return kept
    return [*kept, Match("docker_no_gpu_runtime", found[0], found[1], False, 0.8)]
