"""Build a Finding with the catalogue's defaults (title, step) filled in."""

from __future__ import annotations

from collections.abc import Iterable

from gpuassist.findings import Evidence, Finding, Severity
from gpuassist.knowledge import catalogue


def finding(
    id: str,
    severity: Severity,
    *,
    explanation: str,
    fix: str,
    evidence: Iterable[Evidence] = (),
    title: str | None = None,
    explains: Iterable[str] = (),
) -> Finding:

    entry = catalogue().get(id)
    if entry is None:
        raise KeyError(f"finding id {id!r} is not in the catalogue")
    return Finding(
        id=id,
        severity=severity,
        title=title or entry.title,
        explanation=explanation,
        fix=fix,
        evidence=list(evidence),
        step=entry.step,
        explains=list(explains),
    )
