"""CNN benchmark (host side), plus NVML readings taken *while* the accelerator stages run.

Clock-throttle reasons read at rest say little (an idle GPU reports "idle"); read under the benchmark's
load they show thermal or power slowdown. The host samples NVML (never torch) at most every
``sample_every`` seconds during the accelerator stages and appends ``host_sample`` events to the stream,
so a recording replays into the same ``bench.gpu_samples`` fact.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

from gpuassist.collect.nvml import NvmlBackend, NvmlSession, RealNvml
from gpuassist.probe.events import Event, HostSampleEvent, OnEvent
from gpuassist.runtime.common import RuntimeResult, run_runtime, runtime_facts_from_events

LOADED_STAGES = ("scaling", "accelerators", "profile")
SAMPLE_FIELDS = (
    "index",
    "pci_bus_id",
    "throttle_reasons",
    "temperature_c",
    "power_w",
    "power_limit_w",
    "utilization_gpu",
    "pcie_gen_current",
    "pcie_width_current",
)


class GpuSampler:
    """NVML readings during loaded stages; silent (no samples) where NVML is not usable."""

    def __init__(self, backend: NvmlBackend | None, every: float) -> None:
        self.session = NvmlSession(backend or RealNvml())
        self.every = every
        self.last = -1e9
        self.stage: str | None = None
        self.samples: list[HostSampleEvent] = []
        self.usable = self.session.open()

    def on_event(self, event: Event) -> None:
        if event["event"] == "stage":
            self.stage = event["stage"] if event["status"] == "start" else None
        if not self.usable or self.stage not in LOADED_STAGES or event["event"] not in ("progress", "stage"):
            return
        now = time.monotonic()
        if now - self.last < self.every:
            return
        self.last = now
        gpus: list[dict[str, object]] = []
        for i in range(self.session.device_count() or 0):
            d = self.session.device_facts(i)
            gpus.append({k: d.get(k) for k in SAMPLE_FIELDS})
        self.samples.append({"event": "host_sample", "stage": self.stage, "gpus": gpus, "rt": event["rt"]})

    def close(self) -> None:
        self.session.close()


def run_bench(
    python: str | None = None,
    *,
    device: str | Sequence[str] | None = None,
    size: str | None = None,
    sizes: Mapping[str, Any] | None = None,
    on_event: OnEvent | None = None,
    cancel: threading.Event | None = None,
    env: Mapping[str, str] | None = None,
    nvml: NvmlBackend | None = None,
    sample_every: float = 1.0,
) -> RuntimeResult:
    """Run the CNN benchmark in ``python``; facts ``bench.*`` (with ``bench.gpu_samples`` when NVML
    answered during the run)."""
    sampler = GpuSampler(nvml, sample_every)

    def both(event: Event) -> None:
        sampler.on_event(event)
        if on_event is not None:
            on_event(event)

    try:
        result = run_runtime(
            "bench", python, device=device, size=size, sizes=sizes, on_event=both, cancel=cancel, env=env
        )
    finally:
        sampler.close()
    if not sampler.samples:
        return result
    events: list[Event] = sorted([*result.events, *sampler.samples], key=lambda e: e["rt"])
    # keep the runner's own closing events last (a sample's rt can equal theirs)
    events.sort(key=lambda e: e["event"] in ("killed", "exit"))
    return RuntimeResult("bench", runtime_facts_from_events("bench", events), events)
