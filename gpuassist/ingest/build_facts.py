"""Which torch build is installed, read from the listings that state it without collect_env.

Each of these prints the build in its own shape, and a paste often holds only one of them:

- a one-line check, ``python -c "import torch; print(torch.__version__, torch.version.cuda)"`` (the catalogue's
  own confirm step), answered on the next line as ``2.3.0 None`` (``None``: no CUDA, a CPU build);
- ``pip show torch`` (``Name: torch`` then ``Version: 2.3.1+cpu``);
- a lockfile (uv.lock, poetry.lock, pdm.lock: ``name = "torch"`` then ``version = "2.5.1+cpu"``, or a source on
  the CPU index ``https://download.pytorch.org/whl/cpu``);
- the REPL answering ``torch.backends.cuda.is_built()`` with ``False`` (the build has no CUDA) and
  ``torch.cuda.get_device_capability()`` with ``(12, 0)`` (the GPU's compute capability, which the build's arch
  list is checked against).

Sources: torch/version.py (``cuda`` is None in a CPU build), torch/backends/cuda/__init__.py (``is_built``),
pip's ``show`` command (src/pip/_internal/commands/show.py: ``Name:``/``Version:`` lines), the lockfile formats of
uv (``[[package]]`` tables with ``name``/``version``/``source``) and Poetry/PDM (the same keys).
"""

from __future__ import annotations

import re
from typing import Any

from gpuassist.facts import Facts
from gpuassist.ingest.env_reports import pip_show_torch
from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE, Sources, note_source
from gpuassist.ingest.torch_rows import conda_list_version
from gpuassist.knowledge.wheels import arch_covers
from gpuassist.rules import view
from gpuassist.rules.wheel import build_arch_list

# A local version tag states the build: +cpu has no CUDA, +cu121 is CUDA 12.1.
VERSION = r"\d+\.\d+(?:\.\d+)?(?:(?:a|b|rc|\.dev|\.post)\d+)?(?:\+[\w.]+)?"
TORCH_EXPRS = {
    "torch.__version__": "torch.version",
    "torch.version.cuda": "torch.cuda_build",
    "torch.cuda.is_available()": "cuda.available",
    "torch.cuda.device_count()": "cuda.device_count",
    "torch.backends.cuda.is_built()": "torch.cuda_built",
}
PRINT_CALL = re.compile(r"\bprint\(([^\n]*)\)")
PIP_SHOW_NAME = re.compile(r"^\s*Name:\s*torch\s*$", re.IGNORECASE)
PIP_SHOW_VERSION = re.compile(rf"^\s*Version:\s*({VERSION})\s*$")
LOCK_NAME = re.compile(r'^\s*name\s*=\s*"torch"\s*$')
LOCK_VERSION = re.compile(rf'^\s*version\s*=\s*"({VERSION})"\s*$')
LOCK_SOURCE = re.compile(r"download\.pytorch\.org/whl/(?:nightly/|test/)?(cpu|cu\d{2,3})\b")
LOCK_NEXT_PACKAGE = re.compile(r"^\s*\[\[package\]\]|^\s*name\s*=")
REPL_ASK = re.compile(r"^\s*(?:>>>|In \[\d+\]:)\s*(?:print\(\s*)?(torch\.[\w.]+\(\))\s*\)?\s*;?\s*$")
# The question that asks the build itself (the source line of a version-less CPU-build statement).
BUILD_ASKED = re.compile(r"torch\.version\.cuda|torch\.backends\.cuda\.is_built\(\)")
CAPABILITY = re.compile(r"^\s*(?:Out\[\d+\]:\s*)?\((\d{1,2}),\s*(\d)\)\s*$")


def local_tag_build(version: str) -> tuple[bool, str | None]:
    """(whether the tag states the build, the CUDA version it states: None for +cpu)."""
    tag = version.partition("+")[2]
    if tag == "cpu":
        return True, None
    m = re.fullmatch(r"cu(\d{2,3})", tag)
    if m:
        digits = m.group(1)
        return True, f"{digits[:-1]}.{digits[-1]}"
    return False, None


