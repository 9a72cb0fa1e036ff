"""Run every rule over the facts and order the findings: root causes before the symptoms they explain.

A rule is a pure function ``Facts -> Finding | list[Finding] | None`` registered with
:func:`gpuassist.rules.registry.rule`. The engine never lets a buggy rule take the diagnosis down: its
exception becomes an entry in ``RuleRun.errors`` (shown in the report's meta), and the other rules still run.

Two rules can tell the same story about the same subject from different facts (the shell's active env vs.
the full environment inventory, both ``wrong_interpreter_or_kernel`` about the target interpreter). The
better-informed one declares ``supersedes``: when it fires, the other's findings with the same id are
dropped and their evidence is kept on the surviving finding, so the report says it once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from gpuassist.facts import Facts
from gpuassist.findings import Finding
from gpuassist.rules import rulebook  # noqa: F401  (registers every rule of the diagnosis)
from gpuassist.rules.ordering import order_findings
from gpuassist.rules.registry import RuleFunc, diagnosis_rules, superseded

__all__ = ["RuleFunc", "RuleRun", "evaluate", "order_findings", "registered_rules"]


def registered_rules() -> dict[str, RuleFunc]:
    """Every rule of the diagnosis (all of :mod:`gpuassist.rules.rulebook`'s modules are imported)."""
    return diagnosis_rules()


@dataclass
class RuleRun:
    findings: list[Finding]
    errors: list[str] = field(default_factory=list)


def evaluate(facts: Facts, rules: Mapping[str, RuleFunc] | None = None) -> RuleRun:
    """All findings for ``facts`` from ``rules`` (default: every rule of the diagnosis), most important first."""
    by_rule: dict[str, list[Finding]] = {}
    errors: list[str] = []
    for name, func in (registered_rules() if rules is None else rules).items():
        try:
            out = func(facts)
        except Exception as exc:  # a rule bug must never hide the other findings
            errors.append(f"rule {name}: {type(exc).__name__}: {exc}")
            continue
        if out is not None:
            by_rule[name] = [out] if isinstance(out, Finding) else list(out)
    drop_superseded(by_rule)
    return RuleRun(order_findings([f for found in by_rule.values() for f in found]), errors)


def drop_superseded(by_rule: dict[str, list[Finding]]) -> None:
    """Remove the findings a better-informed rule replaces (in place), keeping their evidence."""
    for name, older in superseded().items():
        kept = by_rule.get(name)
        if not kept:
            continue
        for other in older:
            same: list[Finding] = []
            rest: list[Finding] = []
            for f in by_rule.get(other, []):
                (same if any(k.id == f.id for k in kept) else rest).append(f)
            for f in same:
                target = next(k for k in kept if k.id == f.id)
                target.evidence += [e for e in f.evidence if e not in target.evidence]
            if other in by_rule:
                by_rule[other] = rest
