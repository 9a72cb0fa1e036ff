#!/usr/bin/env python3
"""CNN benchmark timing fidelity (docs/architecture.md §5): gpuassist's timing of the training step must be
within 5 % of `torch.utils.benchmark.Timer` on the same step, in the same process.

Uses the very functions the runtime script runs in the target interpreter (`make_train_step`,
`time_step` from gpuassist/probe/runtime_script.py), on the CPU here (on a GPU machine pass --device
cuda:0: both sides synchronise the device). The two timings alternate (A B A B ...) so drift on a busy
machine hits both; the ratio of their medians is printed.

    .venv/bin/python benchmarks/cnn_timing_fidelity.py [--device cpu] [--batch 64] [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys

import torch
from torch.utils.benchmark import Timer

from gpuassist.probe import runtime_script as rs

BUDGET = 0.05


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.5, help="measuring time per timing, each side")
    args = parser.parse_args()
    sizes = rs.SIZES["bench"]["default"]
    step = rs.make_train_step(torch, args.device, args.batch)
    ours: list[float] = []
    theirs: list[float] = []
    timer = Timer(stmt="step()", globals={"step": step}, num_threads=torch.get_num_threads())
    for _ in range(2):  # shared warm-up (allocator, oneDNN primitive cache)
        step()
    for r in range(args.rounds):
        t = rs.time_step(
            torch,
            step,
            args.device,
            warmup=int(sizes["warmup"]),
            min_seconds=args.seconds,
            min_blocks=int(sizes["min_blocks"]),
        )
        m = timer.blocked_autorange(min_run_time=args.seconds)
        ours.append(t["step_s"])
        theirs.append(m.median)
        print(
            f"round {r + 1}: gpuassist {t['step_s'] * 1e3:8.3f} ms/step ({t['blocks']} blocks x "
            f"{t['steps_per_block']})   Timer {m.median * 1e3:8.3f} ms/step ({len(m.times)} blocks x "
            f"{m.number_per_run})"
        )
    a, b = statistics.median(ours), statistics.median(theirs)
    ratio = a / b
    ok = abs(ratio - 1) <= BUDGET
    print(f"device {args.device}, batch {args.batch}, torch {torch.__version__}, {torch.get_num_threads()} threads")
    print(
        f"gpuassist / torch.utils.benchmark.Timer = {ratio:.4f} ({(ratio - 1) * 100:+.2f}%, budget within "
        f"{BUDGET:.0%}) [{'OK' if ok else 'OVER'}]"
    )
    print(f"images/s: gpuassist {args.batch / a:,.0f}, Timer {args.batch / b:,.0f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
