"""Readings that depend on the platform the text shows: macOS (no CUDA, MPS), WSL (the driver is Windows'), a
Jetson (NVIDIA's JetPack wheel) and Windows (PyPI's CPU build)."""

from __future__ import annotations

import re

from gpuassist.ingest import errors, jetson_texts, libcuda_found, paste_facts, system_causes
from gpuassist.ingest.gpu_presence import CPU_MACHINE
from gpuassist.ingest.unavailable_said import UNAVAILABLE, says_unavailable
from gpuassist.report.model import Report
from gpuassist.rules import gpu_stacks

# On a Mac these messages only say that CUDA does not exist there.
MAC_CUDA_SYMPTOMS = (
    "cpu_only_build",
    "source_build_without_cuda",
    "driver_too_old",  # "CUDA driver version is insufficient" from CuPy and others: there is no CUDA driver at all
    "nvidia_module_not_loaded",
    "no_nvidia_driver",
    "no_nvidia_gpu",
    # a GPU hidden by CUDA_VISIBLE_DEVICES (YOLOv5's select_device writing '--device gpu' into it): there is no CUDA
    # device on a Mac for the variable to hide
    "cuda_visible_devices_hides_gpus",
    "macos_no_cuda_use_mps",
)


# conda's "PackagesNotFoundError: ... not available from current channels:" lists a CUDA package
# ("  - cudatoolkit=11.3", "  - pytorch-cuda=12.1*").
CONDA_NOT_FOUND = re.compile(r"PackagesNotFoundError|PackageNotFoundError|ResolvePackageNotFound")


CONDA_CUDA_MISSING = re.compile(
    r"^\s*-\s*(?:cudatoolkit|pytorch-cuda|cuda-toolkit|cuda-runtime|cuda\d{2,3})\b[=<>.\d*\s]*$"
)


# pip was asked for a CUDA build: a CUDA wheel index (…/whl/cu121, …/whl/nightly/cu128) or a +cuXYZ version.
CUDA_BUILD_REQUEST = re.compile(
    r"download\.pytorch\.org/whl/(?:nightly/|test/)?cu\d{2,3}\b|\btorch==[\d.]+\+cu\d{2,3}\b"
)


def macos_matches(lines: list[str], report: Report, matches: list[errors.Match]) -> list[errors.Match]:
    """The paste shows a Mac and CUDA failing ("Torch not compiled with CUDA enabled", no driver): macOS has no CUDA,
    the answer is MPS, not a CUDA build of torch. The symptom matches give way to that cause. So does pip finding
    no wheel when it was asked for a CUDA build: CUDA wheels are never built for macOS. Where the text shows MPS
    working, those symptoms are no fault at all."""
    if report.facts.value("host.os") != "Darwin" or report.facts.value("platform.rosetta") is True:
        return matches
    symptoms: tuple[str, ...] = MAC_CUDA_SYMPTOMS
    if any(CUDA_BUILD_REQUEST.search(line[:2000]) for line in lines):
        symptoms = (*MAC_CUDA_SYMPTOMS, "no_wheel_for_platform")
    if report.facts.value("mps.available") is True:
        # The text shows the Apple GPU working (its tensors, its allocator's out-of-memory error): CUDA's absence
        # is the platform, not this Mac's fault; the macOS rule's note says so at info severity.
        return [m for m in matches if m.id not in symptoms]
    symptom = next((m for m in matches if m.id in symptoms), None)
    if symptom is None:
        # conda found no CUDA package to install (cudatoolkit, pytorch-cuda): none exists for macOS.
        missing = next(
            ((no, line) for no, line in enumerate(lines, start=1) if CONDA_CUDA_MISSING.match(line[:2000])), None
        )
        if missing is None or not any(CONDA_NOT_FOUND.search(line[:2000]) for line in lines):
            return matches
        return [*matches, errors.Match("macos_no_cuda_use_mps", missing[0], missing[1].strip()[:500], True, 0.9)]
    kept = [m for m in matches if m.id not in symptoms]
    return [*kept, errors.Match("macos_no_cuda_use_mps", symptom.line_no, symptom.line, True, 0.9)]


# The driver's library loads (a REPL's ctypes handle, an ldd line, a framework's log): the driver is there.
LIBCUDA_LOADED = re.compile(
    r"<CDLL '[^']*libcuda\.so\.1'|^\s*libcuda\.so\.1 => /|opened dynamic library libcuda\.so\.1"
)


