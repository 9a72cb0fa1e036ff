"""Is the installed torch the right build: CUDA at all, kernels for this GPU, and the copy that imports?"""

from __future__ import annotations

import ntpath
import posixpath
import re
from types import ModuleType

from gpuassist.facts import Facts
from gpuassist.findings import Finding, Severity
from gpuassist.knowledge.wheels import (
    arch_covers,
    cuda_dropped,
    cuda_predates,
    parse_torch_version,
    pypi_default_variant,
    wheel_arch_list,
    wheel_platform,
)
from gpuassist.rules import fixes, view
from gpuassist.rules.hardware import no_nvidia_visible
from gpuassist.rules.make import finding
from gpuassist.rules.registry import rule


def _local_tag(facts: Facts) -> str | None:
    version = str(facts.value("torch.version") or "")
    return version.split("+", 1)[1] if "+" in version else None


@rule("cpu_only_build")
def cpu_only_build(facts: Facts) -> Finding | None:
    if not view.torch_imported(facts) or view.is_macos(facts):
        return None
    if facts.value("torch.cuda_build") or facts.value("torch.hip_build"):
        return None
    if facts.value("xpu.available") or _local_tag(facts) == "xpu":
        return None  # an Intel XPU build ("2.7.1+xpu") is no CPU-only build, whether or not its XPU works
    if not facts.known("torch.cuda_build") and _local_tag(facts) != "cpu":
        return None
    version = facts.value("torch.version")
    conda_build = facts.value("torch.conda_build")
    absent = no_nvidia_visible(facts)
    gpus = view.nvidia_gpus(facts)
    source_build = bool(re.search(r"a0\+git|\+git", str(version)))
    how = "a CPU-only build"
    if conda_build and "cpu" in str(conda_build):
        how = f"the conda CPU-only package (build {conda_build})"
    elif source_build:
        how = "a build from source that was compiled without CUDA"
    if absent:
        return finding(
            "cpu_only_build",
            Severity.INFO,
            title=f"torch {version} is a CPU-only build (fine here: there is no NVIDIA GPU)",
            explanation=(
                f"This interpreter has {how} of torch. On this machine that is the right choice; on a "
                "machine with an NVIDIA GPU you would need a CUDA build."
            ),
            fix="Nothing to do on this machine. On a GPU machine install the CUDA build that "
            "`gpuassist diagnose` recommends there.",
            evidence=view.ev(facts, "torch.version", "torch.cuda_build", "torch.conda_build"),
        )
    wheel_fix, _ = fixes.cuda_wheel_fix(facts, gpus)
    fix = wheel_fix
    if conda_build and "cpu" in str(conda_build):
        conda_companions = [
            p.get("name")
            for p in facts.value("torch.conda_packages", []) or []
            if isinstance(p, dict) and p.get("name") in view.COMPANIONS
        ]
        conda_companions += [
            n
            for n in view.COMPANIONS
            if n not in conda_companions
            and any(str(line).startswith(f"[conda] {n} ") for line in facts.value("reported.libraries", []) or [])
        ]
        remove = " ".join(["pytorch", *map(str, conda_companions), "cpuonly", "pytorch-mutex"])
        fix = (
            "This is a conda environment with the CPU-only PyTorch package. Remove it (and the `cpuonly` "
            f"package that pins it) first:\n  conda remove --force {remove}\n"
        ) + wheel_fix
    elif source_build:
        fix = (
            "Rebuild with CUDA visible (USE_CUDA=1, CUDA toolkit on PATH, TORCH_CUDA_ARCH_LIST covering your "
            "GPU), or install a prebuilt wheel instead:\n"
        ) + wheel_fix
    elif view.is_windows(facts) and _local_tag(facts) in (None, "cpu"):
        fix = "On Windows, `pip install torch` from PyPI gives the CPU build. " + wheel_fix
    elif _pypi_aarch64_cpu(facts):
        fix = (
            "On Linux aarch64, PyPI's torch up to 2.10 is a CPU-only build (from 2.11 `pip install torch` gives a "
            "CUDA 13 build). " + wheel_fix
        )
    where = f" although {', '.join(g.name for g in gpus.gpus) or 'an NVIDIA GPU'} is present" if gpus.count else ""
    return finding(
        "cpu_only_build",
        Severity.ERROR,
        title=f"torch {version} is a CPU-only build{where}",
        explanation=(
            f"This interpreter has {how} of torch (torch.version.cuda is None), so "
            "torch.cuda.is_available() is always False and `.to('cuda')` raises \"Torch not compiled with "
            'CUDA enabled", whatever the driver and GPU.'
        ),
        fix=fix,
        evidence=view.ev(
            facts, "torch.version", "torch.cuda_build", "torch.hip_build", "torch.conda_build", *gpus.evidence_keys
        ),
    )


