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
- ``monitor``: the machine's CPU/RAM/GPU trace while the diagnosis ran, which :func:`simulate` puts into
  ``report.monitor`` and the GUI replays (:class:`gpuassist.monitor.TraceSource`). Either the full trace in
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
  to ``import torch``, ``driver`` = host collection, ``wheel`` = build to libraries); the GPU is loaded
  during the smoke stage when CUDA worked. A scenario without ``monitor`` gets ``{"generate": {}}``.
"""

from __future__ import annotations

import copy
import json
import math
import random
import re
import signal
import zlib
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
    data["monitor"] = expand_monitor(name, data)
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
    report = build_report(facts, source="simulated", meta={
        "scenario": name,
        "scenario_description": scenario.description,
        "target": (scenario.data.get("probe") or {}).get("python"),
    })
    report.monitor = copy.deepcopy(scenario.data["monitor"])
    return report


# --- monitor traces --------------------------------------------------------------------------------------

GIB = 1024 ** 3
DRIVER_STEP_SECONDS = 0.3  # host collection (files, NVML) between the environment and wheel steps
ENVIRONMENT_STAGES = ("interpreter", "torch_dist", "import_torch")
NVML_REASONS = {
    "NVML_ERROR_LIBRARY_NOT_FOUND": "no NVIDIA driver is installed (NVML library not found)",
    "NVML_ERROR_DRIVER_NOT_LOADED": "the NVIDIA kernel driver is not loaded",
    "NVML_ERROR_LIB_RM_VERSION_MISMATCH": "NVIDIA driver/library version mismatch (a reboot usually fixes it)",
    "NVML_ERROR_NO_PERMISSION": "no permission to query the NVIDIA driver",
}
TRACE_SERIES = ("t", "cpu", "ram")
GPU_SERIES = ("util", "mem_used_gib", "power_w", "temp_c")


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _markers(data: dict[str, Any]) -> tuple[list[dict[str, Any]], tuple[float, float] | None]:
    """Wizard-step markers from the probe's stage timings, and the (start, end) of the smoke stage."""
    from gpuassist.report.model import STEP_TITLES

    probe = data.get("probe") or {}
    status = (probe.get("end") or {}).get("status", "ok")
    startup = float(probe.get("startup_seconds", 0.03))
    stages = [s for s in probe.get("stages") or [] if s.get("status") != "skipped"]
    if status == "interpreter_not_found":
        stages, startup = [], 0.05
    t = startup
    env_end, smoke = t, None
    spans: dict[str, tuple[float, float]] = {}
    for i, s in enumerate(stages):
        seconds = float(s.get("seconds", 0.005))
        if i == len(stages) - 1 and status == "timeout":
            seconds = float((probe.get("end") or {}).get("limit", 30.0))
        spans[s["stage"]] = (t, t + seconds)
        t += seconds
    env_end = max([spans[n][1] for n in ENVIRONMENT_STAGES if n in spans], default=startup)
    rest = [spans[n] for n in spans if n not in ENVIRONMENT_STAGES]
    if "smoke" in spans:
        smoke = spans["smoke"]
    markers = [{"step": "environment", "title": STEP_TITLES["environment"], "start": 0.0, "end": round(env_end, 3)}]
    driver_end = env_end + DRIVER_STEP_SECONDS
    markers.append({"step": "driver", "title": STEP_TITLES["driver"], "start": round(env_end, 3),
                    "end": round(driver_end, 3)})
    if rest:
        wheel_seconds = sum(b - a for a, b in rest)
        markers.append({"step": "wheel", "title": STEP_TITLES["wheel"], "start": round(driver_end, 3),
                        "end": round(driver_end + wheel_seconds, 3)})
        if smoke:  # the wheel stages run after the driver step on the monitor's clock
            shift = driver_end - min(a for a, _ in rest)
            smoke = (smoke[0] + shift, smoke[1] + shift)
    return markers, smoke


def _cpu_facts(data: dict[str, Any]) -> tuple[int, float | None]:
    files = (data.get("host") or {}).get("files") or {}
    cpuinfo = files.get("/proc/cpuinfo")
    cores = len(re.findall(r"^processor\s*:", cpuinfo, re.M)) if isinstance(cpuinfo, str) else 0
    meminfo = files.get("/proc/meminfo")
    ram = None
    if isinstance(meminfo, str):
        total = re.search(r"MemTotal:\s*(\d+)", meminfo)
        avail = re.search(r"MemAvailable:\s*(\d+)", meminfo)
        if total and avail and int(total.group(1)) > 0:
            ram = 100.0 * (1 - int(avail.group(1)) / int(total.group(1)))
    return cores or 8, ram


def _probe_fact(data: dict[str, Any], key: str) -> Any:
    for s in (data.get("probe") or {}).get("stages") or []:
        if key in (s.get("facts") or {}):
            return s["facts"][key]
    return None