NO_DRIVER_GUESSES = ("no_nvidia_driver", "no_nvidia_gpu")


def driver_present_matches(lines: list[str], report: Report, matches: list[errors.Match]) -> list[errors.Match]:
    """When the text shows the driver library loading, or runs in WSL 2 (whose driver is Windows'), "no driver" and
    "no GPU" are not possible readings of a libcuda failure; in WSL 2 that failure is WSL's own libcuda path."""
    loaded = any(LIBCUDA_LOADED.search(line[:2000]) or libcuda_found.shows_library_found(line[:2000]) for line in lines)
    wsl2 = report.facts.value("platform.wsl") == "wsl2"
    if not loaded and not wsl2:
        return matches
    out = [m for m in matches if not (m.id in NO_DRIVER_GUESSES and not m.specific)]
    if wsl2:
        out = [
            errors.Match(m.id, m.line_no, m.line, True, m.weight)
            if m.id == "wsl_libcuda_problem" and "libcuda" in m.line
            else m
            for m in out
        ]
        # WSL 2's driver libraries (libcuda, libnvidia-ml) come from Windows through /usr/lib/wsl/lib: one that
        # cannot be loaded there is WSL's GPU path (a Windows build or driver without WSL GPU support), whoever
        # loads it (CUDA, nvidia-smi, the container toolkit).
        if not any(m.id == "wsl_libcuda_problem" and m.specific for m in out):
            library = next(
                (m for m in matches if m.id in NO_DRIVER_GUESSES and WSL_DRIVER_LIBRARY.search(m.line)), None
            )
            if library is not None:
                out.append(errors.Match("wsl_libcuda_problem", library.line_no, library.line, True, 0.9))
    return out


WSL_DRIVER_LIBRARY = re.compile(r"\blib(?:cuda|nvidia-ml)\.so|\bNVML\b", re.IGNORECASE)


# Readings of an NVIDIA-driver failure that assume a Linux kernel module, which WSL does not have.
# WSL has no NVIDIA kernel modules (nor nvidia_uvm): their readings there are WSL's GPU path.
KERNEL_MODULE_READINGS = ("nvidia_module_not_loaded", "uvm_wedged_after_suspend")


def wsl_driver_matches(report: Report, matches: list[errors.Match]) -> list[errors.Match]:
    """Inside WSL there is no NVIDIA kernel module to load: the GPU is reached through the Windows driver (/dev/dxg
    and /usr/lib/wsl/lib). nvidia-smi failing to "communicate with the NVIDIA driver" there means WSL's GPU path is
    broken (WSL 1, a Windows build or driver without WSL GPU support, a Linux driver installed inside WSL), so
    the kernel-module reading of that line becomes WSL's."""
    if report.facts.value("platform.wsl") is None:
        return matches
    out = []
    for m in matches:
        if m.id in KERNEL_MODULE_READINGS:
            out.append(errors.Match("wsl_libcuda_problem", m.line_no, m.line, m.specific, m.weight))
        else:
            out.append(m)
    return out


def jetson_without_torch(lines: list[str], matches: list[errors.Match]) -> list[errors.Match]:
    """A Tegra kernel name alone (a monitoring log, a kernel banner) says the machine is a Jetson, not that torch
    is the wrong build there: the JetPack-wheel guess needs torch to be in the text at all."""
    if any(TORCH_NAMED.search(line[:2000]) for line in lines):
        return matches
    return [m for m in matches if not (m.id == "jetson_needs_nvidia_wheel" and not m.specific)]


TORCH_NAMED = re.compile(r"torch|cuda", re.IGNORECASE)


GENERIC_WHEEL = re.compile(
    r"manylinux|\bpypi\b|pip3? install torch\b|\+cpu\b|CPU[- ]only|download\.pytorch\.org|"
    r"(?:binaries|wheels?|builds?|packages?) from (?:the )?pytorch(?:\.org| website| site)|pytorch(?:\.org)? website|"
    r"conda-forge",
    re.IGNORECASE,
)


# A torch install attempt, crash or complaint on a Jetson (not a MediaPipe or TensorRT question).
INSTALL_COMMAND = re.compile(r"\b(?:pip3?|conda|mamba)\s+install\b", re.IGNORECASE)


