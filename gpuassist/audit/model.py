"""What an audit reports: findings at a place in the user's code, each with the code change that fixes it.

JSON layout (schema ``gpuassist.audit/1``)::

    {"schema": "gpuassist.audit/1",
     "files": [{"path", "kind": "script"|"notebook", "audited", "skipped_cells": [{"cell", "reason"}],
                "notes": [...]}],
     "findings": [{"id", "severity", "title", "path", "cell", "line", "col", "end_line", "location",
                   "message", "code", "fix": {"summary", "location", "line", "before": [...], "after": [...]}}],
     "summary": {"error": n, "warning": n, "info": n}}

``line``/``col`` are 1-based; for a notebook they count within ``cell`` (cells numbered from 1 as the
notebook shows them, markdown included). Findings convert to the report's :class:`Finding` (step
``script``) so the app and the report show them with everything else.
"""

from __future__ import annotations

import difflib
import textwrap
from dataclasses import dataclass, field
from typing import Any

from gpuassist import __version__
from gpuassist.findings import Action, Evidence, Finding, Severity
from gpuassist.knowledge import entry

SCHEMA = "gpuassist.audit/1"


@dataclass(frozen=True)
class CodeChange:
    """A concrete edit: the lines at ``location`` as they are (``before``) and as they should be (``after``)."""

    summary: str
    location: str  # "train.py:28" or "notebook.ipynb:cell 3:2"
    line: int  # first line of ``before`` (within its file or cell)
    before: tuple[str, ...]
    after: tuple[str, ...]

    def diff_lines(self) -> list[str]:
        """``before``/``after`` as a minimal diff: ``-`` removed, ``+`` added, two spaces unchanged."""
        out: list[str] = []
        matcher = difflib.SequenceMatcher(a=self.before, b=self.after, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                out += [f"  {line}" for line in self.before[i1:i2]]
                continue
            out += [f"- {line}" for line in self.before[i1:i2]]
            out += [f"+ {line}" for line in self.after[j1:j2]]
        return out

    def text(self) -> str:
        return "\n".join([f"{self.summary} ({self.location}):", *self.diff_lines()])

    def actions(self) -> list[Action]:
        """The change as a block to paste over those lines: the new lines when they compile on their own,
        else the diff in the note (a fragment such as an ``else:`` line is no runnable block)."""
        title = f"{self.summary[:1].upper()}{self.summary[1:]} ({self.location})"
        if not self.after:  # nothing to paste: say which lines go
            return [Action(title=title, note="Delete: " + " / ".join(line.strip() for line in self.before))]
        new = textwrap.dedent("\n".join(self.after))
        try:
            compile(new, self.location, "exec")
        except SyntaxError:
            return [Action(title=title, note="Change: " + " / ".join(self.diff_lines()))]
        replaced = f"{len(self.before)} line(s)" if self.before else "nothing (insert)"
        return [Action(title=title, code=new, note=f"Replaces {replaced} at {self.location}.")]

    def to_json(self) -> dict[str, Any]:
        return {
            "summary": self.summary,
            "location": self.location,
            "line": self.line,
            "before": list(self.before),
            "after": list(self.after),
        }


@dataclass(frozen=True)
class AuditFinding:
    """One problem at one place in the user's code: a catalogue ``id``, a message, and the fix."""

    path: str
    line: int
    col: int
    end_line: int
    id: str
    severity: Severity
    message: str
    fix: CodeChange
    cell: int | None = None
    code: str = ""  # the source line, for context

    @property
    def location(self) -> str:
        where = f"{self.path}:cell {self.cell}:{self.line}" if self.cell is not None else f"{self.path}:{self.line}"
        return f"{where}:{self.col}"

    @property
    def title(self) -> str:

        return entry(self.id).title

    def sort_key(self) -> tuple[str, int, int, int, str]:
        return (self.path, self.cell or 0, self.line, self.col, self.id)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "severity": self.severity.value,
            "title": self.title,
            "path": self.path,
            "cell": self.cell,
            "line": self.line,
            "col": self.col,
            "end_line": self.end_line,
            "location": self.location,
            "message": self.message,
            "code": self.code,
            "fix": self.fix.to_json(),
        }

    def to_finding(self) -> Finding:
        """The finding as the report shows it, with where it is in the code as evidence.

        The explanation is this finding's own message, not the catalogue's: the catalogue describes the
        cause on a machine ("CUDA is available, but ..."), which a static reading of code cannot know."""
        evidence = [Evidence("audit.location", self.location)]
        if self.code.strip():
            evidence.append(Evidence("audit.code", self.code.strip()))
        explanation = self.message[:1].upper() + self.message[1:]
        return Finding(
            id=self.id,
            severity=self.severity,
            title=f"{self.location}: {self.title}",
            explanation=explanation if explanation.endswith(".") else explanation + ".",
            fix=self.fix.text(),
            evidence=evidence,
            step="script",
            structured_actions=self.fix.actions(),
        )


@dataclass(frozen=True)
class FileAudit:
    """One audited file: what it was, which notebook cells could not be read, and notes for the reader."""

    path: str
    kind: str  # "script" | "notebook"
    skipped_cells: tuple[tuple[int, str], ...] = ()
    notes: tuple[str, ...] = ()
    audited: bool = True  # False: read, but the analysis could not follow it (nothing was judged)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "kind": self.kind,
            "audited": self.audited,
            "notes": list(self.notes),
            "skipped_cells": [{"cell": c, "reason": r} for c, r in self.skipped_cells],
        }


@dataclass
class AuditResult:
    """Everything one ``gpuassist audit`` run found, in file/line order."""

    files: list[FileAudit] = field(default_factory=list)
    findings: list[AuditFinding] = field(default_factory=list)

    @property
    def has_error(self) -> bool:
        return any(f.severity is Severity.ERROR for f in self.findings)

    def counts(self) -> dict[str, int]:
        return {s.value: sum(f.severity is s for f in self.findings) for s in Severity}

    def extend(self, other: AuditResult) -> None:
        self.files.extend(other.files)
        self.findings = sorted([*self.findings, *other.findings], key=AuditFinding.sort_key)

    def to_findings(self) -> list[Finding]:
        """Report findings, most severe first (file order within a severity)."""
        return [f.to_finding() for f in sorted(self.findings, key=lambda f: (f.severity.rank, *f.sort_key()))]

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "gpuassist_version": __version__,
            "files": [f.to_json() for f in self.files],
            "findings": [f.to_json() for f in self.findings],
            "summary": self.counts(),
        }
