"""An install that asks for a CUDA variant of torch never published for that release (round 10).

PyTorch publishes each release for a few CUDA variants only (pytorch/pytorch RELEASE.md "Release Compatibility
Matrix"; knowledge/cuda_compat.json ``releases``): 2.6 for cu118, cu124 and cu126, no cu121. A pin such as
``torch==2.6.0+cu121``, or ``torch==2.6.0`` with ``--index-url https://download.pytorch.org/whl/cu121``, can never
resolve: pip answers "No matching distribution found", uv "there is no version of torch==2.6.0+cu121", Poetry
"doesn't match any versions". A setup script that then falls back to the CPU wheel leaves a CPU build installed,
but that build is the consequence; the cause, and the fix, is the pin (no_wheel_for_platform, ranked first).

Declines when the table cannot tell: a release it does not list, a variant its notes name (2.0 also shipped cu117,
2.9's cu129 is uncertain), no resolver failure in the text, or a pin whose variant is published.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpuassist.findings import Severity
from gpuassist.ingest.errors import Match
from gpuassist.ingest.install_intent import RESOLVE_FAILED, TORCH_INDEX
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.knowledge import compat
from gpuassist.knowledge.wheels import INDEX_URL, release_variants, releases
from gpuassist.report.model import Report

# torch==2.6.0+cu121 (pip, uv, requirements), torch (2.6.0+cu121) (Poetry), torch-2.6.0+cu121 (a wheel name).
CUDA_PIN = re.compile(
    r"(?<![\w-])torch(?:\s*==\s*|\s*\(\s*|-)(?P<version>(?P<release>\d+\.\d+)(?:\.\d+)?)(?:\+(?P<variant>cu\d{2,3}))?(?![\w.])",
    re.IGNORECASE,
)
# Resolver failures beyond install_intent's torch-named ones: pip's line quoted without its requirement, Poetry.
NOT_RESOLVED = re.compile(
    r"No matching distribution found\b|Could not find a version that satisfies the requirement\b|"
    r"doesn't match any versions\b",
    re.IGNORECASE,
)
CPU_PIN_VARIANT = "cpu"
# A CPU build named as installed or running (torch-2.6.0+cpu, torch 2.8.0+cpu); a torch==...+cpu request is not one.
CPU_BUILD = re.compile(r"(?<![\w-])torch[-\s]*\d+\.\d+(?:\.\d+)?\+cpu\b", re.IGNORECASE)


def _variant_unpublished(release: str, variant: str) -> bool:
    """The table lists the release's CUDA variants, this one is not among them, and its notes do not name it."""
    published = release_variants(release)
    if not published or variant in published:
        return False
    series = ".".join(release.split(".")[:2])
    notes = str(compat()["releases"]["by_release"].get(series, {}).get("notes", ""))
    return variant not in notes


@dataclass(frozen=True)
class UnpublishedPin:
    line_no: int
    release: str  # "2.6"
    version: str  # "2.6.0" as pinned
    variant: str  # "cu121"


def unpublished_pin(lines: list[str]) -> UnpublishedPin | None:
    """The first torch pin the text asks for whose CUDA variant was never published for its release, when the
    text shows the resolver failing."""
    cut = [line[:MAX_LINE] for line in lines]
    if not any(RESOLVE_FAILED.search(line) or NOT_RESOLVED.search(line) for line in cut):
        return None
    for no, line in enumerate(cut, 1):
        index_variants = {m.group("variant") for m in TORCH_INDEX.finditer(line)}
        for pin in CUDA_PIN.finditer(line):
            asked = {pin.group("variant")} if pin.group("variant") else index_variants
            for variant in sorted(asked - {None, CPU_PIN_VARIANT}):
                variant = variant.lower()
                if variant.startswith("cu") and _variant_unpublished(pin.group("release"), variant):
                    return UnpublishedPin(no, pin.group("release"), pin.group("version"), variant)
    return None


def unpublished_variant_match(lines: list[str]) -> Match | None:
    """The pin is the cause: a specific ``no_wheel_for_platform`` citing the pin's line."""
    found = unpublished_pin(lines)
    if found is None:
        return None
    return Match("no_wheel_for_platform", found.line_no, lines[found.line_no - 1].strip()[:500], True, 0.9)


def _cuda(variant: str) -> int:
    return int(variant[2:])


def _major(variant: str) -> int:
    return _cuda(variant) // 10  # cu121 -> 12, cu118 -> 11, cu130 -> 13


def _replacement(release: str, variant: str) -> str:
    """The published variant of the release to ask for instead: the lowest of the same CUDA major at or above the
    one asked (CUDA minor-version compatibility: a driver that runs 12.1 runs every 12.x wheel), else the highest
    below it, else the lowest published."""
    published = sorted(release_variants(release), key=_cuda)
    same_major = [v for v in published if _major(v) == _major(variant) and _cuda(v) >= _cuda(variant)]
    below = [v for v in published if _cuda(v) < _cuda(variant)]
    if same_major:
        return same_major[0]
    return below[-1] if below else published[0]


def _last_release_with(variant: str) -> str | None:
    having = [r for r in releases() if variant in release_variants(r)]
    return having[-1] if having else None


def explain(report: Report, lines: list[str]) -> None:
    """Say which variants the release has and what to ask for, on the ``no_wheel_for_platform`` verdict the pin
    produced (its catalogue text speaks of Python versions and platforms)."""
    found = unpublished_pin(lines)
    if found is None:
        return
    for f in report.findings:
        if f.id != "no_wheel_for_platform" or f.severity is Severity.INFO:
            continue
        published = ", ".join(release_variants(found.release))
        instead = _replacement(found.release, found.variant)
        last = _last_release_with(found.variant)
        f.explanation = (
            f"torch {found.release} was published for {published} only (PyTorch's release matrix): no torch "
            f"{found.version}+{found.variant} wheel exists on any index, so this install cannot resolve."
        )
        if any(f.id == "cpu_only_build" for f in report.findings) or any(
            CPU_BUILD.search(line[:MAX_LINE]) for line in lines
        ):
            f.explanation += " The CPU build installed instead is the fallback, not the cause."
        keep = f" or keep {found.variant} with torch {last}.x" if last else ""
        f.fix = (
            f"Ask for a variant torch {found.release} was published for{keep}: "
            f"`python -m pip install torch=={found.version} --index-url {INDEX_URL.format(variant=instead)}`"
        )
        f.structured_actions = None
