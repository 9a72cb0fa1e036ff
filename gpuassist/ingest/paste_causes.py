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

import bisect
import re
from dataclasses import dataclass

from gpuassist.findings import Evidence, Finding, Severity
from gpuassist.ingest.errors import PASTE_EXPLAINS, Match
from gpuassist.ingest.import_words import torch_import_said
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.rules.make import finding

# "/usr/local/cuda-11.2/lib64/libcublas.so.11: undefined symbol ..." / "version `GOMP_5.0' not found" /
# "cannot open shared object file" naming a full path / "file too short" / "invalid ELF header". The message is
# found first; the path is the token before it, checked on its own (no pattern rescans a long token per slash).
LIB_FAILURE = re.compile(  # a lookahead: one message's text may name the next failing library
    r"(?=(?P<lib>lib[\w+-]+\.so(?:\.[\w]+)*)\s*:\s*"
    r"(?P<why>undefined symbol: \S+|version `[^']+' not found|file too short|invalid ELF header|"
    r"wrong ELF class\S*|cannot open shared object file))"
)
LIB_PATH = re.compile(r"(?:/[\w.+@-]+)+/lib[\w+-]+\.so(?:\.[\w]+)*")


@dataclass(frozen=True)
class _LibFailure:
    path: str
    why: str


def _lib_failure(line: str) -> _LibFailure | None:
    """The first failing library named by a full path on this line: the path is the run of path characters that
    ends at the library (scanned back once), starting at its first slash after any empty component."""
    for m in LIB_FAILURE.finditer(line):
        end = m.end("lib")
        start = m.start("lib")
        while start > 0 and (line[start - 1].isalnum() or line[start - 1] in "_.+@-/"):
            start -= 1
        run = line[start:end]
        run = run[run.rfind("//") + 1 :]  # an empty component ends any path before it
        first = run.find("/")
        if first >= 0 and LIB_PATH.fullmatch(run[first:]):
            return _LibFailure(run[first:], m.group("why"))
    return None


# "undefined symbol: X, version libcudart.so.11.0" names the library by soname only.
ENV_ASSIGN = re.compile(r"\b(LD_LIBRARY_PATH|CUDA_HOME|CUDA_PATH)\s*[=:]\s*[\"']?(?P<value>[^\s\"']+)")
SYSTEM_CUDA = re.compile(
    r"^/usr/local/cuda[\w.-]*(/|$)|/cuda[\w.-]*/(lib64|lib|targets)\b|/cudnn|/TensorRT", re.IGNORECASE
)
BUNDLED = re.compile(r"[/\\](site|dist)-packages[/\\](torch|nvidia)[/\\]")

TORCH_FILE = re.compile(r"File \"(?P<sp>.+?[/\\](?:site|dist)-packages)[/\\]torch[/\\]")
SITE_PACKAGES_END = re.compile(r"[/\\](?:site|dist)-packages(?=[/\\\s\"']|$)")
PATH_SEPARATOR = re.compile(r"[\s\"':]")


def _site_packages(line: str) -> list[str]:
    """Every ".../site-packages" directory on the line, as the leftmost path that ends there: found by its end,
    then extended back to the first slash (or drive letter) after the last blank, quote or colon, so each
    character is looked at a bounded number of times however long the line."""
    separators = [m.start() for m in PATH_SEPARATOR.finditer(line)]
    out: list[str] = []
    done = 0  # the previous path's end: paths do not overlap
    for m in SITE_PACKAGES_END.finditer(line):
        if m.start() < done:
            continue
        before = bisect.bisect_left(separators, m.start())
        floor = max(separators[before - 1] + 1 if before else 0, done)
        begin = -1
        colon = floor - 1
        # The path starts with its own slash (or a drive letter and one) before the slash that ends it.
        if (
            colon >= 1
            and colon - 1 >= done
            and line[colon] == ":"
            and line[colon - 1].isascii()
            and line[colon - 1].isalpha()
            and floor < m.start()
            and line[floor] in "/\\"
        ):
            begin = colon - 1  # a drive letter: "C:\\Users\\...\\site-packages"
        if begin < 0:
            slash = [i for i in (line.find("/", floor, m.start()), line.find("\\", floor, m.start())) if i >= 0]
            begin = min(slash) if slash else -1
            if begin > floor and line[begin - 1] == "~":
                begin -= 1  # "~/.local/lib/python3.6/site-packages": the home directory is part of the path
        if begin >= 0:
            out.append(line[begin : m.end()])
            done = m.end()
    return out


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


