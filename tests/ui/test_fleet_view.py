"""The app's fleet view (issue 18): a folder of nodes' reports as nodes × findings, root causes that filter
the table and show their shared fix, outliers, missing/unreadable reports; a node opens its own report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from gpuassist.sim import simulate
from gpuassist.wizard import SUMMARY


def write_fleet(folder: Path) -> None:
    folder.mkdir()
    healthy = simulate("healthy-2x-a100-server").to_json()
    cpu = simulate("cpu-only-build-rtx4090").to_json()
    for i in range(6):
        data = json.loads(json.dumps(cpu if i in (4, 5) else healthy))
        data["meta"]["node"] = {"name": f"gpu{i + 1:02d}", "source": "slurm", "pseudonym": False, "keyed": False}
        if i == 2:
            data["facts"]["nvml.gpus"][1]["pcie_width_current"] = 8
        (folder / f"{i}.json").write_text(json.dumps(data, indent=2))
    (folder / "6.json").write_text("bash: gpuassist: command not found\n")


def test_fleet_view_shows_nodes_by_finding(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    write_fleet(tmp_path / "reports")
    window = make_window("--fleet", str(tmp_path / "reports"))
    qtbot.waitUntil(lambda: bool(window.fleet_windows), timeout=5000)
    fleet = window.fleet_windows[0]
    qtbot.waitUntil(lambda: fleet.result is not None, timeout=20000)
    assert fleet.headline.text().startswith("✖ Fleet: 7 nodes, 2 with errors, 4 healthy, 1 unreadable report")
    model = fleet.model
    assert model.rowCount() == 6
    ids = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert ids[:3] == ["Node", "Verdict", "cpu_only_build"]
    # the first root cause is selected: the table shows only its nodes, the fix is below
    assert fleet.filter.finding == "cpu_only_build"
    shown = [fleet.filter.index(r, 0).data() for r in range(fleet.filter.rowCount())]
    assert shown == ["gpu05", "gpu06"]
    assert "--index-url https://download.pytorch.org/whl/cu124" in fleet.fix.toPlainText()
    assert fleet.filter.index(0, 2).data() == "✖"
    fleet.groups.setCurrentItem(fleet.groups.topLevelItem(0))  # All nodes
    assert fleet.filter.rowCount() == 6
    outliers = {
        fleet.outliers.topLevelItem(i).text(0): fleet.outliers.topLevelItem(i).text(2)
        for i in range(fleet.outliers.topLevelItemCount())
    }
    assert outliers["PCIe link width"] == "GPU 1 x8 of x16: gpu03"
    pcie = next(
        fleet.outliers.topLevelItem(i)
        for i in range(fleet.outliers.topLevelItemCount())
        if fleet.outliers.topLevelItem(i).text(0) == "PCIe link width"
    )
    fleet.outliers.setCurrentItem(pcie)  # an outlier selected: only the nodes that differ on it
    assert [fleet.filter.index(r, 0).data() for r in range(fleet.filter.rowCount())] == ["gpu03"]
    fleet.groups.setCurrentItem(fleet.groups.topLevelItem(0))
    assert fleet.filter.rowCount() == 6
    assert fleet.missing.topLevelItem(0).text(0) == "6.json"
    assert "command not found" in fleet.missing.topLevelItem(0).text(1)
    exported = tmp_path / "fleet.md"
    assert fleet.export_to("markdown", str(exported))
    assert exported.read_text().startswith("# gpuassist fleet: 7 nodes, 2 with errors")
    # double-click a node: its own report opens in the main window
    index = fleet.filter.index(4, 0)
    fleet._on_node_activated(index)
    assert window.flow.source == "report" and window.current_page is window.pages[SUMMARY]


def test_open_fleet_refuses_a_file(make_window: Any, tmp_path: Path) -> None:
    window = make_window()
    errors: list[str] = []
    window.show_error = errors.append
    (tmp_path / "x.json").write_text("{}")
    assert window.open_fleet(tmp_path / "x.json") is None
    assert errors == [f"Cannot open {tmp_path / 'x.json'}: not a folder"]
