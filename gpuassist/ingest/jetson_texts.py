"""What a Jetson text says about its torch, read against NVIDIA's JetPack facts, and which cause comes first.

On a Jetson (the caller has established it: an L4T release, a Tegra kernel, the board's name) the same message means
something else than on a PC or an ARM server:

- a library the JetPack wheels need but JetPack does not install (OpenBLAS and Open MPI for the JetPack 4/5 wheels,
  cuSPARSELt for the JetPack 6 wheels from 24.06 on, cuDSS for the jetson-ai-lab torch 2.8+ wheels) missing at
  ``import torch`` means NVIDIA's wheel is installed and one system package is missing: install it, the wheel is
  right (NVIDIA's "Installing PyTorch for Jetson Platform" lists ``libopenblas-dev`` as a prerequisite; the
  Torch-TensorRT JetPack guide installs cuSPARSELt into /usr/local/cuda/lib64; the jetson-ai-lab jp6/cu126 wheels of
  torch 2.8+ link ``libcudss.so.0``);
- "no kernel image is available" is a torch built without the board's GPU architecture (Nano/TX1 sm_53, TX2 sm_62,
  Xavier sm_72, Orin sm_87; PyPI's aarch64 CUDA wheels carry sm_80/90/100/110/120 only): the wheel was not built
  for this board, not a GPU too new for the tables;
- a CUDA build asking for a newer driver is a wheel made for a newer JetPack (or for ARM servers): the board's
  driver comes with its L4T release and is upgraded only by a new JetPack, so "update your driver from nvidia.com"
  does not apply and the JetPack-matched wheel does; torch's library missing a versioned CUDA symbol is the same
  (JetPack's CUDA is the only one on the board, NVIDIA's wheels do not ship one);
- an image or wheel for a JetPack the named module cannot run (Nano/TX1/TX2 stop at JetPack 4, Xavier at 5, Orin
  starts at 5) is the release mismatch, even where the board's own L4T release is not stated;
- nvidia-smi missing is normal there (JetPack 4/5 have none), a container guess needs a container in the text, and
  ``import torch`` failing on the static TLS block (aarch64's libgomp) is fixed by preloading that library;
- with CUDA working, a program that says it runs on the CPU left its work there, and a report of a healthy board
  (jetson_release, tegrastats, a -tegra kernel) names no cause.

Jetson AGX Thor (JetPack 7, L4T R38, CUDA 13, sm_110) is the exception: NVIDIA aligned it with the ARM-server (SBSA)
CUDA, so PyPI's aarch64 ``+cu130`` wheels (torch 2.11 and later) are built for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpuassist.ingest.errors import Match
from gpuassist.ingest.system_causes import JETPACK_OF_L4T, L4T_CONTAINER_TAG
from gpuassist.report.model import Report


@dataclass(frozen=True)
class JetsonDependency:
    """A shared library a JetPack torch wheel links that JetPack itself does not install, and how to get it."""

    library: re.Pattern[str]
    provides: str
    install: str


# Sources: NVIDIA "Installing PyTorch for Jetson Platform" (docs.nvidia.com/deeplearning/frameworks/
# install-pytorch-jetson-platform: `sudo apt-get -y install python3-pip libopenblas-dev`); the "PyTorch for Jetson"
# forum page (forums.developer.nvidia.com/t/72048: `libopenblas-base libopenmpi-dev libomp-dev` for the JetPack 4/5
# wheels); Torch-TensorRT "Torch-TensorRT in JetPack" (docs.pytorch.org/TensorRT/getting_started/jetpack.html:
# "Ensure libcusparseLt.so exists at /usr/local/cuda/lib64/"); the jetson-ai-lab jp6/cu126 torch 2.8+ wheels, which
# need nvidia-cudss-cu12 / NVIDIA's cuDSS (libcudss.so.0).
JETSON_DEPENDENCIES = (
    JetsonDependency(
        re.compile(r"\blibopenblas\.so(?:\.\d+)*\b", re.IGNORECASE),
        "OpenBLAS",
        "sudo apt-get install -y libopenblas-dev",
    ),
    JetsonDependency(
        re.compile(r"\blib(?:mpi(?:_cxx)?|open-(?:pal|rte))\.so(?:\.\d+)*\b", re.IGNORECASE),
        "Open MPI",
        "sudo apt-get install -y libopenmpi-dev",
    ),
    JetsonDependency(
        re.compile(r"\blibomp\.so(?:\.\d+)*\b", re.IGNORECASE), "LLVM OpenMP", "sudo apt-get install -y libomp-dev"
    ),
    JetsonDependency(
        re.compile(r"\blibcusparseLt\.so(?:\.\d+)*\b", re.IGNORECASE),
        "cuSPARSELt",
        "install NVIDIA's cuSPARSELt for CUDA 12 on aarch64 (the libcusparse_lt archive from "
        "developer.download.nvidia.com/compute/cusparselt/redist/, copied into /usr/local/cuda/lib64, or "
        "`pip install nvidia-cusparselt-cu12`) and run `sudo ldconfig`",
    ),
    JetsonDependency(
        re.compile(r"\blibcudss\.so(?:\.\d+)*\b", re.IGNORECASE),
        "cuDSS",
        "install NVIDIA's cuDSS for CUDA 12 (`pip install nvidia-cudss-cu12`, or the libcudss archive from "
        "developer.download.nvidia.com/compute/cudss/redist/) and make its lib directory visible to the loader",
    ),
)
SHARED_LIBRARY_MISSING = re.compile(r"\.so(?:\.\d+)*: cannot open shared object file", re.IGNORECASE)
LOADER_FAILED = re.compile(r"cannot open shared object file|\bnot found\b|No such file", re.IGNORECASE)


# glibc's dlopen failing to fit a library's thread-local storage into the static TLS block (elf/dl-tls.c), which on
# aarch64 hits libgomp when it is loaded late: "ImportError: /lib/aarch64-linux-gnu/libgomp.so.1: cannot allocate memory
# in static TLS block". Loading it first (LD_PRELOAD) makes room for it; the torch install is not at fault.
STATIC_TLS = re.compile(r"(?P<lib>/\S+\.so(?:\.\d+)*): cannot allocate memory in static TLS block")
TORCH_IMPORTED_HERE = re.compile(
    r"""[/\\]torch[/\\]__init__\.py|^\s*(?:>>>\s*)?import torch\b|-c ["'][^"']*import torch"""
)


