"""Merge many nodes' reports into one fleet verdict (schema ``gpuassist.fleet/1``), streaming.

Reports are consumed one at a time and dropped: what stays per node is a small row (name, worst
severity, finding ids, one short value per comparison), groups are keyed by finding id, and the
majority of each compared fact comes from counters, so memory grows with the number of nodes, never with
the size of their reports. JSON layout::

    {"schema": "gpuassist.fleet/1",
     "summary": {nodes, expected, reports, unreadable, missing, healthy, with_errors, with_warnings,
                 skipped_files},
     "groups": [{id, severity, title, step, root_cause, count, nodes: [names], fix, fix_variants}],
     "outliers": [{key, label, facts, majority: {value, count} | null, split, known,
                   others: [{value, count, nodes}]}],
     "unreadable": [{label, error}], "missing": [names], "duplicates": [names],
     "nodes": [{name, source, worst, verdict, findings: [ids], root_causes: [ids], simulated}],
     "meta": {generated_at, gpuassist_version, pseudonymous}}

A group is one finding id and the nodes it was found on; ``root_cause`` is true when, on at least one of
those nodes, no other finding explains it (design §3: root causes before the symptoms they explain).
"""

from __future__ import annotations

import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from gpuassist import __version__
from gpuassist.findings import Severity
from gpuassist.fleet.compare import COMPARISONS, compare_values
from gpuassist.fleet.sources import Entry, SourceNotes
from gpuassist.report.model import Report
from gpuassist.report.node import pseudonym

SCHEMA = "gpuassist.fleet/1"
MAX_FIX_VARIANTS = 16  # distinct fix texts tracked per group (node-specific paths make them differ)
SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2, "ok": 3}


@dataclass(slots=True)
class NodeRow:
    """What the fleet keeps of one node's report."""

    name: str
    source: str  # the file or stream line it came from
    path: str | None
    worst: str  # error / warning / info / ok
    verdict: str  # the title of its first finding that matters, else "No problem found"
    findings: tuple[str, ...]
    root_causes: tuple[str, ...]
    simulated: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "source": self.source,
            "worst": self.worst,
            "verdict": self.verdict,
            "findings": list(self.findings),
            "root_causes": list(self.root_causes),
            "simulated": self.simulated,
        }


@dataclass
class Group:
    id: str
    severity: str
    title: str
    step: str
    nodes: list[str] = field(default_factory=list)
    root_nodes: int = 0
    fixes: Counter[str] = field(default_factory=Counter)
    other_fixes: int = 0

    @property
    def root_cause(self) -> bool:
        return self.root_nodes > 0

    @property
    def fix(self) -> str:
        return self.fixes.most_common(1)[0][0] if self.fixes else ""

    @property
    def fix_variants(self) -> int:
        """How many other fixes were given for it (they name node-specific versions or paths)."""
        return max(0, len(self.fixes) - 1) + self.other_fixes

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "severity": self.severity,
            "title": self.title,
            "step": self.step,
            "root_cause": self.root_cause,
            "count": len(self.nodes),
            "nodes": list(self.nodes),
            "fix": self.fix,
            "fix_variants": self.fix_variants,
        }


@dataclass
class Outlier:
    key: str
    label: str
    facts: tuple[str, ...]
    majority: tuple[str, int] | None  # None: no value is held by more than half the nodes that reported one
    known: int  # nodes that reported a value
    others: list[tuple[str, list[str]]]  # (value, nodes), largest first

    @property
    def split(self) -> bool:
        return self.majority is None

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "label": self.label,
            "facts": list(self.facts),
            "majority": {"value": self.majority[0], "count": self.majority[1]} if self.majority else None,
            "split": self.split,
            "known": self.known,
            "others": [{"value": v, "count": len(n), "nodes": list(n)} for v, n in self.others],
        }


@dataclass
class Unreadable:
    label: str
    error: str

    def to_json(self) -> dict[str, str]:
        return {"label": self.label, "error": self.error}


