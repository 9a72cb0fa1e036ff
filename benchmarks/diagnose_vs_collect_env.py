#!/usr/bin/env python3
"""Budget (docs/architecture.md §5): `gpuassist diagnose` takes at most 1.05 × `python -c "import torch"` in
the same interpreter, and less than `python -m torch.utils.collect_env`, while collecting a superset of its
facts.

Alternates the three commands (same interpreter, same machine state, warm caches after a first discarded
round) and prints each one's median wall time and the ratios. It also checks the superset claim: every
field collect_env printed a value for must have a counterpart in gpuassist's facts.

    .venv/bin/python benchmarks/diagnose_vs_collect_env.py [--rounds 7] [--python PATH]
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

# collect_env field → the gpuassist fact(s) that carry the same information.
COUNTERPARTS = {
    "PyTorch version": ["torch.version"],
    "Is debug build": ["torch.debug"],
    "CUDA used to build PyTorch": ["torch.cuda_build"],
    "ROCM used to build PyTorch": ["torch.hip_build"],
    "OS": ["host.distro"],
    "Python version": ["python.version"],
    "Python platform": ["python.platform", "host.kernel", "python.machine"],
    "Is CUDA available": ["cuda.available"],
    "GPU models and configuration": ["nvml.gpus", "devices", "pci.display_devices"],
    "Nvidia driver version": ["driver.version"],
    "cuDNN version": ["torch.cudnn_version"],
    "Is XPU available": ["xpu.available"],
    "HIP runtime version": ["torch.hip_build"],
    "CPU": ["host.cpu_model", "host.cpu_count"],
    "Versions of relevant libraries": ["torch.dists"],
}


def timed(cmd: list[str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    return time.perf_counter() - t, p


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--python", default=sys.executable, help="interpreter for both (must have torch)")
    args = ap.parse_args()
    ga = shutil.which("gpuassist", path=str(Path(args.python).parent)) or "gpuassist"
    diag = [ga, "diagnose", "--python", args.python, "--format", "json"]
    ce = [args.python, "-m", "torch.utils.collect_env"]
    bare = [args.python, "-c", "import torch"]
    for cmd in (diag, ce, bare):  # warm-up round, discarded: file caches, bytecode
        timed(cmd)
    d_times, c_times, b_times = [], [], []
    report_text = ce_text = ""
    for _ in range(args.rounds):
        t, p = timed(diag)
        d_times.append(t)
        report_text = p.stdout
        t, p = timed(ce)
        c_times.append(t)
        ce_text = p.stdout
        b_times.append(timed(bare)[0])
    d_med, c_med, b_med = statistics.median(d_times), statistics.median(c_times), statistics.median(b_times)
    print(f"gpuassist diagnose        median {d_med:.3f} s  ({', '.join(f'{x:.2f}' for x in d_times)})")
    print(f"torch.utils.collect_env   median {c_med:.3f} s  ({', '.join(f'{x:.2f}' for x in c_times)})")
    print(f"python -c 'import torch'  median {b_med:.3f} s  ({', '.join(f'{x:.2f}' for x in b_times)})")
    print(f"ratio diagnose / import torch = {d_med / b_med:.2f}  (budget <= 1.05)")
    print(f"ratio diagnose / collect_env = {d_med / c_med:.2f}  (budget < 1.00)")

    facts = json.loads(report_text)["facts"]
    printed = {line.split(":", 1)[0].strip() for line in ce_text.splitlines() if ":" in line}
    missing = [f for f, keys in COUNTERPARTS.items() if f in printed and not any(k in facts for k in keys)]
    extra = len(facts)
    present = [f for f in COUNTERPARTS if f in printed]
    print(
        f"collect_env fields with a gpuassist counterpart: {len(present) - len(missing)}/{len(present)}; "
        f"gpuassist facts: {extra}"
    )
    if missing:
        print("missing counterparts: " + ", ".join(missing))
    ok = d_med <= 1.05 * b_med and d_med < c_med and not missing
    print("budget met" if ok else "BUDGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
