"""The interpreter around torch, beyond the wheel variant (that is ``wheel.py``): probing another interpreter
than the shell's active one, a Python/platform with no PyTorch wheel at all, and torch built from source
without CUDA."""

from __future__ import annotations

import re

from gpuassist.facts import Facts
from gpuassist.findings import Finding, Severity
from gpuassist.knowledge import compat
from gpuassist.knowledge.wheels import arch_covers
from gpuassist.rules import fixes, view
from gpuassist.rules.make import finding
from gpuassist.rules.registry import rule

# setup.py's local version for a build from a checkout: "a0+git<sha>" (tools/generate_torch_version.py) and, in
# 1.x, "a0+<sha>" ("1.4.0a0+7f73f1d"); NVIDIA's JetPack/NGC builds ("2.1.0a0+41361538.nv23.06") are not the user's.
SOURCE_BUILD = re.compile(r"a0\+(?:git)?[0-9a-f]{7,}\b(?![\w.]*\.nv\d)|\+git[0-9a-f]{5,}")


def _norm(path: str) -> str:
    return path.rstrip("/\\").replace("\\", "/").lower() if path else ""


def _under(path: str, root: str) -> bool:
    p, r = _norm(path), _norm(root)
    return bool(p and r) and (p == r or p.startswith(r + "/"))


def _target_has_problem(facts: Facts) -> bool:
    if facts.value("probe.outcome") not in (None, "ok"):
        return False
    return (not view.torch_imported(facts)) or facts.value("cuda.available") is False


@rule("wrong_interpreter_or_kernel")
def wrong_interpreter_or_kernel(facts: Facts) -> Finding | None:
    """Conservative: only when the shell has a virtualenv/conda env active and the probed interpreter is
    demonstrably outside it, and the probed one cannot use the GPU."""
    env = facts.value("env") or {}
    if not isinstance(env, dict):
        return None
    active, kind = (
        (env.get("VIRTUAL_ENV"), "virtualenv")
        if env.get("VIRTUAL_ENV")
        else (env.get("CONDA_PREFIX"), "conda environment")
    )
    executable = str(facts.value("python.executable") or "")
    prefix = str(facts.value("python.prefix") or "")
    if not active or not executable or not prefix or not _target_has_problem(facts):
        return None
    if _under(executable, active) or _under(prefix, active):
        return None
    if kind == "conda environment" and facts.value("python.env_kind") == "venv":
        return None  # a venv made from a conda Python: CONDA_PREFIX stays set, nothing is wrong
    bin_dir = "Scripts\\python.exe" if view.is_windows(facts) else "bin/python"
    sep = "\\" if view.is_windows(facts) else "/"
    active_python = f"{active.rstrip('/')}{sep}{bin_dir}"
    return finding(
        "wrong_interpreter_or_kernel",
        Severity.WARNING,
        title="The interpreter examined is not the one active in your shell",
        explanation=(
            f"Your shell has the {kind} {active} active, so `python` there runs {active_python}; but the "
            f"interpreter examined is {executable} (prefix {prefix}). Scripts, notebooks and IDEs that use another "
            "interpreter see another torch: this one "
            + ("has no torch" if not view.torch_imported(facts) else "cannot use the GPU")
            + ", which may not be true of the active one."
        ),
        fix=(
            f"Examine the interpreter your code really runs with:\n  gpuassist diagnose --python {active_python}\n"
            "In a notebook print `import sys; print(sys.executable)` and select that environment's kernel "
            f"({active_python} -m pip install ipykernel && {active_python} -m ipykernel install --user "
            "--name myenv); in VS Code/PyCharm pick it as the project interpreter."
        ),
        evidence=view.ev(facts, "env", "python.executable", "python.prefix", "python.env_kind", "probe.python"),
        explains=["torch_not_installed"],
    )


def _py(version: str) -> tuple[int, int] | None:
    m = re.match(r"^(\d+)\.(\d+)", version)
    return (int(m.group(1)), int(m.group(2))) if m else None


def _free_threaded(facts: Facts) -> bool:
    paths = [str(p) for p in facts.value("python.sys_path", []) or []] + [str(facts.value("python.executable") or "")]
    return any(re.search(r"python3\.\d+t(\b|/|$)", p) for p in paths)


