"""Runtime tests (device placement, DataLoader sweep, CNN benchmark), host side: Qt- and torch-free.

Each ``run_*`` function runs one test of ``gpuassist/probe/runtime_script.py`` in the target interpreter
and returns a :class:`RuntimeResult` whose facts the rules in ``gpuassist.rules.runtime`` judge.
"""

from gpuassist.runtime.bench import run_bench
from gpuassist.runtime.common import (
    RuntimeResult,
    load_recording,
    replay,
    run_runtime,
    runtime_facts_from_events,
    runtime_report,
)
from gpuassist.runtime.placement import run_placement
from gpuassist.runtime.sweep import run_sweep

__all__ = [
    "RuntimeResult",
    "load_recording",
    "replay",
    "run_bench",
    "run_placement",
    "run_runtime",
    "run_sweep",
    "runtime_facts_from_events",
    "runtime_report",
]
