"""Causes a paste shows through its paths and numbers rather than one fixed message.

- A library that fails to load, or lacks a symbol, from a directory on ``LD_LIBRARY_PATH``, under
  ``CUDA_HOME`` or ``/usr/local/cuda*``: the path is the culprit (``ld_library_path_shadowing``), with the
  exact ``export`` that removes it. Reinstalling torch would not help.
- torch imported from a ``site-packages`` outside the environment the user runs (``~/.local``, another
  env): ``stale_or_shadowed_torch``, with the uninstall that removes the stray copy.
- CUDA's out-of-memory message carries the allocator's numbers: memory held by other processes points at
  them (``gpu_memory_held_by_others``), memory held by this process at the job itself
  (``cuda_out_of_memory``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpuassist.findings import Evidence, Finding, Severity
from gpuassist.ingest.errors import Match
from gpuassist.rules.make import finding

MAX_LINE = 2000

# "/usr/local/cuda-11.2/lib64/libcublas.so.11: undefined symbol ..." / "version `GOMP_5.0' not found" /
# "cannot open shared object file" naming a full path / "file too short" / "invalid ELF header".
LIB_FAILURE = re.compile(
    r"(?P<path>(?:/[\w.+@-]+)+/(?P<lib>lib[\w+-]+\.so(?:\.[\w]+)*))\s*:\s*"
    r"(?P<why>undefined symbol: \S+|version `[^']+' not found|file too short|invalid ELF header|"
    r"wrong ELF class\S*|cannot open shared object file)"
)
# "undefined symbol: X, version libcudart.so.11.0" names the library by soname only.
ENV_ASSIGN = re.compile(r"\b(LD_LIBRARY_PATH|CUDA_HOME|CUDA_PATH)\s*[=:]\s*[\"']?(?P<value>[^\s\"']+)")
SYSTEM_CUDA = re.compile(
    r"^/usr/local/cuda[\w.-]*(/|$)|/cuda[\w.-]*/(lib64|lib|targets)\b|/cudnn|/TensorRT", re.IGNORECASE
)
BUNDLED = re.compile(r"[/\\](site|dist)-packages[/\\](torch|nvidia)[/\\]")

TORCH_FILE = re.compile(r"File \"(?P<sp>.+?[/\\](?:site|dist)-packages)[/\\]torch[/\\]")
SITE_PACKAGES = re.compile(r"(?P<sp>(?:[A-Za-z]:)?[/\\][^\s\"':]*?[/\\](?:site|dist)-packages)(?=[/\\\s\"']|$)")
USER_SITE = re.compile(
    r"[/\\]\.local[/\\]lib[/\\]python[\d.]+[/\\]site-packages|"
    r"AppData[/\\]Roaming[/\\]Python[/\\]Python\d+[/\\]site-packages",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class LibraryCulprit:
    path: str
    directory: str
    why: str
    line_no: int
    line: str
    via: str  # "LD_LIBRARY_PATH", "CUDA_HOME", "/usr/local/cuda"


def _env_values(lines: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for raw in lines:
        for m in ENV_ASSIGN.finditer(raw[:MAX_LINE]):
            dirs = [d for d in m.group("value").split(":") if d.startswith("/")]
            out.setdefault(m.group(1).upper(), []).extend(d.rstrip("/") for d in dirs)
    return out


def library_culprit(lines: list[str]) -> LibraryCulprit | None:
    """The first library that failed from a directory the user's environment put ahead of the wheel's."""
    env = _env_values(lines)
    ld_dirs = env.get("LD_LIBRARY_PATH", [])
    cuda_home = env.get("CUDA_HOME", []) + env.get("CUDA_PATH", [])
    for no, raw in enumerate(lines, start=1):
        m = LIB_FAILURE.search(raw[:MAX_LINE])
        if not m or BUNDLED.search(m.group("path")):
            continue
        path = m.group("path")
        directory = path.rsplit("/", 1)[0]
        via = next((f"LD_LIBRARY_PATH ({d})" for d in ld_dirs if directory == d or directory.startswith(d + "/")), None)
        if via is None:
            via = next((f"CUDA_HOME ({d})" for d in cuda_home if directory.startswith(d + "/") or directory == d), None)
        if via is None and SYSTEM_CUDA.search(directory):
            via = "a system CUDA/cuDNN directory"
        if via is None:
            continue
        return LibraryCulprit(path, directory, m.group("why"), no, raw.strip()[:500], via)
    return None


def library_finding(lines: list[str]) -> Finding | None:
    c = library_culprit(lines)
    if c is None:
        return None
    env = _env_values(lines)
    ld_dirs = env.get("LD_LIBRARY_PATH", [])
    kept = [d for d in ld_dirs if not (c.directory == d or c.directory.startswith(d + "/"))]
    if ld_dirs:
        export = f"export LD_LIBRARY_PATH={':'.join(dict.fromkeys(kept))}" if kept else "unset LD_LIBRARY_PATH"
    else:
        export = (
            f"export LD_LIBRARY_PATH=$(printf %s \"$LD_LIBRARY_PATH\" | tr ':' '\\n' | "
            f"grep -v '^{c.directory}/\\?$' | paste -sd: -)"
        )
    return finding(
        "ld_library_path_shadowing",
        Severity.ERROR,
        title=f"{c.path.rsplit('/', 1)[-1]} is loaded from {c.directory}, not from the torch wheel",
        explanation=(
            f"The library that fails ({c.why}) is {c.path}, found through {c.via}. PyTorch wheels bring their own "
            "CUDA, cuDNN and OpenMP libraries; a copy from another directory on the loader's path is picked "
            "first and does not match what torch was built with. Reinstalling torch would not change this: "
            "the path is the culprit."
        ),
        fix=(
            f"Take {c.directory} off the loader path for this environment, then retry:\n"
            f"  {export}\n"
            '  python -c "import torch; print(torch.__version__, torch.cuda.is_available())"\n'
            "Then remove it where it is set (~/.bashrc, the module file or job script, the Dockerfile ENV). "
            "A pip-installed torch needs no LD_LIBRARY_PATH.\n"
            "To confirm: `ldd $(python -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "
            '"lib", "libtorch_cuda.so"))\') | grep -E \'cuda|cudnn|cublas|gomp\'`'
        ),
        evidence=[Evidence("pasted.line", f"line {c.line_no}: {c.line}")],
        explains=["torch_import_error", "cpu_only_build"],
    )


def _env_root(site_packages: str) -> str:
    """/home/u/miniconda3/envs/a/lib/python3.10/site-packages → /home/u/miniconda3/envs/a."""
    return re.split(r"[/\\]lib[/\\]python[\d.]+[/\\]|[/\\]Lib[/\\]", site_packages, maxsplit=1)[0]


def shadowed_torch_finding(lines: list[str]) -> Finding | None:
    """torch imported from a site-packages of another environment than the one the other paths belong to."""
    torch_sites: dict[str, tuple[int, str]] = {}
    other_sites: dict[str, tuple[int, str]] = {}
    for no, raw in enumerate(lines, start=1):
        line = raw[:MAX_LINE]
        t = TORCH_FILE.search(line)
        if t:
            torch_sites.setdefault(t.group("sp"), (no, line.strip()[:500]))
            continue
        for m in SITE_PACKAGES.finditer(line):
            other_sites.setdefault(m.group("sp"), (no, line.strip()[:500]))
    if not torch_sites:
        return None
    torch_roots = {_env_root(sp) for sp in torch_sites}
    others = {sp: v for sp, v in other_sites.items() if _env_root(sp) not in torch_roots}
    user = [sp for sp in torch_sites if USER_SITE.search(sp)]
    if not others or not (user or len(torch_roots) > 1):
        return None
    sp, (no, line) = next(iter(torch_sites.items()))
    osp, (ono, oline) = next(iter(others.items()))
    where = "your user site-packages (~/.local)" if user else sp
    return finding(
        "stale_or_shadowed_torch",
        Severity.ERROR,
        title=f"torch is imported from {where}, not from the environment that runs the code",
        explanation=(
            f"The traceback shows torch loaded from {sp}, while the program's other packages come from {osp}. "
            "A second copy of torch outside the environment shadows the one you installed there, so what you "
            "(re)install is not what runs."
        ),
        fix=(
            "Remove the stray copy and keep Python from loading it:\n"
            + (
                "  python -m pip uninstall -y torch   # with ~/.local first on sys.path this removes that copy\n"
                "  export PYTHONNOUSERSITE=1   # or run python -s\n"
                if user
                else f"  {_env_root(sp)}/bin/python -m pip uninstall -y torch   # or remove {sp} from PYTHONPATH\n"
            )
            + '  python -c "import torch; print(torch.__file__, torch.__version__, torch.cuda.is_available())"\n'
            "Check PYTHONPATH for directories of another environment."
        ),
        evidence=[Evidence("pasted.line", f"line {no}: {line}"), Evidence("pasted.line", f"line {ono}: {oline}")],
        explains=["cpu_only_build", "gpu_arch_too_new_for_build", "torch_import_error"],
    )


OOM_TOTAL = re.compile(r"([\d.]+) ([GMK]i?B) total capacity|total capacity of ([\d.]+) ([GMK]i?B)")
OOM_OTHER = re.compile(r"Process (\d+) has ([\d.]+) ([GMK]i?B) memory in use")
OOM_SELF = re.compile(r"this process has ([\d.]+) ([GMK]i?B) memory in use")
OOM_RESERVED = re.compile(r"([\d.]+) ([GMK]i?B) reserved in total by PyTorch")
OOM_PYTORCH = re.compile(r"Of the allocated memory ([\d.]+) ([GMK]i?B) is allocated by PyTorch")
UNIT = {"KiB": 1 / 1024 / 1024, "MiB": 1 / 1024, "GiB": 1.0, "KB": 1 / 1e6, "MB": 1 / 1e3, "GB": 1.0}


def _gib(value: str, unit: str) -> float:
    return float(value) * UNIT.get(unit, 1.0)


def oom_held_by_others(lines: list[str]) -> bool:
    """CUDA's OOM message says how much the GPU has and who holds it: true when other processes (or memory
    outside this PyTorch process) hold at least half of it."""
    text = "\n".join(line[:MAX_LINE] for line in lines)
    total_m = OOM_TOTAL.search(text)
    if not total_m:
        return False
    total = _gib(total_m.group(1) or total_m.group(3), total_m.group(2) or total_m.group(4))
    if total <= 0:
        return False
    others = sum(_gib(v, u) for pid, v, u in OOM_OTHER.findall(text))
    by_pytorch = OOM_PYTORCH.search(text)
    if by_pytorch and _gib(*by_pytorch.groups()) >= 0.5 * total:
        # This process's PyTorch holds most of the GPU; in a container the job itself is listed as
        # "Process N" too (its PID is the host's), so other listed processes do not prove others.
        return False
    own = OOM_SELF.search(text)
    reserved = OOM_RESERVED.search(text)
    if others:
        return others >= 0.5 * total
    if own:
        return False
    return reserved is not None and _gib(*reserved.groups()) < 0.2 * total and "free" in text


def adjust_matches(lines: list[str], matches: list[Match]) -> list[Match]:
    """Out of memory: decide between this job and other processes from the message's own numbers."""
    oom = next((m for m in matches if m.id == "cuda_out_of_memory"), None)
    if oom is None:
        return matches
    rest = [m for m in matches if m.id not in ("gpu_memory_held_by_others", "wsl_pinned_memory_limit") or m.specific]
    if oom_held_by_others(lines):
        return [m for m in rest if m.id != "cuda_out_of_memory"] + [
            Match("gpu_memory_held_by_others", oom.line_no, oom.line, True, 0.9)
        ]
    return rest
