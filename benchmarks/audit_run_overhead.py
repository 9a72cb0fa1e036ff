#!/usr/bin/env python3
"""What `gpuassist audit --run` costs the script it watches: the median training-step time of a small CNN,
run plainly and under the instruments, as a ratio; and how well the per-operator estimate the run uses to
correct its timing shares accounts for the difference.

No budget in docs/architecture.md §5; the point is to know the distortion. Per-step cost is about (operators per step) x
(a few µs), so it matters for tiny CPU models and little for real GPU-sized steps. Run on the CPU here (on a
GPU machine pass --device cuda):

    .venv/bin/python benchmarks/audit_run_overhead.py [--steps 40] [--batch 32] [--device cpu]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from gpuassist.audit.run import Bound, parse_command, run_audit

SCRIPT = """
import json, sys, time
import torch
device = sys.argv[1]; steps = int(sys.argv[2]); batch = int(sys.argv[3])
torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
    torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1),
    torch.nn.Flatten(), torch.nn.Linear(32, 10)).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(batch, 3, 32, 32, device=device); y = torch.randint(0, 10, (batch,), device=device)
times = []
for _ in range(steps):
    t = time.perf_counter()
    opt.zero_grad()
    torch.nn.functional.cross_entropy(model(x), y).backward()
    opt.step()
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    times.append(time.perf_counter() - t)
print("TIMES " + json.dumps(times))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "cnn_step.py"
        script.write_text(SCRIPT)
        argv = [str(script), args.device, str(args.steps), str(args.batch)]
        out = subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=600, check=True).stdout
        plain_times = json.loads(out.split("TIMES ", 1)[1])[1:]
        plain = statistics.median(plain_times)
        result = run_audit(parse_command([sys.executable, *argv]), Bound.of(600.0, args.steps))
    per_step = result.facts["run.steps"]["per_step"]
    per_op = result.facts["run.instrumentation"]["per_op_seconds"]
    audited = per_step["seconds"]
    estimate = per_step["ops"] * per_op
    print(
        f"CNN step on {args.device}, batch {args.batch}, {args.steps} steps, {per_step['ops']:.0f} operators per step"
    )
    print(f"  plain        {plain * 1e3:8.2f} ms per step (median)")
    print(f"  audited      {audited * 1e3:8.2f} ms per step (median)   ratio {audited / plain:.2f}x")
    print(
        f"  estimated instruments' cost {estimate * 1e3:.2f} ms per step ({per_op * 1e6:.1f} µs per operator); "
        f"audited minus estimate {(audited - estimate) * 1e3:.2f} ms = {(audited - estimate) / plain:.2f}x plain"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
