"""Name the root cause behind a pasted error message, traceback or log.

The symptom patterns live with the catalogue (knowledge/catalogue.json), so adding a symptom is a data
change. A *specific* pattern (e.g. "Driver/library version mismatch") names its cause; a generic one
("No CUDA GPUs are available") only makes each cause it can mean a possibility, shown as a warning with
what would confirm it. Numbers in the text (the driver's CUDA version, the GPU's sm_XY, the arch list)
become facts, so the rules can give the same exact fix a full diagnosis would.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gpuassist.findings import Evidence, Finding, Severity
from gpuassist.report.model import Report, step_summaries

MAX_LINE = 2000


@dataclass(frozen=True)
class Match:
    id: str
    line_no: int
    line: str
    specific: bool


def _compiled() -> list[tuple[str, re.Pattern[str], bool]]:
    from gpuassist.knowledge import symptom_patterns

    return [(p.id, p.regex, p.specific) for p in symptom_patterns()]


def match_lines(lines: list[str]) -> list[Match]:
    """Every (id, line) pair whose pattern matches, first line per id kept."""
    found: dict[str, Match] = {}
    patterns = _compiled()
    # Join wrapped lines too: a warning is often split over two lines in a paste.
    windows = [(i, lines[i] + (" " + lines[i + 1].strip() if i + 1 < len(lines) else "")) for i in range(len(lines))]
    for i, text in windows:
        text = text[:MAX_LINE]
        if not text.strip():
            continue
        for fid, regex, specific in patterns:
            if regex.search(text):
                prev = found.get(fid)
                if prev is None or (specific and not prev.specific):
                    found[fid] = Match(fid, i + 1, lines[i].strip()[:500], specific)
    return list(found.values())


def facts_from_matches(matches: list[Match]) -> dict[str, Any]:
    """Facts the matched lines state outright (nothing guessed)."""
    facts: dict[str, Any] = {}
    warnings = []
    for m in matches:
        line = m.line
        warnings.append(line)
        v = re.search(r"found version (\d{4,5})", line)
        if v:
            facts["cuda.driver_version"] = int(v.group(1))
        cap = re.search(r"(?:NVIDIA )?(.+?) with CUDA capability sm_(\d+)(\d) is not compatible", line)
        if cap:
            name = cap.group(1).split(":")[-1].strip()
            facts["reported.gpus"] = [{"index": 0, "name": name, "compute_capability": f"{cap.group(2)}.{cap.group(3)}"}]
        arch = re.search(r"supports CUDA capabilities ((?:sm_\d+a?\s*)+)", line)
        if arch:
            facts["torch.arch_list"] = arch.group(1).split()
    facts["cuda.init_warnings"] = warnings
    return facts


def _catalogue_finding(m: Match) -> Finding:
    from gpuassist.knowledge import catalogue

    entry = catalogue()[m.id]
    confirm = getattr(entry, "confirm", "") or "run `gpuassist diagnose` on that machine"
    if m.specific:
        severity, title = Severity.ERROR, entry.title
        lead = "The pasted text shows this cause directly."
    else:
        severity, title = Severity.WARNING, f"Possible cause: {entry.title}"
        lead = "The pasted message is generic: this is one of the causes it can mean."
    return Finding(
        id=m.id,
        severity=severity,
        title=title,
        explanation=f"{lead} {entry.explanation}",
        fix=f"{entry.fix}\nTo confirm: {confirm}",
        evidence=[Evidence("pasted.line", f"line {m.line_no}: {m.line}")],
        step=entry.step,
    )


def merge(report: Report, matches: list[Match]) -> None:
    """Add pattern findings to a report, letting a rule's richer finding for the same id win."""
    from gpuassist.rules import order_findings

    by_id = {f.id: f for f in report.findings}
    for m in matches:
        if m.id in by_id:
            by_id[m.id].evidence.append(Evidence("pasted.line", f"line {m.line_no}: {m.line}"))
            continue
        if not m.specific and any(x.specific for x in matches):
            continue  # a specific match already names the cause; don't dilute it with generic guesses
        f = _catalogue_finding(m)
        report.findings.append(f)
        by_id[f.id] = f
    report.findings[:] = order_findings(report.findings)
    report.steps[:] = step_summaries(report.findings, set())