# "Illegal instruction (core dumped)" is not one: on a Jetson it is NumPy's OpenBLAS picking a CPU core type the
# board lacks (fixed by OPENBLAS_CORETYPE=ARMV8), whatever torch is installed; a wrong torch wheel fails to import
# or finds no CUDA instead.
TORCH_TROUBLE = re.compile(r"not available|unavailable", re.IGNORECASE)


def _jetson_torch_line(line: str) -> bool:
    """The line installs torch, or says torch is unavailable (checked as separate conditions so a long line is
    scanned a fixed number of times)."""
    return "torch" in line.lower() and (
        INSTALL_COMMAND.search(line) is not None or TORCH_TROUBLE.search(line) is not None
    )


def jetson_match(lines: list[str], report: Report, matches: list[errors.Match]) -> errors.Match | None:
    """On a Jetson, a torch without working CUDA is almost always a wheel that is not NVIDIA's JetPack build
    (PyPI's aarch64 wheels have no Tegra GPU support): the JetPack-matched wheel or container is the fix."""
    if not report.facts.value("platform.jetson") or report.facts.value("cuda.available") is True:
        return None
    # English and other languages' "the GPU is not detected" (user_words) count as the complaint too.
    gpu_unused = system_causes.says_gpu_unused(lines) or says_unavailable(lines)
    if not any(re.search(r"torch", line[:2000], re.IGNORECASE) for line in lines) and (
        not gpu_unused or system_causes.names_another_gpu_stack(lines) or jetson_texts.driver_lists_gpu(lines)
    ):
        # A Jetson question about something else (another library, no complaint about the GPU, or a tool that does
        # not see the GPU the driver lists).
        return None
    if report.facts.value("cuda.available") is not False and gpu_stacks.local_torch_build(
        report.facts.value("torch.version")
    ):
        return None  # a torch built on the board or NVIDIA's own: a crash there is not the PyPI wheel's
    complained = report.facts.value("cuda.available") is False or says_unavailable(lines) or gpu_unused
    if (
        not complained
        and not any(m.id in ("cpu_only_build", "no_nvidia_driver", "no_nvidia_gpu") for m in matches)
        and not any(f.id == "cpu_only_build" for f in report.findings)
        and not any(_jetson_torch_line(line[:2000]) for line in lines)
        and not system_causes.cuda_failed_at_first_use(lines, matches)
    ):
        return None
    no = next((i for i, line in enumerate(lines, start=1) if paste_facts.JETSON_RELEASE.search(line)), 1)
    # A verdict only when the text shows a non-JetPack wheel; otherwise (a container build, a wheel of unknown
    # origin) it is the likeliest of the possible causes.
    generic = (
        any(m.id == "cpu_only_build" for m in matches)
        or any(f.id == "cpu_only_build" for f in report.findings)
        or any(GENERIC_WHEEL.search(line[:2000]) for line in lines)
    )
    return errors.Match("jetson_needs_nvidia_wheel", no, lines[no - 1].strip()[:500], generic, 0.6)


# An app's log says it fell back to the CPU ("Using device_type cpu", "Using device: cpu").
CPU_FALLBACK = re.compile(r"\busing device(?:_type)?\s*[:=]?\s*[`'\"]?cpu\b", re.IGNORECASE)


def windows_pip_match(lines: list[str], report: Report, matches: list[errors.Match]) -> errors.Match | None:
    """On Windows, CUDA unavailable (or an app falling back to the CPU) and nothing more specific: PyPI's Windows
    torch is the CPU build, the likeliest cause there. A guess: the build itself is not shown."""
    if (
        report.facts.value("host.os") != "Windows"
        or report.facts.value("cuda.available") is True
        or report.facts.known("torch.cuda_build")
        or any(m.specific or m.weight >= 0.8 for m in matches)
    ):
        return None
    said = next(((no, line) for no, line in enumerate(lines, start=1) if CPU_FALLBACK.search(line[:2000])), None)
    if said is None and says_unavailable(lines):
        said = next(
            (
                (no, line)
                for no, line in enumerate(lines, start=1)
                if UNAVAILABLE.search(line[:2000]) or "is_available" in line[:2000]
            ),
            None,
        )
    if said is None or any(CPU_MACHINE.search(line[:2000]) for line in lines):
        return None
    return errors.Match("cpu_only_build", said[0], said[1].strip()[:500], False, 0.6)