@dataclass
class FleetResult:
    nodes: list[NodeRow]
    groups: list[Group]
    outliers: list[Outlier]
    unreadable: list[Unreadable]
    missing: list[str]
    duplicates: list[str]
    skipped_files: int = 0
    expected: int = 0  # nodes named by --expect (0: none named)
    pseudonymous: bool = False
    generated_at: str = ""

    @property
    def healthy(self) -> list[str]:
        return [n.name for n in self.nodes if n.worst in ("ok", "info")]

    @property
    def has_error(self) -> bool:
        return any(n.worst == "error" for n in self.nodes)

    @property
    def complete(self) -> bool:
        return not self.unreadable and not self.missing

    def summary(self) -> dict[str, int]:
        worst = Counter(n.worst for n in self.nodes)
        # With --expect, the nodes are the expected ones (plus any that reported unasked): an unreadable file
        # is most likely one of the missing nodes, not one more. Without it, each unreadable file is a node.
        extra = len(self.missing) if self.expected else len(self.unreadable)
        return {
            "nodes": len(self.nodes) + extra,
            "expected": self.expected,
            "reports": len(self.nodes),
            "unreadable": len(self.unreadable),
            "missing": len(self.missing),
            "healthy": worst["ok"] + worst["info"],
            "with_errors": worst["error"],
            "with_warnings": worst["warning"],
            "skipped_files": self.skipped_files,
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "summary": self.summary(),
            "groups": [g.to_json() for g in self.groups],
            "outliers": [o.to_json() for o in self.outliers],
            "unreadable": [u.to_json() for u in self.unreadable],
            "missing": list(self.missing),
            "duplicates": list(self.duplicates),
            "nodes": [n.to_json() for n in self.nodes],
            "meta": {
                "generated_at": self.generated_at,
                "gpuassist_version": __version__,
                "pseudonymous": self.pseudonymous,
            },
        }