def expand_monitor(name: str, data: dict[str, Any]) -> dict[str, Any]:
    """The scenario's monitor trace in the monitor's format: a full trace is checked and kept, a
    ``{"generate": {...}}`` (or no ``monitor`` at all) is expanded deterministically from the scenario."""
    spec = data.get("monitor")
    if isinstance(spec, dict) and "t" in spec:
        trace = copy.deepcopy(spec)
        n = len(trace["t"])
        columns = [trace.get("cpu") or [], trace.get("ram") or [], *(trace.get("cores") or [])]
        columns += [g.get(f) or [None] * n for g in trace.get("gpus") or [] for f in GPU_SERIES]
        if any(len(c) != n for c in columns):
            raise ValueError(f"scenario {name}: monitor series have different lengths")
        trace.setdefault("interval", 0.1)
        trace.setdefault("markers", _markers(data)[0])
        trace.setdefault("gpu_reason", None)
        trace.setdefault("label", f"scenario {name} (SIMULATED)")
        return trace
    gen = dict((spec or {}).get("generate") or {}) if isinstance(spec, dict) else {}
    rng = random.Random(zlib.crc32(f"{name}:{gen.get('seed', 0)}".encode()))
    markers, smoke = _markers(data)
    interval = float(gen.get("interval", 0.1))
    end = max(float(gen.get("seconds", 8.0)), markers[-1]["end"] + 1.0)
    n = math.ceil(end / interval) + 1
    times = [round(i * interval, 3) for i in range(n)]
    ncores, ram_default = _cpu_facts(data)
    ncores = max(1, min(int(gen.get("cores", ncores)), 64))
    cpu_base = float(gen.get("cpu", 12.0))
    ram_base = float(gen.get("ram", ram_default if ram_default is not None else 35.0))
    env_end = markers[0]["end"]
    import_span = (max(0.0, env_end - float(next((s.get("seconds", 0.0) for s in (data.get("probe") or {})
                                                  .get("stages") or [] if s.get("stage") == "import_torch"), 0.0))),
                   env_end)

    def busy(t: float, span: tuple[float, float] | None) -> bool:
        return span is not None and span[0] <= t < span[1]

    cores: list[list[float]] = [[] for _ in range(ncores)]
    cpu, ram = [], []
    for t in times:
        row = []
        for c in range(ncores):
            v = max(0.0, rng.gauss(cpu_base, cpu_base * 0.3 + 1.0))
            if c == 0 and (busy(t, import_span) or busy(t, smoke)):
                v = 92.0 + rng.random() * 8.0  # import torch and the smoke test run on one core
            row.append(round(min(v, 100.0), 1))
        for c, v in enumerate(row):
            cores[c].append(v)
        cpu.append(round(sum(row) / ncores, 1))
        loaded = 1.5 if t >= import_span[0] else 0.0  # torch in memory
        ram.append(round(min(100.0, ram_base + loaded + rng.gauss(0, 0.1)), 1))
    host = data.get("host") or {}
    nvml = host.get("nvml") or {"init_error": "NVML_ERROR_LIBRARY_NOT_FOUND"}
    devices = [d for d in nvml.get("devices") or [] if isinstance(d, dict)] if not nvml.get("init_error") else []
    count = int(gen.get("gpus", len(devices)))
    cuda_ok = _probe_fact(data, "cuda.available") is True
    gpus = []
    for i in range(count):
        d = devices[i] if i < len(devices) else {}
        util0 = gen.get("gpu_util")
        if util0 is None:
            u = d.get("utilization")
            util0 = u[0] if isinstance(u, list) and u else 2.0
        mem_total = _num(d.get("memory_total"))
        mem0 = (_num(d.get("memory_used")) or 0.5 * GIB) / GIB
        power0 = (_num(d.get("power_usage_mw")) or 0.0) / 1000 or None
        limit = (_num(d.get("power_limit_mw")) or 0.0) / 1000 or None
        temp0 = _num(d.get("temperature"))
        load = float(gen.get("load_util", 65.0)) if cuda_ok and i == 0 else None
        series: dict[str, list[float | None]] = {f: [] for f in GPU_SERIES}
        heat = 0.0
        for t in times:
            on = load is not None and busy(t, smoke)
            util = load if on and load is not None else float(util0)
            series["util"].append(round(max(0.0, min(100.0, util + rng.gauss(0, 1.0 if on else 0.5))), 1))
            ctx = 0.45 if cuda_ok and i == 0 and t >= markers[-1]["start"] else 0.0  # CUDA context
            series["mem_used_gib"].append(round(mem0 + ctx + (0.3 if on else 0.0), 3))
            heat = min(heat + 0.5, 8.0) if on else max(heat - 0.2, 0.0)
            if power0 is not None:
                p = power0 + (((limit or power0 * 4) - power0) * util / 100 if on else 0.0)
                series["power_w"].append(round(max(0.0, p + rng.gauss(0, 0.4)), 1))
            else:
                series["power_w"].append(None)
            series["temp_c"].append(None if temp0 is None else round(temp0 + heat, 1))
        gpus.append({"index": i, "name": str(d.get("name") or f"GPU {i}"),
                     "memory_total_gib": round(mem_total / GIB, 2) if mem_total else None, **series})
    reason = None
    if not gpus:
        err = str(nvml.get("init_error") or "")
        reason = NVML_REASONS.get(err, f"NVML is not usable ({err})" if err else "no NVIDIA GPU")
        if host.get("os") == "Darwin":
            reason = "macOS has no NVML (no NVIDIA GPU plot)"
    return {"label": f"scenario {name} (SIMULATED)", "interval": interval, "t": times, "cpu": cpu, "ram": ram,
            "cores": cores, "gpus": gpus, "markers": markers, "gpu_reason": reason}
