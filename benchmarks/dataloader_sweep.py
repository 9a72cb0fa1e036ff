#!/usr/bin/env python3
"""DataLoader sweep budget (docs/architecture.md §5): the adaptive search must find a setting within 10 % of the full
grid's best throughput while spending at most 35 % of the grid's time.

One `gpuassist sweep --mode both` run in the target interpreter: the full grid (every num_workers x
pin_memory x persistent_workers x prefetch_factor combination that makes sense on the device) and then the
adaptive search, same process, same dataset, model and measurement window. Time is the wall time spent
measuring (including trials the adaptive search abandoned after one epoch).

Throughput compares the *settings* the two searches chose, re-measured alternately (``sweep.search.confirm``):
a single trial varies by 10-20 % on a busy machine, and the grid's best trial is the maximum of many noisy
ones, so comparing the searches' own best trials would measure luck. The single-trial gap is printed too.

    .venv/bin/python benchmarks/dataloader_sweep.py [--size default] [--python PATH] [--rounds 1]
"""

from __future__ import annotations

import argparse
import statistics
import sys

from gpuassist.runtime import run_sweep

THROUGHPUT_BUDGET = 0.10  # adaptive best within 10 % of the grid's best
TIME_BUDGET = 0.35  # adaptive time <= 35 % of the grid's


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="default", choices=["default", "small", "tiny"])
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--device", default=None)
    parser.add_argument("--rounds", type=int, default=1, help="repeat the whole comparison (worst round counts)")
    args = parser.parse_args()
    gaps: list[float] = []
    shares: list[float] = []
    for r in range(args.rounds):
        result = run_sweep(args.python, device=args.device, size=args.size, mode="both")
        if not result.ok:
            print(f"sweep failed: {result.outcome}: {result.facts.get('sweep.error')}")
            for s in result.facts.get("sweep.stages") or []:
                print(f"  {s}")
            return 2
        search = result.facts["sweep.search"]
        grid, adaptive, confirm = search["grid"], search["adaptive"], search["confirm"]
        gap = 1 - confirm["adaptive_vs_grid_throughput"]
        share = adaptive["seconds"] / grid["seconds"]
        gaps.append(gap)
        shares.append(share)
        cfg = result.facts["sweep.config"]
        print(
            f"round {r + 1}: device {cfg['device']}, {cfg['cpu_count']} CPUs, batch {cfg['batch_size']}, "
            f"{cfg['per_sample_cost_us']} us/sample, {cfg['epochs']} epochs/trial"
        )
        print(
            f"  grid:     {grid['trials']:3d} trials  {grid['seconds']:7.2f} s  best "
            f"{grid['best_samples_per_s']:9.1f} samples/s  {grid['best']}"
        )
        print(
            f"  adaptive: {adaptive['trials']:3d} trials  {adaptive['seconds']:7.2f} s  best "
            f"{adaptive['best_samples_per_s']:9.1f} samples/s  ({adaptive['aborted']} abandoned early)  "
            f"{adaptive['best']}"
        )
        print(
            f"  re-measured alternately x{confirm['rounds']}"
            f"{' (both searches chose the same setting)' if confirm['same_setting'] else ''}: grid's setting "
            f"{confirm['grid_samples_per_s']:9.1f} samples/s, adaptive's {confirm['adaptive_samples_per_s']:9.1f} "
            f"(single-trial gap was {(1 - search['adaptive_vs_grid_throughput']) * 100:.1f}%)"
        )
    gap, share = max(gaps), max(shares)
    ok_gap, ok_share = gap <= THROUGHPUT_BUDGET, share <= TIME_BUDGET
    print(
        f"adaptive best throughput within {gap * 100:.1f}% of the grid best (budget <= {THROUGHPUT_BUDGET:.0%}) "
        f"[{'OK' if ok_gap else 'OVER'}]"
    )
    print(f"using {share * 100:.1f}% of the grid's time (budget <= {TIME_BUDGET:.0%}) [{'OK' if ok_share else 'OVER'}]")
    if args.rounds > 1:
        print(
            f"  per round: gap {[round(g * 100, 1) for g in gaps]} %, time {[round(s * 100, 1) for s in shares]} %, "
            f"median gap {statistics.median(gaps) * 100:.1f} %, median time {statistics.median(shares) * 100:.1f} %"
        )
    return 0 if ok_gap and ok_share else 1


if __name__ == "__main__":
    sys.exit(main())
