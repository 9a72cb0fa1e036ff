"""Readings of a text that shows a container (docker/podman run, Compose, a pod) and the GPU not reaching it: the
container was not given the GPU, which explains the driver and CUDA errors printed inside it."""

from __future__ import annotations

import re

from gpuassist.ingest import errors
from gpuassist.ingest.unavailable_said import UNAVAILABLE, says_unavailable
from gpuassist.report.model import Report

# A `docker run` (or podman) command line that gives the container no GPU.
CONTAINER_RUN = re.compile(r"\b(?:docker|podman|nerdctl)\s+run\b")


GPU_FLAGS = re.compile(
    r"--gpus\b|--runtime[= ]nvidia|--device[= ]\S*nvidia\.com/gpu|NVIDIA_VISIBLE_DEVICES|nvidia-docker"
)


CONTAINER_IMAGE = re.compile(
    r"\b(?:docker|podman|container)\s+(?:image|container)\b|\bin (?:the |a |my )?(?:docker|"
    r"podman)\b|\b(?:docker|podman) (?:pull|run|exec)\b",
    re.IGNORECASE,
)


# The value's own quotes are optional around a number and a pair for the empty value ('= ""').
VISIBLE_SET = re.compile(r"CUDA_VISIBLE_DEVICES\s*[\"']?\]?\s*=\s*(?:\"\"|''|[\"']?(?:-1|\d+(?:,\d+)*))")


def visible_devices_match(lines: list[str], report: Report) -> errors.Match | None:
    """CUDA_VISIBLE_DEVICES set in the text (export, env prefix, os.environ) while CUDA sees no GPU: one of the
    likely causes (an index that does not exist, -1, or an empty value hides the GPUs)."""
    hit = next(((no, line) for no, line in enumerate(lines, start=1) if VISIBLE_SET.search(line[:2000])), None)
    if hit is None or report.facts.value("cuda.available") is True or not says_unavailable(lines):
        return None
    return errors.Match("cuda_visible_devices_hides_gpus", hit[0], hit[1].strip()[:500], False, 0.7)


def container_run_match(lines: list[str], report: Report) -> errors.Match | None:
    """The paste shows the container started without a GPU (no --gpus / NVIDIA runtime / CDI device) and CUDA
    unavailable or nvidia-smi missing inside it: the container was never given the GPU."""
    run = next(
        (
            (no, line)
            for no, line in enumerate(lines, start=1)
            if CONTAINER_RUN.search(line[:2000]) and not GPU_FLAGS.search(line[:2000])
        ),
        None,
    )
    if report.facts.value("cuda.available") is True or any(
        GPU_FLAGS.search(line[:2000]) or COMPOSE_GPU.search(line[:2000]) for line in lines
    ):
        return None
    if run is None:
        # No run command, only words: "I pulled the official docker image ... is_available() = False". Then the
        # container not being given the GPU is one of the likely causes, not a verdict.
        said = next(((no, line) for no, line in enumerate(lines, start=1) if CONTAINER_IMAGE.search(line[:2000])), None)
        if said is None or not says_unavailable(lines):
            return None
        return errors.Match("docker_no_gpu_runtime", said[0], said[1].strip()[:500], False, 0.6)
    no_gpu = (
        report.facts.value("cuda.available") is False
        or says_unavailable(lines)
        or any(NO_SMI.search(line[:2000]) for line in lines)
    )
    if not no_gpu:
        return None
    return errors.Match("docker_no_gpu_runtime", run[0], run[1].strip()[:500], True, 0.9)


# Inside a container that was given no GPU, the driver cannot be reached: nvidia-smi and NVML fail, CUDA finds no
# driver. The same lines on a host would mean the kernel module is not loaded.
GPU_UNREACHABLE = re.compile(
    r"NVIDIA-SMI has failed because it couldn't communicate|Failed to initialize NVML: (?:Unknown Error|"
    r"Driver Not Loaded)|Found no NVIDIA driver on your system",
    re.IGNORECASE,
)