def _pypi_aarch64_cpu(facts: Facts) -> bool:
    """A Linux aarch64 torch that is PyPI's CPU-only build (2.10 and older)."""
    if view.os_name(facts) != "Linux" or view.machine(facts).lower() not in ("aarch64", "arm64"):
        return False
    version = str(facts.value("torch.version") or "")
    return bool(version) and pypi_default_variant(parse_torch_version(version).release, "linux_aarch64") == "cpu"


def build_arch_list(facts: Facts) -> tuple[list[str], str | None]:
    """The architectures the installed torch carries, and where that came from: the probe's
    ``torch.cuda.get_arch_list()`` ("torch.arch_list"), else, for a published wheel whose list the tables
    know, that list ("the tables"): a pasted collect_env does not print it. Conda and source builds
    have lists of their own: none is assumed for them."""
    arch = [str(a) for a in facts.value("torch.arch_list") or []]
    if arch:
        return arch, "torch.arch_list"
    version = facts.value("torch.version")
    if not version or facts.value("torch.conda_build"):
        return [], None
    build = parse_torch_version(str(version))
    variant = build.variant or view.cuda_variant(facts.value("torch.cuda_build"))
    platform = wheel_platform(view.os_name(facts), view.machine(facts))
    if build.kind not in ("cuda", "unknown") or not variant or platform is None or build.dev:
        return [], None
    if build.variant is None and pypi_default_variant(build.release, platform) != variant:
        return [], None  # an untagged version is only known when it is PyPI's default build
    published = wheel_arch_list(build.release, variant, platform)
    return (list(published), "the tables") if published else ([], None)


def _arch_number(arch: str) -> int | None:
    m = re.fullmatch(r"(?:sm|compute)_(\d+)[a-z]?", arch)
    return int(m.group(1)) if m else None


def _arch_problem(facts: Facts) -> tuple[list[view.Gpu], list[view.Gpu], list[str], str | None] | None:
    """(GPUs newer than every arch in the build, GPUs older than every arch, arch list, its source) or None."""
    if facts.value("torch.hip_build") or (facts.known("torch.cuda_build") and not facts.value("torch.cuda_build")):
        return None
    arch_list, source = build_arch_list(facts)
    sm = sorted(n for n in (_arch_number(a) for a in arch_list) if n is not None)
    if not sm:
        return _older_toolkit_problem(facts)
    too_new, too_old = [], []
    for gpu in view.nvidia_gpus(facts).gpus:
        if not gpu.capability or arch_covers(gpu.capability, arch_list):
            continue
        major, minor = (int(x) for x in gpu.capability.split("."))
        if major * 10 + minor < sm[0]:
            too_old.append(gpu)
        else:
            too_new.append(gpu)
    return too_new, too_old, arch_list, source


TOOLKIT = "the CUDA toolkit"


def _toolkit_build(facts: Facts) -> tuple[str, str] | None:
    """(CUDA version, name) of the build to judge by its toolkit: the installed one, else, when the text states no
    installed torch, the build the project pins (requested.*: what the user is told to install)."""
    if facts.value("torch.cuda_build"):
        return str(facts.value("torch.cuda_build")), _torch_name(facts)
    if not facts.known("torch.version") and facts.value("requested.cuda_build"):
        return str(facts.value("requested.cuda_build")), f"The pinned torch {facts.value('requested.torch_version')}"
    return None


def _build_name(facts: Facts, source: str | None) -> str:
    build = _toolkit_build(facts) if source == TOOLKIT else None
    return build[1] if build else _torch_name(facts)


def _older_toolkit_problem(facts: Facts) -> tuple[list[view.Gpu], list[view.Gpu], list[str], str | None] | None:
    """No arch list is known (torch 1.x, conda, source builds), but the CUDA the build was made with is older
    than a GPU's architecture, or removed it: no arch list such a toolkit can produce runs on it."""
    build = _toolkit_build(facts)
    if build is None:
        return None
    cuda = build[0]
    gpus = view.nvidia_gpus(facts).gpus
    too_new = [g for g in gpus if g.capability and cuda_predates(str(cuda), g.capability)]
    too_old = [g for g in gpus if g.capability and cuda_dropped(str(cuda), g.capability)]
    return (too_new, too_old, [], TOOLKIT) if too_new or too_old else None


