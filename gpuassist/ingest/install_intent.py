"""Install sessions whose failure is no GPU problem: the CPU build is what the user asked for, or the wheel asked
for exists for the Python the text shows.

- The CPU build requested (``torch==2.1.0+cpu``, the ``/whl/cpu`` index, ``cpuonly``, "I want the CPU version"),
  the resolver failing on it, nothing shown installed, and no word that CUDA is unavailable or the GPU unused: no
  CPU build was installed (``cpu_only_build`` says one is), and the CPU build is the goal (the uv docs, "Using uv
  with PyTorch": the ``+cpu`` builds live on download.pytorch.org/whl/cpu and are chosen on purpose). A guess of
  ``cpu_only_build`` read from such a text is dropped. A bare CPU request that installs stays a CPU-build guess.
- A resolver that finds no ``torch==X.Y.Z`` while the release table (knowledge/wheels: RELEASE.md's Python
  column) says X.Y has wheels for the Python the text names, for the variant asked for: the wheel exists, so
  "no wheel for this Python or platform" is ruled out; the failure is the resolver's or the index's (a uv bug on
  local versions, a proxy, a typo), which the text alone cannot name. Where the table says the Python is out of
  range (torch 2.0 on Python 3.12) the guess stays.
- The CPU build requested and not one word about a GPU, CUDA or NVIDIA outside the lines that request it (a slim
  Docker image, a CPU-only deployment): the CPU build is what was meant, so "a CPU-only build is installed" is no
  cause of the error shown. It stays as information, not a claim.
"""

from __future__ import annotations

import re

from gpuassist.findings import Severity
from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.ingest.user_words import CPU_WANTED
from gpuassist.knowledge.wheels import has_wheels_for, release_variants
from gpuassist.report.model import Report, step_summaries
from gpuassist.rules import order_findings

INSTALL = re.compile(r"\b(?:pip3?(?:\.exe)?|uv\s+pip|uv|poetry|pipenv)\s+(?:install|add)\b", re.IGNORECASE)
TORCH_PIN = re.compile(r"(?<![\w-])torch\s*==\s*(?P<release>\d+\.\d+)(?:\.\d+)?(?:\+(?P<variant>[a-z]+[\d.]*))?\b")
PYTHON_STATED = re.compile(r"\bPython(?:\s+version)?(?:\s*:\s*|\s+)v?(?P<v>3\.\d{1,2})(?:\.\d+)?\b", re.IGNORECASE)
# A resolver that installed nothing: pip, uv (PubGrub), Poetry, conda.
RESOLVE_FAILED = re.compile(
    r"No solution found when resolving|No matching distribution found for torch(?![\w-])|"
    r"Could not find a version that satisfies the requirement torch(?![\w-])|there is no version of torch(?![\w-])|"
    r"ResolutionImpossible|version solving failed|PackagesNotFoundError|UnsatisfiableError",
    re.IGNORECASE,
)
INSTALLED = re.compile(r"Successfully installed\b|^\s*\+\s*torch==|\bInstalled \d+ packages?\b", re.IGNORECASE)
# The PyTorch index a command names, with its variant ("cu121", "cpu"); torch_stable.html lists every variant.
TORCH_INDEX = re.compile(r"download\.pytorch\.org/whl/(?:nightly/|test/)?(?P<variant>cu\d+|cpu|rocm[\d.]+|xpu)\b")
ALL_VARIANTS = re.compile(r"download\.pytorch\.org/whl/torch_stable\.html")
OTHER_PLATFORM = re.compile(r"\bmac ?os\b|\bdarwin\b|\baarch64\b|\barm64\b|\bjetson\b|\bppc64le\b", re.IGNORECASE)


def cpu_build_requested(lines: list[str]) -> bool:
    """The text asks for the CPU build: a ``+cpu`` pin on an install command, the CPU index, ``cpuonly``."""
    cut = [line[:MAX_LINE] for line in lines]
    return any(CPU_WANTED.search(line) for line in cut) or any(
        INSTALL.search(line) and (pin := TORCH_PIN.search(line)) and pin.group("variant") == "cpu" for line in cut
    )


