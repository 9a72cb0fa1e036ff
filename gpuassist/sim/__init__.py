"""Simulated machines ("scenarios", docs/architecture.md §4): how every GPU situation is reproduced without a GPU.

A scenario is one JSON file in ``sim/scenarios/``; it feeds the *real* code paths:

- ``host``: the files the collectors read (``files``: path → text, or ``{"text", "mode", "readable",
  "link"}`` for device nodes and symlinks), recorded command outputs (``commands``), the environment
  (``env``), recorded NVML answers (``nvml``, see :mod:`gpuassist.collect.nvml`) and ``os``. They go
  through :func:`gpuassist.collect.collect_host` with a DictFS, a RecordedRunner and a RecordedNvml.
- ``probe``: the probe's stream, compactly: ``stages`` (each ``{stage, seconds, facts, status}``) and
  ``end`` (``{"status": "ok"}``, ``{"status": "crashed", "signal": "SIGSEGV", "stderr": ...}``,
  ``{"status": "timeout"}`` or ``{"status": "interpreter_not_found", "error": ...}``). It is expanded to
  the exact JSON-lines protocol with timings and replayed through the runner's own parser.
- ``runtime``: recorded runs of the runtime tests (``placement``, ``sweep``, ``bench``; any may be absent) on
  this machine, compactly like ``probe``: ``{"startup_seconds", "stages": [{stage, seconds, facts,
  progress, samples}], "end"}``, where ``progress`` is the count or the messages of the script's progress
  lines and ``samples`` the host's NVML readings under load (``{"at": fraction of the stage, "gpus":
  [...]}``). :func:`runtime_events` expands one into the runtime script's exact protocol with timings; the
  app's Device placement / DataLoader sweep / CNN benchmark steps replay it through the same facts path as
  a live run (:func:`gpuassist.runtime.replay`). The numbers are synthetic — modelled on each machine's
  GPU, PCIe link and CPU, the DataLoader trials in the order the real adaptive search runs them — and must
  agree with the scenario (same torch, devices, PCI bus ids, interpreter; tests/test_wizard_simulated.py).
  A variation whose machine differs (another torch, a broken driver) sets ``"runtime": null`` so that it
  does not inherit its base's recordings.
- ``facts``: overrides applied last (for what no collector can observe here, e.g. macOS facts).
- ``expect``: what the diagnosis must say (``first``, ``ids``, ``absent``, ``no_error``), checked by the
  tests (tests/test_scenarios.py).
- ``base``: the name of another scenario file to start from (deep-merged, except ``expect``, which is
  always the scenario's own), so variations stay small.
  A ``null`` in ``host.files``, ``host.env`` or ``host.commands`` removes what the base has there (a
  machine without ``/proc/driver/nvidia/version``, without ``VIRTUAL_ENV``); in ``probe.stages`` a stage
  ``{"stage": ..., "drop": true}`` removes a stage, and ``{"stage": ..., "status": "skipped"}`` is sent
  the way the probe sends a stage it skipped (no start, no facts).
- ``monitor``: the machine's CPU/RAM/GPU trace while the wizard's steps ran, which the GUI replays step by
  step (:class:`gpuassist.monitor.TraceSource`) and whose diagnosis part :func:`simulate` puts into
  ``report.monitor``. Either the full trace in
  the monitor's own format (see :mod:`gpuassist.monitor.sampler`)::

      {"interval": 0.1, "t": [0.0, 0.1, ...], "cpu": [%], "ram": [%], "cores": [[% of core 0 per sample], ...],
       "gpus": [{"index": 0, "name": "...", "memory_total_gib": 23.99,
                 "util": [%], "mem_used_gib": [GiB], "power_w": [W], "temp_c": [°C]}],
       "markers": [{"step": "environment", "title": "Environment", "start": 0.0, "end": 1.9}, ...],
       "gpu_reason": null | "why there is no GPU plot"}

  or a compact generator, expanded deterministically (same scenario ⇒ same numbers) by
  :func:`expand_monitor`::

      {"generate": {"seconds": 8, "interval": 0.1, "cpu": 12, "ram": 30, "cores": 16, "gpus": 1,
                    "gpu_util": 2, "load_util": 65}}

  Every key is optional. Defaults come from the scenario itself: the GPUs (names, memory, idle
  utilisation, power, temperature) from ``host.nvml``, the core count from ``/proc/cpuinfo``, RAM use from
  ``/proc/meminfo``, and the step markers from the probe's stage timings (``environment`` = interpreter
  to ``import torch``, ``driver`` = host collection, ``wheel`` = build to libraries, then one marker per
  recorded runtime test); the load follows the recorded streams (see :mod:`gpuassist.sim.traces`). A
  scenario without ``monitor`` gets ``{"generate": {}}``.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from gpuassist.collect import collect_host
from gpuassist.collect.io import DictFS, RecordedRunner
from gpuassist.collect.nvml import RecordedNvml
from gpuassist.facts import Facts
from gpuassist.probe.events import Event
from gpuassist.probe.runner import facts_from_events
from gpuassist.probe.runtime_script import TESTS
from gpuassist.report.build import build_report
from gpuassist.report.model import Report
from gpuassist.sim.streams import probe_events, runtime_stream
from gpuassist.sim.traces import diagnosis_part, expand_monitor

__all__ = [
    "Scenario",
    "UnknownScenario",
    "expand_monitor",
    "list_scenarios",
    "load_scenario",
    "probe_events",
    "runtime_events",
    "runtime_tests",
    "scenario_facts",
    "simulate",
]

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
    if _stage_list(path) and isinstance(base, list) and isinstance(over, list):
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


def _stage_list(path: str) -> bool:
    """Stage lists merge stage by stage (by name): the probe's and each recorded runtime test's."""
    return path == ".probe.stages" or (path.startswith(".runtime.") and path.endswith(".stages"))


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
    data["monitor"] = expand_monitor(name, data)
    return Scenario(name, str(data.get("description", "")), data)


def runtime_tests(name: str) -> tuple[str, ...]:
    """The runtime tests (``placement``, ``sweep``, ``bench``) scenario ``name`` has a recorded run of."""

    runtime = _resolve(name).get("runtime") or {}
    return tuple(t for t in TESTS if isinstance(runtime.get(t), dict))


def runtime_events(scenario: Scenario, test: str) -> list[Event] | None:
    """The recorded stream of runtime test ``test`` on the simulated machine (None: not recorded)."""
    return runtime_stream(scenario.data, test)


def scenario_facts(scenario: Scenario) -> Facts:

    host = scenario.data.get("host") or {}

    def present(section: str) -> dict[str, Any]:  # null = "this machine does not have what the base has"
        return {k: v for k, v in (host.get(section) or {}).items() if v is not None}

    facts = Facts(
        collect_host(
            DictFS(present("files")),
            RecordedRunner(present("commands")),
            present("env"),
            RecordedNvml(host.get("nvml") or {"init_error": "NVML_ERROR_LIBRARY_NOT_FOUND"}),
            os_name=host.get("os", "Linux"),
        )
    )
    facts.update(facts_from_events(probe_events(scenario.data.get("probe") or {})))
    facts.update(scenario.data.get("facts") or {})
    return facts


def simulate(name: str) -> Report:

    scenario = load_scenario(name)
    facts = scenario_facts(scenario)
    report = build_report(
        facts,
        source="simulated",
        meta={
            "scenario": name,
            "scenario_description": scenario.description,
            "target": (scenario.data.get("probe") or {}).get("python"),
        },
    )
    report.monitor = copy.deepcopy(diagnosis_part(scenario.data["monitor"]))
    return report