def _contains(facts: Facts, arch_list: list[str], source: str | None) -> str:
    build = _toolkit_build(facts)
    if source == TOOLKIT and build is not None:
        cuda, name = build
        gpus = view.nvidia_gpus(facts).gpus
        needed = sorted({n for g in gpus if g.capability and (n := cuda_predates(cuda, g.capability))})
        return (
            f"{name} was built with CUDA {cuda}; code for this GPU architecture first came with "
            f"CUDA {' / '.join(needed) or 'a newer release'} (a toolkit cannot compile for GPUs newer than itself, "
            "and kernels run only within their own architecture family), so the build holds no code for it"
        )
    if source == "the tables":
        return (
            f"The published {view.cuda_variant(facts.value('torch.cuda_build')) or 'CUDA'} wheel of "
            f"{_torch_name(facts)} contains code for {' '.join(arch_list)} (gpuassist's table of the "
            "published wheels; the pasted text does not list the build's architectures)"
        )
    return f"This torch build contains code for {' '.join(arch_list)}"


def _arch_warning(facts: Facts) -> str | None:
    m = view.first_match(view.warnings_text(facts), r"[^\n]*CUDA capability sm_\d+ is not compatible[^\n]*")
    return m.group(0).strip() if m else None


def _torch_name(facts: Facts) -> str:
    version = facts.value("torch.version")
    return f"torch {version}" if version else "This torch build"


def _gpu_desc(gpus: list[view.Gpu]) -> str:
    return ", ".join(f"{g.name} (sm_{(g.capability or '?').replace('.', '')})" for g in gpus)


#: What both architecture findings rest on: the build's architectures and the GPUs seen.
ARCH_EVIDENCE = (
    "torch.version",
    "torch.cuda_build",
    "torch.arch_list",
    "nvml.gpus",
    "devices",
    "reported.gpus",
    "cuda.init_warnings",
    "requested.torch_version",
    "requested.cuda_build",
)


@rule("gpu_arch_too_new_for_build")
def gpu_arch_too_new_for_build(facts: Facts) -> Finding | None:
    problem = _arch_problem(facts)
    if not problem or not problem[0]:
        return None
    too_new, _, arch_list, source = problem
    wheel_fix, _ = fixes.cuda_wheel_fix(facts)
    warning = _arch_warning(facts)
    return finding(
        "gpu_arch_too_new_for_build",
        Severity.ERROR,
        title=f"{_build_name(facts, source)} has no kernels for {_gpu_desc(too_new)}",
        explanation=(
            f"{_contains(facts, arch_list, source)}"
            + ("" if source == TOOLKIT else f", and {_gpu_desc(too_new)} is newer than all of them")
            + '. CUDA reports the GPU, but every kernel launch fails with "no kernel image is '
            'available for execution on the device".' + (f' torch warns: "{warning}"' if warning else "")
        ),
        fix=wheel_fix,
        evidence=view.ev(facts, *ARCH_EVIDENCE),
    )


@rule("gpu_arch_dropped_from_build")
def gpu_arch_dropped_from_build(facts: Facts) -> Finding | None:
    problem = _arch_problem(facts)
    if not problem or not problem[1]:
        return None
    _, too_old, arch_list, source = problem
    wheel_fix, _ = fixes.cuda_wheel_fix(facts)
    return finding(
        "gpu_arch_dropped_from_build",
        Severity.ERROR,
        title=f"{_torch_name(facts)} no longer supports {_gpu_desc(too_old)}",
        explanation=(
            (
                f"{_contains(facts, arch_list, source)}: it starts at {arch_list[0]}; {_gpu_desc(too_old)} is older. "
                if arch_list
                else _toolkit_dropped(facts, too_old)
            )
            + "Recent CUDA 12.8+ and "
            "13 builds dropped Maxwell, Pascal and (in places) Volta, so the GPU is visible but unusable. "
            "The cu126 variant still carries Maxwell, Pascal and Volta up to torch 2.14 (2.15 has no cu126); "
            "Kepler needs torch 2.7 or older with cu118."
        ),
        fix=wheel_fix,
        evidence=view.ev(facts, *ARCH_EVIDENCE),
        # Kepler's newest driver is the 470 legacy branch (Fermi's 390): a driver new enough for this build does not
        # exist for the GPU, so "update the driver" cannot help; the build (an older torch) is the cause to fix.
        explains=["driver_too_old"] if all(_before_maxwell(g) for g in too_old) else [],
    )


def _toolkit_dropped(facts: Facts, too_old: list[view.Gpu]) -> str:
    """Why a build of unknown arch list has no kernels for an old GPU: its CUDA no longer compiles for it."""
    build = _toolkit_build(facts)
    cuda, name = build if build else ("?", _torch_name(facts))
    removed = sorted({r for g in too_old if g.capability and (r := cuda_dropped(str(cuda), g.capability))})
    return (
        f"{name} was built with CUDA {cuda}; CUDA {' / '.join(removed) or 'of that age'} removed the architecture of "
        f"{_gpu_desc(too_old)}, so no build made with it holds code the GPU can run. "
    )


