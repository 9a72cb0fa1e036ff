"""Simulated machines ("scenarios", design §4): how every GPU situation is reproduced without a GPU.

A scenario is one JSON file in ``sim/scenarios/``; it feeds the *real* code paths:

- ``host``: the files the collectors read (``files``: path → text, or ``{"text", "mode", "readable",
  "link"}`` for device nodes and symlinks), recorded command outputs (``commands``), the environment
  (``env``), recorded NVML answers (``nvml``, see :mod:`gpuassist.collect.nvml`) and ``os``. They go
  through :func:`gpuassist.collect.collect_host` with a DictFS, a RecordedRunner and a RecordedNvml.
- ``probe``: the probe's stream, compactly: ``stages`` (each ``{stage, seconds, facts, status}``) and
  ``end`` (``{"status": "ok"}``, ``{"status": "crashed", "signal": "SIGSEGV", "stderr": ...}``,
  ``{"status": "timeout"}`` or ``{"status": "interpreter_not_found", "error": ...}``). It is expanded to
  the exact JSON-lines protocol with timings and replayed through the runner's own parser.
- ``facts``: overrides applied last (for what no collector can observe here, e.g. macOS facts).
- ``expect``: what the diagnosis must say (``first``, ``ids``, ``absent``, ``no_error``), checked by the
  tests (tests/test_scenarios.py).
- ``base``: the name of another scenario file to start from (deep-merged, except ``expect``, which is
  always the scenario's own), so variations stay small.
  A ``null`` in ``host.files``, ``host.env`` or ``host.commands`` removes what the base has there (a
  machine without ``/proc/driver/nvidia/version``, without ``VIRTUAL_ENV``); in ``probe.stages`` a stage
  ``{"stage": ..., "drop": true}`` removes a stage, and ``{"stage": ..., "status": "skipped"}`` is sent
  the way the probe sends a stage it skipped (no start, no facts).
"""

from __future__ import annotations

import copy
import json
import signal
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from gpuassist.facts import Facts
from gpuassist.report.model import Report

SCENARIO_DIR = "scenarios"


class UnknownScenario(LookupError):
    pass


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    data: dict[str, Any]

    @property
    def expect(self) -> dict[str, Any]:
        return dict(self.data.get("expect") or {})


def _files() -> dict[str, str]:
    root = resources.files("gpuassist.sim").joinpath(SCENARIO_DIR)
    if not root.is_dir():
        return {}
    return {p.name[:-5]: p.read_text(encoding="utf-8") for p in root.iterdir() if p.name.endswith(".json")}


def _merge(base: Any, over: Any, path: str = "") -> Any:
    if isinstance(base, dict) and isinstance(over, dict):
        out = dict(base)
        for k, v in over.items():
            out[k] = _merge(base.get(k), v, f"{path}.{k}") if k in base else v
        return out
    if path.endswith("probe.stages") and isinstance(base, list) and isinstance(over, list):
        stages = {s["stage"]: s for s in copy.deepcopy(base)}
        order = [s["stage"] for s in base]
        for s in over:
            if s.get("drop"):
                stages.pop(s["stage"], None)
                continue
            if s["stage"] not in stages:
                order.append(s["stage"])
            stages[s["stage"]] = _merge(stages.get(s["stage"], {}), s, path + "[]")
        return [stages[n] for n in order if n in stages]
    return over


@lru_cache(maxsize=1)
def _raw() -> dict[str, dict[str, Any]]:
    return {name: json.loads(text) for name, text in _files().items()}


def _resolve(name: str, seen: tuple[str, ...] = ()) -> dict[str, Any]:
    raw = _raw()
    if name not in raw:
        raise UnknownScenario(f"unknown scenario {name!r}; `gpuassist scenarios` lists them")
    data = copy.deepcopy(raw[name])
    base = data.pop("base", None)
    if base:
        if base in seen:
            raise ValueError(f"scenario {name}: circular base {base}")
        data = _merge(_resolve(base, (*seen, name)), data)
        data["expect"] = raw[name].get("expect") or {}  # a variation is another diagnosis: never inherited
    return data


def list_scenarios(include_bases: bool = False) -> list[Scenario]:
    return [load_scenario(n) for n in sorted(_raw()) if include_bases or not n.startswith("_")]


def load_scenario(name: str) -> Scenario:
    data = _resolve(name)
    return Scenario(name, str(data.get("description", "")), data)


