"""The monitor's sampler (Qt-free): ring buffers, markers, CSV/JSON traces, clean stop, and the real
sources on this machine (no GPU: a reason) and on a recorded NVML (a GPU)."""

from __future__ import annotations

import csv
import io
import math
import threading
from pathlib import Path

from gpuassist.collect.nvml import RecordedNvml
from gpuassist.monitor import LiveSource, Monitor, Sample, Trace, TraceSource, trace_to_csv
from gpuassist.monitor.sampler import GpuInfo

HOSTS = Path(__file__).parent / "data" / "hosts"


class CountingSource:
    """A deterministic machine: CPU = sample number, one GPU whose power is not reported."""

    label = "fake"
    n_cores = 2
    gpu_reason = None

    def __init__(self, stop_after: int, done: threading.Event) -> None:
        self.gpus = [GpuInfo(0, "Fake GPU", 24.0)]
        self.n = 0
        self.stop_after = stop_after
        self.done = done
        self.closed = False

    def open(self) -> None:
        pass

    def read(self, elapsed: float) -> Sample:
        self.n += 1
        if self.n >= self.stop_after:
            self.done.set()
        return Sample(float(self.n), 50.0, [float(self.n), 0.0], [(float(self.n), 1.5, math.nan, 60.0)])

    def close(self) -> None:
        self.closed = True


def run_monitor(n: int, capacity: int) -> tuple[Monitor, CountingSource]:
    done = threading.Event()
    src = CountingSource(n, done)
    mon = Monitor(src, interval=0.001, capacity=capacity)
    mon.mark_start("environment", "Diagnosis")
    mon.start()
    assert done.wait(10)
    mon.mark_end("environment")
    assert mon.stop(2.0)
    return mon, src


def test_ring_keeps_the_newest_samples_in_order_and_the_thread_stops_cleanly() -> None:
    mon, src = run_monitor(25, capacity=10)
    assert not mon.running and src.closed
    tr = mon.snapshot()
    assert len(tr) == 10
    assert list(tr.cpu) == sorted(tr.cpu) and tr.cpu[-1] >= 25
    assert list(tr.cores[:, 0]) == list(tr.cpu)
    assert all(t1 >= t0 for t0, t1 in zip(tr.t, tr.t[1:], strict=False))
    assert tr.gpu.shape == (10, 1, 4) and math.isnan(tr.gpu[0, 0, 2]) and tr.gpu[0, 0, 3] == 60.0
    (marker,) = tr.markers
    assert marker.step == "environment" and marker.end is not None and marker.end >= marker.start


def test_csv_export_has_one_column_per_series_and_the_running_step() -> None:
    mon, _ = run_monitor(5, capacity=100)
    rows = list(csv.reader(io.StringIO(trace_to_csv(mon.snapshot()))))
    assert rows[0] == [
        "t_seconds",
        "step",
        "cpu_percent",
        "ram_percent",
        "core0_percent",
        "core1_percent",
        "gpu0_util_percent",
        "gpu0_mem_used_gib",
        "gpu0_power_w",
        "gpu0_temp_c",
    ]
    assert len(rows) >= 6
    assert rows[1][1] == "environment"
    assert rows[1][8] == ""  # power not reported: empty, not 0 and not "nan"
    assert rows[1][9] == "60"


def test_trace_json_round_trip_and_replay() -> None:
    mon, _ = run_monitor(8, capacity=100)
    tr = mon.snapshot()
    data = tr.to_dict()
    back = Trace.from_dict(data)
    assert list(back.cpu) == [round(v, 3) for v in tr.cpu]
    assert back.gpus == tr.gpus and back.markers[0].step == "environment"
    assert data["gpus"][0]["power_w"][0] is None
    assert len(tr.to_dict(max_points=4)["t"]) <= 4
    src = TraceSource(data, label="recorded")
    s = src.read(0.0)
    assert s.cpu == back.cpu[0] and s.gpus[0][3] == 60.0


def test_live_source_on_this_machine_reads_cpu_and_explains_the_missing_gpu() -> None:
    mon = Monitor(LiveSource(), interval=0.05)
    mon.start()
    assert mon.wait_open(10)
    deadline = threading.Event()
    while len(mon.snapshot()) < 3 and not deadline.wait(0.05):
        pass
    assert mon.stop(2.0)
    tr = mon.snapshot()
    assert tr.cores.shape[1] >= 1 and 0 <= tr.cpu[-1] <= 100 and 0 < tr.ram[-1] <= 100
    # this machine has no NVIDIA driver (docs/architecture.md §4): no GPU plot, and a reason for the UI
    assert tr.gpus == [] and mon.gpu_reason and "NVIDIA" in mon.gpu_reason


def test_live_source_with_a_recorded_gpu() -> None:
    src = LiveSource(RecordedNvml.from_file(HOSTS / "workstation-rtx4090" / "nvml.json"))
    src.open()
    try:
        assert [g.name for g in src.gpus] == ["NVIDIA GeForce RTX 4090"]
        assert src.gpus[0].memory_total_gib == 23.99 and src.gpu_reason is None
        s = src.read(0.0)
        util, mem, power, temp = s.gpus[0]
        assert (util, power, temp) == (3.0, 30.0, 45.0) and round(mem, 1) == 3.0
    finally:
        src.close()


def test_a_failing_source_ends_sampling_with_a_reason_not_an_exception() -> None:
    class Broken(CountingSource):
        def open(self) -> None:
            raise OSError("no /proc")

    mon = Monitor(Broken(1, threading.Event()))
    mon.start()
    assert mon.wait_open(5)
    assert mon.stop(2.0)
    assert mon.error == "monitor could not start: OSError: no /proc"
    assert len(mon.snapshot()) == 0