# `echo $LD_LIBRARY_PATH` and the value the shell printed on the next line.
ENV_ECHO = re.compile(r"\becho\s+[\"']?\$\{?(LD_LIBRARY_PATH|CUDA_HOME|CUDA_PATH)\}?[\"']?\s*$")


def _env_values(lines: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for i, raw in enumerate(lines):
        line = raw[:MAX_LINE]
        found = [(m.group(1), m.group("value")) for m in ENV_ASSIGN.finditer(line)]
        echo = ENV_ECHO.search(line)
        if echo and i + 1 < len(lines) and lines[i + 1].strip().startswith("/"):
            found.append((echo.group(1), lines[i + 1].strip()[:MAX_LINE]))
        for name, value in found:
            dirs = [d for d in value.split(":") if d.startswith("/")]
            out.setdefault(name.upper(), []).extend(d.rstrip("/") for d in dirs)
    return out


def library_culprit(lines: list[str]) -> LibraryCulprit | None:
    """The first library that failed from a directory the user's environment put ahead of the wheel's."""
    env = _env_values(lines)
    ld_dirs = env.get("LD_LIBRARY_PATH", [])
    cuda_home = env.get("CUDA_HOME", []) + env.get("CUDA_PATH", [])
    for no, raw in enumerate(lines, start=1):
        m = _lib_failure(raw[:MAX_LINE]) if ".so" in raw else None
        if not m or BUNDLED.search(m.path):
            continue
        path = m.path
        directory = path.rsplit("/", 1)[0]
        via = next((f"LD_LIBRARY_PATH ({d})" for d in ld_dirs if directory == d or directory.startswith(d + "/")), None)
        if via is None:
            via = next((f"CUDA_HOME ({d})" for d in cuda_home if directory.startswith(d + "/") or directory == d), None)
        if via is None and SYSTEM_CUDA.search(directory):
            via = "a system CUDA/cuDNN directory"
        if via is None:
            continue
        return LibraryCulprit(path, directory, m.why, no, raw.strip()[:500], via)
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
        explains=list(PASTE_EXPLAINS["ld_library_path_shadowing"]),
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
        for sp in _site_packages(line):
            other_sites.setdefault(sp, (no, line.strip()[:500]))
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


# "…/site-packages/nvidia/cusparse/lib/libcusparse.so.12: undefined symbol: __nvJitLinkAddData_12_1, version
# libnvJitLink.so.12": a library of the wheel needs a symbol its companion library lacks, so a different (older)
# copy of that companion was loaded first.
VERSIONED_SYMBOL = re.compile(
    r":\s*undefined symbol:\s*(?P<sym>[\w@.]+),?\s+version\s+(?P<dep>lib[\w+-]+(?:\.so(?:\.\d+)*)?)"
)
FAILING_LIB = re.compile(r"(?P<lib>lib[\w+-]+\.so(?:\.\d+)*)$")


def _versioned_symbol(line: str) -> tuple[str, str, str, str] | None:
    """(path, lib, symbol, dependency) of a versioned-symbol failure; the path is the token before the message
    (found by splitting, not by a regex that could rescan a long token from every slash)."""
    m = VERSIONED_SYMBOL.search(line)
    if m is None:
        return None
    tokens = line[: m.start()].split()
    path = tokens[-1].strip("'\"`") if tokens else ""
    lib = FAILING_LIB.search(path)
    if lib is None or "/" not in path.replace("\\", "/"):
        return None
    return path, lib.group("lib"), m.group("sym"), m.group("dep")


# torch installed as conda's `pytorch` package: a conda/mamba install of it, its `pytorch-cuda=` / `cudatoolkit=`
# companion, or its `conda list` row from the pytorch channel.
CONDA_TORCH = re.compile(
    r"\b(?:conda|mamba|micromamba)\s+(?:install|create)\b[^\n]*\bpytorch(?![\w-])|\bpytorch-cuda\s*=|"
    r"^\s*pytorch\s+\d[\w.]*\s+\S+\s+pytorch\s*$",
    re.IGNORECASE,
)
BUNDLED_NVIDIA = re.compile(r"[/\\](?:site|dist)-packages[/\\]nvidia[/\\]")


def conda_torch_shown(lines: list[str]) -> bool:
    return any(CONDA_TORCH.search(line[:MAX_LINE]) for line in lines)


CONDA_TORCH_LIB = re.compile(r"[/\\](?:site|dist)-packages[/\\]torch[/\\]lib[/\\]lib\w+\.so[^:]*:\s*undefined symbol")


def conda_mismatch_without_path(lines: list[str]) -> bool:
    """conda's pytorch fails on a CUDA symbol, and nothing in the text shows a library from outside the environment
    (no ldd line resolving elsewhere, no system CUDA on LD_LIBRARY_PATH): the mismatch is between the conda packages
    the solver picked (pytorch/pytorch#90673: the nvidia channel's libcusparse 12 beside pytorch-cuda=11.7), so the
    loader path is no culprit the text supports."""
    if not conda_torch_shown(lines):
        return False
    if any(SYSTEM_CUDA.search(d) for d in _env_values(lines).get("LD_LIBRARY_PATH", [])):
        return False
    return not any(
        (ldd := LDD_LINE.match(x[:MAX_LINE]))
        and "-packages" not in ldd.group("path")
        and CUDA_LIB.match(ldd.group("dep"))
        for x in lines
    )


CUDA_LIB = re.compile(
    r"^lib(?:nvJitLink|cudart|cublas|cublasLt|cusparse|cufft|curand|cusolver|cudnn\w*|nccl|nvrtc|"
    r"cupti|nvToolsExt|cuda)\.so",
    re.IGNORECASE,
)
LDD_LINE = re.compile(r"^\s*(?P<dep>lib[\w+-]+\.so(?:\.\d+)*)\s+=>\s+(?P<path>/\S+)")
# The nvidia-* wheel that ships each library (the directory to put first).
WHEEL_PACKAGE = {
    "libnvjitlink": "nvjitlink",
    "libcudart": "cuda_runtime",
    "libcublas": "cublas",
    "libcublaslt": "cublas",
    "libcusparse": "cusparse",
    "libcufft": "cufft",
    "libcurand": "curand",
    "libcusolver": "cusolver",
    "libcudnn": "cudnn",
    "libnccl": "nccl",
    "libnvrtc": "cuda_nvrtc",
    "libcupti": "cuda_cupti",
}


def _wheel_package(dep: str) -> str | None:
    stem = dep.split(".so", 1)[0].lower()
    return next((pkg for prefix, pkg in WHEEL_PACKAGE.items() if stem.startswith(prefix)), None)


def dependency_finding(lines: list[str]) -> Finding | None:
    """A library the wheel ships fails on a versioned symbol of a CUDA companion library: the companion came from
    somewhere else (LD_LIBRARY_PATH, a system CUDA); the ldd line or the LD_LIBRARY_PATH value shows where."""
    hit = None
    ldd_deps = [ldd.group("dep") for ldd in (LDD_LINE.match(x[:MAX_LINE]) for x in lines) if ldd]
    for no, raw in enumerate(lines, start=1):
        found = _versioned_symbol(raw[:MAX_LINE]) if "undefined symbol" in raw else None
        if found is None or "-packages" not in found[0]:
            continue  # only a library of the wheel (site-packages/torch, site-packages/nvidia) counts here
        if CUDA_LIB.match(found[3]) or any(d.startswith(found[3]) and CUDA_LIB.match(d) for d in ldd_deps):
            hit = (no, raw.strip()[:500], found)
            break
    if hit is None:
        return None
    no, line, (path, lib, sym, dep) = hit  # dep may be cut short where the paste was ("version libnvJitL")
    evidence = [Evidence("pasted.line", f"line {no}: {line}")]
    where = None
    for lno, raw in enumerate(lines, start=1):
        ldd = LDD_LINE.match(raw[:MAX_LINE])
        if ldd and ldd.group("dep").startswith(dep) and "-packages" not in ldd.group("path"):
            dep = ldd.group("dep")
            where = ldd.group("path").rsplit("/", 1)[0]
            evidence.append(Evidence("pasted.line", f"line {lno}: {raw.strip()[:500]}"))
            break
    ld_dirs = _env_values(lines).get("LD_LIBRARY_PATH", [])
    system = [d for d in ld_dirs if SYSTEM_CUDA.search(d) or (where is not None and d == where)]
    if where is None and not system and not BUNDLED_NVIDIA.search(path) and conda_mismatch_without_path(lines):
        # conda's pytorch takes its CUDA libraries from the environment's own lib/ (the nvidia or conda-forge
        # packages the solver picked), not from a wheel: with no ldd line or LD_LIBRARY_PATH showing another
        # directory, the mismatch is between conda packages, and no path is to blame.
        return None
    if system:
        kept = [d for d in ld_dirs if d not in system]
        export = f"export LD_LIBRARY_PATH={':'.join(dict.fromkeys(kept))}" if kept else "unset LD_LIBRARY_PATH"
        evidence += [
            Evidence("pasted.line", f"line {lno}: {raw.strip()[:500]}")
            for lno, raw in enumerate(lines, start=1)
            if ENV_ECHO.search(raw[:MAX_LINE]) or ("LD_LIBRARY_PATH" in raw and any(d in raw for d in system))
        ][:2]
        steps = f"  {export}\n"
    else:
        package = _wheel_package(dep)
        first = (
            f"$(python -c \"import os, nvidia.{package} as m; print(os.path.join(m.__path__[0], 'lib'))\")"
            if package
            else "<site-packages>/nvidia/<package>/lib"
        )
        steps = (
            f"  echo $LD_LIBRARY_PATH    # remove any CUDA directory from it (~/.bashrc, module files), or\n"
            f"  export LD_LIBRARY_PATH={first}:$LD_LIBRARY_PATH\n"
        )
    return finding(
        "ld_library_path_shadowing",
        Severity.ERROR,
        title=f"{dep} is loaded from {where or 'outside the torch wheel'}, not the copy the wheel ships",
        explanation=(
            f"{lib} from the wheel needs {sym} from {dep}, and the {dep} the loader found first "
            f"does not have it: an older copy{' in ' + where if where else ''} (a system CUDA on LD_LIBRARY_PATH or "
            "in ldconfig) shadows the one pip installed next to torch. Reinstalling torch does not change which copy "
            "the loader picks: the path does."
        ),
        fix=(
            "Let the wheel's own CUDA libraries be found first, then retry:\n"
            + steps
            + '  python -c "import torch; print(torch.__version__, torch.cuda.is_available())"\n'
            "A pip-installed torch needs no CUDA directory on LD_LIBRARY_PATH.\n"
            f"To confirm: `ldd {path} | grep {dep.split('.so')[0]}` must show the copy under site-packages"
        ),
        evidence=evidence,
        explains=["torch_import_error"],
    )


# Lines that show torch itself being imported: a traceback frame inside the torch package, `import torch` in a
# frame, a prompt or a `python -c` (also as a Markdown step: "1. `import torch`", "- `>>> import torch`"), or torch's
# _C extension.
TORCH_IMPORT_CONTEXT = re.compile(
    r"File \"[^\"]*[/\\]torch[/\\]|"
    r"^\s*(?:(?:[-*+]|\d{1,2}[.)])\s+)?`?(?:>>>\s*|In \[\d+\]:\s*|-+>\s*\d+\s+)?import torch\b(?!\S*`?\s+\w)|"
    r"from torch\._C import|\btorch\._C\b|-c [\"'][^\"']*import torch",
)
# The failing library itself belongs to torch (its lib directory, an nvidia-* wheel, libtorch*, torch's own _C
# extension module).
TORCH_LIBRARY = re.compile(
    r"[/\\](?:torch[/\\]lib|nvidia[/\\]\w+[/\\]lib)[/\\]|\blibtorch\w*\.so|\blibc10\w*\.so|"
    r"[/\\]torch[/\\]_(?:C|dl)\b[\w.-]*\.(?:so|pyd)"
)
# Generic library-failure patterns that mean "import torch fails" only when torch is what was being imported.
IMPORT_FAILURE_GENERIC = re.compile(r"cannot open shared object file|undefined symbol|DLL load failed")


def failing_library(line: str) -> tuple[str, str] | None:
    """(full path, why) of the first library the line says failed to load, if the line names it by path."""
    m = _lib_failure(line[:MAX_LINE])
    return (m.path, m.why) if m else None


def torch_import_shown(lines: list[str]) -> bool:
    return any(TORCH_IMPORT_CONTEXT.search(line[:MAX_LINE]) for line in lines)


NO_TORCH_DIST = re.compile(
    r"No matching distribution found for (?:py)?torch(?![\w-])|"
    r"Could not find a version that satisfies the requirement (?:py)?torch(?![\w-])"
)
INSTALLED_TORCH = re.compile(r"Successfully installed .*\btorch-\d")
# PyTorch 2.1's message spelled it "total capacty of" (c10/cuda/CUDACachingAllocator.cpp, fixed in 2.2).
OOM_TOTAL = re.compile(r"([\d.]+) ([GMK]i?B|bytes) total capacity|total capac?i?ty of ([\d.]+) ([GMK]i?B|bytes)")
# 2.x: "GPU 0 has a total capacity of 23.65 GiB of which 20.06 MiB is free."
OOM_FREE_OF_WHICH = re.compile(r"of which ([\d.]+) ([GMK]i?B|bytes) is free")
OOM_OTHER = re.compile(r"Process (\d+) has ([\d.]+) ([GMK]i?B|bytes) memory in use")
OOM_SELF = re.compile(r"this process has ([\d.]+) ([GMK]i?B|bytes) memory in use")
OOM_RESERVED = re.compile(r"([\d.]+) ([GMK]i?B|bytes) reserved in total by PyTorch")
OOM_PYTORCH = re.compile(r"Of the allocated memory ([\d.]+) ([GMK]i?B|bytes) is allocated by PyTorch")
# PyTorch 1.x's message: "(GPU 0; 3.95 GiB total capacity; 1.62 GiB already allocated; 23.00 MiB free; 9.10 MiB
# cached)": the caching allocator holds allocated + cached; what neither it nor "free" accounts for is held elsewhere.
OOM_ALLOCATED = re.compile(r"([\d.]+) ([GMK]i?B|bytes) already allocated")
OOM_CACHED = re.compile(r"([\d.]+) ([GMK]i?B|bytes) cached\)")
OOM_FREE = re.compile(r"([\d.]+) ([GMK]i?B|bytes) free\b")
# What one process's CUDA context can hold outside PyTorch's allocator: the driver's state, the loaded kernels
# (all of them before CUDA 11.7's lazy loading) and cuBLAS/cuDNN workspaces. Measured at ~0.7 GiB for a first
# `torch.randn(1).cuda()` (discuss.pytorch.org/t/what-is-the-reason-for-pytorchs-gpu-memory-floor/73021) and
# "~700+MB depending on the CUDA version" (ptrblck, discuss.pytorch.org/t/high-gpu-memory-overhead/81330); an
# allowance of 1 GiB keeps a small card's own context from being read as another process.
CUDA_CONTEXT_MAX_GIB = 1.0
UNIT = {"bytes": 1 / 1024**3, "KiB": 1 / 1024**2, "MiB": 1 / 1024, "GiB": 1.0, "KB": 1 / 1e6, "MB": 1 / 1e3, "GB": 1.0}


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
        # "Including non-PyTorch memory, this process has S in use" counts this process whole (its CUDA context
        # included): what is neither that nor free is held by processes this one cannot list (another container,
        # another user). Half the card or more, beyond the context allowance, is theirs.
        free_2x = OOM_FREE_OF_WHICH.search(text)
        if free_2x is None:
            return False
        outside = total - _gib(*own.groups()) - _gib(*free_2x.groups())
        return outside >= 0.5 * total and outside > CUDA_CONTEXT_MAX_GIB
    allocated, cached, free = OOM_ALLOCATED.search(text), OOM_CACHED.search(text), OOM_FREE.search(text)
    if reserved is not None and _gib(*reserved.groups()) < 0.2 * total and "free" in text and free is None:
        return True
    held = (
        _gib(*reserved.groups())
        if reserved
        else (_gib(*allocated.groups()) + _gib(*cached.groups()) if allocated and cached else None)
    )
    if held is None or free is None:
        return False
    # More than half of the card neither in this process's allocator nor free, and more than this process's own
    # CUDA context (driver, kernels, cuBLAS/cuDNN workspaces: never counted by the allocator) could take: other
    # processes hold it. On a 1-2 GiB card the context alone is half the card.
    outside = total - held - _gib(*free.groups())
    return outside >= 0.5 * total and outside > CUDA_CONTEXT_MAX_GIB


def adjust_matches(lines: list[str], matches: list[Match]) -> list[Match]:
    """A missing library blames torch only when torch is what was imported (cuDNN not found by ONNX Runtime or
    CTranslate2 is not a torch problem); out of memory: decide between this job and other processes from the
    message's own numbers."""
    if any(NO_TORCH_DIST.search(line[:MAX_LINE]) for line in lines) and not any(
        INSTALLED_TORCH.search(line[:MAX_LINE]) for line in lines
    ):
        # pip looked in the CPU index and found nothing: no CPU build was installed.
        matches = [m for m in matches if not (m.id == "cpu_only_build" and "Looking in indexes" in m.line)]
    if not torch_import_shown(lines) and not torch_import_said(lines):
        matches = [
            m
            for m in matches
            if not (
                m.id == "torch_import_error"
                and IMPORT_FAILURE_GENERIC.search(m.line)
                and not TORCH_LIBRARY.search(m.line)
            )
        ]
    if any(m.id == "ld_library_path_shadowing" for m in matches) and conda_mismatch_without_path(lines):
        # the catalogue's "undefined symbol: cublasLt…" reads a system CUDA ahead of the wheel's; conda's pytorch
        # has no wheel libraries, and the text shows no other directory.
        matches = [m for m in matches if not (m.id == "ld_library_path_shadowing" and CONDA_TORCH_LIB.search(m.line))]
    oom = next((m for m in matches if m.id == "cuda_out_of_memory"), None)
    if oom is None:
        return matches
    rest = [m for m in matches if m.id not in ("gpu_memory_held_by_others", "wsl_pinned_memory_limit") or m.specific]
    if oom_held_by_others(lines):
        return [m for m in rest if m.id != "cuda_out_of_memory"] + [
            Match("gpu_memory_held_by_others", oom.line_no, oom.line, True, 0.9)
        ]
    return rest


# The user says torch imports (or CUDA works) in one place and not in another: a terminal or prompt versus a notebook
# or an IDE. Torch is installed; the failing program runs another interpreter.
WORKS_HERE = re.compile(
    r"\b(?:works?|working|loads?|loaded|imports?|imported|runs?|succeed\w*|successfully|fine|returns? true)\b"
    r"[^\n]{0,60}"
    r"\b(?:in|from|within|on|using)\s+(?:the\s+|my\s+|a\s+)?(?:terminal|command prompt|cmd|shell|console|"
    r"anaconda prompt|powershell|python (?:shell|prompt|console|interpreter)|repl|bash)\b",
    re.IGNORECASE,
)
FAILS_THERE = re.compile(
    r"\b(?:not?|doesn'?t|does not|don'?t|fails?|failing|won'?t|can'?t|cannot|but)\b[^\n]{0,60}"
    r"\b(?:jupyter|notebook|ipynb|pycharm|vs ?code|spyder|ide|kernel)\b",
    re.IGNORECASE,
)


def works_elsewhere_match(lines: list[str]) -> Match | None:
    """A line says torch works in a terminal and that line or one of the next two says it fails in a notebook or
    IDE: the notebook runs another interpreter (a words-only form of two interpreters). Cites the failing line."""
    cut = [line[:MAX_LINE] for line in lines]
    for i, line in enumerate(cut):
        if not WORKS_HERE.search(line):
            continue
        failing = next((j for j in range(i, min(i + 3, len(cut))) if FAILS_THERE.search(cut[j])), None)
        if failing is not None:
            return Match("wrong_interpreter_or_kernel", failing + 1, cut[failing].strip()[:500], True, 0.85)
    return None
