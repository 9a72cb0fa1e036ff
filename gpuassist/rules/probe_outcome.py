"""What happened to the probe itself: the interpreter, the torch import, crashes and hangs (catalogue §0)."""

from __future__ import annotations

import re

from gpuassist.facts import Facts
from gpuassist.findings import Finding, Severity
from gpuassist.rules import fixes, libraries, view
from gpuassist.rules.make import finding
from gpuassist.rules.registry import rule

# What usually goes wrong in each stage, for crash and hang findings.
STAGE_CAUSES: dict[str, tuple[str, str, str]] = {
    # stage: (what it does, why it crashes, why it hangs)
    "startup": (
        "starting the interpreter",
        "the interpreter itself dies before running any code: a broken Python build, an incompatible "
        "LD_PRELOAD, or the path is a wrapper script that crashes",
        "the program at that path never ran the probe: it is not a Python, waits for input, or a wrapper script blocks",
    ),
    "interpreter": (
        "reading interpreter facts",
        "a sitecustomize/usercustomize module or a .pth file loaded a native library that crashed",
        "a sitecustomize/.pth file blocks, or a network file system holding site-packages stalls",
    ),
    "torch_dist": (
        "reading installed-package metadata",
        "a native extension imported by a .pth file crashed",
        "a very slow or unreachable file system on sys.path (network home directory, stale NFS mount)",
    ),
    "import_torch": (
        "`import torch`",
        "a native library conflict at load time: mismatched CUDA/cuDNN/NCCL libraries picked up through "
        "LD_LIBRARY_PATH or LD_PRELOAD, an OpenMP/libstdc++ clash with another package, or a CPU without "
        "the instruction set the build needs",
        "a slow file system or antivirus scanning thousands of files, or a library constructor waiting on a lock",
    ),
    "build": ("reading torch's build configuration", "a broken torch extension", "a broken torch extension"),
    "accel_init": (
        "CUDA/ROCm/MPS initialisation (`torch.cuda.is_available()`)",
        "the GPU driver crashed during initialisation: a driver/library mismatch, a GPU that fell off the "
        "bus (Xid 79), or an incompatible libcuda picked up from LD_LIBRARY_PATH",
        "CUDA initialisation hangs when the driver is wedged (after suspend/resume, an Xid error, or a GPU "
        "in a bad state), when persistence mode is off on a large multi-GPU box, or when JIT-compiling "
        "PTX for a GPU the build has no kernels for",
    ),
    "devices": (
        "reading device properties",
        "the driver crashed while querying the GPU",
        "a GPU that does not answer (driver wedged, GPU lost)",
    ),
    "smoke": (
        "the small allocation / matmul / convolution test",
        "a kernel crashed the process: driver bug, failing GPU memory, or cuDNN/cuBLAS mismatch",
        "a kernel never finished: a wedged GPU, or the first cuDNN/cuBLAS call JIT-compiling for "
        "a GPU the build has no kernels for",
    ),
    "libraries": ("listing loaded libraries", "an unreadable /proc", "an unreadable /proc"),
}


def _stage_text(stage: str) -> tuple[str, str, str]:
    return STAGE_CAUSES.get(stage, (f"stage {stage}", "a native crash", "an operation that never returned"))


@rule("interpreter_not_found")
def interpreter_not_found(facts: Facts) -> Finding | None:
    if facts.value("probe.outcome") != "interpreter_not_found":
        return None
    path = facts.value("probe.python")
    reason = facts.value("probe.error") or "it does not exist or is not an executable Python"
    candidates = [c for c in facts.value("host.python_candidates", []) or [] if c != path]
    fix = "Pick an existing interpreter: `gpuassist diagnose --python /path/to/python`."
    if candidates:
        fix += "\nInterpreters found on this machine:\n" + "\n".join(f"  {c}" for c in candidates)
    fix += "\nTo see which one your script uses, run inside it: import sys; print(sys.executable)"
    return finding(
        "interpreter_not_found",
        Severity.ERROR,
        title=f"The interpreter {path} could not be run",
        explanation=f"gpuassist was asked to diagnose {path}, but {reason}.",
        fix=fix,
        evidence=view.ev(facts, "probe.python", "probe.error", "host.python_candidates"),
    )


def _no_torch(facts: Facts) -> bool:
    err = facts.value("torch.import_error")
    if not isinstance(err, dict):
        return False
    return (
        err.get("type") == "ModuleNotFoundError"
        and re.search(r"No module named '?torch'?($|\W)", str(err.get("message", ""))) is not None
        and not (facts.value("torch.dists") or [])
    )