def _value(expr_fact: str, token: str) -> tuple[bool, Any]:
    """What one printed token says for the fact its expression states; (False, None) when it is not that shape."""
    if expr_fact == "torch.version":
        return (True, token) if re.fullmatch(VERSION, token) else (False, None)
    if expr_fact == "torch.cuda_build":
        if token == "None":
            return True, None
        return (True, token) if re.fullmatch(r"\d+\.\d+(?:\.\d+)?", token) else (False, None)
    if expr_fact in ("cuda.available", "torch.cuda_built"):
        return (True, token == "True") if token in ("True", "False") else (False, None)
    if expr_fact == "cuda.device_count":
        return (True, int(token)) if token.isdigit() else (False, None)
    return False, None


def printed_check_facts(lines: list[str], sources: Sources) -> dict[str, Any]:
    """``print(torch.__version__, torch.version.cuda, ...)`` in a command or script, and the line it printed: each
    printed word belongs to the expression in the same place (only when every word fits its expression)."""
    facts: dict[str, Any] = {}
    for i, raw in enumerate(lines[:-1]):
        call = PRINT_CALL.search(raw[:MAX_LINE])
        if call is None or "torch." not in call.group(1):
            continue
        args = [a.strip() for a in call.group(1).split(",")]
        if not any(a in TORCH_EXPRS for a in args):
            continue
        out = lines[i + 1][:MAX_LINE].strip()
        tokens = out.split()
        if len(tokens) != len(args):
            continue
        stated: dict[str, Any] = {}
        for arg, token in zip(args, tokens, strict=True):
            fact = TORCH_EXPRS.get(arg)
            if fact is None:
                continue
            fits, value = _value(fact, token)
            if not fits:
                stated = {}
                break
            stated[fact] = value
        if not stated:
            continue
        for key, value in stated.items():
            facts.setdefault(key, value)
        note_source(sources, tuple(stated), i + 1, f"{raw.strip()}  ->  {out}")
    return facts


def pip_show_facts(lines: list[str], sources: Sources) -> dict[str, Any]:
    """``pip show torch``: the ``Version:`` line that follows ``Name: torch``."""
    for i, raw in enumerate(lines):
        if not PIP_SHOW_NAME.match(raw[:MAX_LINE]):
            continue
        for no in range(i + 1, min(i + 3, len(lines))):
            m = PIP_SHOW_VERSION.match(lines[no][:MAX_LINE])
            if m:
                note_source(sources, ("torch.version", "torch.cuda_build"), no + 1, lines[no])
                return {"torch.version": m.group(1)}
    return {}


def lockfile_facts(lines: list[str], sources: Sources) -> dict[str, Any]:
    """A lockfile's torch package(s): when every torch entry it locks is a CPU build (``+cpu`` or the CPU index), the
    environment it installs has no CUDA; a lock that resolves a CPU torch for one platform and a CUDA torch for
    another does not say which one this machine got, so it states nothing."""
    builds: list[tuple[int, str, str | None]] = []  # (line number, version, the build it states or "?")
    for i, raw in enumerate(lines):
        if not LOCK_NAME.match(raw[:MAX_LINE]):
            continue
        version, build, no = None, "?", i + 1
        for j in range(i + 1, min(i + 8, len(lines))):
            line = lines[j][:MAX_LINE]
            if LOCK_NEXT_PACKAGE.match(line):
                break
            v = LOCK_VERSION.match(line)
            if v:
                version, no = v.group(1), j + 1
                stated, cuda = local_tag_build(version)
                if stated:
                    build = "cpu" if cuda is None else cuda
            s = LOCK_SOURCE.search(line)
            if s and build == "?":
                tag = s.group(1)
                build = "cpu" if tag == "cpu" else f"{tag[2:-1]}.{tag[-1]}"
        if version is not None:
            builds.append((no, version, build))
    if not builds or any(b != "cpu" for _, _, b in builds):
        return {}
    no, version, _ = builds[0]
    note_source(sources, ("torch.version", "torch.cuda_build"), no, lines[no - 1])
    return {"torch.version": version, "torch.cuda_build": None}


def repl_build_facts(lines: list[str], sources: Sources) -> dict[str, Any]:
    """The REPL's answers that state the build or the GPU without a version: ``torch.backends.cuda.is_built()``
    -> False, ``torch.cuda.get_device_capability()`` -> ``(12, 0)``."""
    facts: dict[str, Any] = {}
    for i, raw in enumerate(lines[:-1]):
        m = REPL_ASK.match(raw[:MAX_LINE])
        if m is None:
            continue
        out = lines[i + 1][:MAX_LINE].strip()
        if m.group(1) == "torch.backends.cuda.is_built()" and out in ("True", "False"):
            facts["torch.cuda_built"] = out == "True"
            note_source(sources, ("torch.cuda_built", "torch.cuda_build"), i + 1, f"{raw.strip()}  ->  {out}")
        cap = CAPABILITY.match(out) if m.group(1) == "torch.cuda.get_device_capability()" else None
        if cap and "torch.device_capability" not in facts:
            facts["torch.device_capability"] = f"{cap.group(1)}.{cap.group(2)}"
            note_source(sources, ("torch.device_capability", "reported.gpus"), i + 1, f"{raw.strip()}  ->  {out}")
    return facts


