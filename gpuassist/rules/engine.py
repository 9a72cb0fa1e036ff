"""Run every rule over the facts and order the findings: root causes before the symptoms they explain.

A rule is a pure function ``Facts -> Finding | list[Finding] | None`` registered with :func:`rule`. The
engine never lets a buggy rule take the diagnosis down: its exception becomes an entry in
``RuleRun.errors`` (shown in the report's meta), and the other rules still run.

Two rules can tell the same story about the same subject from different facts (the shell's active env vs.
the full environment inventory, both ``wrong_interpreter_or_kernel`` about the target interpreter). The
better-informed one declares ``supersedes``: when it fires, the other's findings with the same id are
dropped and their evidence is kept on the surviving finding, so the report says it once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from gpuassist.facts import Facts
from gpuassist.findings import Finding

RuleFunc = Callable[[Facts], "Finding | Iterable[Finding] | None"]

_RULES: dict[str, RuleFunc] = {}
_SUPERSEDES: dict[str, tuple[str, ...]] = {}


def rule(name: str, *, supersedes: tuple[str, ...] = (),
         registry: dict[str, RuleFunc] | None = None) -> Callable[[RuleFunc], RuleFunc]:
    """Register a rule under ``name`` (usually the catalogue id it detects). ``supersedes``: names of rules
    whose same-id findings this rule's findings replace (see the module docstring). ``registry``: a rule
    set of its own (e.g. the audit run's, judged apart from a diagnosis) instead of the diagnosis's."""

    def register(func: RuleFunc) -> RuleFunc:
        rules = _RULES if registry is None else registry
        if name in rules:
            raise ValueError(f"rule {name!r} registered twice")
        rules[name] = func
        if supersedes:
            _SUPERSEDES[name] = tuple(supersedes)
        return func

    return register


def registered_rules() -> dict[str, RuleFunc]:
    _load_rule_modules()
    return dict(_RULES)


def _load_rule_modules() -> None:
    # Importing the modules registers their rules; kept here so `evaluate` is the single entry point.
    from gpuassist.rules import (  # noqa: F401
        container,
        driver,
        driver_state,
        env_vars,
        environments,
        gpu_stacks,
        hardware,
        health,
        interpreter,
        libraries,
        macos,
        probe_outcome,
        runtime,
        runtime_outcome,
        visibility,
        wheel,
        wsl,
    )


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
    for name, older in _SUPERSEDES.items():
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


def order_findings(findings: list[Finding]) -> list[Finding]:
    """Severity first, then causal priority from the catalogue; then every root cause is moved ahead
    of the findings it explains (a missing driver before "CUDA not available")."""
    from gpuassist.knowledge import catalogue

    cat = catalogue()

    def key(f: Finding) -> tuple[int, int, str]:
        entry = cat.get(f.id)
        return (f.severity.rank, entry.priority if entry else 999, f.id)

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
