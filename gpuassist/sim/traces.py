"""A simulated machine's monitor trace (the ``monitor`` key of a scenario, format in
:mod:`gpuassist.monitor.sampler`): kept as given when it is a full trace, else generated deterministically
from the scenario itself, so the same scenario always shows the same curves.

What the generated trace shows, step by step on one time axis (one marker per wizard step):

* the diagnosis: ``import torch`` and the smoke test keep one core busy, the smoke test loads GPU 0 when
  CUDA worked (step markers from the probe's stage timings);
* each recorded runtime test (``runtime`` key), in wizard order, after a short gap: the load follows the
  recorded stream — its stages, its progress lines (``cuda:1 batch 128`` loads GPU 1, ``cpu batch 8`` the
  CPU cores), and its measurements. During the DataLoader sweep each trial keeps ``num_workers`` cores busy
  and GPU 0 at the share of time the model step takes (samples/s ÷ what the step alone could consume), so a
  GPU starved by its DataLoader idles there visibly. Power and temperature rise towards the host's NVML
  readings taken under load (``host_sample``), with a thermal lag;
* a few seconds at rest after the last step: what the app plays between steps.
"""

from __future__ import annotations

import copy
import math
import random
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpuassist.collect.nvml import INIT_STATUS
from gpuassist.monitor.sampler import NVML_REASONS
from gpuassist.probe.events import Event
from gpuassist.sim.streams import runtime_stream
from gpuassist.step_table import title as step_title

GIB = 1024**3
DRIVER_STEP_SECONDS = 0.3  # host collection (files, NVML) between the environment and wheel steps
RUNTIME_GAP_S = 0.4  # judging one test and starting the next process
IDLE_TAIL_S = 3.0  # samples at rest after the last step
ENVIRONMENT_STAGES = ("interpreter", "torch_dist", "import_torch")
RUNTIME_ORDER = (("placement", "placement"), ("sweep", "dataloader"), ("bench", "benchmark"))  # (test, step)
CUDA_CONTEXT_GIB = 0.45
GPU_SERIES = ("util", "mem_used_gib", "power_w", "temp_c")


@dataclass(frozen=True)
class Load:
    """What the machine is doing at one moment of a step."""

    gpu: int | None = None  # the GPU doing the work (None: none)
    util: float = 0.0  # its utilisation, %
    cores: int = 0  # CPU cores kept busy
    context: bool = False  # a CUDA context is open (memory held on every used GPU)
    extra_gib: float = 0.0  # working memory on the loaded GPU


REST = Load()


@dataclass(frozen=True)
class Segment:
    """A span of the trace's clock with a function telling the load at each moment in it."""

    start: float
    end: float
    load: Callable[[float], Load]


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _probe_fact(data: dict[str, Any], key: str) -> Any:
    for s in (data.get("probe") or {}).get("stages") or []:
        if key in (s.get("facts") or {}):
            return s["facts"][key]
    return None


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


# --- the diagnosis -----------------------------------------------------------------------------------------


def diagnosis_markers(
    data: dict[str, Any],
) -> tuple[list[dict[str, Any]], tuple[float, float] | None, tuple[float, float]]:
    """Wizard-step markers from the probe's stage timings, the (start, end) of the smoke stage, and of
    ``import torch``."""

    probe = data.get("probe") or {}
    status = (probe.get("end") or {}).get("status", "ok")
    startup = float(probe.get("startup_seconds", 0.03))
    stages = [s for s in probe.get("stages") or [] if s.get("status") != "skipped"]
    if status == "interpreter_not_found":
        stages, startup = [], 0.05
    t = startup
    smoke = None
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
    markers = [{"step": "environment", "title": step_title("environment"), "start": 0.0, "end": round(env_end, 3)}]
    driver_end = env_end + DRIVER_STEP_SECONDS
    markers.append(
        {"step": "driver", "title": step_title("driver"), "start": round(env_end, 3), "end": round(driver_end, 3)}
    )
    if rest:
        wheel_seconds = sum(b - a for a, b in rest)
        markers.append(
            {
                "step": "wheel",
                "title": step_title("wheel"),
                "start": round(driver_end, 3),
                "end": round(driver_end + wheel_seconds, 3),
            }
        )
        if smoke:  # the wheel stages run after the driver step on the monitor's clock
            shift = driver_end - min(a for a, _ in rest)
            smoke = (smoke[0] + shift, smoke[1] + shift)
    import_seconds = float(
        next((s.get("seconds", 0.0) for s in probe.get("stages") or [] if s.get("stage") == "import_torch"), 0.0)
    )
    return markers, smoke, (max(0.0, env_end - import_seconds), env_end)


