"""The rule registry: :func:`rule` registers a rule function under a name, and nothing more.

Rule modules import only this (never the engine), so the engine can import every rule module at the top
(:mod:`gpuassist.rules.rulebook`) without an import cycle (docs/architecture.md §1).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from gpuassist.facts import Facts
from gpuassist.findings import Finding

RuleFunc = Callable[[Facts], "Finding | Iterable[Finding] | None"]

_RULES: dict[str, RuleFunc] = {}
_SUPERSEDES: dict[str, tuple[str, ...]] = {}


def rule(
    name: str, *, supersedes: tuple[str, ...] = (), registry: dict[str, RuleFunc] | None = None
) -> Callable[[RuleFunc], RuleFunc]:
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


def superseded() -> dict[str, tuple[str, ...]]:
    """Rule name → the rules whose same-id findings it replaces (see :mod:`gpuassist.rules.engine`)."""
    return dict(_SUPERSEDES)


def diagnosis_rules() -> dict[str, RuleFunc]:
    """The diagnosis's rules registered so far (:mod:`gpuassist.rules.rulebook` imports them all)."""
    return dict(_RULES)