def probe_events(probe: dict[str, Any]) -> list[dict[str, Any]]:
    """Expand a scenario's compact probe description into the runner's event stream (the probe's JSON
    lines plus the runner's launch/killed/exit events, with timings): exactly what a live run records."""
    from gpuassist.probe.runner import STAGES, StageLimits

    limits = StageLimits()
    python = str(probe.get("python", "/usr/bin/python3"))
    end = probe.get("end") or {"status": "ok"}
    status = end.get("status", "ok")
    events: list[dict[str, Any]] = [{"event": "launch", "python": python, "rt": 0.0}]
    if status == "interpreter_not_found":
        events.append({"event": "not_found", "reason": end.get("error", "it does not exist"), "rt": 0.001})
        return events
    startup = float(probe.get("startup_seconds", 0.03))
    t = 0.0
    stages = list(probe.get("stages") or [])
    if end.get("stage") == "startup":
        stages = []
    else:
        events.append({"event": "hello", "protocol": 1, "nonce": "simulated", "pid": 0, "stages": list(STAGES),
                       "t": 0.0, "rt": startup})
    for i, s in enumerate(stages):
        name = s["stage"]
        if s.get("status") == "skipped":  # the probe sends only this line for a stage it skips
            events.append({"event": "stage", "stage": name, "status": "skipped",
                           "reason": s.get("reason", "import torch failed"), "t": round(t, 4),
                           "rt": round(startup + t, 4)})
            continue
        events.append({"event": "stage", "stage": name, "status": "start", "limit": limits.for_stage(name),
                       "t": round(t, 4), "rt": round(startup + t, 4)})
        for key, value in (s.get("facts") or {}).items():
            events.append({"event": "fact", "key": key, "value": value, "rt": round(startup + t, 4)})
        t += float(s.get("seconds", 0.005))
        unfinished = i == len(stages) - 1 and status in ("crashed", "timeout")
        if not unfinished:
            done: dict[str, Any] = {"event": "stage", "stage": name, "status": s.get("status", "end"),
                                    "t": round(t, 4), "rt": round(startup + t, 4)}
            if s.get("error"):
                done["error"] = s["error"]
            events.append(done)
    stderr_tail = str(end.get("stderr", "")).splitlines()
    rt = round(startup + t, 4)
    if status == "ok":
        events.append({"event": "done", "t": round(t, 4), "rt": rt})
        events.append({"event": "exit", "returncode": 0, "signal": None, "stderr_tail": stderr_tail,
                       "garbage_lines": 0, "rt": rt + 0.005})
    elif status == "timeout":
        stage = stages[-1]["stage"] if stages else "startup"
        limit = float(end.get("limit", limits.for_stage(stage) if stages else limits.startup))
        events.append({"event": "killed", "reason": "timeout", "stage": stage, "limit": limit, "rt": rt + limit})
        events.append({"event": "exit", "returncode": -15, "signal": "SIGTERM", "stderr_tail": stderr_tail,
                       "garbage_lines": 0, "rt": rt + limit + 0.05})
    elif status == "crashed":
        sig = str(end.get("signal", "SIGSEGV"))
        num = int(getattr(signal, sig, 11))
        events.append({"event": "exit", "returncode": -num, "signal": sig, "stderr_tail": stderr_tail,
                       "garbage_lines": 0, "rt": rt})
    else:
        raise ValueError(f"unknown probe end status {status!r}")
    return events


def scenario_facts(scenario: Scenario) -> Facts:
    from gpuassist.collect import collect_host
    from gpuassist.collect.io import DictFS, RecordedRunner
    from gpuassist.collect.nvml import RecordedNvml
    from gpuassist.probe.runner import facts_from_events

    host = scenario.data.get("host") or {}

    def present(section: str) -> dict[str, Any]:  # null = "this machine does not have what the base has"
        return {k: v for k, v in (host.get(section) or {}).items() if v is not None}

    facts = Facts(collect_host(
        DictFS(present("files")),
        RecordedRunner(present("commands")),
        present("env"),
        RecordedNvml(host.get("nvml") or {"init_error": "NVML_ERROR_LIBRARY_NOT_FOUND"}),
        os_name=host.get("os", "Linux"),
    ))
    facts.update(facts_from_events(probe_events(scenario.data.get("probe") or {})))
    facts.update(scenario.data.get("facts") or {})
    return facts


def simulate(name: str) -> Report:
    from gpuassist.diagnose import build_report

    scenario = load_scenario(name)
    facts = scenario_facts(scenario)
    return build_report(facts, source="simulated", meta={
        "scenario": name,
        "scenario_description": scenario.description,
        "target": (scenario.data.get("probe") or {}).get("python"),
    })