def _diagnosis_segment(
    data: dict[str, Any],
    markers: list[dict[str, Any]],
    smoke: tuple[float, float] | None,
    importing: tuple[float, float],
    load_util: float,
) -> Segment:
    cuda_ok = _probe_fact(data, "cuda.available") is True
    wheel = next((m for m in markers if m["step"] == "wheel"), None)

    def load(t: float) -> Load:
        if smoke is not None and smoke[0] <= t < smoke[1]:
            return Load(0 if cuda_ok else None, load_util if cuda_ok else 0.0, 1, cuda_ok, 0.3 if cuda_ok else 0.0)
        if importing[0] <= t < importing[1]:
            return Load(cores=1)
        if wheel is not None and cuda_ok and wheel["start"] <= t < wheel["end"]:
            return Load(context=True)  # CUDA initialised, the probe still runs
        return REST

    return Segment(0.0, markers[-1]["end"], load)


# --- the runtime tests -------------------------------------------------------------------------------------


def _stage_spans(events: list[Event]) -> tuple[dict[str, tuple[float, float]], list[tuple[float, str]]]:
    spans: dict[str, tuple[float, float]] = {}
    progress: list[tuple[float, str]] = []
    opened: dict[str, float] = {}
    for e in events:
        rt = float(e["rt"])
        if e["event"] == "stage" and e["status"] == "start":
            opened[e["stage"]] = rt
        elif e["event"] == "stage" and e["stage"] in opened:
            spans[e["stage"]] = (opened.pop(e["stage"]), rt)
        elif e["event"] == "progress":
            progress.append((rt, e["message"]))
    return spans, progress


def _device_of(message: str) -> tuple[int | None, bool]:
    """(GPU index, CPU) a progress line names: ``cuda:1 batch 8`` → (1, False), ``cpu batch 8`` → (None, True)."""
    m = re.search(r"cuda:(\d+)", message)
    if m:
        return int(m.group(1)), False
    return None, bool(re.match(r"cpu\b", message))


def _facts(events: list[Event]) -> dict[str, Any]:
    return {e["key"]: e["value"] for e in events if e["event"] == "fact"}


def _runtime_load(test: str, events: list[Event], threads: int) -> Callable[[float], Load]:
    """The load during one recorded runtime test, ``t`` in seconds since its launch."""
    spans, progress = _stage_spans(events)
    facts = _facts(events)
    accel = bool(
        facts.get("placement.cuda_available")
        or facts.get("bench.speedup")
        or str((facts.get("sweep.config") or {}).get("device", "cpu")) != "cpu"
    )
    trials: list[tuple[float, float, Load]] = []
    if test == "sweep" and "search" in spans:
        trials = _trial_slots(facts, spans["search"], accel)

    def stage_at(t: float) -> str | None:
        return next((name for name, (a, b) in spans.items() if a <= t < b), None)

    def message_at(t: float) -> str:
        return next((m for rt, m in reversed(progress) if rt <= t), "")

    def load(t: float) -> Load:
        stage = stage_at(t)
        if stage is None:
            return REST
        if stage == "import_torch":
            return Load(cores=1)
        ctx = accel and stage not in ("import_torch",)
        if test == "placement":
            util = {"correctness": 35.0, "bandwidth": 12.0, "transfer": 45.0}.get(stage, 0.0)
            extra = {"bandwidth": 0.26, "transfer": 0.2}.get(stage, 0.0)
            return Load(0 if accel and util else None, util if accel else 0.0, 1, ctx, extra)
        if test == "sweep":
            if stage == "setup":
                a, b = spans["setup"]
                timing = t < a + 0.45 * (b - a)
                return Load(0 if accel and timing else None, 62.0 if accel and timing else 0.0, 1, ctx, 0.1)
            return next((slot for a, b, slot in trials if a <= t < b), Load(cores=1, context=ctx))
        # bench
        if stage == "cpu":
            return Load(cores=threads, context=False)
        gpu, on_cpu = _device_of(message_at(t))
        if on_cpu or gpu is None:
            return Load(cores=threads if on_cpu else 1, context=ctx)
        if stage == "scaling":
            batch = re.search(r"batch (\d+)", message_at(t))
            size = int(batch.group(1)) if batch else 64
            return Load(gpu, min(98.0, 52.0 + 40.0 * min(1.0, size / 128)), 1, True, 0.15 + size / 512 * 1.1)
        if stage == "accelerators":
            synced = "sync_each_step" in message_at(t)
            return Load(gpu, 78.0 if synced else 96.0, 1, True, 0.3)
        return Load(gpu, 55.0, 1, True, 0.3)  # profile

    return load


