"""The static audit of one file: read it, analyse it, judge it. The code is parsed, never run."""

from __future__ import annotations

from gpuassist.audit.analysis import Analysis
from gpuassist.audit.checks import judge
from gpuassist.audit.model import AuditFinding, AuditResult, FileAudit
from gpuassist.audit.program import Program
from gpuassist.audit.source import Source, parse, read_source, script_source


def audit_source(source: Source) -> tuple[FileAudit, list[AuditFinding]]:
    """Findings for one already-read file, and what the reader should know about it."""
    skipped = tuple((c.cell, c.reason) for c in source.skipped)
    try:
        tree = parse(source)
        program = Program(tree)
        if not program.symbols.uses_torch:
            note = "does not import torch: nothing to audit"
            return FileAudit(source.path, source.kind, skipped, (note,)), []
        events = Analysis(program).run()
        findings = judge(source, program, events)
    except RecursionError:  # valid Python (it parsed) that nests deeper than the analysis follows
        note = "an expression is nested too deeply to analyse: not audited"
        return FileAudit(source.path, source.kind, skipped, (note,), audited=False), []
    notes: list[str] = []
    if program.framework:
        notes.append(
            f"uses {program.framework}, which places the model and batches itself: device-placement checks are skipped"
        )
    return FileAudit(source.path, source.kind, skipped, tuple(notes)), findings


def audit_paths(paths: list[str]) -> AuditResult:
    """Audit every file; every file is read (and must parse) before any is analysed."""
    sources = [read_source(p) for p in paths]
    result = AuditResult()
    for source in sources:
        file_audit, findings = audit_source(source)
        result.extend(AuditResult([file_audit], findings))
    return result


def audit_text(text: str, path: str = "script.py") -> list[AuditFinding]:
    """Findings for Python source given as text (what the tests and the app use for snippets)."""
    return audit_source(script_source(text, path))[1]
