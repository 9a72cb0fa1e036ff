"""Which interpreter a finding points to, so the app can offer "Diagnose this one" (issue 11 item 4).

Qt-free and light (the finding cards load it at start-up): it reads the evidence the rules attach, the
environment rows of :mod:`gpuassist.rules.environments` or the active environment of
``wrong_interpreter_or_kernel``.
"""

from __future__ import annotations

import ntpath
import posixpath
from collections.abc import Mapping
from typing import Any

from gpuassist.findings import Finding

# Findings that blame the interpreter: the app offers "Diagnose this one" on them (issue 11 item 4).
RETARGET_FINDINGS = ("wrong_interpreter_or_kernel", "stale_or_shadowed_torch")


def _active_python(env: Mapping[str, Any]) -> str | None:
    active = env.get("VIRTUAL_ENV") or env.get("CONDA_PREFIX")
    if not isinstance(active, str) or not active:
        return None
    if "\\" in active or (len(active) > 1 and active[1] == ":"):
        return ntpath.join(active, "python.exe" if env.get("CONDA_PREFIX") == active else "Scripts\\python.exe")
    return posixpath.join(active, "bin", "python")


def offered_interpreter(finding: Finding, current: str | None) -> str | None:
    """The interpreter a finding that blames the interpreter points to (to diagnose with one click), or
    None: another finding, or it points only at the interpreter diagnosed (``current``, or the target the
    finding itself names in ``envs.target``)."""
    if finding.id not in RETARGET_FINDINGS:
        return None
    skip = {current} | {ev.value for ev in finding.evidence if ev.fact == "envs.target" and isinstance(ev.value, str)}
    for ev in finding.evidence:
        if ev.fact == "envs.inventory" and isinstance(ev.value, list):
            for row in ev.value:
                python = row.get("python") if isinstance(row, Mapping) else None
                if isinstance(python, str) and python and python not in skip:
                    return python
        if ev.fact == "env" and isinstance(ev.value, Mapping):
            python = _active_python(ev.value)
            if python and python not in skip:
                return python
    return None
