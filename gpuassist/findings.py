"""Findings: what the rules conclude, in the shape the report contract (docs/architecture.md §3) fixes."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from gpuassist.facts import from_jsonable, to_jsonable


class Severity(str, Enum):
    """One severity scale everywhere (UI, HTML, terminal): colour and icon come from here."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "info": 2}[self.value]

    @property
    def icon(self) -> str:
        return {"error": "✖", "warning": "▲", "info": "ℹ"}[self.value]

    @property
    def colour(self) -> str:
        """Hex colour shared by the HTML report and the GUI; terminal uses the rich style below."""
        return {"error": "#c62828", "warning": "#b26a00", "info": "#1565c0"}[self.value]

    @property
    def rich_style(self) -> str:
        return {"error": "bold red", "warning": "bold yellow", "info": "bold blue"}[self.value]


OK_ICON = "✔"
OK_COLOUR = "#2e7d32"


@dataclass(frozen=True)
class Evidence:
    """One fact a finding rests on: its key (see docs/facts.md) and the value observed."""

    fact: str
    value: Any

    def to_json(self) -> dict[str, Any]:
        return {"fact": self.fact, "value": to_jsonable(self.value)}


@dataclass
class Finding:
    """A conclusion about the machine, with the evidence for it and the exact fix.

    ``id`` is a stable id from the catalogue (knowledge/catalogue.json). ``step`` is the wizard step the
    finding belongs to (environment, driver, wheel, placement, dataloader, benchmark). ``explains`` lists
    ids of symptoms this root cause accounts for; the ordering puts this finding before them.
    """

    id: str
    severity: Severity
    title: str
    explanation: str
    fix: str
    evidence: list[Evidence] = field(default_factory=list)
    step: str = "environment"
    explains: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "severity": self.severity.value,
            "title": self.title,
            "explanation": self.explanation,
            "evidence": [e.to_json() for e in self.evidence],
            "fix": self.fix,
            "step": self.step,
            "explains": list(self.explains),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Finding:
        return cls(
            id=str(data["id"]),
            severity=Severity(data["severity"]),
            title=str(data.get("title", "")),
            explanation=str(data.get("explanation", "")),
            fix=str(data.get("fix", "")),
            evidence=[Evidence(str(e["fact"]), from_jsonable(e.get("value"))) for e in data.get("evidence", [])],
            step=str(data.get("step", "environment")),
            explains=[str(x) for x in data.get("explains", [])],
        )