def static_tls_failure(lines: list[str]) -> tuple[int, str, str] | None:
    """``import torch`` failing on a library that did not fit the static TLS block: (line number, line, library)."""
    hit = next(
        ((no, m) for no, line in enumerate(lines[:20000], start=1) if (m := STATIC_TLS.search(line[:2000]))), None
    )
    if hit is None or not any(TORCH_IMPORTED_HERE.search(line[:2000]) for line in lines[:20000]):
        return None
    no, m = hit
    return no, lines[no - 1].strip()[:500], m.group("lib")


# torch's own library asking the CUDA library for a symbol of a newer version ("libtorch_cuda.so: undefined symbol:
# cusparseSpSM_analysis, version libcusparse.so.11"). On a Jetson the CUDA libraries are JetPack's (NVIDIA's wheels do
# not ship them), so the wheel was built for a newer JetPack's CUDA than the board has.
CUDA_SYMBOL = re.compile(r"[/\\]torch[/\\]lib[/\\]\S+\.so\S*: undefined symbol: \S+, version lib(?:cu|nv)\w*\.so")


def cuda_symbol_missing(lines: list[str]) -> tuple[int, str] | None:
    for no, line in enumerate(lines[:20000], start=1):
        if "undefined symbol" in line[:2000] and CUDA_SYMBOL.search(line[:2000]):
            return no, line.strip()[:500]
    return None


