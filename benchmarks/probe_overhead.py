#!/usr/bin/env python3
"""What the probe costs on top of `import torch`: median wall time of `run_probe()` against
`python -c "import torch"` in the same interpreter, alternated, warm caches (a first round discarded).

The probe's budget is python start-up + `import torch` + < 0.2 s (smoke stage < 0.15 s on a CPU machine).

    .venv/bin/python benchmarks/probe_overhead.py [--rounds 9] [--python PATH]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from gpuassist.probe.runner import run_probe


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    probe: list[float] = []
    bare: list[float] = []
    no_teardown: list[float] = []
    stages: dict[str, list[float]] = {}
    for i in range(args.rounds + 1):
        t = time.perf_counter()
        subprocess.run([args.python, "-c", "import torch"], check=True, timeout=300)
        b = time.perf_counter() - t
        t = time.perf_counter()
        subprocess.run([args.python, "-c", "import os, torch; os._exit(0)"], check=True, timeout=300)
        n = time.perf_counter() - t
        t = time.perf_counter()
        result = run_probe(args.python)
        p = time.perf_counter() - t
        if result.outcome != "ok":
            print(f"probe outcome {result.outcome}: {result.facts.get('probe.error')}", file=sys.stderr)
            return 1
        if i == 0:
            continue  # cold caches
        bare.append(b)
        no_teardown.append(n)
        probe.append(p)
        for s in result.facts["probe.stages"]:
            stages.setdefault(s["stage"], []).append(s["seconds"] or 0.0)
    mb, mp, mn = statistics.median(bare), statistics.median(probe), statistics.median(no_teardown)
    print(f"python -c 'import torch'                median {mb:.3f} s  (min {min(bare):.3f})")
    print(
        f"python -c 'import torch; os._exit(0)'   median {mn:.3f} s  (min {min(no_teardown):.3f})"
        "  (the probe skips interpreter teardown the same way)"
    )
    print(f"run_probe()                             median {mp:.3f} s  (min {min(probe):.3f})")
    print(f"probe vs import torch                   {mp - mb:+.3f} s  ({mp / mb:.2f}x)")
    print(f"probe vs import torch without teardown  {mp - mn:+.3f} s  ({mp / mn:.2f}x)")
    for name, values in stages.items():
        print(f"  stage {name:<12} median {statistics.median(values) * 1000:7.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
