"""Fix texts that name the program the pasted text is about, where the catalogue's text names torch.

The catalogue's driver_too_old is worded for a PyTorch wheel ("install a wheel built for an older CUDA: pip install
... torch"). The same messages ("CUDA driver version is insufficient for CUDA runtime version", the container
toolkit's "unsatisfied condition: cuda>=12.4") come from TensorFlow, JAX, CuPy, a CUDA sample, llama.cpp, Ollama
or a container image; telling that user to reinstall torch is wrong. When the text shows one of those programs and
not torch, the finding keeps its id and its driver advice, and the program's own name and way to keep the driver
are the template's parameters (DRIVER_TOO_OLD_FIX).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpuassist.ingest.lines import MAX_LINE
from gpuassist.report.model import Report


@dataclass(frozen=True)
class Program:
    name: str
    sign: re.Pattern[str]
    keep_driver: str  # the way to keep the driver: a build of this program made for an older CUDA


# First match wins: a container image line is checked before the program running inside it. Sources: TensorFlow's
# tested build configurations (tensorflow.org/install/source#gpu, /install/source_windows#gpu), JAX's installation
# guide (docs.jax.dev/en/latest/installation.html: jax[cuda12] needs an NVIDIA driver >= 525 on Linux), CuPy's
# installation guide (docs.cupy.dev/en/stable/install.html: one wheel per CUDA major, cupy-cuda11x / cupy-cuda12x),
# llama.cpp's docs/build.md (`cmake -B build -DGGML_CUDA=ON`; CMAKE_CUDA_COMPILER picks the toolkit), Ollama's
# docs.ollama.com/gpu (the driver it needs), the CUDA samples' README (built with the installed toolkit's nvcc).
PROGRAMS: tuple[Program, ...] = (
    Program(
        "this container image",
        re.compile(r"nvidia-container-cli|unsatisfied condition: cuda|NVIDIA_REQUIRE_CUDA|\bnvidia/cuda:", re.I),
        "run an image built for a CUDA version the driver supports (an older tag of the image, e.g. an "
        '`nvidia/cuda:<version>` base no newer than the "CUDA Version" nvidia-smi prints)',
    ),
    Program(
        "Ollama",
        re.compile(r"\bollama\b", re.I),
        "update the driver all the same: Ollama bundles its own CUDA libraries, so there is no other build to pick, "
        "and with a driver older than it needs it runs on the CPU (docs.ollama.com/gpu lists the driver it needs)",
    ),
    Program(
        "llama.cpp",
        re.compile(r"llama\.cpp|\bggml[-_]cuda\b|\bllama-(?:cli|server)\b|\bGGML_CUDA\b", re.I),
        "rebuild llama.cpp with a CUDA toolkit no newer than the driver supports, naming that toolkit's nvcc: "
        "`cmake -B build -DGGML_CUDA=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda-<version>/bin/nvcc` then "
        '`cmake --build build --config Release` (llama.cpp docs/build.md, "Overriding the CUDA Version")',
    ),
    Program(
        "JAX",
        re.compile(r"\bjax(?:lib)?\b|jax_cuda|\bxla_bridge\b", re.I),
        "install JAX's wheels for the CUDA major the driver supports: "
        '`pip install -U "jax[cuda13]"` needs a driver >= 580 on Linux, `pip install -U "jax[cuda12]"` one >= 525 '
        "(docs.jax.dev/en/latest/installation.html; NVIDIA's CUDA 12/13 driver floors 525.60.13 and 580.65)",
    ),
    Program(
        "CuPy",
        re.compile(r"\bcupy\b", re.I),
        "install the CuPy wheel for the CUDA major the driver supports (one wheel per major: cupy-cuda11x, "
        "cupy-cuda12x, cupy-cuda13x), e.g. `pip uninstall cupy-cuda12x` then `pip install cupy-cuda11x` for a "
        "CUDA 11 driver (docs.cupy.dev/en/stable/install.html)",
    ),
    Program(
        "TensorFlow",
        re.compile(r"\btensorflow\b|\btf\.config\b|\btf\.test\.", re.I),
        "install a TensorFlow release built for a CUDA version the driver supports (its tested build "
        "configurations: tensorflow.org/install/source#gpu)",
    ),
    Program(
        "this CUDA program",
        re.compile(r"\bdeviceQuery\b|\bbandwidthTest\b|\bvectorAdd\b|cuda-samples|\bnvcc\b", re.I),
        'rebuild it with a CUDA toolkit no newer than the driver supports (the "CUDA Version" nvidia-smi prints)',
    ),
)
TORCH = re.compile(r"torch", re.IGNORECASE)

DRIVER_TOO_OLD_TITLE = "The NVIDIA driver is too old for {program}"
DRIVER_TOO_OLD_EXPLANATION = (
    "{program} was built for a newer CUDA version than this NVIDIA driver supports, outside minor-version "
    "compatibility, so CUDA refuses to start. Either update the driver or use a build made for an older CUDA."
)
DRIVER_TOO_OLD_FIX = (
    'Update the NVIDIA driver to one that supports the CUDA version {program} needs (the "CUDA Version" nvidia-smi '
    "prints is the newest the driver supports; any R580+ driver runs CUDA 13.x builds and any >= 525.60.13 Linux / "
    "527.41 Windows driver CUDA 12.x builds, through minor-version compatibility). Or, keeping the driver: "
    "{keep_driver}."
)


def program_shown(lines: list[str]) -> Program | None:
    """The program other than torch that the text is about, or None (also when torch is in the text)."""
    cut = [line[:MAX_LINE] for line in lines[:5000]]
    if any(TORCH.search(line) for line in cut):
        return None
    return next((p for p in PROGRAMS if any(p.sign.search(line) for line in cut)), None)


def driver_fix_names_program(report: Report, lines: list[str]) -> None:
    """driver_too_old read from a pasted message (the catalogue's torch wording) names the program the text shows.
    A finding the torch rule built from a torch build is torch's and is left alone."""
    if report.facts.known("torch.cuda_build") or report.facts.known("torch.version"):
        return
    found = next((f for f in report.findings if f.id == "driver_too_old"), None)
    if found is None:
        return
    program = program_shown(lines)
    if program is None:
        return
    possible = found.title.startswith("Possible cause: ")
    title = DRIVER_TOO_OLD_TITLE.format(program=program.name)
    found.title = f"Possible cause: {title}" if possible else title
    lead, torch_worded, _ = found.explanation.partition(" Each PyTorch CUDA build")
    if torch_worded:
        subject = program.name[0].upper() + program.name[1:]
        found.explanation = f"{lead} {DRIVER_TOO_OLD_EXPLANATION.format(program=subject)}"
    _, confirm_sep, confirm = found.fix.partition("\nTo confirm:")
    found.fix = DRIVER_TOO_OLD_FIX.format(program=program.name, keep_driver=program.keep_driver) + (
        f"{confirm_sep}{confirm}" if confirm_sep else ""
    )


# NixOS: the driver is part of the system's configuration, and its user-space libraries (libcuda.so.1) are linked
# into /run/opengl-driver/lib, where only programs built by Nix look. Sources: the NixOS manual's NVIDIA section and
# wiki.nixos.org/wiki/Nvidia (services.xserver.videoDrivers = [ "nvidia" ], hardware.nvidia.open, unfree packages
# allowed; hardware.graphics.enable, named hardware.opengl.enable before 24.11), wiki.nixos.org/wiki/CUDA and
# wiki.nixos.org/wiki/OpenGL (the libraries under /run/opengl-driver/lib; LD_LIBRARY_PATH for what Nix did not build),
# NixOS/nixpkgs#255070 (libcuda linked through /run/opengl-driver/lib).
NIXOS = re.compile(r"/nix/store/|\bNixOS\b|\bnixos-rebuild\b|\bconfiguration\.nix\b", re.IGNORECASE)
NIXOS_DRIVER_READINGS = frozenset({"no_nvidia_driver", "nvidia_module_not_loaded"})
NIXOS_DRIVER_FIX = (
    "On NixOS the driver comes from the system configuration, not from a package installed by hand. In "
    "/etc/nixos/configuration.nix set `nixpkgs.config.allowUnfree = true;`, `hardware.graphics.enable = true;` "
    '(`hardware.opengl.enable = true;` before NixOS 24.11), `services.xserver.videoDrivers = [ "nvidia" ];` and '
    "`hardware.nvidia.open = true;` (Turing or newer GPUs; `false` for older ones), then run "
    "`sudo nixos-rebuild switch` and reboot. The driver's libcuda.so.1 is then in /run/opengl-driver/lib; a Python "
    "that Nix did not build (a pip venv, conda) does not look there: "
    "`export LD_LIBRARY_PATH=/run/opengl-driver/lib:$LD_LIBRARY_PATH` before starting it "
    "(wiki.nixos.org/wiki/Nvidia, wiki.nixos.org/wiki/CUDA)."
)


def nixos_driver_fix(report: Report, lines: list[str]) -> None:
    """On NixOS, a missing driver or libcuda is fixed in configuration.nix, not with a distribution's package."""
    if not any(NIXOS.search(line[:MAX_LINE]) for line in lines[:5000]):
        return
    for found in report.findings:
        if found.id not in NIXOS_DRIVER_READINGS:
            continue
        _, confirm_sep, confirm = found.fix.partition("\nTo confirm:")
        found.fix = NIXOS_DRIVER_FIX + (f"{confirm_sep}{confirm}" if confirm_sep else "")