def missing_dependency(lines: list[str]) -> tuple[int, str, JetsonDependency] | None:
    """The first line where the loader cannot find one of the JetPack wheels' system libraries."""
    for no, line in enumerate(lines[:20000], start=1):
        head = line[:2000]
        if ".so" not in head or not LOADER_FAILED.search(head):
            continue
        for dep in JETSON_DEPENDENCIES:
            if dep.library.search(head):
                return no, line.strip()[:500], dep
    return None


# A generic aarch64 torch (PyPI's manylinux wheel, a `+cpu` build, conda-forge's `cpu_generic`, the
# download.pytorch.org index): beside it, a missing library is that wheel's, and the wheel is the cause.
GENERIC_AARCH64_WHEEL = re.compile(
    r"\btorch-\S*manylinux\S*aarch64\.whl|\btorch[-=]=?\d[\w.]*\+cpu\b|cpu_generic|"
    r"download\.pytorch\.org/whl|conda-forge/linux-aarch64::pytorch|"
    r"\bpytorch-cuda\s*=|\bconda install\b.*\s-c\s+pytorch\b",
    re.IGNORECASE,
)


def shows_generic_wheel(lines: list[str]) -> bool:
    return any(GENERIC_AARCH64_WHEEL.search(line[:2000]) for line in lines[:5000])


NO_KERNEL_IMAGE = re.compile(r"no kernel image is available for execution on the device", re.IGNORECASE)
# The readings of "no kernel image" that assume a PC's discrete GPU (newer or older than the build's list) or a
# second torch: on a Jetson the board's own architecture is what the wheel lacks.
ARCH_READINGS = ("gpu_arch_too_new_for_build", "gpu_arch_dropped_from_build", "stale_or_shadowed_torch")
# What a CUDA wheel made for another JetPack (or for ARM servers) shows on a Jetson: the board's L4T driver is older
# than the build's CUDA, or the wheel looks for a discrete GPU's driver that a Jetson does not have.
DRIVER_READINGS = ("driver_too_old", "no_nvidia_driver", "nvidia_module_not_loaded", "no_nvidia_gpu")
# Of those, the ones that are the build's own demand (a newer CUDA driver; a desktop driver's libcuda): on a Jetson
# the JetPack-matched wheel answers them.
WHEEL_ASKS_OTHER_DRIVER = ("driver_too_old", "no_nvidia_driver")
# The lines in which the build itself makes that demand (torch's and the CUDA runtime's own messages).
BUILD_DEMAND = re.compile(
    r"too old|insufficient|unsupported toolchain|Found no NVIDIA driver|CUDA driver version|"
    r"forward compatibility|cudaErrorInsufficientDriver|CUDA_ERROR_(?:UNSUPPORTED_PTX_VERSION|SYSTEM_DRIVER_MISMATCH)",
    re.IGNORECASE,
)
NO_SMI = re.compile(
    r"nvidia-smi\S*:?\s*(?:command )?not found|No such file or directory.*nvidia-smi|nvidia-smi.*No such file", re.I
)


# Which JetPack lines each module generation runs (NVIDIA's JetPack archive and the "PyTorch for Jetson" wheel table):
# Nano, TX1 and TX2 stop at JetPack 4 (L4T R32); Xavier runs JetPack 4 and 5; Orin JetPack 5, 6 and 7; Thor only 7.
# Each generation as texts name it: the module, its SoC (Tegra X1 = t210, TX2 = t186, Xavier = t194, Orin = t234).
BOARD_JETPACKS = (
    (
        re.compile(
            r"\bJetson[ -]?Nano\b|\bTegra[ -]?X1\b|\bt210(?:ref)?\b|\bJetson[ -]?TX[12]\b|\bt186(?:ref)?\b", re.I
        ),
        {3, 4},
    ),
    (re.compile(r"\bXavier\b|\bt194\b|\btegra194\b", re.IGNORECASE), {4, 5}),
    (re.compile(r"\bOrin\b|\bt234\b|\btegra234\b", re.IGNORECASE), {5, 6, 7}),
    (re.compile(r"\bThor\b|\bt264\b", re.IGNORECASE), {7}),
)
# What a wheel was built for: NVIDIA's JetPack wheel folder (redist/jp/v512 = JetPack 5.1.2), the Jetson AI Lab
# index (jp6/cu126); an image's L4T release is its container tag (system_causes.L4T_CONTAINER_TAG).
WHEEL_JETPACK = re.compile(r"/redist/jp/v([4-7])\d{1,2}\b|\bjetson-ai-lab\.\w+/jp([4-7])\b", re.IGNORECASE)