def _before_maxwell(gpu: view.Gpu) -> bool:
    try:
        return float(gpu.capability or "") < 5.0
    except ValueError:
        return False


def _pathmod(path: str) -> ModuleType:
    """Path rules of the machine the path comes from (a Windows report is often read on Linux)."""
    return ntpath if "\\" in path or re.match(r"[A-Za-z]:", path) else posixpath


def _norm(path: str) -> str:
    mod = _pathmod(path)
    return str(mod.normcase(mod.normpath(path))).rstrip(mod.sep)


def _inside(path: str, root: str) -> bool:
    return _norm(path).startswith(_norm(root) + _pathmod(path).sep)


SOURCE_COMMIT = re.compile(r"(?:git)?[0-9a-f]{7,40}")


def _rebuilt_checkout(imported: str, installed: str) -> bool:
    """Both versions are source builds of one release that differ only in the commit hash ("1.7.0a0+9ddd3df" vs
    "1.7.0a0+a9603c7"): one checkout rebuilt in place (a develop install, a vendor image's rebuild), whose metadata
    kept an older commit. Not two copies of torch."""
    a, _, a_local = imported.partition("+")
    b, _, b_local = installed.partition("+")
    return a == b and bool(SOURCE_COMMIT.fullmatch(a_local)) and bool(SOURCE_COMMIT.fullmatch(b_local))


@rule("stale_or_shadowed_torch")
def stale_or_shadowed_torch(facts: Facts) -> Finding | None:
    dists = [d for d in facts.value("torch.dists", []) or [] if isinstance(d, dict)]
    imported_file = str(facts.value("torch.file") or facts.value("torch.spec_origin") or "")
    imported_version = facts.value("torch.version")
    problems: list[str] = []
    severity = Severity.WARNING
    if len(dists) > 1:
        listing = "; ".join(f"{d.get('version')} in {d.get('location')}" for d in dists)
        problems.append(f"{len(dists)} copies of torch are installed on this interpreter's path: {listing}")
        imported_dist = None
        if imported_file:
            for d in dists:
                loc = str(d.get("location") or "")
                if loc and _inside(imported_file, loc):
                    imported_dist = d
                    break
        if imported_dist is not None:
            others = [d for d in dists if d is not imported_dist]
            problems.append(f"`import torch` loads {imported_dist.get('version')} from {imported_dist.get('location')}")
            imp_tag = str(imported_dist.get("local_tag") or "")
            if any(("cu" in str(o.get("local_tag") or "")) and "cu" not in imp_tag for o in others):
                severity = Severity.ERROR
                problems.append("a CUDA build is installed but a non-CUDA copy shadows it")
        if facts.value("cuda.available") is False and facts.value("torch.cuda_build") is None:
            severity = Severity.ERROR
    if dists and imported_version:
        versions = {str(d.get("version")) for d in dists}
        # A source build's metadata lacks the +git local part its __version__ carries: not a stale copy.
        base_versions = {v.split("+")[0] for v in versions}
        if (
            len(dists) == 1
            and str(imported_version) not in versions
            and not (str(imported_version).split("+")[0] in base_versions and "+" not in next(iter(versions)))
            and not _rebuilt_checkout(str(imported_version), next(iter(versions)))
        ):
            problems.append(
                f"the package metadata says torch {dists[0].get('version')} but the module that imports reports "
                f"{imported_version}: files from another install are left over"
            )
            severity = Severity.ERROR
    prefix = str(facts.value("python.prefix") or "")
    user_site = str(facts.value("python.user_site") or "")
    if imported_file and prefix and not _inside(imported_file, prefix):
        where = (
            "your user site-packages (~/.local)"
            if user_site and _inside(imported_file, user_site)
            else _pathmod(imported_file).dirname(_pathmod(imported_file).dirname(imported_file))
        )
        problems.append(f"torch is imported from {where}, outside this environment ({prefix})")
    if not problems:
        return None
    pip = fixes.pip(facts)
    py = fixes.quote(view.python_executable(facts))
    fix = (
        "Remove every copy, then install one:\n"
        f"  {pip} uninstall -y torch   # repeat until the next line fails\n"
        f'  {py} -c "import torch"\n'
        "then install the build you want, e.g. the one gpuassist recommends for this machine, with "
        "--force-reinstall. To ignore ~/.local packages run Python with -s (or export PYTHONNOUSERSITE=1); "
        "check PYTHONPATH for stray directories."
    )
    return finding(
        "stale_or_shadowed_torch",
        severity,
        explanation="; ".join(problems) + ". What you install is then not what your script runs.",
        fix=fix,
        evidence=view.ev(
            facts, "torch.dists", "torch.file", "torch.version", "python.prefix", "python.user_site", "env"
        ),
        explains=["cpu_only_build", "gpu_arch_too_new_for_build"],
    )
