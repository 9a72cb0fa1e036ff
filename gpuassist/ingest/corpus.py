"""Check a pasted-text corpus entry (``tests/data/pastes``, ``tests/data/errors``) against its expected verdict.

Shared by the tests and ``benchmarks/verdict_accuracy.py`` so that both judge a paste the same way. An
entry (one row of the corpus's ``index.json``) names the file, its public source, ``expect_first`` (the id
that must come first, or ``None``: healthy or not determinable from the text, so no error may be claimed),
``absent`` (ids that must not be claimed), ``truncated`` (the paste is cut: missing facts must be listed)
and ``reject`` (the input must be refused as unreadable). ``kind`` is the kind of input, assigned by hand
(collect_env, kernel_log, nvidia_smi, container, jetson, install, repl, windows, env_fork, mixed,
gpu_in_use, traceback, prose); ``batch`` says when the text was collected (``before-rules``, or one of the
``after-rules-*`` batches gathered after the rules were written: held out from rule-writing); ``decoy``
marks texts that look like a known cause but are not. ``known_rule_bug`` says why an entry still fails (the test
expects it to fail until the rule is fixed). The errors index also records ``held_out_scores``: per held-out batch,
the score per kind when it was collected (``before_fixes``) and after the general fixes made from its misses
(``after_fixes``), so the held-out number is never overwritten by a later, fitted one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpuassist.findings import Severity
from gpuassist.ingest import load
from gpuassist.ingest.text import UnreadableInput


@dataclass
class Verdict:
    file: str
    expected: str | None
    got: str | None
    ok: bool
    problems: list[str] = field(default_factory=list)
    known_rule_bug: str | None = None


def _index_files(directory: Path) -> list[Path]:
    """``index.json``, then one file per later batch in ``index.d/`` (sorted): batches collected in parallel each
    get their own file, so no two collectors edit the same JSON."""
    return [directory / "index.json", *sorted((directory / "index.d").glob("*.json"))]


def _read_index(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
        raise ValueError(f"{path}: a corpus index needs an 'entries' list")
    return data


def entries(directory: Path) -> list[dict[str, Any]]:
    return [e for path in _index_files(directory) for e in _read_index(path)["entries"]]


def held_out_scores(directory: Path) -> dict[str, dict[str, Any]]:
    """Per held-out batch, the scores recorded when it was collected (and after the fixes made from it)."""
    scores: dict[str, dict[str, Any]] = {}
    for path in _index_files(directory):
        for batch, recorded in _read_index(path).get("held_out_scores", {}).items():
            if batch in scores:
                raise ValueError(f"{path}: held-out batch {batch!r} is recorded twice")
            scores[batch] = recorded
    return scores


def check(directory: Path, entry: dict[str, Any]) -> Verdict:

    name = entry["file"]
    expected = entry.get("expect_first")
    verdict = Verdict(name, expected, None, True, known_rule_bug=entry.get("known_rule_bug"))
    try:
        report = load((directory / name).read_bytes(), label=name)
    except UnreadableInput as exc:
        verdict.got = "(rejected)"
        if not entry.get("reject"):
            verdict.problems.append(f"rejected: {exc}")
        verdict.ok = not verdict.problems
        return verdict
    if entry.get("reject"):
        verdict.problems.append("accepted, but it should be rejected as unreadable")
    ids = [f.id for f in report.findings]
    claimed = [f for f in report.findings if f.severity in (Severity.ERROR, Severity.WARNING)]
    verdict.got = claimed[0].id if claimed else None
    if expected is None:
        errors = [f.id for f in report.findings if f.severity is Severity.ERROR]
        if errors:
            verdict.problems.append(f"claims an error the text cannot support: {errors}")
        verdict.got = errors[0] if errors else None
    elif not ids or ids[0] != expected:
        verdict.problems.append(f"first finding is {ids[:3]}, expected {expected}")
    else:
        first = report.findings[0]
        if not any(
            e.fact in ("pasted.line", "cuda.init_warnings")
            or e.fact.startswith(("torch.", "driver.", "reported.", "cuda.", "host."))
            for e in first.evidence
        ):
            verdict.problems.append("the first finding cites no evidence from the text")
        if not first.fix.strip():
            verdict.problems.append("the first finding has no fix")
    wrong = [
        i
        for i in entry.get("absent", [])
        if i in ids and next(f for f in report.findings if f.id == i).severity is not Severity.INFO
    ]
    if wrong:
        verdict.problems.append(f"claims {wrong}, which the thread rules out")
    if entry.get("truncated") and report.meta.get("source") == "collect_env" and not report.meta.get("missing_facts"):
        verdict.problems.append("the paste is truncated but no missing facts are listed")
    verdict.ok = not verdict.problems
    return verdict