def _artefact_jetpack(line: str) -> int | None:
    """The JetPack line an image tag or wheel source on this line was built for."""
    tag = L4T_CONTAINER_TAG.search(line)
    if tag is not None:
        return JETPACK_OF_L4T.get(int(next(g for g in tag.groups() if g)))
    wheel = WHEEL_JETPACK.search(line)
    return int(wheel.group(1) or wheel.group(2)) if wheel else None


def board_mismatch(lines: list[str]) -> Match | None:
    """An image or wheel built for a JetPack the named module cannot run (an L4T R35 container on a Jetson Nano, a
    JetPack 6 wheel on a Xavier): its CUDA needs a newer L4T driver than the board can have."""
    text = [line[:2000] for line in lines[:5000]]
    named = [jps for pattern, jps in BOARD_JETPACKS if any(pattern.search(line) for line in text)]
    if len(named) != 1:
        return None  # no board, or several generations named (a comparison, a migration): nothing to hold it to
    for no, line in enumerate(text, start=1):
        jp = _artefact_jetpack(line)
        if jp is not None and jp not in named[0]:
            return Match("jetson_needs_nvidia_wheel", no, line.strip()[:500], True, 0.9)
    return None


# The board's driver answering for its GPU: nvidia-smi (JetPack 6 and later ship it) printed its header, its driver
# version or its list ("GPU 0: NVIDIA Thor", "GPU 0: Orin (nvgpu)"), or deviceQuery passed. They print none of these
# when they cannot reach the driver ("NVIDIA-SMI has failed ...", "No devices were found", "Result = FAIL").
DRIVER_LISTS_GPU = re.compile(
    r"NVIDIA-SMI\s+\d+\.\d+|Driver Version:\s*\d+\.\d+|"
    r"^\W{0,3}GPU \d+: (?![^\n]*\b(?:not|fail\w*|error|unavailable|lost)\b)[A-Z][\w ()-]{1,40}(?:\(UUID|$)|"
    # CUDA's deviceQuery sample (JetPack 4/5 have no nvidia-smi): the runtime found and opened the GPU.
    r"\bDetected [1-9]\d* CUDA Capable device|Result = PASS\b",
    re.IGNORECASE | re.MULTILINE,
)


def driver_lists_gpu(lines: list[str]) -> bool:
    """nvidia-smi on the board shows the driver with its GPU: a program that says "GPU not detected" there, with no
    torch in the text, is that program's own problem (a monitor such as jtop reading sysfs nodes of another board
    generation), not the torch wheel's."""
    return any(DRIVER_LISTS_GPU.search(line[:2000].strip()) for line in lines[:5000])


def another_program_misses_listed_gpu(lines: list[str]) -> bool:
    """No torch anywhere in the text and the driver lists the GPU: whatever says the GPU is missing is not torch."""
    return driver_lists_gpu(lines) and not any("torch" in line[:2000].lower() for line in lines[:5000])


WHEEL_GUESSES = ("jetson_needs_nvidia_wheel", *DRIVER_READINGS)
TEGRA_KERNEL = re.compile(r"-tegra\b")
CONTAINER_WORDS = re.compile(
    r"\b(?:docker|podman|containerd|nerdctl|kubectl|container|pod|balena)\b|\bl4t-|\bdustynv/|\bnvcr\.io/",
    re.IGNORECASE,
)