# torch.__config__.show() (also inside mmcv/mmdet's "PyTorch compiling details"): its "Build settings:" line lists the
# CMake options torch was built with (aten/src/ATen/Version.cpp show_config(), from the build options caffe2 records):
# USE_CUDA=OFF or 0 is a build without CUDA, CUDA_VERSION=11.8 the CUDA it was built with, TORCH_VERSION its version.
BUILD_SETTINGS = re.compile(r"\bBuild settings:\s*(.*)$")


def config_show_facts(lines: list[str], sources: Sources) -> dict[str, Any]:
    """The build options torch.__config__.show() prints."""
    for no, raw in enumerate(lines, start=1):
        m = BUILD_SETTINGS.search(raw[:MAX_LINE])
        if m is None:
            continue
        settings = dict(re.findall(r"\b([A-Z][A-Z0-9_]+)=([^,\s]*)", m.group(1)))
        facts: dict[str, Any] = {}
        if re.fullmatch(VERSION, settings.get("TORCH_VERSION", "")):
            facts["torch.version"] = settings["TORCH_VERSION"]
        use_cuda = settings.get("USE_CUDA", "").upper()
        if use_cuda in ("OFF", "0", "FALSE"):
            facts["torch.cuda_build"] = None
        elif use_cuda in ("ON", "1", "TRUE") and re.fullmatch(r"\d+\.\d+(?:\.\d+)?", settings.get("CUDA_VERSION", "")):
            facts["torch.cuda_build"] = settings["CUDA_VERSION"]
        if facts:
            note_source(sources, tuple(facts), no, raw)
        return facts
    return {}


# torch >= 2.8's own capability check (torch/cuda/__init__.py _check_capability -> _warn_unsupported_code): the GPU and
# its compute capability, then one line per compute capability the build holds code for.
#   Found GPU0 NVIDIA GeForce GTX 1080 Ti which is of compute capability (CC) 6.1.
#   The following list shows the CCs this version of PyTorch was built for and the hardware CCs it supports:
#   - 7.5 which supports hardware CC >=7.5,<8.0
UNSUPPORTED_CC = re.compile(r"Found GPU(\d+) (.+?) which is of compute capability \(CC\) (\d{1,2})\.(\d)\b")
BUILT_CC = re.compile(r"^\W*(\d{1,2})\.(\d) which supports hardware CC\b")
# torch 1.x-2.7's wording of the same check (_check_capability's old_gpu_warn), printed when the GPU's capability is
# outside the build's range; the range is often wrapped onto the next line, and forums join the lines again:
#   Found GPU0 Tesla P100-PCIE-16GB which is of cuda capability 6.0.
#   Minimum and Maximum cuda capability supported by this version of PyTorch is
#   (7.0) - (12.0)
OUT_OF_RANGE_CC = re.compile(
    r"Found GPU(\d+) (.+?) which is of cuda capability (\d{1,2})\.(\d)\.\s+"
    r"Minimum and Maximum cuda capability supported by this version of PyTorch is\s+"
    r"\((\d{1,2})\.(\d)\)\s*-\s*\((\d{1,2})\.(\d)\)"
)


def capability_check_facts(lines: list[str], sources: Sources) -> dict[str, Any]:
    """The GPU and the build's architectures as torch's capability warning states them: the arch rules decide."""
    for i, raw in enumerate(lines):
        m = UNSUPPORTED_CC.search(raw[:MAX_LINE])
        if m is None:
            continue
        archs = []
        for line in lines[i + 1 : i + 40]:
            built = BUILT_CC.match(line[:MAX_LINE])
            if built:
                archs.append(f"sm_{built.group(1)}{built.group(2)}")
        facts: dict[str, Any] = {
            "reported.gpus": [
                {
                    "index": int(m.group(1)),
                    "name": m.group(2).strip(),
                    "compute_capability": f"{m.group(3)}.{m.group(4)}",
                }
            ]
        }
        if archs:
            facts["torch.arch_list"] = archs
        note_source(sources, tuple(facts), i + 1, raw)
        return facts
    return range_check_facts(lines, sources)


