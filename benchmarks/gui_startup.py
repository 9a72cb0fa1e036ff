#!/usr/bin/env python3
"""Start-up to window shown: `gpuassist-gui` against a bare PySide6 window with one pyqtgraph plot.

Budget (docs/architecture.md §5): ≤ 1.1 × the bare window, and torch never imported in the GUI process. Each run is a
fresh process timed from spawn to the line it prints once its window is shown (first event-loop turn
after show()); the two are alternated, a first round is discarded (cold caches), medians compared.

    .venv/bin/python benchmarks/gui_startup.py [--rounds 9]
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import gpuassist

BARE = r"""
import sys, time
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMainWindow
import pyqtgraph as pg
app = QApplication(sys.argv)
w = QMainWindow()
plot = pg.PlotWidget()
plot.plot([0, 1, 2], [0, 1, 0])
w.setCentralWidget(plot)
w.resize(1280, 860)
w.show()
def shown():
    print(f"window-shown torch={'torch' in sys.modules}", flush=True)
    app.quit()
QTimer.singleShot(0, shown)
app.exec()
"""


def time_to_shown(cmd: list[str], env: dict[str, str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("window-shown"):
            took = time.perf_counter() - t0
            proc.wait(timeout=30)
            return took, line.strip()
    proc.wait(timeout=30)
    raise RuntimeError(f"{cmd[0]} exited ({proc.returncode}) without showing a window")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    gui = str(Path(sys.executable).with_name("gpuassist-gui"))
    # An installed app has its bytecode compiled (pip does it at install); an editable install under
    # PYTHONDONTWRITEBYTECODE=1 would otherwise compile every module at every start.
    compileall.compile_dir(str(Path(gpuassist.__file__).parent), quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "GPUASSIST_STARTUP_PROBE": "1", "XDG_CONFIG_HOME": tmp, "XDG_STATE_HOME": tmp}
        if not env.get("DISPLAY"):
            env["QT_QPA_PLATFORM"] = "offscreen"
        app: list[float] = []
        bare: list[float] = []
        for i in range(args.rounds + 1):
            a, line = time_to_shown([gui], env)
            if "torch=False" not in line:
                print(f"FAIL: torch was imported in the GUI process ({line})")
                return 1
            b, _ = time_to_shown([sys.executable, "-c", BARE], env)
            if i:  # round 0 warms the caches
                app.append(a)
                bare.append(b)
    ma, mb = statistics.median(app), statistics.median(bare)
    ratio = ma / mb
    print(f"platform           : {env.get('QT_QPA_PLATFORM') or 'display ' + env.get('DISPLAY', '')}")
    print(f"gpuassist-gui      : median {ma * 1000:7.1f} ms  (min {min(app) * 1000:.1f}, max {max(app) * 1000:.1f})")
    print(f"bare PySide6 + plot: median {mb * 1000:7.1f} ms  (min {min(bare) * 1000:.1f}, max {max(bare) * 1000:.1f})")
    print(f"ratio              : {ratio:.2f}  (budget ≤ 1.10)   torch imported: no")
    return 0 if ratio <= 1.1 else 1


if __name__ == "__main__":
    sys.exit(main())