def settle(
    lines: list[str],
    matches: list[Match],
    *,
    cuda_13_on_jetpack_7: bool = False,
    cuda_works: bool = False,
    cuda_trouble: bool = True,
) -> list[Match]:
    """On a Jetson: a missing JetPack-wheel dependency is an import failure with its own fix (the wheel is right);
    "no kernel image" and a driver complaint are the wheel not built for this board (the JetPack-matched wheel).
    On JetPack 7 a CUDA 13 torch is the right wheel: whatever fails there, it is not the wheel's platform."""
    if cuda_13_on_jetpack_7:
        return [m for m in matches if m.id != "jetson_needs_nvidia_wheel"]
    if cuda_works:
        # CUDA works on the board: the guesses that the build or the driver cannot reach the GPU are out.
        matches = [m for m in matches if m.specific or m.id not in ("cpu_only_build", *WHEEL_GUESSES)]
        on_cpu = work_on_cpu(lines, matches)
        if on_cpu is not None:
            return [on_cpu, *(m for m in matches if m.id != "jetson_needs_nvidia_wheel")]
    elif (not cuda_trouble or another_program_misses_listed_gpu(lines)) and not any(
        m.id != "jetson_needs_nvidia_wheel" for m in matches
    ):
        # Only the kernel name's weak hint ("-tegra") and nothing wrong in the text (or only another program's
        # complaint about a GPU the driver lists): a report of a Jetson, not a fault of its torch.
        matches = [m for m in matches if m.specific or not TEGRA_KERNEL.search(m.line)]
    symbol = cuda_symbol_missing(lines)
    if symbol is not None:
        kept = [m for m in matches if m.id not in ("torch_import_error", "jetson_needs_nvidia_wheel")]
        return [Match("jetson_needs_nvidia_wheel", symbol[0], symbol[1], True, 0.9), *kept]
    tls = static_tls_failure(lines)
    if tls is not None:
        kept = [m for m in matches if m.id not in ("torch_import_error", "jetson_needs_nvidia_wheel")]
        return [Match("torch_import_error", tls[0], tls[1], True, 0.9), *kept]
    mismatch = None if cuda_works else board_mismatch(lines)
    if mismatch is not None:
        kept = [m for m in matches if m.id != "jetson_needs_nvidia_wheel"]
        kept = [m for m in kept if m.specific or m.id not in ("docker_no_gpu_runtime", *DRIVER_READINGS)]
        return [mismatch, *kept]
    missing = missing_dependency(lines)
    generic = shows_generic_wheel(lines)
    if missing is not None and not generic:
        no, line, _dep = missing
        kept = [m for m in matches if m.id not in ("torch_import_error", "jetson_needs_nvidia_wheel")]
        return [Match("torch_import_error", no, line, True, 0.9), *kept]
    failed = next((m for m in matches if m.id == "torch_import_error" and SHARED_LIBRARY_MISSING.search(m.line)), None)
    if failed is not None and generic:
        # A PyPI / conda-forge torch failing to load a library on a Jetson: even loaded it would have no Tegra GPU.
        kept = [m for m in matches if m.id not in ("torch_import_error", "jetson_needs_nvidia_wheel")]
        return [Match("jetson_needs_nvidia_wheel", failed.line_no, failed.line, True, 0.9), *kept]
    kernel = next(
        ((no, line) for no, line in enumerate(lines[:20000], start=1) if NO_KERNEL_IMAGE.search(line[:2000])), None
    )
    if kernel is not None:
        kept = [m for m in matches if m.id not in ARCH_READINGS and m.id != "jetson_needs_nvidia_wheel"]
        return [Match("jetson_needs_nvidia_wheel", kernel[0], kernel[1].strip()[:500], True, 0.9), *kept]
    if generic:
        # The guess becomes the verdict: the text shows the generic aarch64 torch (PyPI, conda's pytorch channel).
        matches = [
            Match(m.id, m.line_no, m.line, True, m.weight) if m.id == "jetson_needs_nvidia_wheel" else m
            for m in matches
        ]
    if not any(CONTAINER_WORDS.search(line[:2000]) for line in lines[:5000]):
        # A container-runtime guess with no container in the text: the board's own torch is the likelier reading.
        matches = [m for m in matches if not (m.id == "docker_no_gpu_runtime" and not m.specific)]
    # nvidia-smi is not part of JetPack 4/5 (JetPack 6 added a reduced one): its absence is no sign of a missing driver.
    matches = [m for m in matches if not (m.id in DRIVER_READINGS and NO_SMI.search(m.line))]
    driver = next((m for m in matches if m.id in DRIVER_READINGS), None)
    if driver is None:
        return matches
    kept = [m for m in matches if m.id not in DRIVER_READINGS]
    if cuda_works or any(m.id == "jetson_needs_nvidia_wheel" for m in matches):
        return kept
    # The build asks for a newer driver (or a discrete GPU's): on a Jetson that is the build, not the driver.
    asked = next((m for m in matches if m.id in WHEEL_ASKS_OTHER_DRIVER and BUILD_DEMAND.search(m.line)), None)
    if asked is None:
        return matches
    return [Match("jetson_needs_nvidia_wheel", asked.line_no, asked.line, asked.specific, asked.weight), *kept]


