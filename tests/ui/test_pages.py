"""What the pages show after Run all: tables of the measurements (values, the chosen row, Copy), never raw
JSON / "{}" / "[]"; the summary reads its verdict once; the monitor follows the data, bands every step and
labels only bands wide enough; an opened report's monitor trace is shown."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPushButton

from gpuassist.monitor import Trace
from gpuassist.monitor.layout import MIN_SPAN_S
from gpuassist.wizard.display import looks_raw

pytestmark = pytest.mark.slow

RUN_TIMEOUT_MS = 60_000


def run_all(qtbot: Any, window: Any) -> None:
    with qtbot.waitSignal(window.run_finished, timeout=RUN_TIMEOUT_MS):
        qtbot.mouseClick(window.run_button, Qt.MouseButton.LeftButton)
    qtbot.wait(50)  # replaced widgets are deleted


def shown_texts(widget: Any) -> list[str]:
    return [w.text() for w in widget.findChildren(QLabel) if not w.isHidden() and w.text()]


def no_raw(window: Any) -> None:
    for sid, page in window.pages.items():
        raw = [t for t in shown_texts(page) if looks_raw(t) or t.strip() in ("{}", "[]")]
        assert not raw, f"{sid} page shows raw data: {raw}"


def cell_texts(page: Any, name: str = "td") -> list[str]:
    return [w.text() for w in page.findChildren(QLabel) if w.objectName() == name and not w.isHidden()]


def test_this_machine_pages_show_tables_not_json(qtbot: Any, make_window: Any) -> None:
    window = make_window()
    run_all(qtbot, window)
    assert window.current_page is window.summary  # Run all ends on the verdict (walkthrough #2)
    if window.flow.blocking_cause() is not None:  # no usable GPU here: the benchmarks were offered, not run
        assert window.flow.offered() and window.summary.offer_button.isVisible()
        with qtbot.waitSignal(window.run_finished, timeout=RUN_TIMEOUT_MS):
            qtbot.mouseClick(window.summary.offer_button, Qt.MouseButton.LeftButton)
        qtbot.wait(50)
    no_raw(window)
    report = window.flow.report()
    facts = report.facts
    bench = window.pages["benchmark"]
    texts = shown_texts(bench)
    assert "Training step, per device and variant" in texts
    rate = facts["bench.results"][0]["images_per_s"]
    assert f"{rate:,.0f}" in cell_texts(bench) + cell_texts(bench, "tdHi")
    if not facts.value("bench.speedup"):  # no accelerator here: said, with the reason
        assert any("accelerators only" in t for t in texts)
    loader = window.pages["dataloader"]
    line = facts["sweep.dataloader_line"]
    assert line in shown_texts(loader)
    assert any(b.text() == "Copy" for b in loader.findChildren(QPushButton) if not b.isHidden())
    assert cell_texts(loader, "tdHi"), "the chosen DataLoader setting is highlighted"
    placement = window.pages["placement"]
    assert "Correctness on each device" in shown_texts(placement)
    assert any("The device-mismatch error" in t for t in shown_texts(placement))
    driver = shown_texts(window.pages["driver"])
    version = driver[driver.index("Driver version") + 1]
    assert version.startswith("not found")  # looked and found none: said in words, not "none"
    # the summary: the verdict box carries the headline once; the root cause's fix is inside it
    summary = shown_texts(window.summary)
    assert summary.count(window.summary.verdict_headline) == 1
    assert "Root cause and fix" not in summary
    # the monitor: a band for every step that ran, all named in the legend; x follows the data
    view = window.monitor_view
    view.live_button.setChecked(True)  # after a run the plots stay on it; Live follows the machine again
    view.redraw()
    ran = [m.title for m in window.monitor.snapshot().markers]
    assert {"Diagnosis", "Device placement", "DataLoader sweep", "CNN benchmark"} <= set(ran)
    assert [b.title for b in view.band_list] == ran
    assert len(view.regions) == len(ran)
    for title in ran:
        assert title in view.legend.text()
    (x0, x1), _ = view.cpu_plot.getViewBox().viewRange()
    t = window.monitor.snapshot().t
    assert x1 - x0 >= MIN_SPAN_S - 1e-6 and x1 >= float(t[-1]) - 0.5
    assert x1 - x0 < max(60.0, float(t[-1] - t[0]) + 1)  # no fixed 60 s axis around 10 s of data


def test_scenario_pages_show_no_raw_data(qtbot: Any, make_window: Any) -> None:
    from gpuassist.sim import list_scenarios

    name = "cpu-only-build-rtx4090"
    assert name in {s.name for s in list_scenarios()}, f"scenario {name} is missing"
    window = make_window("--simulate", name, "--replay-speed", "20")
    run_all(qtbot, window)
    no_raw(window)
    driver = shown_texts(window.pages["driver"])
    assert "12.4" in driver or any("12." in t for t in driver)  # the driver's CUDA as a version


def synthetic_trace(markers: list[dict[str, Any]], seconds: float = 100.0, gpus: bool = False) -> Trace:
    n = int(seconds * 2) + 1
    t = [i / 2 for i in range(n)]
    data: dict[str, Any] = {
        "label": "recorded on a workstation",
        "interval": 0.5,
        "t": t,
        "cpu": [50.0] * n,
        "ram": [30.0] * n,
        "cores": [[40.0] * n, [60.0] * n],
        "markers": markers,
        "gpus": [],
        "gpu_reason": "no NVIDIA driver",
    }
    if gpus:
        data["gpus"] = [
            {
                "index": 0,
                "name": "NVIDIA GeForce RTX 4090",
                "memory_total_gib": 24.0,
                "util": [90.0] * n,
                "mem_used_gib": [6.0] * n,
                "power_w": [300.0] * n,
                "temp_c": [70.0] * n,
            }
        ]
        data["gpu_reason"] = None
    return Trace.from_dict(data)


def test_bands_carry_their_title_or_step_number_as_wide_as_they_are(qtbot: Any, make_window: Any) -> None:
    window = make_window()
    window.resize(2400, 900)
    view = window.monitor_view
    trace = synthetic_trace(
        [
            {"step": "environment", "title": "Diagnosis", "start": 1.0, "end": 1.5},
            {"step": "placement", "title": "Device placement", "start": 2.0, "end": 8.0},
            {"step": "dataloader", "title": "DataLoader sweep", "start": 8.0, "end": 90.0},
        ],
        gpus=True,
    )
    view.show_trace(trace)
    qtbot.waitUntil(lambda: view.cpu_plot.getViewBox().width() > 300, timeout=3000)
    view.redraw()
    # 100 s over the CPU plot's ~500 px: 0.5 s is a sliver, 6 s takes the step number "4", 82 s the title
    assert view.label_shown == {"Diagnosis": "", "Device placement": "tag", "DataLoader sweep": "title"}
    shown = [lb.textItem.toPlainText() for items, labels in view.regions.values() for lb in labels if lb.isVisible()]
    assert shown.count("4") == 2 and shown.count("DataLoader sweep") == 2  # on the CPU and GPU-util plots
    assert "Device placement 2.0–8.0 s" in view.legend.text() and "<b>4</b>" in view.legend.text()
    assert {"util", "mem_used_gib", "power_w", "temp_c"} <= set(view.plots)  # GPU plots from the trace
    assert view.gpu_note.isHidden()


def test_an_opened_report_shows_its_monitor_trace(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    from gpuassist.sim import list_scenarios, simulate

    name = "healthy-linux-rtx4090"
    assert name in {s.name for s in list_scenarios()}, f"scenario {name} is missing"
    data = simulate(name).to_json()
    data["monitor"] = synthetic_trace(
        [{"step": "benchmark", "title": "CNN benchmark", "start": 10.0, "end": 60.0}], gpus=True
    ).to_dict()
    path = tmp_path / "report.json"
    path.write_text(json.dumps(data))
    window = make_window()
    assert window.open_report_file(path)
    view = window.monitor_view
    assert view.static is not None
    assert view.title.text().startswith("Monitor trace recorded with the report")
    assert "util" in view.plots and "CNN benchmark" in view.legend.text()
    # a report without a trace: no monitor, rather than this machine's plots under someone else's report
    data.pop("monitor")
    path.write_text(json.dumps(data))
    other = make_window()
    assert other.open_report_file(path)
    assert not other.monitor_view.isVisible()


def test_progress_follows_a_runtime_tests_stages_and_progress_lines(qtbot: Any) -> None:
    from gpuassist.sim import load_scenario, runtime_events
    from gpuassist.ui.pages import PROGRESS_STEPS, Progress

    progress = Progress()
    qtbot.addWidget(progress)
    events = runtime_events(load_scenario("healthy-linux-rtx4090"), "bench") or []
    values: list[int] = []
    texts: list[str] = []
    for ev in events:
        progress.on_event(ev)
        values.append(progress.bar.value())
        texts.append(progress.stage.text())
    assert values == sorted(values) and values[-1] == PROGRESS_STEPS  # only forward, to the end
    assert len(set(values)) > 10  # progress lines move it within a stage, not only stage by stage
    assert any(t.startswith("Batch-size scaling: cuda:0 batch 512 (stage 3 of 5)") for t in texts)
    assert texts[-1].startswith("Judging the measurements… · ")  # then "n of m" and the time taken
    assert any(re.search(r" · \d+ of \d+ · \d+:\d\d elapsed", t) for t in texts)
