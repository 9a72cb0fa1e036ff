"""Which torch build an ARM server (GH200, GB200, DGX Spark, any aarch64 Linux that is not a Jetson) got from PyPI.

PyPI's Linux aarch64 torch is a CPU-only build up to 2.10 and a CUDA 13 build from 2.11 on (wheels-2026-11.md,
measured from the wheels themselves). Its version carries no local tag before 2.9 ("2.5.1", not "2.5.1+cpu"), so a
bare version does not say "CPU" the way the x86 wheels' "+cpu" does: the text has to show that pip took it from PyPI.
It does when pip installed torch and no other index was named anywhere in the text (no --index-url / -i /
--extra-index-url / -f / find-links, no download.pytorch.org, no NVIDIA or Jetson AI Lab index): the installed
version below 2.11 is then PyPI's CPU build.
"""

from __future__ import annotations

import re
from typing import Any

from packaging.version import InvalidVersion, Version

from gpuassist.ingest.lines import MAX_LINE, note_source

FIRST_PYPI_CUDA_AARCH64 = Version("2.11")
PIP_INSTALLS_TORCH = re.compile(r"\bpip3?\s+install\b[^\n]*\btorch\b|Successfully installed\b[^\n]*\btorch-\d")
OTHER_INDEX = re.compile(
    r"--(?:extra-)?index-url\b|(?<!\S)-i\s+https?://|--find-links\b|(?<!\S)-f\s+https?://|download\.pytorch\.org|"
    r"pypi\.nvidia\.com|pypi\.ngc\.nvidia\.com|jetson-ai-lab|/redist/jp/|\bconda\b|\bmamba\b|\buv\b",
    re.IGNORECASE,
)


def pypi_aarch64_build(lines: list[str], facts: dict[str, Any], sources: dict[str, tuple[int, str]]) -> dict[str, Any]:
    """``torch.cuda_build`` = None (CPU) for a torch below 2.11 that pip took from PyPI on an aarch64 machine that is
    not a Jetson; nothing when the build is already known or any of that is not shown."""
    if facts.get("host.machine") != "aarch64" or facts.get("platform.jetson") or "torch.cuda_build" in facts:
        return {}
    raw = str(facts.get("torch.version") or "")
    try:
        version = Version(raw)
    except InvalidVersion:
        return {}
    if version.local or version >= FIRST_PYPI_CUDA_AARCH64:
        return {}
    text = [line[:MAX_LINE] for line in lines[:5000]]
    install = next((no for no, line in enumerate(text, start=1) if PIP_INSTALLS_TORCH.search(line)), None)
    if install is None or any(OTHER_INDEX.search(line) for line in text):
        return {}
    note_source(sources, "torch.cuda_build", install, lines[install - 1])
    return {"torch.cuda_build": None}
