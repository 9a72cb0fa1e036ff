"""Every rule module of the diagnosis: importing this module registers all their rules.

A new rule module is added here (docs/architecture.md §8, "Add a root cause"). The audit run's rules are a
rule set of their own (:mod:`gpuassist.audit.run_rules`) and are not listed.
"""

from __future__ import annotations

from gpuassist.rules import (  # noqa: F401  (imported for their registrations)
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
    staleness,
    visibility,
    wheel,
    wsl,
)
