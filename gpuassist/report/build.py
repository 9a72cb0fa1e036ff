"""Facts → judged report: run the rules over the facts and wrap the findings in a :class:`Report`.

Every engine that ends in a report (a live diagnosis, a paste read with ``--from``, a simulated machine, a
runtime test, an audited script run) calls :func:`build_report`, so they judge the same facts the same way.
It sits in the report layer, above the rules and below every engine (docs/architecture.md §1).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

from gpuassist import __version__
from gpuassist.facts import Facts
from gpuassist.report.model import Report, step_summaries
from gpuassist.rules.engine import RuleFunc, evaluate

#: Steps a plain diagnosis covers (no runtime benchmarks).
DIAGNOSE_STEPS = frozenset({"environment", "driver", "wheel"})


def build_report(
    facts: Facts,
    *,
    source: str,
    meta: Mapping[str, Any] | None = None,
    ran: set[str] | frozenset[str] | None = None,
    rules: Mapping[str, RuleFunc] | None = None,
) -> Report:
    """Run the rules (default: the diagnosis's; ``rules``: a rule set of its own) over ``facts`` and wrap
    everything in a Report."""
    run = evaluate(facts, rules)
    full_meta: dict[str, Any] = {
        "generated_at": datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        "gpuassist_version": __version__,
        "source": source,
        "simulated": source == "simulated",
    }
    full_meta.update(meta or {})
    if run.errors:
        full_meta["rule_errors"] = run.errors
    return Report(
        facts, run.findings, step_summaries(run.findings, ran if ran is not None else DIAGNOSE_STEPS), {}, full_meta
    )