# A text that says torch is missing or that an install found none for this Python (pip, uv, an import that fails).
TORCH_MISSING_SAID = re.compile(
    r"No matching distribution found for (?:py)?torch\b|satisfies the requirement (?:py)?torch\b|"
    r"there is no version of torch\b|No module named '?torch'?(?![\w.])",
    re.IGNORECASE,
)


def _torch_absence_known(facts: Facts) -> bool:
    """Whether the input shows torch is not installed, rather than just not saying which torch runs: a live probe of
    the interpreter (its executable is known), collect_env's ``PyTorch version: N/A`` (the torch build facts read as
    none), or a pasted install or import that found no torch. A paste giving only a Python version (an issue
    template's "Python version: 3.6" beside "PyTorch Version: 1.0") may run a torch that was published for it."""
    if facts.known("python.executable") or "torch.cuda_build" in facts:
        return True
    return any(TORCH_MISSING_SAID.search(str(w)[:2000]) for w in facts.value("cuda.init_warnings", []) or [])


# What a 32-bit interpreter reports as its machine (platform.machine() on 32-bit Windows / Linux, or the pasted x86).
X86_32 = ("x86", "i386", "i486", "i586", "i686", "win32")


@rule("no_wheel_for_platform")
def no_wheel_for_platform(facts: Facts) -> Finding | None:

    if facts.value("platform.rosetta") is True or facts.value("platform.jetson"):
        return None  # their own rules name the platform problem
    # A traceback through torch's own __init__.py shows a torch wheel is installed even when importing it failed.
    installed = view.torch_imported(facts) or bool(facts.value("torch.file"))
    version = str(facts.value("python.version") or "")
    py = _py(version)
    by_release = compat()["releases"]["by_release"]
    ranges = [tuple(_py(x) for x in info["python"]) for info in by_release.values()]
    lo = min(r[0] for r in ranges if r[0])
    hi = max(r[1] for r in ranges if r[1])
    machine = view.machine(facts).lower()
    reasons: list[str] = []
    fix: list[str] = []
    if py and not installed and (py < lo or py > hi) and _torch_absence_known(facts):
        reasons.append(
            f"Python {version} is outside every PyTorch 2.x release's supported range "
            f"({lo[0]}.{lo[1]} to {hi[0]}.{hi[1]}), so pip finds no torch wheel for it"
        )
        fix.append(
            "Create an environment with a supported Python and install torch there:\n"
            + (
                "  py -3.12 -m venv .venv && .venv\\Scripts\\python -m pip install torch ..."
                if view.is_windows(facts)
                else "  python3.12 -m venv .venv && .venv/bin/python -m pip install torch ...   "
                "# conda: conda create -n torch python=3.12"
            )
            + "\n  (use the --index-url gpuassist recommends for your GPU once the environment exists)"
        )
    # An Intel Mac only when the machine is known (a paste that just says "Mac" does not say which).
    known_machine = bool(facts.value("python.machine") or facts.value("host.machine"))
    if view.is_macos(facts) and machine == "x86_64" and not installed and known_machine:
        reasons.append(
            "PyTorch stopped publishing macOS x86_64 (Intel Mac) wheels after 2.2, so current torch "
            "cannot be installed on this Python"
        )
        fix.append(
            f'On an Intel Mac pin the last release: {fixes.pip(facts)} install "torch==2.2.2"   '
            "(CPU only: Intel Macs have no MPS or CUDA support)"
        )
    if machine in X86_32:
        # No torch can be installed in a 32-bit Python, whatever the text says was installed.
        reasons.append(
            "this is a 32-bit Python: PyTorch publishes 64-bit wheels only, so pip finds none for it (at most "
            "the empty 0.1.2 placeholder releases)"
        )
        fix.append(
            "Install a 64-bit Python (python.org's 'Windows installer (64-bit)', or a 64-bit conda) and install "
            "torch in it; check with: python -c \"import struct; print(struct.calcsize('P') * 8)\"   # must print 64"
        )
    if _free_threaded(facts) and not installed:
        reasons.append(
            "this is a free-threaded (no-GIL, `3.13t`) Python: PyTorch publishes cp313t wheels only for "
            "some releases and platforms, experimentally"
        )
        fix.append(
            "Use a regular CPython build of the same version (python3.13, not python3.13t), or check "
            "https://download.pytorch.org/whl/ for a cp313t wheel for your platform"
        )
    if (
        machine in ("aarch64", "arm64")
        and view.os_name(facts) == "Linux"
        and installed
        and not facts.value("torch.cuda_build")
        and not facts.value("torch.hip_build")
    ):
        gpus = view.nvidia_gpus(facts)
        if gpus.count:
            wheel_fix, variant = fixes.cuda_wheel_fix(facts, gpus)
            if variant is None:
                reasons.append(
                    "this is an ARM64 (SBSA) Linux server; PyTorch's aarch64 CUDA wheels cover only some "
                    "GPUs and CUDA versions, and none fits this GPU and driver"
                )
                fix.append(
                    wheel_fix + "\nAlternatively use NVIDIA's NGC container nvcr.io/nvidia/pytorch, "
                    "which is built for ARM64 servers."
                )
    if not reasons:
        return None
    return finding(
        "no_wheel_for_platform",
        Severity.ERROR,
        explanation="There is no PyTorch wheel that fits this platform: " + "; ".join(reasons) + ".",
        fix="\n".join(fix),
        evidence=view.ev(
            facts,
            "python.version",
            "python.machine",
            "host.os",
            "python.sys_path",
            "torch.dists",
            "torch.version",
            "torch.cuda_build",
        ),
        explains=["torch_not_installed", "cpu_only_build", "macos_no_cuda_use_mps"],
    )