@rule("torch_not_installed")
def torch_not_installed(facts: Facts) -> Finding | None:
    if not _no_torch(facts):
        return None
    gpus = view.nvidia_gpus(facts)
    if gpus.count and not view.is_macos(facts):
        fix, _variant = fixes.cuda_wheel_fix(facts, gpus)
        fix = fix.replace("Install the", "Install the", 1)
    elif view.is_macos(facts):
        fix = f"{fixes.pip(facts)} install torch   # macOS wheels include the MPS (Apple GPU) backend"
    else:
        fix = (
            "This machine has no NVIDIA GPU, so the CPU build is the right one (small download):\n  "
            + fixes.cpu_wheel_command(facts)
        )
    return finding(
        "torch_not_installed",
        Severity.ERROR,
        explanation=(
            f"The interpreter {view.python_executable(facts)} runs, but has no `torch` package. If your "
            "script imports torch, it runs with a different interpreter (compare `sys.executable`)."
        ),
        fix=fix,
        evidence=view.ev(facts, "python.executable", "torch.import_error", "torch.dists"),
    )


# Import failure message → (what it means, fix template). First match wins; {pip} is filled in.
IMPORT_ERROR_FIXES: list[tuple[str, str, str]] = [
    (
        r"compiled using NumPy 1\.x cannot be run in\s+NumPy 2|_ARRAY_API not found"
        r"|numpy\.core\.multiarray failed to import",
        "this torch was built against NumPy 1.x and NumPy 2 is installed",
        '{pip} install "numpy<2"   # or upgrade torch to a release built for NumPy 2',
    ),
    (
        r"undefined symbol",
        "a shared library torch loads is a different version from the one it was built with, typically "
        "a system CUDA/cuBLAS/cuDNN picked up through LD_LIBRARY_PATH, or pip `nvidia-*` packages from "
        "another torch version",
        "unset LD_LIBRARY_PATH (or remove CUDA/cuDNN directories from it) and retry; if that is not it, "
        "reinstall torch and its CUDA libraries together:\n  {pip} install --force-reinstall {torch_pin}",
    ),
    (
        r"(lib(?:cudnn|cublas\w*|cudart|nvrtc|nccl|cusparse\w*|cufft|curand|cusolver|nvJitLink|cupti)[\w.]*)"
        r"[^\n]*cannot open shared object file",
        "a CUDA library that torch needs is missing (the pip `nvidia-*` packages that ship with CUDA "
        "wheels are absent or broken)",
        "{pip} install --force-reinstall {torch_pin}",
    ),
    (
        r"(libtorch\w*\.so|libc10\w*\.so|libshm\.so)[^\n]*cannot open shared object file",
        "torch's own libraries are missing: the installation is incomplete or corrupted",
        "{pip} uninstall -y torch && {pip} install --no-cache-dir {torch_pin}",
    ),
    (
        r"DLL load failed|WinError 126|WinError 127|c10\.dll",
        "Windows could not load torch's DLLs: usually the Microsoft Visual C++ Redistributable is "
        "missing, or the install is broken",
        "install the latest Microsoft Visual C++ Redistributable (x64), then "
        "{pip} install --force-reinstall {torch_pin}",
    ),
    (
        r"No module named '([\w.]+)'",
        "a package torch imports is missing",
        "{pip} install --force-reinstall {torch_pin}   # reinstalls torch's dependencies",
    ),
    (
        r"GLIBC_[\d.]+' not found|GLIBCXX_[\d.]+' not found|CXXABI",
        "this torch wheel needs a newer C/C++ runtime than the system provides",
        "use a newer OS / conda environment with a newer libstdc++, or an older torch release",
    ),
    (
        r"Illegal instruction|AVX",
        "the CPU lacks an instruction set this build requires",
        "install a build for this CPU (an older release) or run on a newer CPU",
    ),
]