def _trial_slots(facts: dict[str, Any], span: tuple[float, float], accel: bool) -> list[tuple[float, float, Load]]:
    """Each DataLoader trial's share of the search stage, in the order run, with its load: ``num_workers``
    busy cores (the main process too) and the GPU busy for the share of time the model step takes."""
    trials = [t for t in facts.get("sweep.trials") or [] if isinstance(t, dict)]
    compute = _num(facts.get("sweep.compute_seconds_per_batch"))
    batch = _num((facts.get("sweep.config") or {}).get("batch_size")) or 32
    total = sum(_num(t.get("seconds")) or 0.0 for t in trials) or 1.0
    a, b = span
    scale = (b - a) / total
    out = []
    t0 = a
    for trial in trials:
        seconds = (_num(trial.get("seconds")) or 0.0) * scale
        rate = _num(trial.get("samples_per_s")) or 0.0
        share = rate * compute / batch if compute else 0.0
        workers = int(trial.get("num_workers") or 0)
        util = min(97.0, 100.0 * share) if accel else 0.0
        out.append(
            (t0, t0 + seconds, Load(0 if accel else None, util, max(1, workers + (1 if workers else 0)), accel, 0.12))
        )
        t0 += seconds
    return out


def runtime_segments(data: dict[str, Any], start: float) -> tuple[list[dict[str, Any]], list[Segment]]:
    """Markers and load segments of the scenario's recorded runtime tests, in wizard order from ``start``."""

    markers: list[dict[str, Any]] = []
    segments: list[Segment] = []
    threads = 1
    t = start
    for test, step in RUNTIME_ORDER:
        events = runtime_stream(data, test)
        if not events:
            continue
        torch_fact = _facts(events).get(f"{test}.torch")
        if isinstance(torch_fact, dict) and isinstance(torch_fact.get("threads"), int):
            threads = int(torch_fact["threads"])
        length = float(events[-1]["rt"])
        t += RUNTIME_GAP_S
        markers.append({"step": step, "title": step_title(step), "start": round(t, 3), "end": round(t + length, 3)})
        fn = _runtime_load(test, events, threads)
        segments.append(Segment(t, t + length, (lambda f, t0: lambda x: f(x - t0))(fn, t)))
        t += length
    return markers, segments


# --- the trace ---------------------------------------------------------------------------------------------


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
        trace.setdefault("markers", diagnosis_markers(data)[0])
        trace.setdefault("gpu_reason", None)
        trace.setdefault("label", f"scenario {name} (SIMULATED)")
        return trace
    gen = dict((spec or {}).get("generate") or {}) if isinstance(spec, dict) else {}
    return _generate(name, data, gen)


def _generate(name: str, data: dict[str, Any], gen: dict[str, Any]) -> dict[str, Any]:
    rng = random.Random(zlib.crc32(f"{name}:{gen.get('seed', 0)}".encode()))
    markers, smoke, importing = diagnosis_markers(data)
    segments = [_diagnosis_segment(data, markers, smoke, importing, float(gen.get("load_util", 65.0)))]
    more, runtime = runtime_segments(data, markers[-1]["end"])
    markers += more
    segments += runtime
    interval = float(gen.get("interval", 0.1))
    end = max(float(gen.get("seconds", 8.0)), markers[-1]["end"] + (IDLE_TAIL_S if runtime else 1.0))
    n = math.ceil(end / interval) + 1
    times = [round(i * interval, 3) for i in range(n)]
    loads = [next((s.load(t) for s in segments if s.start <= t < s.end), REST) for t in times]
    ncores, ram_default = _cpu_facts(data)
    ncores = max(1, min(int(gen.get("cores", ncores)), 64))
    cpu_base = float(gen.get("cpu", 12.0))
    ram_base = float(gen.get("ram", ram_default if ram_default is not None else 35.0))
    cores: list[list[float]] = [[] for _ in range(ncores)]
    cpu, ram = [], []
    for t, ld in zip(times, loads, strict=True):
        row = []
        for c in range(ncores):
            v = max(0.0, rng.gauss(cpu_base, cpu_base * 0.3 + 1.0))
            if c < min(ld.cores, ncores):
                v = 92.0 + rng.random() * 8.0
            row.append(round(min(v, 100.0), 1))
        for c, v in enumerate(row):
            cores[c].append(v)
        cpu.append(round(sum(row) / ncores, 1))
        loaded = 1.5 if t >= importing[0] else 0.0  # torch in memory
        ram.append(round(min(100.0, ram_base + loaded + 0.6 * min(ld.cores, 8) / 8 + rng.gauss(0, 0.1)), 1))
    gpus = _gpu_series(data, gen, times, loads, rng)
    reason = None
    host = data.get("host") or {}
    if not gpus:
        nvml = host.get("nvml") or {"init_error": "NVML_ERROR_LIBRARY_NOT_FOUND"}
        err = str(nvml.get("init_error") or "")

        reason = NVML_REASONS.get(INIT_STATUS.get(err, ""), f"NVML is not usable ({err})" if err else "no NVIDIA GPU")
        if host.get("os") == "Darwin":
            reason = "macOS has no NVML (no NVIDIA GPU plot)"
    return {
        "label": f"scenario {name} (SIMULATED)",
        "interval": interval,
        "t": times,
        "cpu": cpu,
        "ram": ram,
        "cores": cores,
        "gpus": gpus,
        "markers": markers,
        "gpu_reason": reason,
    }


