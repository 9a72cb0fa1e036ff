"""A ``conda install ... cpuonly`` command beside a CUDA install in the same text (round 20).

The evidence space: pytorch.org's conda commands choose the variant by one spec on the command line: ``cpuonly``
for the CPU build, ``pytorch-cuda=X.Y`` (torch >= 1.13), ``cudatoolkit=X.Y`` (older) or conda-forge's
``cuda-version=X.Y`` / ``pytorch-gpu`` for a CUDA build. The catalogue reads a ``cpuonly`` command as a possible CPU
build. A text that shows both a cpuonly command and a CUDA one (a CUDA install command, a ``+cuXYZ`` torch, CUDA
reported available) describes two environments (a laptop without a GPU and a server) or a reinstall: which one is
running is not told, so the cpuonly command alone blames nothing. The conda list rows (``cpuonly``, ``pytorch-mutex``)
are conda_cpu_selector's; this reads commands only.
"""

from __future__ import annotations

import re

from gpuassist.ingest.conda_cpu_selector import CUDA_BUILD_SHOWN
from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

CPUONLY_COMMAND = re.compile(r"\b(?:conda|mamba|micromamba)\s+(?:install|create)\b[^\n]*\scpuonly\b", re.I)
# A CUDA variant asked for on a conda command line, or a CUDA wheel from pip's CUDA index.
CUDA_COMMAND = re.compile(
    r"\b(?:conda|mamba|micromamba)\s+(?:install|create)\b[^\n]*\s(?:pytorch-cuda|cudatoolkit|cuda-version)\s*[=<>]|"
    r"\b(?:conda|mamba|micromamba)\s+(?:install|create)\b[^\n]*\spytorch-gpu\b|"
    # pip's CUDA index on an install command (a URL quoted from the docs installs nothing)
    r"\bpip3?\s+install\b[^\n]*download\.pytorch\.org/whl/cu\d{2,3}\b|\bcuda\.is_available\(\)\W{0,20}(?:returns?|gives|prints|is)\s+True\b",
    re.IGNORECASE,
)


def cpuonly_beside_cuda(lines: list[str], matches: list[Match]) -> list[Match]:
    """Drop the guesses read from a cpuonly command when the text shows a CUDA build too (above)."""
    from_command = [
        m for m in matches if m.id == "cpu_only_build" and not m.specific and CPUONLY_COMMAND.search(m.line[:MAX_LINE])
    ]
    if not from_command:
        return matches
    text = "\n".join(line[:MAX_LINE] for line in lines[:5000])
    if not (CUDA_COMMAND.search(text) or CUDA_BUILD_SHOWN.search(text)):
        return matches
    return [m for m in matches if m not in from_command]
