#!/usr/bin/env python3
"""CPU cost of the live monitor's sampler at 10 Hz: process CPU time over a window, as % of one core.

Budget (docs/architecture.md §5): < 1 % of one core. Measured as this process's whole CPU time (all threads) while
the sampler runs and the main thread sleeps — an upper bound on the sampler's own cost; the same window
with the sampler stopped is printed for reference. Uses the real source (psutil + NVML when present).

    .venv/bin/python benchmarks/monitor_cost.py [--seconds 20] [--nvml tests/data/hosts/workstation-rtx4090/nvml.json]

``--nvml FILE`` reads GPUs from recorded NVML answers (this machine has no GPU): it measures gpuassist's own
per-GPU work on every sample; a real driver adds its query latency (a few µs per call) on top.
"""

from __future__ import annotations

import argparse
import sys
import time

from gpuassist.monitor import LiveSource, Monitor


def cpu_over(seconds: float) -> float:
    c0, t0 = time.process_time(), time.perf_counter()
    time.sleep(seconds)
    return (time.process_time() - c0) / (time.perf_counter() - t0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--nvml", metavar="FILE", help="recorded NVML answers (GPU code path without a GPU)")
    args = parser.parse_args()
    backend = None
    if args.nvml:
        from gpuassist.collect.nvml import RecordedNvml

        backend = RecordedNvml.from_file(args.nvml)
    mon = Monitor(LiveSource(backend), interval=0.1)
    mon.start()
    mon.wait_open(10)
    time.sleep(1.0)  # past the first readings (psutil's first per-CPU delta, NVML handles)
    n0 = len(mon.snapshot())
    busy = cpu_over(args.seconds)
    n1 = len(mon.snapshot())
    mon.stop()
    idle = cpu_over(min(5.0, args.seconds / 4))
    rate = (n1 - n0) / args.seconds
    cost = busy * 100
    tr = mon.snapshot()
    print(
        f"source             : {mon.label}; {tr.cores.shape[1]} cores; GPUs: "
        f"{', '.join(g.name for g in tr.gpus) or 'none (' + str(mon.gpu_reason) + ')'}"
    )
    print(f"samples            : {n1 - n0} in {args.seconds:.0f} s = {rate:.2f} Hz")
    print(f"CPU, sampler on    : {busy * 100:.3f} % of one core (sampler stopped: {idle * 100:.3f} %)")
    print(f"sampler cost       : {cost:.3f} % of one core  (budget < 1 %)")
    return 0 if cost < 1.0 and rate > 9.0 else 1


if __name__ == "__main__":
    sys.exit(main())
