"""Sampler thread + ring buffers for the live monitor (docs/architecture.md §1; budget §5: < 1 % of a core at 10 Hz).

Why a thread of its own: readings must keep their 10 Hz pace whatever the UI or a step is doing, and the
UI must never wait on NVML. The thread only appends numbers to a preallocated numpy ring under a lock;
the UI copies a :class:`Trace` out of it at its own redraw rate.

Sources (:class:`Source`): :class:`LiveSource` reads this machine (psutil, and NVML when a driver is
there; NVML is opened *inside* the thread, so start-up never pays for ``import pynvml``);
:class:`TraceSource` replays a recorded trace (a scenario's ``monitor`` key) for simulated machines.

Trace format (JSON; ``Report.monitor``, a scenario's ``monitor`` key, and the shape CSV export flattens)::

    {"label": "this machine", "interval": 0.1,
     "t": [seconds since start], "cpu": [%], "ram": [%], "cores": [[% of core 0 per sample], ...],
     "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "memory_total_gib": 23.99,
               "util": [%], "mem_used_gib": [GiB], "power_w": [W], "temp_c": [°C]}],
     "markers": [{"step": "dataloader", "title": "DataLoader sweep", "start": s, "end": s | null}],
     "gpu_reason": null | "why there is no GPU plot"}

A reading a GPU cannot give is ``null`` (NaN in memory).
"""

from __future__ import annotations

import contextlib
import csv
import io
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

GPU_FIELDS = ("util", "mem_used_gib", "power_w", "temp_c")
CSV_NAMES = {"util": "util_percent", "mem_used_gib": "mem_used_gib", "power_w": "power_w", "temp_c": "temp_c"}
GIB = 1024**3

# Plain-words reasons for "no GPU plot", keyed by NvmlSession.status.
NVML_REASONS = {
    "library_not_found": "the NVIDIA driver's NVML library is not on this machine (no NVIDIA driver or GPU here)",
    "driver_not_loaded": "the NVIDIA kernel driver is not loaded",
    "lib_rm_version_mismatch": "NVIDIA driver/library version mismatch (a reboot usually fixes it)",
    "no_permission": "no permission to query the NVIDIA driver",
}


@dataclass(frozen=True)
class GpuInfo:
    index: int
    name: str
    memory_total_gib: float | None


@dataclass
class Sample:
    """One reading of the whole machine. GPU tuples follow GPU_FIELDS; NaN = not reported."""

    cpu: float
    ram: float
    cores: list[float]
    gpus: list[tuple[float, float, float, float]] = field(default_factory=list)


@dataclass
class Marker:
    """When a wizard step ran, on the monitor's clock (seconds since the monitor started)."""

    step: str
    title: str
    start: float
    end: float | None = None


class Source(Protocol):
    """Where readings come from. ``open`` runs on the sampler thread (it may be slow: NVML)."""

    label: str
    n_cores: int
    gpus: list[GpuInfo]
    gpu_reason: str | None

    def open(self) -> None: ...

    def read(self, elapsed: float) -> Sample: ...

    def close(self) -> None: ...


def _nan(v: float | int | None) -> float:
    return float(v) if isinstance(v, (int, float)) else math.nan


