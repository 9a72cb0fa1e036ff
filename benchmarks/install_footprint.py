#!/usr/bin/env python3
"""Install size and time of gpuassist's own environment, with torch (as before issue 11) and without.

gpuassist never imports torch (the probe runs in the interpreter it diagnoses), so torch left its runtime
dependencies. This builds two fresh venvs from this checkout, one with `pip install . torch==2.13.0` (the
CPU build pinned in constraints/cpu.txt: the smallest torch there is; PyPI's default Linux wheel is a CUDA
build several GB larger) and one with `pip install .`, and prints each one's wall time and size on disk,
then checks that the torch-free one works: `gpuassist diagnose` runs and torch is not importable there.

    .venv/bin/python benchmarks/install_footprint.py [--keep]

Timings include pip's cache (both installs see the same cache; run it twice for warm numbers).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
CONSTRAINTS = HERE / "constraints" / "cpu.txt"


def size_of(path: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_size
    return total


def install(venv: Path, extra: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "-c",
            str(CONSTRAINTS),
            str(HERE),
            *extra,
        ],
        check=True,
        timeout=1800,
    )
    return time.perf_counter() - started


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", action="store_true", help="keep the two venvs (their paths are printed)")
    args = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="ga-footprint-"))
    try:
        results = {}
        for name, extra in (("with torch (before)", ["torch==2.13.0"]), ("without torch (now)", [])):
            venv = base / name.split()[0]
            seconds = install(venv, extra)
            results[name] = (seconds, size_of(venv))
            print(f"{name:22} {seconds:6.1f} s  {size_of(venv) / 2**20:8.1f} MiB  {venv}")
        (t_before, s_before), (t_now, s_now) = results.values()
        print(f"ratio now / before: time {t_now / t_before:.2f}, size {s_now / s_before:.2f}")
        light = base / "without" / "bin"
        rc = subprocess.run([str(light / "python"), "-c", "import torch"], capture_output=True).returncode
        print(f"torch importable in the torch-free install: {'yes (unexpected)' if rc == 0 else 'no'}")
        diag = subprocess.run(
            [str(light / "gpuassist"), "diagnose", "--format", "json"], capture_output=True, text=True, timeout=300
        )
        print(
            f"`gpuassist diagnose` from the torch-free install: exit {diag.returncode} "
            f"({'ok' if diag.returncode in (0, 1) and diag.stdout.startswith('{') else diag.stderr.strip()[:200]})"
        )
        return 0 if rc != 0 and diag.returncode in (0, 1) else 1
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