# The program itself saying it runs on the CPU: a device chosen or printed as cpu ("device: cpu", "Using device: cpu",
# `device = torch.device("cpu")`, "running on CPU") and Ultralytics' banner naming the CPU ("torch-2.1.0 CPU (ARMv8").
ON_CPU = re.compile(
    r"""\b(?:using|used|selected|running on|runs on|inference on)\s+(?:the\s+)?(?:device\s*[:=]?\s*)?['"]?cpu\b|"""
    r"""\bdevice\s*(?:[:=]|is)\s*(?:torch\.device\(\s*)?['"]?cpu\b|\btorch-\S+ CPU \(""",
    re.IGNORECASE,
)


def work_on_cpu(lines: list[str], matches: list[Match]) -> Match | None:
    """On a Jetson whose torch reaches the GPU (the caller checked CUDA works), the program says it runs on the CPU:
    the model and data were never moved, not a wheel or driver problem. Only where no error names another cause."""
    if any(m.specific for m in matches):
        return None
    for no, line in enumerate(lines[:5000], start=1):
        if "cpu" in line[:2000].lower() and ON_CPU.search(line[:2000]):
            return Match("workload_left_on_cpu", no, line.strip()[:500], False, 0.7)
    return None


def settle_findings(report: Report, lines: list[str]) -> None:
    """After the rules ran: a driver complaint (a rule's finding too) gives way to the JetPack-wheel finding, and an
    import failure's fix names the missing JetPack-wheel dependency and the command that installs it."""
    if any(f.id == "jetson_needs_nvidia_wheel" for f in report.findings):
        report.findings[:] = [f for f in report.findings if f.id not in DRIVER_READINGS]
        if cuda_symbol_missing(lines) is not None and not any("LD_LIBRARY_PATH" in line[:2000] for line in lines):
            # Not a library shadowing the wheel's own: JetPack's CUDA is the only one, and it is older than the build.
            report.findings[:] = [f for f in report.findings if f.id != "ld_library_path_shadowing"]
    tls = static_tls_failure(lines)
    if tls is not None:
        for f in report.findings:
            if f.id == "torch_import_error" and "LD_PRELOAD" not in f.fix:
                f.fix = (
                    f"{tls[2]} could not be loaded this late (no room left in the static TLS block, an aarch64 limit): "
                    f"load it first, then import torch:\n  export LD_PRELOAD={tls[2]}\n" + f.fix
                )
    missing = missing_dependency(lines)
    if missing is None or shows_generic_wheel(lines):
        return
    dep = missing[2]
    for f in report.findings:
        if f.id == "torch_import_error" and dep.provides not in f.fix:
            f.fix = (
                f"This Jetson's torch (NVIDIA's JetPack build) needs {dep.provides}, which JetPack does not install: "
                f"{dep.install}; then `python3 -c 'import torch'` again. Reinstalling torch would not add it.\n" + f.fix
            )