def requested_cpu_is_no_cause(lines: list[str], matches: list[Match], *, complains: bool) -> list[Match]:
    """Drop the ``cpu_only_build`` guesses of a text that asks for the CPU build and never says CUDA is unavailable
    or the GPU unused (``complains``): installing the CPU build is then the goal."""
    if complains or not any(m.id == "cpu_only_build" and not m.specific for m in matches):
        return matches
    cut = [line[:MAX_LINE] for line in lines]
    failed = any(RESOLVE_FAILED.search(line) for line in cut) and not any(INSTALLED.search(line) for line in cut)
    if not failed or not cpu_build_requested(lines):
        return matches
    return [m for m in matches if not (m.id == "cpu_only_build" and not m.specific)]


def _python_stated(lines: list[str]) -> str | None:
    found = {m.group("v") for line in lines for m in PYTHON_STATED.finditer(line[:MAX_LINE])}
    return found.pop() if len(found) == 1 else None


def existing_wheel_rules_out(lines: list[str], matches: list[Match]) -> list[Match]:
    """Drop the ``no_wheel_for_platform`` guess when every torch pin the text asks for exists, by the release
    table, for the one Python the text names (Linux x86_64 or Windows: no other platform is named)."""
    if not any(m.id == "no_wheel_for_platform" and not m.specific for m in matches):
        return matches
    python = _python_stated(lines)
    if python is None or any(OTHER_PLATFORM.search(line[:MAX_LINE]) for line in lines):
        return matches
    cut = [line[:MAX_LINE] for line in lines]
    pins = [pin for line in cut for pin in TORCH_PIN.finditer(line)]
    if not pins:
        return matches
    indexes = {m.group("variant") for line in cut for m in TORCH_INDEX.finditer(line)}
    every_variant = any(ALL_VARIANTS.search(line) for line in cut)
    for pin in pins:
        release, variant = pin.group("release"), pin.group("variant")
        if has_wheels_for(release, python) is not True:
            return matches
        # the variants asked for: the pin's own (+cu121), the index's; each must be published for the release
        if any(v != "cpu" and v not in release_variants(release) for v in {variant, *indexes} - {None}):
            return matches
        # a local version (+cpu, +cu121) is not on PyPI: only a PyTorch index that has it makes the wheel reachable
        if variant and not (every_variant or variant in indexes):
            return matches
    return [m for m in matches if not (m.id == "no_wheel_for_platform" and not m.specific)]


# Words that the text is about a GPU at all (outside the request lines): any of them keeps the CPU build a suspect.
GPU_MENTION = re.compile(
    r"\bcuda\b|\bgpus?\b|nvidia|geforce|\brtx\b|\bgtx\b|\btesla\b|is_available|显卡|\bvram\b", re.I
)
REQUEST_LINE = re.compile(r"download\.pytorch\.org|\bcpuonly\b|\+cpu\b|pytorch-cpu|/whl/cpu")


def intended_cpu_build_is_information(report: Report, lines: list[str]) -> None:
    """A CPU build the text asks for, in a text that never speaks of a GPU: the ``cpu_only_build`` verdict is
    turned into information (the build is what was meant; the error shown has another cause)."""
    blamed = [f for f in report.findings if f.id == "cpu_only_build" and f.severity is not Severity.INFO]
    if not blamed or not cpu_build_requested(lines):
        return
    cut = [line[:MAX_LINE] for line in lines]
    if any(GPU_MENTION.search(line) for line in cut if not REQUEST_LINE.search(line)):
        return
    for f in blamed:
        f.severity = Severity.INFO
        f.explanation = (
            "Not claimed: the text asks for the CPU build of torch and never mentions a GPU, so the CPU build is "
            f"what was meant and not the cause of the error shown. {f.explanation}"
        )
    kept = order_findings([f for f in report.findings if f not in blamed])
    report.findings[:] = [*kept, *blamed]
    report.steps[:] = step_summaries(report.findings, set())