def _under_load(data: dict[str, Any], index: int) -> dict[str, Any]:
    """The host's NVML reading of GPU ``index`` taken under load during the recorded benchmark, if any."""
    for e in runtime_stream(data, "bench") or []:
        if e["event"] == "host_sample":
            for g in e["gpus"]:
                if g.get("index") == index:
                    return g
    return {}


def _gpu_series(
    data: dict[str, Any], gen: dict[str, Any], times: list[float], loads: list[Load], rng: random.Random
) -> list[dict[str, Any]]:
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
        hot = _under_load(data, i)
        if power0 is not None and _num(hot.get("power_w")) and _num(hot.get("utilization_gpu")):
            full_power = min(limit or 1e9, float(hot["power_w"]) / max(0.3, float(hot["utilization_gpu"]) / 100))
        else:
            full_power = (power0 or 0.0) + ((limit or (power0 or 0.0) * 4) - (power0 or 0.0)) * 0.6
        hot_temp = _num(hot.get("temperature_c"))
        full_temp = hot_temp if hot_temp is not None else (None if temp0 is None else min(83.0, temp0 + 30.0))
        series: dict[str, list[float | None]] = {f: [] for f in GPU_SERIES}
        temp = temp0
        for ld in loads:
            mine = ld.gpu == i and cuda_ok
            util = max(float(util0), ld.util) if mine else float(util0)
            series["util"].append(round(max(0.0, min(100.0, util + rng.gauss(0, 1.0 if mine else 0.5))), 1))
            held = (CUDA_CONTEXT_GIB if ld.context and cuda_ok and (i == 0 or mine) else 0.0) + (
                ld.extra_gib if mine else 0.0
            )
            series["mem_used_gib"].append(round(mem0 + held, 3))
            busy = (util - float(util0)) / 100 if mine else 0.0
            if power0 is not None:
                p = power0 + max(0.0, full_power - power0) * busy
                series["power_w"].append(round(max(0.0, p + rng.gauss(0, 0.4)), 1))
            else:
                series["power_w"].append(None)
            if temp is not None and temp0 is not None and full_temp is not None:
                target = temp0 + (full_temp - temp0) * min(1.0, busy / 0.9)
                temp += (target - temp) * (0.06 if target > temp else 0.03)  # heats faster than it cools
                series["temp_c"].append(round(temp, 1))
            else:
                series["temp_c"].append(None)
        gpus.append(
            {
                "index": i,
                "name": str(d.get("name") or f"GPU {i}"),
                "memory_total_gib": round(mem_total / GIB, 2) if mem_total else None,
                **series,
            }
        )
    return gpus


def diagnosis_part(trace: dict[str, Any]) -> dict[str, Any]:
    """The trace up to one second after the diagnosis (what ``gpuassist diagnose --simulate`` ran): the
    recorded runtime tests are not part of a plain diagnosis."""
    diag = [m for m in trace.get("markers") or [] if m.get("step") in ("environment", "driver", "wheel")]
    if not diag or len(diag) == len(trace.get("markers") or []):
        return trace
    until = max(float(m.get("end") or m.get("start") or 0.0) for m in diag) + 1.0
    n = sum(1 for t in trace["t"] if t <= until)
    out = dict(
        trace,
        t=trace["t"][:n],
        cpu=trace["cpu"][:n],
        ram=trace["ram"][:n],
        cores=[c[:n] for c in trace.get("cores") or []],
        markers=diag,
    )
    out["gpus"] = [dict(g, **{f: (g.get(f) or [])[:n] for f in GPU_SERIES}) for g in trace.get("gpus") or []]
    return out
