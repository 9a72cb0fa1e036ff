"""Print an audit like a linter (``path:line:col ID [severity] message`` plus the fix under it) or as JSON."""

from __future__ import annotations

import io
import json
from typing import Protocol

from gpuassist.audit.model import AuditResult


class _Redacts(Protocol):
    def value(self, v: object, key: str = "") -> object: ...


def render_json(result: AuditResult, *, redactor: _Redacts | None = None) -> str:
    """The audit as JSON; with ``redactor`` (a :class:`gpuassist.report.redact.Redactor`), its code lines,
    paths and messages are redacted like a report's."""
    data: object = result.to_json()
    if redactor is not None:
        data = redactor.value(data)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def render_text(result: AuditResult, *, colour: bool = False) -> str:
    """One line per finding (parseable: ``path:line:col ID message``), its fix indented below it."""
    # Start-up: rich (~40 ms) loads only when text is printed, not for --format json.
    from rich.console import Console
    from rich.text import Text

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=colour, no_color=not colour, highlight=False, soft_wrap=True, width=200)
    for f in result.findings:
        line = Text(f"{f.location} ")
        line.append(f.id, style=f.severity.rich_style)
        line.append(f" [{f.severity.value}] {f.message}")
        console.print(line)
        console.print(Text(f"    fix: {f.fix.summary} ({f.fix.location}):", style="dim"))
        for d in f.fix.diff_lines():
            style = "green" if d.startswith("+") else "red" if d.startswith("-") else "dim"
            console.print(Text(f"      {d}", style=style))
    for file in result.files:
        for cell, reason in file.skipped_cells:
            console.print(Text(f"{file.path}:cell {cell}: note: cell not audited: {reason}", style="dim"))
        for note in file.notes:
            console.print(Text(f"{file.path}: note: {note}", style="dim"))
    console.print(Text(summary_line(result), style="bold"))
    return buf.getvalue()


def summary_line(result: AuditResult) -> str:
    files = len(result.files)
    where = f"{files} file{'s' if files != 1 else ''}"
    unread = sum(not f.audited for f in result.files)
    if unread:
        where += f" ({unread} not audited)"
    if not result.findings:
        return f"No problems found in {where}."
    counts = result.counts()
    parts = [f"{n} {name}{'s' if n != 1 and name != 'info' else ''}" for name, n in counts.items() if n]
    total = len(result.findings)
    return f"Found {total} problem{'s' if total != 1 else ''} in {where}: {', '.join(parts)}."
