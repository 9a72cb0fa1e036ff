"""Libraries loaded from the wrong place: a system CUDA/cuDNN (or any copy) on LD_LIBRARY_PATH shadowing the
copies the torch wheel ships (torch/lib, pip ``nvidia-*`` packages). The culprit is the path, so the fix is the
exact ``export``/``unset`` that takes it off the loader path, never a reinstall."""

from __future__ import annotations

import re

from gpuassist.facts import Facts
from gpuassist.findings import Finding, Severity
from gpuassist.rules import fixes, view
from gpuassist.rules.make import finding
from gpuassist.rules.registry import rule

FAMILIES = (
    "libcublasLt",
    "libcublas",
    "libcudnn",
    "libcudart",
    "libnccl",
    "libcusparse",
    "libcufft",
    "libcurand",
    "libcusolver",
    "libnvJitLink",
    "libnvrtc",
    "libgomp",
    "libcupti",
    "libcufile",
    "libnvToolsExt",
)
SYSTEM_CUDA_DIR = re.compile(r"/cuda[\w.\-]*/(lib64|lib|targets)|cudnn|/nvidia/lib|TensorRT", re.IGNORECASE)


def _family(path: str) -> str | None:
    name = path.rsplit("/", 1)[-1]
    return next((f for f in FAMILIES if name.startswith(f + ".") or name.startswith(f + "_")), None)


def _bundled(path: str, prefix: str) -> bool:
    return (
        "site-packages/" in path
        or "dist-packages/" in path
        or bool(prefix and path.startswith(prefix.rstrip("/") + "/"))
    )


def ld_library_path(facts: Facts) -> list[str]:
    env = facts.value("env") or {}
    value = env.get("LD_LIBRARY_PATH") if isinstance(env, dict) else None
    return [p for p in str(value or "").split(":") if p]


# A library named in an import failure: "/opt/x/libgomp.so.1: version `GOMP_5.0' not found", "... undefined
# symbol", "file too short", "invalid ELF header", "cannot open shared object file".
FAILING_LIBRARY = re.compile(
    r"(?P<path>(?:/[\w.+@-]+)+/lib[\w+-]+\.so(?:\.\w+)*)\s*:\s*(?:undefined symbol|version `[^']+' not found|"
    r"file too short|invalid ELF header|wrong ELF class|cannot open shared object file)"
)


def _under(path: str, directory: str) -> bool:
    d = directory.rstrip("/")
    return path == d or path.startswith(d + "/")


def _import_error_text(facts: Facts) -> str:
    err = facts.value("torch.import_error")
    return f"{err.get('message', '')}\n{err.get('traceback', '')}" if isinstance(err, dict) else ""


def blamed_paths(facts: Facts) -> list[tuple[str, str]]:
    """(library path, directory to take off the loader path) for each library torch picks up from
    LD_LIBRARY_PATH, CUDA_HOME or /usr/local/cuda* instead of its own copy: the one an import failure names,
    those that shadow a library the wheel ships, and those loaded from an LD_LIBRARY_PATH directory."""
    ld = ld_library_path(facts)
    env = facts.value("env") or {}
    cuda_home = [str(env.get(k)) for k in ("CUDA_HOME", "CUDA_PATH") if isinstance(env, dict) and env.get(k)]
    out: dict[str, str] = {}
    for m in FAILING_LIBRARY.finditer(_import_error_text(facts)):
        path = m.group("path")
        if "site-packages/" in path or "dist-packages/" in path:
            continue
        where = next((d for d in ld + cuda_home if _under(path, d)), None)
        if where is None and re.match(r"^/usr/local/cuda[\w.-]*/", path):
            where = path.rsplit("/", 1)[0]
        if where is not None:
            out.setdefault(path, where)
    for s in facts.value("libs.ld_path_shadows", []) or []:
        if isinstance(s, dict) and s.get("path"):
            out.setdefault(str(s["path"]), str(s.get("dir") or str(s["path"]).rsplit("/", 1)[0]))
    prefix = str(facts.value("python.prefix") or "")
    for p in facts.value("libs.loaded", []) or []:
        path = str(p)
        where = next((d for d in ld if _under(path, d)), None)
        if where is not None and not _bundled(path, prefix) and _family(path):
            out.setdefault(path, where)
    return list(out.items())