class LiveSource:
    """This machine: psutil for CPU/RAM, NVML (lazily imported) for GPUs."""

    def __init__(self, nvml_backend: Any = None, *, label: str = "this machine") -> None:
        self.label = label
        self.n_cores = 0
        self.gpus: list[GpuInfo] = []
        self.gpu_reason: str | None = None
        self._backend = nvml_backend
        self._session: Any = None

    def open(self) -> None:
        # Start-up: the window is built before the sampler opens; NVML's wrapper (~45 ms) loads here.
        import psutil

        from gpuassist.collect.nvml import NvmlSession, RealNvml

        self.n_cores = len(psutil.cpu_percent(interval=None, percpu=True))  # also primes the delta

        session = NvmlSession(self._backend if self._backend is not None else RealNvml())
        if not session.open():
            self.gpu_reason = NVML_REASONS.get(str(session.status), f"NVML unavailable: {session.error}")
            return
        count = session.device_count() or 0
        if count == 0:
            session.close()
            self.gpu_reason = "the NVIDIA driver reports no GPU"
            return
        for i in range(count):
            h = session.handle(i)
            name = session.query("nvmlDeviceGetName", h) if h is not None else None
            mem = session.query("nvmlDeviceGetMemoryInfo", h) if h is not None else None
            total = getattr(mem, "total", None)
            self.gpus.append(
                GpuInfo(i, str(name or f"GPU {i}"), round(total / GIB, 2) if isinstance(total, (int, float)) else None)
            )
        self._session = session

    def read(self, elapsed: float) -> Sample:
        import psutil  # start-up: loaded by open() before the first read; the name is bound here

        cores = [float(c) for c in psutil.cpu_percent(interval=None, percpu=True)]
        gpus = []
        if self._session is not None:
            for info in self.gpus:
                s = self._session.sample(info.index)
                mem = s.memory_used / GIB if isinstance(s.memory_used, (int, float)) else None
                gpus.append((_nan(s.utilization_gpu), _nan(mem), _nan(s.power_w), _nan(s.temperature_c)))
        cpu = sum(cores) / len(cores) if cores else math.nan
        return Sample(cpu, float(psutil.virtual_memory().percent), cores, gpus)

    def close(self) -> None:
        if self._session is not None:
            with contextlib.suppress(Exception):
                self._session.close()
            self._session = None


class TraceSource:
    """Replays a recorded trace (format above) in real time, for simulated machines, following the wizard:
    while a step runs it plays that step's part of the trace (from its marker), between steps the part
    recorded at rest after the last marker, looping. So a step run alone, re-run, or run twice shows what
    the machine did during that step, on the app's own clock.

    A step's part runs from its marker's start to the end of the markers recorded back to back with it
    (the diagnosis's Environment, Driver and Wheel are one run). A trace without a resting part, or without
    markers, loops as a whole between steps. ``speed``: the replay speed of the steps (2 = twice as fast).
    """

    def __init__(self, trace: dict[str, Any], *, label: str = "recorded trace", speed: float = 1.0) -> None:
        self.label = label
        self._trace = Trace.from_dict(trace)
        self.n_cores = self._trace.cores.shape[1]
        self.gpus = list(self._trace.gpus)
        self.gpu_reason = self._trace.gpu_reason
        if not self.gpus and not self.gpu_reason:
            self.gpu_reason = "the recorded trace has no GPU readings"
        if len(self._trace.t) == 0:
            raise ValueError("the recorded monitor trace has no samples")
        self.speed = speed if speed > 0 else 1e6
        self._playing: tuple[str, float, float, float] | None = None  # (step, trace start, end, app time)
        ends = [m.end for m in self._trace.markers if m.end is not None]
        tr = self._trace.t
        rest_from = max(ends) if ends else None
        rest = np.nonzero(tr > rest_from)[0] if rest_from is not None else np.zeros(0, dtype=int)
        self._rest = rest if len(rest) >= 5 else np.arange(len(tr))

    def open(self) -> None:
        pass

    def part_of(self, step: str) -> tuple[float, float] | None:
        """(start, end) on the trace's clock of what ``step`` did, None when the trace has no such step."""
        markers = sorted(self._trace.markers, key=lambda m: m.start)
        first = next((i for i, m in enumerate(markers) if m.step == step), None)
        if first is None:
            return None
        first_end = markers[first].end
        end = first_end if first_end is not None else markers[first].start
        for m in markers[first + 1 :]:
            if m.end is None or m.start - end > 0.05:
                break
            end = m.end
        return markers[first].start, end

    def step_started(self, step: str, at: float) -> None:
        part = self.part_of(step)
        self._playing = (step, part[0], part[1], at) if part is not None else None

    def step_ended(self, step: str, at: float) -> None:
        playing = self._playing
        if playing is not None and playing[0] == step:
            self._playing = None

    def _index(self, elapsed: float) -> int:
        tr = self._trace.t
        playing = self._playing
        if playing is not None:
            _, start, end, at = playing
            pos = start + (elapsed - at) * self.speed
            if pos <= end:
                return int(np.clip(np.searchsorted(tr, pos, side="right") - 1, 0, len(tr) - 1))
        interval = self._trace.interval or 0.1
        return int(self._rest[int(elapsed / interval) % len(self._rest)])

    def read(self, elapsed: float) -> Sample:
        tr = self._trace
        i = self._index(elapsed)
        gpus = [
            (float(tr.gpu[i, g, 0]), float(tr.gpu[i, g, 1]), float(tr.gpu[i, g, 2]), float(tr.gpu[i, g, 3]))
            for g in range(len(self.gpus))
        ]
        return Sample(float(tr.cpu[i]), float(tr.ram[i]), [float(c) for c in tr.cores[i]], gpus)

    def close(self) -> None:
        pass