def range_check_facts(lines: list[str], sources: Sources) -> dict[str, Any]:
    """The older wording states the build's range, not its list: its two ends stand for the list (the GPU is outside
    the range, so which end it misses is what the arch rules judge)."""
    for i, raw in enumerate(lines):
        if "which is of cuda capability" not in raw:
            continue
        m = OUT_OF_RANGE_CC.search(" ".join(line[:MAX_LINE].strip() for line in lines[i : i + 4]))
        if m is None:
            continue
        oldest, newest = f"sm_{m.group(5)}{m.group(6)}", f"sm_{m.group(7)}{m.group(8)}"
        gpu = {"index": int(m.group(1)), "name": m.group(2).strip(), "compute_capability": f"{m.group(3)}.{m.group(4)}"}
        facts: dict[str, Any] = {"reported.gpus": [gpu], "torch.arch_list": [oldest, newest]}
        note_source(sources, tuple(facts), i + 1, raw)
        return facts
    return {}


def build_facts(lines: list[str], sources: Sources) -> dict[str, Any]:
    """Every build fact the listings above state; the first to state a fact wins. A version's local tag states the
    build as well (``+cpu``: no CUDA), unless a listing stated it outright."""
    facts: dict[str, Any] = {}
    for part in (
        printed_check_facts(lines, sources),
        pip_show_facts(lines, sources),
        lockfile_facts(lines, sources),
        repl_build_facts(lines, sources),
        config_show_facts(lines, sources),
        capability_check_facts(lines, sources),
    ):
        for key, value in part.items():
            facts.setdefault(key, value)
    stated, cuda = local_tag_build(str(facts.get("torch.version") or ""))
    if stated:
        facts.setdefault("torch.cuda_build", cuda)
    if facts.get("torch.cuda_built") is False:
        facts.setdefault("torch.cuda_build", None)
    capability = facts.pop("torch.device_capability", None)
    if capability is not None:
        name = f"a GPU of compute capability {capability}"
        facts["reported.gpus"] = [{"index": 0, "name": name, "compute_capability": capability}]
    return facts


def cpu_build_without_version(facts: Facts, sources: Sources) -> Match | None:
    """The text states the build has no CUDA (``torch.version.cuda`` -> None, ``torch.backends.cuda.is_built()`` ->
    False) but not the torch version, so the wheel rule (which names the version it judges) cannot run: the
    statement itself is the CPU build, a verdict like ``+cpu``."""
    if (
        not facts.known("torch.cuda_build")
        or facts.value("torch.cuda_build") is not None
        or facts.value("torch.version")
    ):
        return None
    if facts.value("torch.hip_build") or facts.value("cuda.available") is True or facts.value("host.os") == "Darwin":
        return None  # ROCm builds have no CUDA version; a Mac's build has none either (its own finding)
    where = sources.get("torch.cuda_build")
    if where is None or not BUILD_ASKED.search(where[1]):
        return None  # stated by something else (collect_env's "N/A" when torch does not import)
    return Match("cpu_only_build", where[0], where[1], True, 0.9)


# ------------------------------------------------------------------ two copies of torch: the imported one and pip's

# The version the interpreter imports: the REPL's or a printed check's answer to torch.__version__, collect_env's
# "PyTorch version:" (collect_env imports torch to print it), a framework banner's "torch-2.1.0+cu121".
IMPORTED_FIELD = re.compile(rf"^\s*PyTorch version:\s*({VERSION})\s*$")
# The version the package manager lists in the environment: pip list/freeze ("torch 2.3.1+cu121", "torch==2.3.1"),
# collect_env's own "[pip3] torch==2.3.1" section (pip's listing, not the import), pip show's "Version:".
LISTED = re.compile(rf"^\s*(?:\[pip3?\]\s*)?torch(?:\s+|==)({VERSION})\s*$")
# Something was installed in between: the listing and the import may be from before and after it.
INSTALL_ACTION = re.compile(
    r"Successfully installed\b|^\s*[+~-]\s*torch==|Installing torch \(|Updating torch \(|"
    r"^\s*Executing transaction: done"  # conda/mamba after installing or removing packages
)


BUILD_TAG = re.compile(r"cpu|cu\d{2,3}|rocm[\d.]+")


