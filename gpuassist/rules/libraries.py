"""CUDA libraries loaded from the wrong place: a system CUDA/cuDNN on LD_LIBRARY_PATH shadowing the copies
the torch wheel ships (pip ``nvidia-*`` packages)."""

from __future__ import annotations

import re

from gpuassist.facts import Facts
from gpuassist.findings import Finding, Severity
from gpuassist.rules import fixes, view
from gpuassist.rules.make import finding
from gpuassist.rules.registry import rule

FAMILIES = ("libcublasLt", "libcublas", "libcudnn", "libcudart", "libnccl", "libcusparse", "libcufft",
            "libcurand", "libcusolver", "libnvJitLink", "libnvrtc")
SYSTEM_CUDA_DIR = re.compile(r"/cuda[\w.\-]*/(lib64|lib|targets)|cudnn|/nvidia/lib|TensorRT", re.IGNORECASE)


def _family(path: str) -> str | None:
    name = path.rsplit("/", 1)[-1]
    return next((f for f in FAMILIES if name.startswith(f + ".") or name.startswith(f + "_")), None)


def _bundled(path: str, prefix: str) -> bool:
    return ("site-packages/" in path or "dist-packages/" in path
            or bool(prefix and path.startswith(prefix.rstrip("/") + "/")))


def ld_library_path(facts: Facts) -> list[str]:
    env = facts.value("env") or {}
    value = env.get("LD_LIBRARY_PATH") if isinstance(env, dict) else None
    return [p for p in str(value or "").split(":") if p]


@rule("ld_library_path_shadowing")
def ld_library_path_shadowing(facts: Facts) -> Finding | None:
    if view.is_macos(facts) or view.is_windows(facts):
        return None
    prefix = str(facts.value("python.prefix") or "")
    loaded = [str(p) for p in facts.value("libs.loaded", []) or []]
    pip_libs = [p for p in loaded if "/site-packages/nvidia/" in p or "/dist-packages/nvidia/" in p]
    foreign = [p for p in loaded if _family(p) and not _bundled(p, prefix)]
    cuda_dirs = [p for p in ld_library_path(facts) if SYSTEM_CUDA_DIR.search(p)]
    err = facts.value("torch.import_error")
    err_text = f"{err.get('message', '')}\n{err.get('traceback', '')}" if isinstance(err, dict) else ""
    undefined = re.search(r"undefined symbol[^\n]*", err_text)
    mixed = bool(pip_libs and foreign)
    if not (mixed or (undefined and cuda_dirs)):
        return None
    kept = [p for p in ld_library_path(facts) if p not in cuda_dirs]
    export = f"export LD_LIBRARY_PATH={':'.join(kept)}" if kept else "unset LD_LIBRARY_PATH"
    what = []
    if foreign:
        what.append("torch loaded " + ", ".join(foreign[:3]) + (" …" if len(foreign) > 3 else "")
                    + " from outside its environment, next to the wheel's own copies in site-packages/nvidia")
    if cuda_dirs:
        what.append(f"LD_LIBRARY_PATH puts {', '.join(cuda_dirs)} ahead of the libraries torch ships")
    if undefined:
        what.append(f"`import torch` fails with \"{undefined.group(0).strip()}\"")
    py = view.python_executable(facts)
    return finding(
        "ld_library_path_shadowing",
        Severity.ERROR if undefined or (facts.value("cuda.available") is False) else Severity.WARNING,
        explanation=(
            "PyTorch wheels bring their own CUDA libraries (cuBLAS, cuDNN, the CUDA runtime) as pip `nvidia-*` "
            "packages, built to match. A system CUDA or cuDNN on the loader path is found first, so torch mixes "
            "versions: undefined symbols at import, cuBLAS/cuDNN errors, or wrong results. Here: "
            + "; ".join(what) + "."
        ),
        fix=(
            "Remove the system CUDA/cuDNN directories from LD_LIBRARY_PATH for this environment:\n"
            f"  {export}\n"
            f"  {fixes.quote(py)} -c \"import torch; print(torch.cuda.is_available())\"\n"
            "Then remove the line that sets it (~/.bashrc, the module file, the Dockerfile ENV, the job script). "
            "Nothing in a pip-installed torch needs LD_LIBRARY_PATH."
        ),
        evidence=view.ev(facts, "libs.loaded", "env", "torch.import_error", "python.prefix"),
        explains=["torch_import_error"],
    )