@dataclass
class Trace:
    """An ordered copy of the buffers: what the UI plots and what reports and CSV files hold."""

    t: np.ndarray
    cpu: np.ndarray
    ram: np.ndarray
    cores: np.ndarray  # (n, n_cores)
    gpu: np.ndarray  # (n, n_gpus, len(GPU_FIELDS))
    gpus: list[GpuInfo]
    markers: list[Marker]
    label: str = "this machine"
    gpu_reason: str | None = None
    interval: float = 0.1

    @classmethod
    def empty(cls, n_cores: int = 0, gpus: list[GpuInfo] | None = None) -> Trace:
        g = gpus or []
        return cls(
            np.zeros(0), np.zeros(0), np.zeros(0), np.zeros((0, n_cores)), np.zeros((0, len(g), len(GPU_FIELDS))), g, []
        )

    def __len__(self) -> int:
        return len(self.t)

    def step_at(self, t: float) -> str:
        for m in reversed(self.markers):
            if m.start <= t and (m.end is None or t <= m.end):
                return m.step
        return ""

    def to_dict(self, max_points: int | None = None) -> dict[str, Any]:
        """JSON form (NaN → null); ``max_points`` keeps every k-th sample so a report stays small."""
        stride = max(1, math.ceil(len(self.t) / max_points)) if max_points else 1

        def col(a: np.ndarray) -> list[float | None]:
            return [None if math.isnan(v) else round(float(v), 3) for v in a[::stride]]

        return {
            "label": self.label,
            "interval": self.interval * stride,
            "t": col(self.t),
            "cpu": col(self.cpu),
            "ram": col(self.ram),
            "cores": [col(self.cores[:, c]) for c in range(self.cores.shape[1])],
            "gpus": [
                {
                    "index": g.index,
                    "name": g.name,
                    "memory_total_gib": g.memory_total_gib,
                    **{f: col(self.gpu[:, i, k]) for k, f in enumerate(GPU_FIELDS)},
                }
                for i, g in enumerate(self.gpus)
            ],
            "markers": [
                {
                    "step": m.step,
                    "title": m.title,
                    "start": round(m.start, 3),
                    "end": None if m.end is None else round(m.end, 3),
                }
                for m in self.markers
            ],
            "gpu_reason": self.gpu_reason,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Trace:
        def arr(v: Any) -> np.ndarray:
            return np.array([math.nan if x is None else float(x) for x in (v or [])], dtype=float)

        t = arr(data.get("t"))
        n = len(t)
        cores_cols = [arr(c) for c in data.get("cores") or []]
        cores = np.stack(cores_cols, axis=1) if cores_cols else np.zeros((n, 0))
        gpus_data = list(data.get("gpus") or [])
        gpu = np.full((n, len(gpus_data), len(GPU_FIELDS)), math.nan)
        infos = []
        for i, g in enumerate(gpus_data):
            infos.append(GpuInfo(int(g.get("index", i)), str(g.get("name", f"GPU {i}")), g.get("memory_total_gib")))
            for k, f in enumerate(GPU_FIELDS):
                col = arr(g.get(f))
                gpu[: len(col), i, k] = col[:n]
        cpu, ram = arr(data.get("cpu")), arr(data.get("ram"))
        if not (len(cpu) == len(ram) == n and cores.shape[0] == n):
            raise ValueError("monitor trace columns have different lengths")
        markers = [
            Marker(
                str(m.get("step")),
                str(m.get("title", m.get("step"))),
                float(m.get("start", 0.0)),
                None if m.get("end") is None else float(m["end"]),
            )
            for m in data.get("markers") or []
        ]
        return cls(
            t,
            cpu,
            ram,
            cores,
            gpu,
            infos,
            markers,
            str(data.get("label", "recorded trace")),
            data.get("gpu_reason"),
            float(data.get("interval", 0.1)),
        )


def trace_to_csv(trace: Trace) -> str:
    """CSV text: one row per sample, one column per series, plus the step running at that moment."""
    header = ["t_seconds", "step", "cpu_percent", "ram_percent"]
    header += [f"core{c}_percent" for c in range(trace.cores.shape[1])]
    for g in trace.gpus:
        header += [f"gpu{g.index}_{CSV_NAMES[f]}" for f in GPU_FIELDS]
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(header)

    def fmt(v: float) -> str:
        return "" if math.isnan(v) else f"{v:.3f}".rstrip("0").rstrip(".")

    for i in range(len(trace.t)):
        row = [f"{trace.t[i]:.3f}", trace.step_at(float(trace.t[i])), fmt(trace.cpu[i]), fmt(trace.ram[i])]
        row += [fmt(v) for v in trace.cores[i]]
        row += [fmt(v) for v in trace.gpu[i].ravel()]
        w.writerow(row)
    return out.getvalue()


class Monitor:
    """Samples a :class:`Source` every ``interval`` seconds on a daemon thread into a ring of ``capacity``.

    ``start``/``stop`` are idempotent; ``stop`` joins the thread (it wakes at once: the wait is an Event).
    A source that fails to open or read ends sampling with ``error`` set; it never raises into the UI.
    """

    def __init__(
        self,
        source: Source | None = None,
        *,
        interval: float = 0.1,
        capacity: int = 6000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.source: Source = source if source is not None else LiveSource()
        self.interval = interval
        self.capacity = capacity
        self.error: str | None = None
        self._clock = clock
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._opened = threading.Event()
        self._thread: threading.Thread | None = None
        self._t0 = clock()
        self._buf: np.ndarray | None = None
        self._count = 0
        self._markers: list[Marker] = []

    # -- lifecycle ------------------------------------------------------------------------------------
    def start(self) -> None:
        """Start sampling; a no-op when already started or already stopped (a deferred start after a
        quick close must not leave a thread behind)."""
        if self._thread is not None or self._stop.is_set():
            return
        with self._lock:
            if not self._markers:  # a step marked before sampling began keeps its place on the axis
                self._t0 = self._clock()
        self._thread = threading.Thread(target=self._run, name="gpuassist-monitor", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> bool:
        """Stop and join; True when the thread is gone."""
        self._stop.set()
        t = self._thread
        if t is not None:
            t.join(timeout)
            return not t.is_alive()
        return True

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def wait_open(self, timeout: float | None = None) -> bool:
        """Block until the source is open (tests, benchmarks); the UI polls ``opened`` instead."""
        return self._opened.wait(timeout)

    @property
    def opened(self) -> bool:
        return self._opened.is_set()

    @property
    def label(self) -> str:
        return self.source.label

    @property
    def gpu_reason(self) -> str | None:
        """Why there is no GPU plot (None when there is one, or before the source is open)."""
        if self.error and self._opened.is_set() and not self.source.gpus:
            return self.source.gpu_reason or self.error
        return self.source.gpu_reason if self._opened.is_set() else None

    def elapsed(self) -> float:
        return self._clock() - self._t0

    # -- markers --------------------------------------------------------------------------------------
    def mark_start(self, step: str, title: str) -> None:
        """A wizard step starts now; a source that follows the steps (a replayed trace) is told too."""
        with self._lock:
            self._close_open(step)
            now = self.elapsed()
            self._markers.append(Marker(step, title, now))
        follow = getattr(self.source, "step_started", None)
        if follow is not None:
            follow(step, now)

    def mark_end(self, step: str) -> None:
        with self._lock:
            self._close_open(step)
            now = self.elapsed()
        follow = getattr(self.source, "step_ended", None)
        if follow is not None:
            follow(step, now)

    def _close_open(self, step: str) -> None:
        now = self.elapsed()
        for m in self._markers:
            if m.step == step and m.end is None:
                m.end = now

    # -- the thread -----------------------------------------------------------------------------------
    def _run(self) -> None:
        try:
            self.source.open()
        except Exception as exc:  # a broken psutil/NVML must not take the app down
            self.error = f"monitor could not start: {type(exc).__name__}: {exc}"
            self._opened.set()
            return
        ncols = 3 + self.source.n_cores + len(GPU_FIELDS) * len(self.source.gpus)
        with self._lock:
            self._buf = np.full((self.capacity, ncols), math.nan)
        self._opened.set()
        try:
            next_at = self._clock()
            while not self._stop.is_set():
                elapsed = self.elapsed()
                s = self.source.read(elapsed)
                row = [elapsed, s.cpu, s.ram, *s.cores[: self.source.n_cores]]
                row += [math.nan] * (3 + self.source.n_cores - len(row))
                for g in range(len(self.source.gpus)):
                    row += list(s.gpus[g]) if g < len(s.gpus) else [math.nan] * len(GPU_FIELDS)
                with self._lock:
                    self._buf[self._count % self.capacity] = row
                    self._count += 1
                next_at += self.interval
                delay = next_at - self._clock()
                if delay < -self.interval:  # fell behind (machine suspended?): do not burst to catch up
                    next_at = self._clock()
                    delay = 0.0
                self._stop.wait(max(0.0, delay))
        except Exception as exc:
            self.error = f"monitor stopped: {type(exc).__name__}: {exc}"
        finally:
            with contextlib.suppress(Exception):
                self.source.close()

    # -- reading --------------------------------------------------------------------------------------
    def snapshot(self) -> Trace:
        """An ordered copy of everything in the ring (cheap: a few hundred kB at most)."""
        src = self.source
        with self._lock:
            markers = [Marker(m.step, m.title, m.start, m.end) for m in self._markers]
            if self._buf is None or self._count == 0:
                tr = Trace.empty(src.n_cores, list(src.gpus))
                tr.markers, tr.label, tr.gpu_reason, tr.interval = markers, src.label, self.gpu_reason, self.interval
                return tr
            n = min(self._count, self.capacity)
            start = self._count % self.capacity if self._count > self.capacity else 0
            data = np.roll(self._buf, -start, axis=0)[:n] if start else self._buf[:n].copy()
        nc = src.n_cores
        ng = len(src.gpus)
        gpu = data[:, 3 + nc :].reshape(n, ng, len(GPU_FIELDS))
        return Trace(
            data[:, 0],
            data[:, 1],
            data[:, 2],
            data[:, 3 : 3 + nc],
            gpu,
            list(src.gpus),
            markers,
            src.label,
            self.gpu_reason,
            self.interval,
        )

    def export_csv(self, path: str | Path) -> None:
        Path(path).write_text(trace_to_csv(self.snapshot()), encoding="utf-8")