def export_without(facts: Facts, dirs: list[str]) -> str:
    """The exact command that takes ``dirs`` off LD_LIBRARY_PATH (unset when nothing is left)."""
    kept = [p for p in ld_library_path(facts) if p not in dirs]
    return f"export LD_LIBRARY_PATH={':'.join(kept)}" if kept else "unset LD_LIBRARY_PATH"


@rule("ld_library_path_shadowing")
def ld_library_path_shadowing(facts: Facts) -> Finding | None:
    if view.is_macos(facts) or view.is_windows(facts):
        return None
    prefix = str(facts.value("python.prefix") or "")
    loaded = [str(p) for p in facts.value("libs.loaded", []) or []]
    pip_libs = [p for p in loaded if "/site-packages/nvidia/" in p or "/dist-packages/nvidia/" in p]
    foreign = [p for p in loaded if _family(p) and not _bundled(p, prefix)]
    cuda_dirs = [p for p in ld_library_path(facts) if SYSTEM_CUDA_DIR.search(p)]
    err_text = _import_error_text(facts)
    undefined = re.search(r"undefined symbol[^\n]*", err_text)
    mixed = bool(pip_libs and foreign)
    blamed = blamed_paths(facts)
    import_failed = bool(err_text.strip())
    if not (mixed or (undefined and cuda_dirs) or blamed):
        return None
    ld_dirs = ld_library_path(facts)
    remove = [d for d in ld_dirs if d in cuda_dirs or any(_under(path, d) for path, _ in blamed)]
    remove += [d for _, d in blamed if d not in remove and d not in ld_dirs]
    export = (
        export_without(facts, [d for d in remove if d in ld_dirs])
        if any(d in ld_dirs for d in remove)
        else "unset LD_LIBRARY_PATH"
    )
    what = []
    if blamed:
        shown = "; ".join(f"{path} (from {d})" for path, d in blamed[:3]) + (" …" if len(blamed) > 3 else "")
        what.append(
            ("`import torch` fails on " if import_failed else "torch would load ")
            + shown
            + " instead of the wheel's own copy"
        )
    if foreign and not blamed:
        what.append(
            "torch loaded "
            + ", ".join(foreign[:3])
            + (" …" if len(foreign) > 3 else "")
            + " from outside its environment, next to the wheel's own copies in site-packages/nvidia"
        )
    if cuda_dirs:
        what.append(f"LD_LIBRARY_PATH puts {', '.join(cuda_dirs)} ahead of the libraries torch ships")
    if undefined:
        what.append(f'`import torch` fails with "{undefined.group(0).strip()}"')
    py = view.python_executable(facts)
    foreign_cuda = [p for p in foreign if _family(p) != "libgomp"]
    error = (
        bool(undefined)
        or (import_failed and bool(blamed))
        or (facts.value("cuda.available") is False and bool(foreign_cuda or cuda_dirs))
    )
    title = None
    if blamed:
        path, where = blamed[0]
        title = (
            f"{path.rsplit('/', 1)[-1]} {'fails to load' if import_failed else 'is loaded'} from {where} "
            f"({'LD_LIBRARY_PATH' if where in ld_dirs else 'a system CUDA'}), not from the torch wheel"
        )
    return finding(
        "ld_library_path_shadowing",
        Severity.ERROR if error else Severity.WARNING,
        title=title,
        explanation=(
            "PyTorch wheels bring their own libraries (cuBLAS, cuDNN, the CUDA runtime, OpenMP), built to "
            "match. A copy on the loader path (LD_LIBRARY_PATH is searched before the wheel's own directories) "
            "is found first, so torch mixes versions: undefined symbols at import, cuBLAS/cuDNN errors, or "
            "wrong results. Reinstalling torch does not change this: the path is the culprit. Here: "
            + "; ".join(what)
            + "."
        ),
        fix=(
            "Take those directories off LD_LIBRARY_PATH for this environment:\n"
            f"  {export}\n"
            f'  {fixes.quote(py)} -c "import torch; print(torch.cuda.is_available())"\n'
            "Then remove the line that sets it (~/.bashrc, the module file, the Dockerfile ENV, the job script). "
            "Nothing in a pip-installed torch needs LD_LIBRARY_PATH."
        ),
        evidence=view.ev(facts, "libs.ld_path_shadows", "libs.loaded", "env", "torch.import_error", "python.prefix"),
        explains=["torch_import_error"],
    )
