"""The probe: facts gathered inside the target interpreter, in a subprocess (docs/architecture.md §2).

``probe_script.py`` is the stdlib-only program that runs under the user's interpreter; ``runner.py`` is
the host side that starts it, enforces its time limits and turns its event stream into facts.
"""

from gpuassist.probe.runner import ProbeResult, StageLimits, facts_from_events, replay_events, run_probe

__all__ = ["ProbeResult", "StageLimits", "facts_from_events", "replay_events", "run_probe"]
