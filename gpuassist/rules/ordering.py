"""Order findings: severity, then the catalogue's causal priority, then every root cause ahead of the
symptoms it explains (a missing driver before "CUDA not available")."""

from __future__ import annotations

from gpuassist.findings import Finding
from gpuassist.knowledge import catalogue

# Notes about gpuassist's own knowledge (its tables are older than the machine), not about the user's machine or
# error: within a severity they come after every finding about the user, whatever the catalogue priority says.
ABOUT_GPUASSIST = frozenset({"knowledge_tables_outdated"})


def order_findings(findings: list[Finding]) -> list[Finding]:
    """Severity first, then causal priority from the catalogue; then every root cause is moved ahead
    of the findings it explains (a missing driver before "CUDA not available")."""
    cat = catalogue()

    def key(f: Finding) -> tuple[int, bool, int, str]:
        entry = cat.get(f.id)
        return (f.severity.rank, f.id in ABOUT_GPUASSIST, entry.priority if entry else 999, f.id)

    ordered = sorted(findings, key=key)
    # Stable pass: place each explainer before the first finding it explains.
    changed = True
    guard = 0
    while changed and guard < len(ordered) ** 2 + 1:
        changed = False
        guard += 1
        position = {f.id: i for i, f in enumerate(ordered)}
        for i, f in enumerate(ordered):
            targets = [position[x] for x in f.explains if x in position and position[x] < i]
            if targets:
                ordered.insert(min(targets), ordered.pop(i))
                changed = True
                break
    return ordered