def _same_release(a: str, b: str) -> bool:
    """The same torch, where a listing without a local tag (conda's, an index that drops it) matches any tag, and a
    source build's tag (a git hash: ``1.7.0a0+9ddd3df``, rebuilt in place) is not a different build."""
    (ra, _, ta), (rb, _, tb) = a.partition("+"), b.partition("+")
    if not (BUILD_TAG.fullmatch(ta) and BUILD_TAG.fullmatch(tb)):
        return ra == rb
    return ra == rb and ta == tb


def _imported_version(lines: list[str]) -> tuple[int, str, str] | None:
    for i, raw in enumerate(lines):
        line = raw[:MAX_LINE]
        m = IMPORTED_FIELD.match(line)
        if m:
            return i + 1, line, m.group(1)
        ask = re.match(r"^\s*(?:>>>|In \[\d+\]:)\s*(?:print\(\s*)?torch\.__version__\s*\)?\s*$", line)
        if ask and i + 1 < len(lines):
            out = lines[i + 1][:MAX_LINE].strip().removeprefix("Out[").partition("]:")
            value = (out[2] if out[1] else out[0]).strip().strip("'\"")
            if re.fullmatch(VERSION, value):
                return i + 1, f"{line.strip()}  ->  {value}", value
    checked = printed_check_facts(lines, {})
    version = checked.get("torch.version")
    return (0, "", str(version)) if version else None


def two_torch_copies(lines: list[str]) -> Match | None:
    """The interpreter imports one torch version while the package manager lists another in the same paste (pip list
    says 2.3.1+cu121, torch.__version__ says 1.13.1+cpu): a second copy (~/.local, PYTHONPATH, another env's
    site-packages) is the one that runs, so reinstalling changes nothing. Not when something was installed in
    between (the listing and the import may then be from before and after it)."""
    if any(INSTALL_ACTION.search(line[:MAX_LINE]) for line in lines):
        return None
    imported = _imported_version(lines)
    if imported is None:
        return None
    listed = _listed_versions(lines)
    if not listed or any(_same_release(v, imported[2]) for _, _, v in listed):
        return None
    no, line, _ = listed[0]
    return Match("stale_or_shadowed_torch", no, line.strip()[:500], False, 0.8)


def _listed_versions(lines: list[str]) -> list[tuple[int, str, str]]:
    """Every torch version a package manager lists: pip list/freeze, collect_env's [pip3] section, pip show, and
    `conda list`'s own rows (torch_rows.conda_list_version)."""
    found = []
    for i, raw in enumerate(lines):
        line = raw[:MAX_LINE]
        m = LISTED.match(line)
        if m is None and any(PIP_SHOW_NAME.match(lines[j][:MAX_LINE]) for j in range(max(0, i - 2), i)):
            m = PIP_SHOW_VERSION.match(line)
        if m:
            found.append((i + 1, line, m.group(1)))
        elif (conda := conda_list_version(line)) is not None:
            found.append((i + 1, line, conda))
    return found


# ------------------------------------------------------------- an untagged torch installed on Windows is PyPI's

# An installer stating the torch it installed, without a local tag: pip ("Successfully installed ... torch-2.2.0"),
# uv (" + torch==2.2.0"), Poetry ("Installing torch (2.2.0)", "Updating torch (2.1.0 -> 2.2.0)"). PyTorch's own
# indexes tag every CUDA wheel (+cu121), so an untagged version came from PyPI, whose Windows torch is the CPU build.
# Poetry's operation line carries its state until it is done (python-poetry/poetry src/poetry/installation/executor.py,
# _execute_operation: "<op>: Pending...", ": Downloading... N%", ": Preparing...", ": Installing...", and on an error
# "<op>: Failed"; the finished line is the operation alone): such a line installed nothing.
POETRY_NOT_DONE = r"(?!:\s*(?:Failed|Pending|Downloading|Preparing|Installing|Skipped)\b)"
INSTALLED_UNTAGGED = re.compile(
    r"Successfully installed .*?\btorch-(\d+\.\d+(?:\.\d+)?)(?![\w.+])|^\s*\+\s*torch==(\d+\.\d+(?:\.\d+)?)\s*$|"
    rf"\bInstalling torch \((\d+\.\d+(?:\.\d+)?)\){POETRY_NOT_DONE}|"
    rf"\bUpdating torch \([^)]*?->\s*(\d+\.\d+(?:\.\d+)?)\){POETRY_NOT_DONE}"
)


