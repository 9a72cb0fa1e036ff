"""`gpuassist-gui` without a display: one line and the terminal diagnosis, never Qt's core dump."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from gpuassist.gui_entry import diagnose_args, has_display


def test_display_is_known_from_the_environment() -> None:
    assert not has_display({}, "linux")
    assert has_display({"DISPLAY": ":0"}, "linux")
    assert has_display({"WAYLAND_DISPLAY": "wayland-0"}, "linux")
    assert has_display({"QT_QPA_PLATFORM": "offscreen"}, "linux")
    assert has_display({}, "win32") and has_display({}, "darwin")


def test_window_options_become_diagnose_options() -> None:
    assert diagnose_args([]) == ["diagnose"]
    assert diagnose_args(["--simulate", "no-gpu", "--run", "--page", "wheel"]) == ["diagnose", "--simulate", "no-gpu"]
    assert diagnose_args(["--report=r.json", "--replay-speed", "4"]) == ["diagnose", "--from", "r.json"]
    assert diagnose_args(["--python", "/p/python", "--format", "json"]) == [
        "diagnose",
        "--python",
        "/p/python",
        "--format",
        "json",
    ]


@pytest.mark.slow
def test_no_display_prints_one_line_and_diagnoses_in_the_terminal() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    p = subprocess.run(
        [sys.executable, "-m", "gpuassist.gui_entry", "--simulate", "healthy-linux-rtx4090"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert p.returncode in (0, 1), p.stderr
    assert p.stderr.count("no display to open the window on") == 1 and "Traceback" not in p.stderr
    assert "SIMULATED" in p.stdout and "RTX 4090" in p.stdout
