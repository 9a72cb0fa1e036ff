"""collect_env's package rows read as the torch copies an environment holds, and as a list the paste cut short.

How the rows are made (torch/utils/collect_env.py): ``PyTorch version`` is ``torch.__version__`` of the interpreter
that runs the script. The ``[pip]``/``[pip3]`` rows are ``pip list --format=freeze`` filtered on ``torch``/``numpy``
(1.x ran the ``pip``/``pip3`` on PATH; 2.x runs ``sys.executable -mpip``, the same interpreter); pip also lists a
conda-installed ``pytorch`` under its Python name ``torch``. The ``[conda]`` rows are ``conda list`` of the *active*
environment (``$CONDA_EXE list``), filtered on ``torch|numpy|cudatoolkit|soumith|mkl|magma`` (and more in 2.x), in
``conda list``'s name order; conda lists what pip installed there as ``<pip>`` (old conda) or ``pypi_0  pypi``.

So pip and conda rows of the same torch version are one copy seen twice (common, harmless), and conda's ``<pip>`` /
``pypi_0 pypi`` / ``<develop>`` row is the copy pip lists; it stands for that copy itself only where the pip rows do
not show it (``[pip] Could not collect``, or the poster cut them). Different versions are more than one copy (a pip
torch over conda's ``pytorch``, a ``torch-nightly`` beside ``torch``). These are read into ``torch.dists`` and the
rule ``stale_or_shadowed_torch`` decides: two copies are a warning, a ``PyTorch version`` that no listed copy has is
an error (what runs is not what was installed). Distributions that provide the ``torch`` module: ``torch``,
``torch-nightly`` (pip, ``pip install torch_nightly -f .../torch_nightly.html`` on pytorch.org in 2018), conda's
``pytorch``, ``pytorch-nightly`` and ``pytorch-cpu`` (pytorch.org's quick-start table of 2018-2019); ``pytorch-cuda``
and ``pytorch-mutex`` are conda metapackages, not torch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from packaging.version import InvalidVersion, Version

from gpuassist.ingest.lines import MAX_LINE

TORCH_DISTRIBUTIONS = frozenset({"torch", "torch-nightly", "pytorch", "pytorch-nightly", "pytorch-cpu"})
# conda's name for a distribution pip lists under its Python project name.
PIP_NAME = {"pytorch": "torch", "pytorch-nightly": "torch-nightly", "pytorch-cpu": "torch"}
# "[pip3] torch==2.1.0+cu121", "[conda] torch  0.4.1.post2  <pip>", "[conda] pytorch  1.3.0  py3.7_cuda10.1_0  pytorch"
ROW = re.compile(
    r"^\s*\[(?P<tool>pip\d?|conda)\]\s+(?P<name>[A-Za-z0-9][A-Za-z0-9._-]{0,100})"
    r"(?:==|\s{1,80})(?P<version>\d[\w.!+-]{0,80})(?:\s+(?P<build>\S{1,200}))?(?:\s+(?P<channel>\S{1,200}))?\s*$"
)
# conda's rows for what pip (or `setup.py develop`) installed: the copy the pip rows show, not one of conda's own.
PIP_VISIBLE = frozenset({"pypi_0", "<pip>", "<develop>", "pypi"})
# Both filters (pip's and conda's, every collect_env version) keep these, so a row of one is expected in the other.
BOTH_FILTERS = ("torch", "numpy")
# A package row without its version: collect_env prints every row with one ("[pip3] Could not collect" and
# "No relevant packages" are words), so the paste stopped inside the row.
PARTIAL_ROW = re.compile(r"^\[(?:pip\d?|conda)\](?:\s+[A-Za-z0-9._-]{0,100})?$")
CLOSING = re.compile(r"^\s*(?:`{3,}|~{3,}|</?details>|</?pre>)?\s*$")


# `conda list`'s own row of a torch distribution, pasted without collect_env's "[conda]" tag: name, version, a build
# string that ends in its build number ("py3.10_cuda12.1_cudnn8.9.2_0", "pypi_0") or old conda's "<pip>", and the
# channel. The build column keeps prose ("torch 2.1.0 installed fine") out.
CONDA_LIST_ROW = re.compile(
    r"^\s*(?P<name>torch|torch-nightly|pytorch|pytorch-nightly|pytorch-cpu)\s{1,80}(?P<version>\d+\.\d+[\w.!+-]{0,60})"
    r"\s{1,80}(?:[\w.+-]{0,120}_\d+|<pip>|<develop>)(?:\s{1,80}[\w./:<>-]{1,200})?\s*$"
)


def conda_list_version(line: str) -> str | None:
    """The version of a torch distribution on a `conda list` row (not collect_env's tagged "[conda]" rows, which
    ``torch_dists`` reads with the pip rows beside them)."""
    m = CONDA_LIST_ROW.match(line[:MAX_LINE])
    return m.group("version") if m else None


@dataclass(frozen=True)
class Row:
    line_no: int
    tool: str  # "pip", "pip3" or "conda"
    name: str  # lower case, "_" as "-"
    version: str
    build: str
    channel: str

    @property
    def pip_visible(self) -> bool:
        return self.build in PIP_VISIBLE or self.channel in PIP_VISIBLE or self.build.startswith("dev_")


def package_rows(lines: list[str]) -> list[Row]:
    out = []
    for no, raw in enumerate(lines, start=1):
        m = ROW.match(raw[:MAX_LINE])
        if m:
            name = m.group("name").lower().replace("_", "-")
            out.append(
                Row(no, m.group("tool"), name, m.group("version"), m.group("build") or "", m.group("channel") or "")
            )
    return out


def torch_dists(libraries: list[str]) -> list[dict[str, Any]]:
    """Each torch copy the rows list once (``torch.dists``, the probe's shape without a location): pip's row of
    conda's own ``pytorch`` and conda's row of a pip install are the copy the other row already lists (conda's own
    copy then carries pip's spelling of its version, which is ``torch.__version__``'s). A pip row whose build tag
    contradicts conda's build string (``+cu121`` beside a ``cpu`` build) is another copy of the same version."""
    rows = [r for r in package_rows(libraries) if r.name in TORCH_DISTRIBUTIONS]
    pip_listed = {(r.name, _release(r.version)): r.version for r in rows if r.tool != "conda"}
    conda_own = {
        (PIP_NAME.get(r.name, r.name), _release(r.version)): r.build
        for r in rows
        if r.tool == "conda" and not r.pip_visible
    }
    dists: list[dict[str, Any]] = []
    for r in rows:
        key = (PIP_NAME.get(r.name, r.name), _release(r.version))
        tag = r.version.partition("+")[2] or None
        if r.tool != "conda":
            if key not in conda_own or not _same_build(r.version, conda_own[key]):  # else pip's view of conda's
                dists.append({"version": r.version, "location": None, "installer": "pip", "local_tag": tag})
        elif not r.pip_visible:
            pip_version = pip_listed.get(key)
            version = pip_version if pip_version and _same_build(pip_version, r.build) else r.version
            dists.append(
                {"version": version, "location": None, "installer": "conda", "local_tag": None, "build": r.build}
            )
        elif key not in pip_listed:
            installer = "source" if "<develop>" in (r.build, r.channel) else "pip"
            dists.append({"version": r.version, "location": None, "installer": installer, "local_tag": tag})
    return dists


def _same_build(pip_version: str, conda_build: str) -> bool:
    """pip's version tag and conda's build string do not say different builds (CUDA against CPU)."""
    tag, build = pip_version.partition("+")[2].lower(), conda_build.lower()
    return not ((tag.startswith("cu") and "cpu" in build) or (tag == "cpu" and "cuda" in build))


def _release(version: str) -> str:
    """One copy's version as pip and conda print it: without the local tag, the ``.postN`` that a conda package's
    ``torch.__version__`` carries and its conda version lacks (conda ``pytorch 1.0.1`` is pip's ``torch==1.0.1.post2``)
    and trailing zeros; pre-releases and nightlies (``1.0.0.dev20181029``) stay distinct."""
    try:
        v = Version(version)
    except InvalidVersion:
        return version.partition("+")[0]
    parts = list(v.release)
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    release = ".".join(str(n) for n in parts)
    pre = "".join(str(p) for p in v.pre) if v.pre else ""
    return f"{v.epoch}!{release}{pre}" + (f".dev{v.dev}" if v.dev is not None else "")


def cut_package_list(lines: list[str]) -> list[str]:
    """The conda rows end the paste, pip's rows show the same environment (every torch/numpy row at or before conda's
    last name is in both, in the same version), and pip lists a torch/numpy package that ``conda list`` (name order)
    would print after its last row, which is missing: the list was cut there. Or the paste ends inside a row (a
    name without its version). Empty when it cannot tell."""
    ending = [line[:MAX_LINE].strip() for line in lines if not CLOSING.match(line[:MAX_LINE])]
    if ending and PARTIAL_ROW.match(ending[-1]):
        return [f"the package rows after '{ending[-1][:80]}' (the paste ends inside that row)"]
    rows = package_rows(lines)
    conda = [r for r in rows if r.tool == "conda"]
    if not conda or not all(CLOSING.match(line[:MAX_LINE]) for line in lines[conda[-1].line_no :]):
        return []
    conda_listed = {(PIP_NAME.get(r.name, r.name), _release(r.version)) for r in conda}
    conda_names = {name for name, _ in conda_listed}
    last = conda[-1].name  # conda's own name: the list is in that order ("pytorch" sorts before "torchvision")
    pip = [r for r in rows if r.tool != "conda" and any(k in r.name for k in BOTH_FILTERS)]
    shared = [r for r in pip if r.name <= last or r.name in conda_names]
    if not shared or any((r.name, _release(r.version)) not in conda_listed for r in shared):
        return []
    after = sorted({r.name for r in pip if r.name > last and r.name not in conda_names})
    if not after:
        return []
    return [
        f"the end of the '[conda]' package list: it stops at {conda[-1].name}, before {', '.join(after)}, which the "
        "pip rows list in the same environment (the list looks cut short there)"
    ]


# conda metapackages that exist only beside a conda ``pytorch`` row of the same environment: anaconda's
# ``_pytorch_select`` (its build, ``gpu_0`` / ``cpu_0``, selects which pytorch build the solver takes; defaults channel,
# pytorch <= 1.3). Its row sorts before ``pytorch`` in ``conda list``, so a list that ends before that row was cut.
# (collect_env's "[conda] _pytorch_select  0.2  gpu_0"; the leading "_" keeps it out of ROW's names).
PYTORCH_SELECTOR = re.compile(r"^\s*\[conda\]\s+(?P<name>_pytorch_select)\s+\d[\w.]*\s+(?P<build>\S+)")


def cut_before_selected_pytorch(lines: list[str]) -> list[str]:
    """The conda rows end the paste, a selector row says conda installed ``pytorch`` in this environment, and no
    ``pytorch`` row follows although it would sort after the last row shown: the list was cut. Empty when it cannot
    tell (see ``cut_package_list`` for the pip-rows reading)."""
    conda = [r for r in package_rows(lines) if r.tool == "conda"]
    if not conda or not all(CLOSING.match(line[:MAX_LINE]) for line in lines[conda[-1].line_no :]):
        return []
    selector = next((m for line in lines if (m := PYTORCH_SELECTOR.match(line[:MAX_LINE]))), None)
    if selector is None or any(r.name in TORCH_DISTRIBUTIONS for r in conda) or conda[-1].name >= "pytorch":
        return []
    return [
        f"the end of the '[conda]' package list: it stops at {conda[-1].name}, before the pytorch row that conda's "
        f"{selector.group('name')} {selector.group('build')} row says this environment holds (the list looks cut "
        "short there)"
    ]
