"""A conda environment whose variant selector names the CPU build of pytorch (round 18).

The evidence space, from the conda packages that pick which pytorch build the solver installs:

- Anaconda's defaults channel (pytorch <= 1.3): the metapackage ``_pytorch_select`` (version 0.1/0.2) with build
  ``cpu_0`` or ``gpu_0``/``gpu_1``; the pytorch package depends on the one that matches its own variant, so the row
  ``_pytorch_select  0.1  cpu_0`` in ``conda list`` says the environment's pytorch is the CPU build.
- The pytorch channel: ``pytorch-mutex`` 1.0 with build ``cpu`` or ``cuda`` (added August 2021 by pytorch/builder#823,
  replacing track_features; torch >= 1.10 and rebuilt LTS 1.8.x, pytorch/builder#914); and before it the ``cpuonly``
  feature package (``conda install ... cpuonly``), which forces the CPU variant while installed and since #823
  depends on ``pytorch-mutex=*=cpu`` (so the two rows come together).
- These rows sort ahead of ``pytorch`` (``_`` first, ``cpuonly`` before ``pytorch``), so a list cut short
  (Lightning-AI/pytorch-lightning#899) may show the selector and not the pytorch row itself.

A CPU selector row is a verdict that the installed build is CPU-only (cpu_only_build), ahead of the guesses a
generic "no GPU" message allows. Declined when the same text shows a CUDA build as well (a GPU selector, a pytorch
row with CUDA in its build, a ``+cuXYZ`` torch, ``pytorch-cuda``, CUDA reported available): two environments or a
later reinstall, which the row alone cannot tell apart. Not read on macOS (steps.conda_cpu_selector_off_mac): no CUDA
package exists for it (pytorch/pytorch.github.io#1028), so ``cpu`` is every Mac's variant, MPS included (the corpus's
pytorch-48145 collect_env shows ``_pytorch_select 0.1 cpu_0`` on Apple silicon); the Mac readings answer there.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

# A row of `conda list` (or collect_env's "[conda]" rows): name, version, build, optional channel.
SELECTOR_ROW = re.compile(
    r"^\s*(?:\[conda\]\s+)?(?P<name>_pytorch_select|pytorch-mutex|cpuonly)\s+(?P<version>\d[\w.]*)\s+"
    r"(?P<build>[\w.]+)(?:\s+\S+)?\s*$"
)
# What a text shows of a CUDA build of torch (declines the reading).
CUDA_BUILD_SHOWN = re.compile(
    r"^\s*(?:\[conda\]\s+)?(?:_pytorch_select\s+\S+\s+gpu|pytorch-mutex\s+\S+\s+cuda\b|pytorch-cuda\s+\d)|"
    r"^\s*(?:\[conda\]\s+)?pytorch\s+\d\S*\s+\S*(?:cuda|gpu)|^\s*(?:\[conda\]\s+)?pytorch-gpu\s+\d|"
    r"\bCUDA used to build PyTorch:\s*\d|"
    r"\btorch(?:==|-|\s+)\d+\.\d+(?:\.\d+)?\+cu\d{2,3}\b|"
    r"\bIs CUDA available:\s*True\b|torch\.cuda\.is_available\(\)\s*\n?\s*True\b"
)


def cpu_selected(build: str, name: str) -> bool:
    """The selector's build names the CPU variant."""
    if name == "_pytorch_select":
        return build.startswith("cpu")
    if name == "pytorch-mutex":
        return build == "cpu"
    return True  # cpuonly: its presence is the selection


def conda_cpu_selector_match(lines: list[str]) -> Match | None:
    """A conda selector row naming the CPU variant, with no CUDA build shown anywhere: cpu_only_build (a verdict)."""
    found = None
    for no, raw in enumerate(lines[:5000], start=1):
        line = raw[:MAX_LINE]
        if CUDA_BUILD_SHOWN.search(line):
            return None
        row = SELECTOR_ROW.match(line)
        if found is None and row and cpu_selected(row["build"], row["name"]):
            found = Match("cpu_only_build", no, line.strip()[:500], True, 0.9)
    return found