@rule("torch_import_error")
def torch_import_error(facts: Facts) -> Finding | None:
    err = facts.value("torch.import_error")
    if not isinstance(err, dict) or _no_torch(facts):
        return None
    message = f"{err.get('type', 'Error')}: {err.get('message', '')}"
    full = message + "\n" + str(err.get("traceback", ""))
    release = fixes.current_release(facts)
    torch_pin = f'"torch=={release}"' if release else "torch"
    meaning, fix_t = (
        "torch is installed but its import fails, so nothing else can be checked",
        "{pip} uninstall -y torch && {pip} install --no-cache-dir {torch_pin}",
    )
    for pattern, what, template in IMPORT_ERROR_FIXES:
        if re.search(pattern, full, re.IGNORECASE):
            meaning, fix_t = what, template
            break
    fix = fix_t.format(pip=fixes.pip(facts), torch_pin=torch_pin)
    blamed = libraries.blamed_paths(facts)
    if blamed:
        # The library that fails comes from LD_LIBRARY_PATH / a system CUDA: reinstalling torch changes nothing.
        meaning = (
            f"the library that fails, {blamed[0][0]}, is not torch's own: it comes from {blamed[0][1]} on "
            "the loader path (see ld_library_path_shadowing)"
        )
        dirs = [d for _, d in blamed]
        py = fixes.quote(view.python_executable(facts))
        fix = f'{libraries.export_without(facts, dirs)}\n{py} -c "import torch"   # reinstalling torch would not help'
    return finding(
        "torch_import_error",
        Severity.ERROR,
        title=f"`import torch` fails: {message.splitlines()[0][:160]}",
        explanation=f"`import torch` raised {message.splitlines()[0][:300]}; {meaning}.",
        fix=fix,
        evidence=view.ev(facts, "torch.import_error", "torch.dists", "env"),
    )


@rule("probe_crashed")
def probe_crashed(facts: Facts) -> Finding | None:
    if facts.value("probe.outcome") != "crashed":
        return None
    stage = str(facts.value("probe.failed_stage") or "startup")
    what, why, _ = _stage_text(stage)
    sig = facts.value("probe.signal") or f"exit status {facts.value('probe.returncode')}"
    fix_lines = [
        f'Reproduce outside gpuassist: {view.python_executable(facts)} -X faulthandler -c "import torch; '
        'print(torch.cuda.is_available())"'
    ]
    if stage in ("accel_init", "devices", "smoke"):
        fix_lines.append("Check the kernel log for NVIDIA Xid errors: sudo dmesg | grep -i -E 'NVRM|Xid'")
        fix_lines.append("Reboot after a driver update; make sure LD_LIBRARY_PATH does not point at another libcuda")
    elif stage == "import_torch":
        fix_lines.append(
            "Try with a clean library path: env -u LD_LIBRARY_PATH -u LD_PRELOAD <python> -c 'import torch'"
        )
    return finding(
        "probe_crashed",
        Severity.ERROR,
        title=f"Python crashed ({sig}) during {what}",
        explanation=f"The probe process died with {sig} while {what} was running. Usually: {why}.",
        fix="\n".join(fix_lines),
        evidence=view.ev(
            facts,
            "probe.failed_stage",
            "probe.signal",
            "probe.returncode",
            "probe.fault_traceback",
            "probe.stderr_tail",
        ),
    )


@rule("probe_timeout")
def probe_timeout(facts: Facts) -> Finding | None:
    if facts.value("probe.outcome") != "timeout":
        return None
    stage = str(facts.value("probe.failed_stage") or "startup")
    what, _, why = _stage_text(stage)
    limit = facts.value("probe.limit_seconds")
    secs = f"{float(limit):.0f} s" if isinstance(limit, (int, float)) else "its time limit"
    fix_lines = []
    if stage == "accel_init":
        fix_lines += [
            "Check that the driver answers: nvidia-smi   (if it also hangs, the driver is wedged: reboot)",
            "Look for Xid errors: sudo dmesg | grep -i -E 'NVRM|Xid'",
            "On multi-GPU servers enable persistence mode: sudo nvidia-smi -pm 1",
            "Isolate a GPU: CUDA_VISIBLE_DEVICES=0 python -c 'import torch; print(torch.cuda.is_available())'",
        ]
    elif stage == "startup":
        fix_lines.append("Check that the path is a Python interpreter: <path> -c 'import sys; print(sys.executable)'")
    else:
        fix_lines.append(
            f"Reproduce it: {view.python_executable(facts)} -X faulthandler -c 'import torch' and "
            "press Ctrl+\\ (SIGQUIT) while it hangs to see where"
        )
    return finding(
        "probe_timeout",
        Severity.ERROR,
        title=f"Python hung for {secs} during {what}",
        explanation=f"The probe did not finish {what} within {secs} and was stopped. Usually: {why}.",
        fix="\n".join(fix_lines),
        evidence=view.ev(facts, "probe.failed_stage", "probe.limit_seconds", "probe.stderr_tail"),
    )
