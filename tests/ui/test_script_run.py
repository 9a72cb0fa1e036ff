"""The Your script page's "Also run it" (pytest-qt, offscreen): it says what would run and where before anything
runs, runs a tiny real script on this CPU on a worker (progress from the run's events, Stop kills it, closing
the window mid-run exits within 2 s), shows the findings and the run's numbers, marks the run on the monitor,
carries it into the exports, and remembers the arguments but never the opt-in."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from gpuassist.wizard import StepStatus
from gpuassist.wizard.display import looks_raw

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

DATA = Path(__file__).resolve().parents[1] / "data"
TRAIN = DATA / "audit_run" / "train_cpu.py"
SLOW_LOADER = DATA / "audit_run" / "loader_wait.py"  # ~20 ms per step: long enough to stop mid-run
RUN_TIMEOUT_MS = 60_000


def shown_texts(widget: Any) -> list[str]:
    return [w.text() for w in widget.findChildren(QLabel) if not w.isHidden() and w.text()]


def ask_for_a_run(window: Any, script: Path, *, args: str = "", steps: int = 3) -> Any:
    window.set_script(str(script), run=False)
    window.go("script")
    panel = window.script_run_panel
    panel.enabled.setChecked(True)
    panel.args.setText(args)
    panel.steps.setValue(steps)
    return panel


def children() -> list[psutil.Process]:
    return [p for p in psutil.Process().children(recursive=True) if p.status() != psutil.STATUS_ZOMBIE]


def test_before_it_runs_the_page_says_it_executes_the_users_code_and_where(make_window: Any) -> None:
    window = make_window()
    window.set_script(str(TRAIN), run=False)
    window.go("script")
    panel = window.script_run_panel
    assert not panel.enabled.isChecked() and panel.enabled.isEnabled()
    warning = panel.warning.text()
    assert "executes your script — your own code" in warning
    assert f"target interpreter {sys.executable}" in warning and f"folder {TRAIN.parent}" in warning
    assert not panel.args.isEnabled() and not panel.steps.isEnabled()  # nothing to set until it is ticked
    assert window.flow.context.script_run is None
    panel.enabled.setChecked(True)
    assert panel.args.isEnabled() and panel.steps.value() == 20 and panel.seconds.value() == 60
    assert window.pages["script"].run.text() == "Read and run it"
    request = window.flow.context.script_run
    assert (request.steps, request.seconds) == (20, 60.0)
    panel.args.setText('--name "unfinished')
    assert panel.args_error.isVisibleTo(panel) and "No closing quotation" in panel.args_error.text()
    panel.use_steps.setChecked(False)
    assert window.flow.context.script_run.steps is None and not panel.steps.isEnabled()
    panel.enabled.setChecked(False)
    assert window.flow.context.script_run is None
    assert window.pages["script"].run.text() == "Run this step"


@pytest.mark.parametrize(
    ("argv", "script", "why"),
    [
        (("--simulate", "healthy-linux-rtx4090", "--replay-speed", "0"), TRAIN, "not on a simulated machine"),
        ((), DATA / "audit" / "broken_notebook.ipynb", "a notebook is only read"),
    ],
)
def test_a_script_that_cannot_run_here_says_why(
    make_window: Any, argv: tuple[str, ...], script: Path, why: str
) -> None:
    window = make_window(*argv)
    window.set_script(str(script), run=False)
    panel = window.script_run_panel
    assert not panel.enabled.isEnabled() and panel.request() is None
    assert panel.unavailable.isVisibleTo(panel) and why in panel.unavailable.text()
    assert not panel.warning.isVisibleTo(panel) and not panel.options.isVisibleTo(panel)


def test_a_reopened_audit_run_report_shows_the_runs_findings_and_numbers(
    qtbot: Any, make_window: Any, tmp_path: Path
) -> None:
    from gpuassist.audit.run import load_recording, run_report

    report = run_report(load_recording(DATA / "audit_run" / "cuda_sync_every_step.json"))
    path = tmp_path / "audit-run.json"
    path.write_text(json.dumps(report.to_json(), default=str))
    window = make_window()
    assert window.open_report_file(path)
    window.go("script")
    page = window.pages["script"]
    assert not window.script_run_panel.isVisibleTo(page)  # nothing to run in someone else's report
    assert [c.finding.id for c in page.cards] == ["host_device_sync_in_loop"]
    card = page.cards[0]
    card.set_evidence_visible(True)
    evidence = shown_texts(card.evidence_box)
    assert "/home/alice/proj/train.py:52" in evidence
    assert any(
        t.startswith("/home/alice/proj/train.py:52 calls nonzero() on cuda:0: 100 times in 50 steps") for t in evidence
    )
    texts = shown_texts(page)
    assert "Where the operators ran" in texts and "Copies between devices" in texts
    assert "train.py:52" in texts and "calls nonzero()" in texts
    assert not [t for t in texts if looks_raw(t)]


def test_a_run_shows_progress_findings_numbers_and_the_monitor_band(
    qtbot: Any, make_window: Any, settings: Any
) -> None:
    window = make_window()
    panel = ask_for_a_run(window, TRAIN, args="--epochs 1", steps=3)
    page = window.pages["script"]
    lines: list[str] = []
    original = window._on_event
    window._on_event = lambda ev: (original(ev), lines.append(page.progress.stage.text()))
    with qtbot.waitSignal(window.run_finished, timeout=RUN_TIMEOUT_MS):
        qtbot.mouseClick(page.run, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: window.flow.running == "script", timeout=5_000)
        assert not panel.enabled.isEnabled() and not panel.args.isEnabled()  # no changes while it runs
        assert window.stop_button.isEnabled()
    qtbot.wait(50)
    assert any(t.startswith("Importing torch") for t in lines)
    assert any(t.startswith("Running train_cpu.py: 3 of 3 steps") for t in lines)
    st = window.flow.state("script")
    assert st.status is StepStatus.WARNING and page.status is StepStatus.WARNING
    assert [c.finding.id for c in page.cards] == ["workload_left_on_cpu"]
    texts = shown_texts(page)
    for title in (
        "How it ran",
        "Where the operators ran",
        "Lines that make the host wait for the device",
        "Steps: waiting for data vs computing",
        "First forward pass",
    ):
        assert title in texts
    assert "Ran it: stopped after 3 steps, as asked" in texts
    assert not [t for t in texts if looks_raw(t)]
    assert page.run.text() == "Read and run it again" and panel.enabled.isEnabled()
    # the run on the monitor's time axis: the step's band, then the script's own
    marks = [(m.step, m.title) for m in window.monitor.snapshot().markers]
    assert marks == [("script", "Your script"), ("script", "Running train_cpu.py")]
    # the exports carry the findings and the run's facts
    data = json.loads(window.export_text("json"))
    assert data["facts"]["run.steps"]["count"] == 3 and data["facts"]["run.command"]["args"] == ["--epochs", "1"]
    assert [f["id"] for f in data["findings"] if f["step"] == "script"] == ["workload_left_on_cpu"]
    assert any(m["title"] == "Running train_cpu.py" for m in data["monitor"]["markers"])
    markdown = window.export_text("markdown")
    assert "run.first_forward" in markdown and "train_cpu.py:9:9" in markdown
    html = window.export_text("html")
    assert "run.ops" in html and "Running train_cpu.py" in html
    # arguments and limits are remembered; running is asked for anew
    assert (settings.value("script_run_args"), settings.value("script_run_steps")) == ("--epochs 1", "3")
    again = make_window()
    assert not again.script_run_panel.enabled.isChecked() and again.script_run_panel.args.text() == "--epochs 1"
    assert again.script_run_panel.steps.value() == 3 and again.flow.context.script_run is None


def wait_until_the_script_runs(qtbot: Any, window: Any) -> None:
    page = window.pages["script"]
    qtbot.waitUntil(lambda: page.progress.stage.text().startswith("Running loader_wait.py: "), timeout=30_000)
    assert children(), "the script should be running"


def test_stop_kills_the_script_and_keeps_what_it_measured(qtbot: Any, make_window: Any) -> None:
    window = make_window()
    ask_for_a_run(window, SLOW_LOADER, steps=500)
    with qtbot.waitSignal(window.run_finished, timeout=RUN_TIMEOUT_MS):
        window.run_step("script")
        wait_until_the_script_runs(qtbot, window)
        qtbot.wait(2_500)  # a summary is sent every 2 s while it runs
        started = time.monotonic()
        qtbot.mouseClick(window.stop_button, Qt.MouseButton.LeftButton)
    assert time.monotonic() - started < 2.0
    assert not children()
    page = window.pages["script"]
    st = window.flow.state("script")
    assert st.status is StepStatus.CANCELLED and page.status is StepStatus.CANCELLED
    assert st.result is not None and st.result.facts["run.outcome"] == "cancelled"
    texts = shown_texts(page)
    assert "You stopped the run of the script; what it measured until then is below" in texts
    assert "Where the operators ran" in texts


def test_closing_the_window_mid_run_stops_the_script_within_two_seconds(qtbot: Any, make_window: Any) -> None:
    window = make_window()
    ask_for_a_run(window, SLOW_LOADER, steps=500)
    assert window.run_step("script")
    wait_until_the_script_runs(qtbot, window)
    started = time.monotonic()
    window.close()
    took = time.monotonic() - started
    assert took <= 2.0, f"closing took {took:.2f} s"
    assert not window.busy and not window.monitor.running
    assert not children()
