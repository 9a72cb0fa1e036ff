"""The report: the one structure every output (terminal, JSON, Markdown, HTML, GUI) is rendered from.

JSON layout (docs/architecture.md §3, schema ``gpuassist.report/1``)::

    {"schema": "gpuassist.report/1",
     "facts": {key: value},             # docs/facts.md
     "findings": [{id, severity, title, explanation, evidence: [{fact, value}], fix, step, explains}],
     "steps": [{id, title, status, findings: [ids]}],
     "monitor": {...},                  # traces; empty when nothing was sampled
     "meta": {generated_at, gpuassist_version, source, simulated, scenario, target, redaction, ...}}

Findings are stored, not recomputed, when a report is reopened: the verdict a user saw on their machine
is exactly what the support engineer sees.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from gpuassist.facts import Facts
from gpuassist.findings import Finding, Severity
from gpuassist.step_table import REPORT_STEPS

SCHEMA = "gpuassist.report/1"
SCHEMA_PREFIX = "gpuassist.report/"


@dataclass
class Report:
    facts: Facts
    findings: list[Finding]
    steps: list[dict[str, Any]] = field(default_factory=list)
    monitor: dict[str, Any] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def worst(self) -> Severity | None:
        return min((f.severity for f in self.findings), key=lambda s: s.rank, default=None)

    @property
    def has_error(self) -> bool:
        return any(f.severity is Severity.ERROR for f in self.findings)

    @property
    def simulated(self) -> bool:
        return bool(self.meta.get("simulated"))

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "facts": self.facts.to_json(),
            "findings": [f.to_json() for f in self.findings],
            "steps": self.steps,
            "monitor": self.monitor,
            "meta": self.meta,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Report:
        return cls(
            facts=Facts.from_json(data.get("facts") or {}),
            findings=[Finding.from_json(f) for f in data.get("findings") or []],
            steps=list(data.get("steps") or []),
            monitor=dict(data.get("monitor") or {}),
            meta=dict(data.get("meta") or {}),
        )


def step_summaries(findings: list[Finding], ran: AbstractSet[str]) -> list[dict[str, Any]]:
    """One entry per wizard step: its worst severity (or ok / not_run) and its finding ids."""
    out = []
    for info in REPORT_STEPS:
        sid, title, question = info.id, info.title, info.question
        mine = [f for f in findings if f.step == sid]
        if mine:
            status = min((f.severity for f in mine), key=lambda s: s.rank).value
        elif sid in ran:
            status = "ok"
        else:
            status = "not_run"
        out.append(
            {"id": sid, "title": title, "question": question, "status": status, "findings": [f.id for f in mine]}
        )
    return out
