#!/usr/bin/env python3
"""What choosing the default target costs `gpuassist diagnose` (issue 11): discovery reads files only, so
it must stay a small fraction of the diagnosis it precedes.

Times the choice alone in this process, and `gpuassist diagnose --python T` (no choice made) and
`gpuassist diagnose` (T chosen) alternately. Budget: the choice costs under 10 % of a diagnosis of the same
interpreter (the end-to-end difference is printed too; on a loaded machine it is mostly noise).

    .venv/bin/python benchmarks/default_target.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path


def timed(cmd: list[str]) -> tuple[float, dict]:
    started = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    return time.perf_counter() - started, json.loads(p.stdout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    from gpuassist.envs.target import choose_default

    choice_times = []
    for _ in range(max(5, args.rounds)):
        started = time.perf_counter()
        choice = choose_default()
        choice_times.append(time.perf_counter() - started)
    print(f"default target: {choice.python}\n  why: {choice.reason}")
    print(
        f"choosing it in-process: median {statistics.median(choice_times) * 1000:.1f} ms "
        f"({len(choice.discovery.candidates) if choice.discovery else 0} interpreters found, none run)"
    )
    ga = shutil.which("gpuassist", path=str(Path(sys.executable).parent)) or "gpuassist"
    default, named = [], []
    for _ in range(args.rounds):
        t, report = timed([ga, "diagnose", "--format", "json"])
        default.append(t)
        t, _ = timed([ga, "diagnose", "--format", "json", "--python", str(report["meta"]["target"])])
        named.append(t)
    d, n = statistics.median(default), statistics.median(named)
    c = statistics.median(choice_times)
    print(
        f"gpuassist diagnose (default chosen) median {d:.3f} s; with --python (same target) {n:.3f} s "
        f"(end to end: {d / n:.2f}x)"
    )
    print(f"ratio choice / diagnosis = {c / n:.3f}  (budget < 0.10)")
    return 0 if c / n < 0.10 else 1


if __name__ == "__main__":
    sys.exit(main())