# conda lists its own torch package ("pytorch 2.1.2 py3.11_cuda12.1_cudnn8_0", collect_env's "[conda] pytorch ..."):
# pip then lists the same torch untagged, and a conda CUDA build is untagged too.
CONDA_TORCH_LISTED = re.compile(r"^\s*(?:\[conda\]\s*)?pytorch\s+\d+\.\d+")


def windows_pypi_build(facts: dict[str, Any], lines: list[str], sources: Sources) -> None:
    """On Windows, an installer's untagged torch is PyPI's CPU build, and so is an untagged torch that pip lists
    (pip list/freeze, collect_env's "[pip3] torch==2.1.2", pip show's "Version: 2.1.2") where conda lists no torch
    of its own: the build is stated, the rules decide (with no NVIDIA GPU in sight the CPU build is fine). Nothing
    when anything else states the build."""
    if facts.get("host.os") != "Windows" or "torch.cuda_build" in facts or facts.get("cuda.available") is True:
        return
    conda = any(CONDA_TORCH_LISTED.match(line[:MAX_LINE]) for line in lines)
    shown = None if conda else pip_show_torch(lines)  # pip show's "Version:" of the installed distribution
    if shown is not None and "+" not in shown[2]:
        facts.setdefault("torch.version", shown[2])
        if facts["torch.version"] == shown[2]:
            facts["torch.cuda_build"] = None
            note_source(sources, ("torch.version", "torch.cuda_build"), shown[0], shown[1])
        return
    for no, raw in enumerate(lines, start=1):
        m = INSTALLED_UNTAGGED.search(raw[:MAX_LINE]) or (None if conda else LISTED.match(raw[:MAX_LINE]))
        version = next((g for g in m.groups() if g), "+") if m else "+"
        if "+" in version:  # a local tag (+cu121, +cpu) states the build itself
            continue
        facts.setdefault("torch.version", version)
        if facts["torch.version"] != version:
            return  # the import shows another torch than the one installed
        facts["torch.cuda_build"] = None
        note_source(sources, ("torch.version", "torch.cuda_build"), no, raw)
        return


# ------------------------------------------------------------- guesses that the build the text shows rules out

ARCH_GUESSES = ("gpu_arch_too_new_for_build", "gpu_arch_dropped_from_build")
# A release build: a version with its index's local tag (+cu128, +cpu, +rocm6.2), not a0+git (a source build).
RELEASE_BUILD = re.compile(r"^\d+\.\d+\.\d+(?:\.dev\d+)?\+(?:cu\d{2,3}|cpu|rocm[\d.]+)$")


def guesses_the_build_rules_out(facts: Facts, matches: list[Match]) -> list[Match]:
    """CUDA's "no kernel image is available" can mean several builds; the text may show which it is. When torch's own
    arch list (printed, or the published wheel's for a release build) covers every GPU it names (RTX 5090 with sm_120
    in get_arch_list(), a T4's sm_75 in 2.4.0+cu121), the kernel missing is not
    torch's (an extension built for other GPUs, another torch copy): the arch guesses are out. A release build
    (+cu128) is no source build. A verdict from the text itself stays."""
    dropped: set[str] = set()
    # The printed list, else the published wheel's (a +cu121 release's list is in the tables; round 9).
    arch_list = facts.value("torch.arch_list") or build_arch_list(facts)[0]
    capabilities = [g.capability for g in view.nvidia_gpus(facts).gpus if g.capability]
    if arch_list and capabilities and all(arch_covers(c, arch_list) for c in capabilities):
        dropped.update(ARCH_GUESSES)
    if RELEASE_BUILD.match(str(facts.value("torch.version") or "")):
        dropped.add("source_build_without_cuda")
    return [m for m in matches if m.specific or m.id not in dropped]


# ------------------------------------------------------- a plain `pip install torch` on Windows, the output unseen

