"""Rules: pure functions from Facts to Findings (ids from knowledge/catalogue.json)."""

from gpuassist.rules.engine import RuleRun, evaluate, order_findings

__all__ = ["RuleRun", "evaluate", "order_findings"]
