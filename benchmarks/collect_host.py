#!/usr/bin/env python3
"""Budget (docs/architecture.md §5, brief): host fact collection (`collect_this_machine()`) well under 150 ms.

Runs a fresh interpreter per round (so imports are counted, as in `gpuassist diagnose`) and reports the
median of: importing `gpuassist.collect`, the first `collect_this_machine()` call, and a second call
(warm). Also prints which modules the collection imported that a cold start should not pay for.

    .venv/bin/python benchmarks/collect_host.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
from gpuassist.collect import collect_this_machine
t1 = time.perf_counter()
facts = collect_this_machine()
t2 = time.perf_counter()
collect_this_machine()
t3 = time.perf_counter()
heavy = [m for m in ("pynvml", "psutil", "torch", "PySide6") if m in sys.modules]
print(json.dumps({"import": t1 - t0, "first": t2 - t1, "second": t3 - t2, "heavy": heavy,
                  "nvml": facts["nvml.status"], "smi": str(facts["smi.status"])}))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    runs = []
    for _ in range(args.rounds + 1):
        out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, check=True)
        runs.append(json.loads(out.stdout))
    runs = runs[1:]  # the first round warms the page cache and writes .pyc files
    for key in ("import", "first", "second"):
        print(f"{key:>7}: median {1000 * statistics.median(r[key] for r in runs):6.1f} ms")
    total = statistics.median(r["import"] + r["first"] for r in runs)
    print(f"  total: median {1000 * total:6.1f} ms (import + first collect; budget 150 ms)")
    print(f"nvml.status={runs[-1]['nvml']} smi.status={runs[-1]['smi']} heavy imports={runs[-1]['heavy']}")
    return 0 if total < 0.150 else 1


if __name__ == "__main__":
    sys.exit(main())