# pip / uv / Poetry asked for torch with no index of PyTorch's own and no local tag: on Windows that resolves to PyPI's
# wheel, the CPU build. An index or find-links option (the CUDA index, a mirror), a +cuXYZ pin or a requirements file
# (whose own index lines are unseen) leaves it open.
PLAIN_TORCH_INSTALL = re.compile(
    r"\b(?:pip3?|uv pip|python(?:3|\.exe)?\s+-m\s+pip)\s+install\b(?=[^\n]*\btorch\b)(?![^\n]*(?:--index-url|"
    r"--extra-index-url|\s-i\s|--find-links|\s-f\s|\s-r\s|--requirement|\+cu\d|/whl/))|\b(?:uv|poetry)\s+add\s+"
    r"(?=[^\n]*\btorch\b)(?![^\n]*(?:--index|--source|\+cu\d))"
)
GPU_WORDS = re.compile(r"\bcuda\b|\bgpus?\b|nvidia|geforce|\brtx\b|\bgtx\b|显卡|is_available", re.IGNORECASE)


def windows_plain_install_match(facts: Facts, lines: list[str], matches: list[Match]) -> Match | None:
    """On Windows, the text installs torch with a plain pip/uv/Poetry command and speaks of the GPU: PyPI's Windows
    torch is the CPU build, so that is the likely cause (a guess: what was installed is not shown). Not when the
    text states the build, or a message names a cause outright."""
    if facts.value("host.os") != "Windows" or facts.known("torch.cuda_build") or facts.value("cuda.available"):
        return None
    if any(m.specific or m.weight >= 0.8 for m in matches) or not any(GPU_WORDS.search(x[:MAX_LINE]) for x in lines):
        return None
    command = next(
        ((no, line) for no, line in enumerate(lines, start=1) if PLAIN_TORCH_INSTALL.search(line[:MAX_LINE])), None
    )
    if command is None:
        return None
    return Match("cpu_only_build", command[0], command[1].strip()[:500], False, 0.7)


# torch's own "Torch not compiled with CUDA enabled" (torch/cuda/__init__.py): the torch that runs is a CPU build.
NOT_COMPILED = re.compile(r"Torch not compiled with CUDA enabled", re.IGNORECASE)


def cuda_listed_cpu_running(lines: list[str], matches: list[Match]) -> list[Match]:
    """The package manager lists a CUDA torch (pip list's "torch 2.5.1+cu124") while torch itself says it was not
    compiled with CUDA, and nothing was installed in between: the torch that runs is another copy than the listed
    one (another environment's, ~/.local, a stale install), so reinstalling the listed one changes nothing. That
    copy, not "install a CUDA build", is the cause."""
    if any(INSTALL_ACTION.search(line[:MAX_LINE]) for line in lines):
        return matches
    cuda_listed = next(
        ((no, line) for no, line, version in _listed_versions(lines) if re.search(r"\+cu\d{2,3}$", version)), None
    )
    said = next(((no, line) for no, line in enumerate(lines, start=1) if NOT_COMPILED.search(line[:MAX_LINE])), None)
    if cuda_listed is None or said is None:
        return matches
    kept = [m for m in matches if m.id != "cpu_only_build"]
    return [*kept, Match("stale_or_shadowed_torch", cuda_listed[0], cuda_listed[1].strip()[:500], True, 0.9)]


# ---------------------------------------------- "I reinstalled it, but it still imports the old version" in words

# The user says a (re)install did not change the torch that imports: it still finds / shows / loads an old, wrong or
# the same version, or the version "did not change".
STILL_OLD_VERSION = re.compile(
    r"\b(?:still|keeps?|always|again)\b[^.\n]{0,40}?\b(?:old|older|wrong|same|previous)\s+(?:torch\s+|pytorch\s+)?"
    r"versions?\b|\bversion\b[^.\n]{0,24}?\b(?:didn'?t|did not|doesn'?t|does not|won'?t|never)\s+(?:change|update)",
    re.IGNORECASE,
)
REINSTALLED = re.compile(r"\b(?:re-?install|upgrad|updat|install)(?:ed|ing|s)?\b", re.IGNORECASE)


def reinstall_without_effect(lines: list[str], facts: Facts) -> Match | None:
    """The text shows the torch that imports (a REPL, a printed check, collect_env) and the user says reinstalling
    did not change it: another copy shadows the one being (re)installed (~/.local, PYTHONPATH, another env). A
    guess: the copy's path is not shown."""
    if not facts.value("torch.version") or not any(REINSTALLED.search(line[:MAX_LINE]) for line in lines):
        return None
    said = next(
        ((no, line) for no, line in enumerate(lines, start=1) if STILL_OLD_VERSION.search(line[:MAX_LINE])), None
    )
    if said is None:
        return None
    return Match("stale_or_shadowed_torch", said[0], said[1].strip()[:500], False, 0.7)
