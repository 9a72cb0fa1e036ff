"""Readings of a collect_env paste that its own fields decide: torch that does not import ("PyTorch version: N/A"),
and an issue template's bullets filled in by hand under an error (the error is the paste, not the bullets)."""

from __future__ import annotations

import re

from gpuassist.facts import Facts
from gpuassist.ingest import collect_env, errors


def field_line(lines: list[str], parsed: collect_env.CollectEnvParse, name: str) -> tuple[int, str] | None:
    for no in sorted(parsed.field_lines):
        found = collect_env.field_name(lines[no - 1])
        if found == name:
            return no, lines[no - 1].strip()
    return None


# pip found no torch build to install for this Python / platform.
NO_TORCH_DIST = re.compile(
    r"No matching distribution found for (?:py)?torch(?![\w-])|"
    r"Could not find a version that satisfies the requirement (?:py)?torch(?![\w-])"
)


TORCH_INSTALL = re.compile(
    r"\b(?:pip3?|conda|mamba|micromamba|uv pip)\s+(?:install|create)\b[^\n]*\b(?:py)?torch\b|"
    r"^\[(?:pip\d?|conda)\]\s+(?:py)?torch[\s=]",
    re.IGNORECASE,
)


def torch_not_importable(lines: list[str], parsed: collect_env.CollectEnvParse, facts: Facts) -> list[errors.Match]:
    """collect_env prints "PyTorch version: N/A" when `import torch` raised. If the paste shows torch installed
    (the package lists, an install command), the import failed; otherwise torch may simply not be installed."""
    version = parsed.fields.get("torch_version", "").strip().lower()
    # A version only the package list states ("[pip3] torch==2.5.1+cu124") is what is installed, not what imported.
    listed = {str(d.get("version")) for d in facts.value("torch.dists") or [] if isinstance(d, dict)}
    imported = facts.known("torch.version") and facts.value("torch.version") not in listed
    if imported or version not in ("n/a", "na", "none", "could not collect"):
        return []
    field = field_line(lines, parsed, "torch_version")
    if field is None:
        return []
    no, line = field
    if any(NO_TORCH_DIST.search(x[:2000]) for x in lines):
        return []  # pip found no torch to install: the paste says why it is missing (no_wheel_for_platform)
    installed = bool(facts.value("torch.dists")) or any(TORCH_INSTALL.search(x[:2000]) for x in lines)
    if installed:
        return [
            errors.Match("torch_import_error", no, line, False, 0.8),
            errors.Match("torch_not_installed", no, line, False, 0.3),
        ]
    return [
        errors.Match("torch_not_installed", no, line, False, 0.7),
        errors.Match("torch_import_error", no, line, False, 0.5),
    ]


BULLET = re.compile(r"^\s*[-*\u2022]\s*\S")


def filled_in_template(lines: list[str], parsed: collect_env.CollectEnvParse, matches: list[errors.Match]) -> bool:
    """An issue template's bullets filled in by hand ("- PyTorch version: 1.4.0", "- OS: Ubuntu18.04") under an
    error: the error is the paste, the bullets only add facts. collect_env's own output has no bullets."""
    return (
        bool(matches)
        and not parsed.gpu_lines
        and not parsed.libraries
        and all(BULLET.match(lines[no - 1]) for no in parsed.field_lines)
    )
