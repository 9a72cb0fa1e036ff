"""The environment table beside the target selector (issue 5 item 2), driven offscreen: the scan runs on a
worker, the table and the cross-environment findings show, picking a row makes it the target, a report
carrying a table shows it read-only, and closing mid-scan stops every interpreter it started."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest
from PySide6.QtCore import Qt

from envs_layouts import env_row
from gpuassist.envs.inspect import EnvRow, Inventory
from gpuassist.report.envs import envs_report
from gpuassist.wizard.environments import COLUMNS, Environments

pytestmark = pytest.mark.slow


def open_panel(qtbot: Any, window: Any) -> None:
    qtbot.mouseClick(window.envs_button, Qt.MouseButton.LeftButton)
    assert window.envs_panel.isVisible()
    qtbot.waitUntil(lambda: window.environments is not None and window.envs_worker is None, timeout=30_000)


def test_the_table_lists_this_machines_interpreters_and_a_pick_becomes_the_target(qtbot: Any, make_window: Any) -> None:
    window = make_window()
    panel = window.envs_panel
    assert not panel.isVisible()
    open_panel(qtbot, window)
    table = panel.table
    assert table.rowCount() == len(panel.rows) >= 1
    assert [table.horizontalHeaderItem(c).text() for c in range(len(COLUMNS))] == COLUMNS
    own = next(r for r, row in enumerate(panel.rows) if "★" in row.cells[0])
    assert panel.rows[own].cells[3].startswith("2.")  # this venv's torch, e.g. 2.13.0+cpu
    assert panel.rows[own].tone == "cpu"  # a CPU-only build reads as such
    target = next(r for r, row in enumerate(panel.rows) if row.is_target)
    assert "▶" in table.item(target, 0).text() and table.item(target, 1).font().bold()
    assert panel.status.text().startswith(f"{len(panel.rows)} Python environment")
    facts = window.flow.context.envs_facts
    assert facts and facts["envs.inventory"]  # part of the report from now on
    # pick another interpreter that answered: it becomes the target, marked ▶ without a new scan
    other = next((r for r, row in enumerate(panel.rows) if row.usable and not row.is_target), None)
    if other is None:
        pytest.skip("only one working interpreter on this machine")
    python = panel.rows[other].python
    table.selectRow(other)
    assert panel.use_button.isEnabled()
    qtbot.mouseClick(panel.use_button, Qt.MouseButton.LeftButton)
    assert window.flow.context.target == python
    assert window.target_combo.currentData() == python
    assert window.environments is not None and window.environments.inventory is not None
    assert window.environments.inventory.target == python
    assert next(r for r in panel.rows if r.is_target).python == python
    assert not panel.use_button.isEnabled()  # it is the target already


def test_a_pick_while_steps_run_waits_and_simulated_machines_have_no_table(qtbot: Any, make_window: Any) -> None:
    window = make_window("--simulate", "healthy-linux-rtx4090")
    assert not window.envs_button.isEnabled() and "simulated machine" in window.envs_button.toolTip()
    live = make_window()
    envs = Environments.from_inventory(sample_inventory())
    live.environments = envs
    live.refresh()
    live.envs_panel.set_running(True)
    live.envs_panel.table.selectRow(1)
    assert not live.envs_panel.use_button.isEnabled()
    live.envs_panel._pick(1)
    assert live.flow.context.target != envs.rows[1].python


def sample_inventory() -> Inventory:
    def row(name: str, version: str | None, **kw: Any) -> EnvRow:
        return env_row(name, version, origins=(("path", "PATH python"),), **kw)

    return Inventory(
        [row("app", "2.5.1+cpu", is_target=True), row("gpu", "2.5.1+cu124")],
        target="/home/u/app/bin/python",
        seconds=0.4,
    )


def test_a_report_with_an_environment_table_shows_it_read_only(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    report = envs_report(
        sample_inventory(),
        {
            "pci.nvidia_gpu_count": 1,
            "nvml.status": "ok",
            "nvml.gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090"}],
        },
    )
    path = tmp_path / "envs.json"
    path.write_text(json.dumps(report.to_json()))
    window = make_window()
    assert window.open_report_file(path)
    window.envs_button.setChecked(True)
    panel = window.envs_panel
    assert window.envs_worker is None  # a report is read, this machine is not scanned
    assert [r.cells[1] for r in panel.rows] == ["gpu", "app"]  # a GPU build of torch first
    assert panel.rows[0].tone == "gpu" and panel.rows[1].tone == "cpu"
    assert not panel.use_button.isVisible() and not panel.rescan_button.isVisible()
    assert "from the report" in panel.status.text()
    ids = [c.finding.id for c in panel.cards]
    assert ids == ["wrong_interpreter_or_kernel"]
    assert panel.cards[0].finding.severity.value == "error"  # a GPU is there: the CUDA env is the fix


def test_closing_during_the_scan_stops_every_interpreter(qtbot: Any, make_window: Any) -> None:
    window = make_window()
    window.envs_button.setChecked(True)
    assert window.envs_worker is not None
    qtbot.wait(150)  # interpreters are starting
    started = time.monotonic()
    window.close()
    assert time.monotonic() - started <= 2.0
    assert window.envs_worker is None or not window.envs_worker.running
    left = [p for p in psutil.Process().children(recursive=True) if p.status() != psutil.STATUS_ZOMBIE]
    assert not left, [p.cmdline()[:2] for p in left]
    assert sys.executable  # the app's own interpreter was never replaced
