"""Compact stream descriptions (a scenario's ``probe`` and ``runtime`` sections) expanded into the exact
event streams a live run records: the probe's / runtime script's JSON lines with their timings, plus the
runner's own launch, killed and exit events. They are checked as a recorded stream is
(:func:`gpuassist.probe.events.parse_events`, so a scenario that describes an impossible stream fails with
a line naming it) and take the same path as a live run."""

from __future__ import annotations

import signal
from collections.abc import Callable
from typing import Any

from gpuassist.probe.events import Event, parse_events
from gpuassist.probe.runner import STAGES, StageLimits
from gpuassist.probe.runtime_script import DEFAULT_LIMITS, TESTS


def probe_events(probe: dict[str, Any]) -> list[Event]:
    """Expand a scenario's compact probe description into the runner's event stream (the probe's JSON
    lines plus the runner's launch/killed/exit events, with timings): exactly what a live run records."""

    limits = StageLimits()
    return _stream(
        probe,
        str(probe.get("python", "/usr/bin/python3")),
        stage_names=list(STAGES),
        limit_for=limits.for_stage,
        startup_limit=limits.startup,
        default_startup=0.03,
        where="the probe stream",
    )


def runtime_stream(data: dict[str, Any], test: str) -> list[Event] | None:
    """The recorded stream of runtime test ``test`` in a scenario's (resolved) data, None when not recorded: the
    runtime script's protocol with its timings, as :func:`gpuassist.runtime.run_runtime` records it; the launch
    names the scenario's target interpreter."""

    spec = (data.get("runtime") or {}).get(test)
    if not isinstance(spec, dict):
        return None
    python = str((data.get("probe") or {}).get("python", "/usr/bin/python3"))
    return _stream(
        spec,
        python,
        stage_names=list(TESTS[test]),
        limit_for=lambda s: DEFAULT_LIMITS.get(s, 60.0),
        startup_limit=30.0,
        default_startup=0.35,
        hello={"test": test},
        facts_last=True,
        where=f"the {test} stream",
    )


def _stream(
    spec: dict[str, Any],
    python: str,
    *,
    stage_names: list[str],
    limit_for: Callable[[str], float],
    startup_limit: float,
    default_startup: float,
    hello: dict[str, Any] | None = None,
    facts_last: bool = False,
    where: str = "events",
) -> list[Event]:
    """A compact stream description (``stages`` of ``{stage, seconds, facts, status, error, progress,
    samples}`` and an ``end``) as timed protocol events. ``facts_last``: facts arrive at the end of their
    stage, after its progress lines (runtime tests measure first, then report); the probe sends them at
    once. ``progress`` is a count or a list of messages, spread over the stage; ``samples`` are the host's
    NVML readings (``{"at": fraction of the stage, "gpus": [...]}``)."""
    end = spec.get("end") or {"status": "ok"}
    status = end.get("status", "ok")
    events: list[dict[str, Any]] = [{"event": "launch", "python": python, "rt": 0.0}]
    if status == "interpreter_not_found":
        events.append({"event": "not_found", "reason": end.get("error", "it does not exist"), "rt": 0.001})
        return parse_events(events, where)
    startup = float(spec.get("startup_seconds", default_startup))
    t = 0.0
    stages = list(spec.get("stages") or [])
    if end.get("stage") == "startup":
        stages = []
    else:
        events.append(
            {
                "event": "hello",
                "protocol": 1,
                "nonce": "simulated",
                "pid": 0,
                "stages": stage_names,
                **(hello or {}),
                "t": 0.0,
                "rt": startup,
            }
        )

    def at(seconds: float) -> dict[str, float]:
        return {"t": round(seconds, 4), "rt": round(startup + seconds, 4)}

    for i, s in enumerate(stages):
        name = s["stage"]
        if s.get("status") == "skipped":  # the script sends only this line for a stage it skips
            events.append(
                {
                    "event": "stage",
                    "stage": name,
                    "status": "skipped",
                    "reason": s.get("reason", "import torch failed"),
                    **at(t),
                }
            )
            continue
        events.append({"event": "stage", "stage": name, "status": "start", "limit": limit_for(name), **at(t)})
        seconds = float(s.get("seconds", 0.005))
        facts = [
            {"event": "fact", "key": key, "value": value, "rt": round(startup + (t + seconds if facts_last else t), 4)}
            for key, value in (s.get("facts") or {}).items()
        ]
        if not facts_last:
            events += facts
        progress = s.get("progress") or []
        messages = (
            [f"{name} {k + 1}/{progress}" for k in range(progress)]
            if isinstance(progress, int)
            else [str(m) for m in progress]
        )
        timed = [
            (
                t + seconds * (k + 1) / (len(messages) + 1),
                {"event": "progress", "stage": name, "done": k, "total": len(messages), "message": m},
            )
            for k, m in enumerate(messages)
        ]
        timed += [
            (
                t + seconds * float(x.get("at", 0.5)),
                {"event": "host_sample", "stage": name, "gpus": x.get("gpus") or []},
            )
            for x in s.get("samples") or []
        ]
        for when, ev in sorted(timed, key=lambda p: p[0]):
            ev.update(at(when) if ev["event"] == "progress" else {"rt": round(startup + when, 4)})
            events.append(ev)
        if facts_last:
            events += facts
        t += seconds
        unfinished = i == len(stages) - 1 and status in ("crashed", "timeout")
        if not unfinished:
            done: dict[str, Any] = {"event": "stage", "stage": name, "status": s.get("status", "end"), **at(t)}
            if s.get("error"):
                done["error"] = s["error"]
            events.append(done)
    stderr_tail = str(end.get("stderr", "")).splitlines()
    rt = round(startup + t, 4)
    if status == "ok":
        events.append({"event": "done", **at(t)})
        events.append(
            {
                "event": "exit",
                "returncode": 0,
                "signal": None,
                "stderr_tail": stderr_tail,
                "garbage_lines": 0,
                "rt": rt + 0.005,
            }
        )
    elif status == "timeout":
        stage = stages[-1]["stage"] if stages else "startup"
        limit = float(end.get("limit", limit_for(stage) if stages else startup_limit))
        events.append({"event": "killed", "reason": "timeout", "stage": stage, "limit": limit, "rt": rt + limit})
        events.append(
            {
                "event": "exit",
                "returncode": -15,
                "signal": "SIGTERM",
                "stderr_tail": stderr_tail,
                "garbage_lines": 0,
                "rt": rt + limit + 0.05,
            }
        )
    elif status == "crashed":
        sig = str(end.get("signal", "SIGSEGV"))
        num = int(getattr(signal, sig, 11))
        events.append(
            {
                "event": "exit",
                "returncode": -num,
                "signal": sig,
                "stderr_tail": stderr_tail,
                "garbage_lines": 0,
                "rt": rt,
            }
        )
    else:
        raise ValueError(f"unknown stream end status {status!r}")
    return parse_events(events, where)