class FleetMerger:
    """Feed it entries one at a time (:meth:`add`), then :meth:`result`. Holds no report."""

    def __init__(self, expected: Sequence[str] = (), *, key: bytes | None = None, reveal: bool = False) -> None:
        self.expected = [e.strip() for e in expected if e.strip()]
        self.key = key
        # reveal: pseudonyms of expected nodes are shown as their real names (the admin's own triage; the
        # names come from the admin's list and key, never from the reports)
        self.real_names = {pseudonym(n, key): n for n in self.expected} if reveal else {}
        self.revealed = 0
        self.rows: list[NodeRow] = []
        self.groups: dict[str, Group] = {}
        self.unreadable: list[Unreadable] = []
        self.names: Counter[str] = Counter()
        self.duplicates: list[str] = []
        self.pseudonymous = 0
        self.skipped = 0  # merged results found among the reports (not nodes)
        # per comparison: value -> nodes holding it (names are shared strings: one pointer per node)
        self.values: list[dict[str, list[str]]] = [{} for _ in COMPARISONS]
        self._interned: dict[str, str] = {}

    def _intern(self, text: str) -> str:
        return self._interned.setdefault(text, text)

    def add(self, entry: Entry) -> None:
        if entry.skipped:
            self.skipped += 1
            return
        if entry.report is None:
            self.unreadable.append(Unreadable(entry.label, entry.error or "unreadable"))
            return
        self.add_report(entry.report, source=entry.label, path=entry.path, fallback=entry.fallback_name)

    def add_report(self, report: Report, *, source: str, path: str | None = None, fallback: str = "") -> None:
        name = self._name(report, fallback or source)
        explained = {x for f in report.findings for x in f.explains}
        mattering = [f for f in report.findings if f.severity in (Severity.ERROR, Severity.WARNING)]
        worst = report.worst
        roots = tuple(self._intern(f.id) for f in mattering if f.id not in explained)
        row = NodeRow(
            name=name,
            source=source,
            path=path,
            worst=worst.value if worst is not None else "ok",
            verdict=mattering[0].title if mattering else "No problem found",
            findings=tuple(self._intern(f.id) for f in report.findings),
            root_causes=roots,
            simulated=report.simulated,
        )
        self.rows.append(row)
        for f in report.findings:
            g = self.groups.get(f.id)
            if g is None:
                g = self.groups[f.id] = Group(self._intern(f.id), f.severity.value, f.title, f.step)
            elif SEVERITY_ORDER[f.severity.value] < SEVERITY_ORDER[g.severity]:
                g.severity, g.title = f.severity.value, f.title
            if g.nodes and g.nodes[-1] is name:
                continue  # the same finding twice in one report
            g.nodes.append(name)
            if f.id in roots:
                g.root_nodes += 1
            if f.fix in g.fixes or len(g.fixes) < MAX_FIX_VARIANTS:
                g.fixes[f.fix] += 1
            else:
                g.other_fixes += 1
        for values, value in zip(self.values, compare_values(report.facts), strict=True):
            if value is not None:
                values.setdefault(self._intern(value), []).append(name)

    def _name(self, report: Report, fallback: str) -> str:
        node = report.meta.get("node")
        name = node.get("name") if isinstance(node, dict) else None
        if isinstance(name, str) and name.strip():
            name = name.strip()[:255]
            if node.get("pseudonym"):  # type: ignore[union-attr]
                real = self.real_names.get(name)
                if real is not None:
                    name = real
                    self.revealed += 1
                else:
                    self.pseudonymous += 1
        else:
            name = fallback
        self.names[name] += 1
        if self.names[name] > 1:  # two reports from one node (a re-run, a copied file): keep both, apart
            self.duplicates.append(name)
            name = f"{name} ({self.names[name]})"
        return sys.intern(name)

    def result(self) -> FleetResult:
        return FleetResult(
            nodes=self.rows,
            groups=sorted(
                self.groups.values(), key=lambda g: (not g.root_cause, SEVERITY_ORDER[g.severity], -len(g.nodes), g.id)
            ),
            outliers=self._outliers(),
            unreadable=self.unreadable,
            missing=self._missing(),
            duplicates=sorted(set(self.duplicates)),
            expected=len(self.expected),
            pseudonymous=self.pseudonymous > 0,
            generated_at=datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        )

    def _outliers(self) -> list[Outlier]:
        out = []
        for comparison, values in zip(COMPARISONS, self.values, strict=True):
            if len(values) < 2:
                continue
            ranked = sorted(values.items(), key=lambda kv: (-len(kv[1]), kv[0]))
            known = sum(len(n) for _, n in ranked)
            top_value, top_nodes = ranked[0]
            majority = (top_value, len(top_nodes)) if 2 * len(top_nodes) > known else None
            others = ranked[1:] if majority else ranked
            out.append(Outlier(comparison.key, comparison.label, comparison.facts, majority, known, others))
        return out

    def _missing(self) -> list[str]:
        """Expected nodes with no report: matched by name or, for pseudonymous reports, by pseudonym."""
        seen = set(self.names)
        missing = []
        for name in self.expected:
            alias = pseudonym(name, self.key)
            if name in seen or alias in seen:
                continue
            missing.append(alias if self.pseudonymous and not self.real_names else name)
        return missing


class Cancelled(Exception):
    """The merge was stopped by its caller (the app's window closed while a folder was read)."""


def merge(
    entries: Iterable[Entry],
    expected: Sequence[str] = (),
    *,
    key: bytes | None = None,
    reveal: bool = False,
    notes: SourceNotes | None = None,
    cancel: threading.Event | None = None,
    progress: Callable[[int], None] | None = None,
) -> FleetResult:
    """Merge ``entries`` (read lazily, one at a time); ``notes``: the reader's, read once it is drained.
    ``cancel`` is checked between reports; ``progress(n)`` is told every 50 entries."""
    merger = FleetMerger(expected, key=key, reveal=reveal)
    for n, entry in enumerate(entries, 1):
        if cancel is not None and cancel.is_set():
            raise Cancelled
        merger.add(entry)
        if progress is not None and n % 50 == 0:
            progress(n)
    result = merger.result()
    result.skipped_files = merger.skipped + (notes.skipped_files if notes is not None else 0)
    return result