# The driver's user-space library missing in the container: the dynamic loader's "error while loading shared libraries:
# libcuda.so.1: cannot open shared object file" (glibc elf/dl-load.c), a dlopen/ctypes error naming it, TensorFlow's
# DSO loader ("Could not load dynamic library 'libcuda.so.1'"), taichi's "libcuda.so lib not found". No image ships
# libcuda (NVIDIA Container Toolkit docs, "Driver capabilities": the runtime mounts it from the host for the compute
# capability; the nvidia/cuda images carry only the link-time stub under /usr/local/cuda/lib64/stubs, which CUDA
# answers with "CUDA driver is a stub library" when it is the one found), so after a run that asked for no GPU its
# absence is the runtime not used, not a host without a driver.
LIBCUDA_UNLOADABLE = re.compile(
    r"\blibcuda\.so(?:\.1)?\b[^\n]{0,20}?:\s*cannot open shared object file|"
    r"Could not load dynamic library '?libcuda\.so|\blibcuda\.so(?:\.1)? lib not found|"
    # only the link-time stub found (an image's /usr/local/cuda/lib64/stubs on the path): cudaErrorStubLibrary, 34
    r"CUDA driver is a stub library|\bCUDA_ERROR_STUB_LIBRARY\b|\bcudaErrorStubLibrary\b",
    re.IGNORECASE,
)


HOST_DRIVER_READINGS = ("nvidia_module_not_loaded", "no_nvidia_driver", "no_nvidia_gpu", "container_gpu_access_lost")


def gpu_less_container_matches(lines: list[str], report: Report, matches: list[errors.Match]) -> list[errors.Match]:
    """A `docker run` without any GPU request (no --gpus, NVIDIA runtime or CDI device anywhere in the text), then the
    driver unreachable after it (nvidia-smi cannot communicate, NVML or CUDA find no driver, libcuda.so.1 not found):
    the container was never given the GPU. Mounting the host's nvidia-smi or libraries into it by hand does not give
    it the device nodes. Read as host facts, those lines would blame the host's kernel module or driver, which the
    container cannot see, and a missing libcuda would read as WSL's library path where no WSL is shown."""
    if report.facts.value("cuda.available") is True or any(
        GPU_FLAGS.search(line[:2000]) or COMPOSE_GPU.search(line[:2000]) for line in lines
    ):
        return matches
    run = next((no for no, line in enumerate(lines, start=1) if CONTAINER_RUN.search(line[:2000])), None)
    if run is None:
        return matches
    failed = next(
        (
            (no, line)
            for no, line in enumerate(lines, start=1)
            if no > run and (GPU_UNREACHABLE.search(line[:2000]) or LIBCUDA_UNLOADABLE.search(line[:2000]))
        ),
        None,
    )
    if failed is None:
        return matches
    wsl = report.facts.value("platform.wsl") is True
    kept = [
        m
        for m in matches
        if not (m.id in HOST_DRIVER_READINGS and m.line_no > run)
        and m.id != "docker_no_gpu_runtime"
        and not (m.id == "wsl_libcuda_problem" and not m.specific and not wsl)
    ]
    return [*kept, errors.Match("docker_no_gpu_runtime", run, lines[run - 1].strip()[:500], True, 0.9)]


# A shell or notebook in a container says nvidia-smi is missing ("nvidia-smi: command not found", "both nvcc and
# nvidia-smi not found").
NO_SMI = re.compile(
    r"nvidia-smi\W{0,3}(?:command )?not found|nvidia-smi\b[^.\n]{0,40}\bnot found|"
    r"\bnot found\b[^.\n]{0,30}\bnvidia-smi",
    re.IGNORECASE,
)


CONTAINER_WORDS = re.compile(
    r"\b(?:docker|container|podman|kubernetes|kubectl|pod|nvidia-docker|compose)\b", re.IGNORECASE
)


# A Compose / Kubernetes GPU request: the way the container was (meant to be) given the GPU.
COMPOSE_GPU = re.compile(
    r"capabilities:\s*\[?\s*['\"]?gpu|\bdriver:\s*['\"]?nvidia\b|\bruntime:\s*nvidia\b|"
    r"nvidia\.com/gpu:\s*['\"]?\d",
    re.IGNORECASE,
)


NOT_WORKING = re.compile(
    r"\b(?:don'?t|doesn'?t|does not|do not|is not|isn'?t|not|never)\s+work|"
    r"\bnot (?:detected|visible|found|available|recogni[sz]ed)\b|detection fail|"
    r"\bno (?:access to (?:the )?)?gpus?\b",
    re.IGNORECASE,
)


def container_smi_match(lines: list[str], report: Report) -> errors.Match | None:
    """nvidia-smi works somewhere in the text (its table shows the driver) but is missing in the container the
    user runs: that container was not given the GPU (the toolkit injects nvidia-smi and the driver libraries)."""
    if not report.facts.known("driver.version") or report.facts.value("cuda.available") is True:
        return None
    missing = next(((no, line) for no, line in enumerate(lines, start=1) if NO_SMI.search(line[:2000])), None)
    if missing is None or not any(CONTAINER_WORDS.search(line[:2000]) for line in lines):
        return None
    return errors.Match("docker_no_gpu_runtime", missing[0], missing[1].strip()[:500], True, 0.9)