@rule("source_build_without_cuda")
def source_build_without_cuda(facts: Facts) -> Finding | None:

    version = str(facts.value("torch.version") or "")
    if not view.torch_imported(facts) or not SOURCE_BUILD.search(version) or facts.value("torch.hip_build"):
        return None
    gpus = view.nvidia_gpus(facts)
    if not gpus.count or view.is_macos(facts):
        return None
    caps = view.capabilities(gpus)
    arch_list = [str(a) for a in facts.value("torch.arch_list", []) or []]
    cuda = facts.value("torch.cuda_build")
    missing = [c for c in caps if cuda and arch_list and not arch_covers(c, arch_list)]
    if cuda and not missing:
        return None
    arch_spec = ";".join(caps) or "8.6"
    if not cuda:
        what = (
            "was compiled without CUDA (torch.version.cuda is None): the build did not find a CUDA toolkit, "
            "or USE_CUDA was off"
        )
    else:
        what = (
            f"was compiled with CUDA {cuda} but only for {', '.join(arch_list)}, which does not include this "
            f"GPU (compute capability {', '.join(missing)}); TORCH_CUDA_ARCH_LIST did not name it, or the GPU "
            "was not visible when it was built"
        )
    wheel_fix, _variant = fixes.cuda_wheel_fix(facts, gpus)
    return finding(
        "source_build_without_cuda",
        Severity.ERROR,
        title=f"torch {version} was built from source without CUDA for this GPU",
        explanation=f"This torch is a build from source ({version}) that {what}.",
        fix=(
            "Rebuild from the PyTorch source tree with the CUDA toolkit found and this GPU's architecture:\n"
            "  export CUDA_HOME=/usr/local/cuda PATH=/usr/local/cuda/bin:$PATH\n"
            f'  export USE_CUDA=1 TORCH_CUDA_ARCH_LIST="{arch_spec}"\n'
            f"  {fixes.pip(facts)} install -v --no-build-isolation -e .   # in the pytorch checkout; "
            "the CMake summary must say USE_CUDA : ON\n"
            "Or use a prebuilt wheel instead:\n" + wheel_fix
        ),
        evidence=view.ev(
            facts, "torch.version", "torch.git_version", "torch.cuda_build", "torch.arch_list", *gpus.evidence_keys
        ),
        explains=["cpu_only_build", "gpu_arch_too_new_for_build", "gpu_arch_dropped_from_build"],
    )