# nvidia-smi's header (or -q, or the user's account of it) with no CUDA version: libcuda.so is not there.
SMI_NO_CUDA = re.compile(r"CUDA Version\W{0,3}(?:was |is |shows? |of )?N/?A\b", re.IGNORECASE)


def container_without_compute_match(lines: list[str], report: Report) -> errors.Match | None:
    """nvidia-smi works in a container but shows "CUDA Version: N/A": the runtime mounted NVML (the utility
    capability) but not libcuda (compute), because the image does not ask for it (NVIDIA_DRIVER_CAPABILITIES without
    compute; the nvidia/cuda images set it). A base image or run option that requests compute is the fix."""
    if report.facts.value("cuda.available") is True:
        return None
    shown = next(((no, line) for no, line in enumerate(lines, start=1) if SMI_NO_CUDA.search(line[:2000])), None)
    if shown is None or not any(CONTAINER_WORDS.search(line[:2000]) for line in lines):
        return None
    return errors.Match("docker_no_gpu_runtime", shown[0], shown[1].strip()[:500], True, 0.9)


def compose_match(lines: list[str], report: Report) -> errors.Match | None:
    """A Compose file or pod spec that requests the GPU, and the text says the GPU does not work in it: the request
    did not reach the container (indentation, an old Compose without device requests, no NVIDIA runtime)."""
    if report.facts.value("cuda.available") is True:
        return None
    request = next(((no, line) for no, line in enumerate(lines, start=1) if COMPOSE_GPU.search(line[:2000])), None)
    if request is None or not any(NOT_WORKING.search(line[:2000]) or UNAVAILABLE.search(line[:2000]) for line in lines):
        return None
    return errors.Match("docker_no_gpu_runtime", request[0], request[1].strip()[:500], False, 0.6)


# The program runs in a container: Compose's run output, a docker/podman command, "inside the container".
IN_CONTAINER = re.compile(
    r"\bdocker[- ]compose\b|\b(?:docker|podman|nerdctl)\s+(?:run|exec|compose)\b|"
    r"\bnvidia-docker\b|^Creating \S+_run\b|"
    r"\b(?:inside|in|within|from) (?:the |a |my |this )?(?:docker |podman )?container\b|"
    r"\b(?:on|in|with|to) (?:a |my |our |the )?(?:kubernetes|k8s)\b|\bkubectl\b|\bdevice[- ]plugin\b|"
    r"\bnvidia\.com/gpu\b|\b(?:inside|in|within|from) (?:the |a |my |our |this )?pods?\b",
    re.IGNORECASE,
)


# nvidia-docker 1.0 and its plugin log with this prefix (log.SetPrefix("nvidia-docker-plugin | ")); they run on the
# host, so what they fail to load is the host's, not a container's.
NVIDIA_DOCKER1_LOG = re.compile(r"nvidia-docker(?:-plugin)?\s*\|")


def in_container_matches(lines: list[str], report: Report, matches: list[errors.Match]) -> list[errors.Match]:
    """ "Found no NVIDIA driver" from a program the text shows running in a container: the container not being given
    the GPU is the likeliest reading (the host's driver and GPU are hidden from it either way), so it goes first and
    "this machine has no NVIDIA GPU" is not offered; "no driver" stays a guess unless the text shows the driver."""
    if report.facts.value("cuda.available") is True or any(
        m.id == "docker_no_gpu_runtime" and m.specific for m in matches
    ):
        return matches
    guess = next((m for m in matches if m.id == "no_nvidia_driver" and not m.specific), None)
    if guess is None or any(m.id == "no_nvidia_gpu" and m.weight >= 0.8 for m in matches):
        return matches  # the user said the machine has no GPU, or lspci shows none
    if NVIDIA_DOCKER1_LOG.search(guess.line[:2000]):
        return matches  # nvidia-docker 1.0's own log: the host side that would give the container the GPU
    if not any(IN_CONTAINER.search(line[:2000]) for line in lines):
        return matches
    dropped = {"no_nvidia_gpu"} | ({"no_nvidia_driver"} if report.facts.known("driver.version") else set())
    if report.facts.value("platform.wsl") is None:
        dropped.add("wsl_libcuda_problem")  # a missing libcuda in a container is the container's, not WSL's
    kept = [m for m in matches if not (m.id in dropped and not m.specific) and m.id != "docker_no_gpu_runtime"]
    return [*kept, errors.Match("docker_no_gpu_runtime", guess.line_no, guess.line, False, 0.9)]
