"""The window driven end to end (pytest-qt, offscreen): this machine, scenarios, closing mid-run, reports in
(JSON, pasted collect_env) and out (HTML with plots, Markdown, JSON, CSV), navigation and settings."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest
from PySide6.QtCore import Qt

from gpuassist.cli import main as cli_main
from gpuassist.diagnose import diagnose_live
from gpuassist.ingest import UnreadableInput, load_text
from gpuassist.report.render import verdict
from gpuassist.sim import list_scenarios, simulate
from gpuassist.wizard import SUMMARY, StepStatus

pytestmark = pytest.mark.slow

DATA = Path(__file__).resolve().parents[1] / "data"
RUN_TIMEOUT_MS = 60_000


def run_all(qtbot: Any, window: Any) -> None:
    with qtbot.waitSignal(window.run_finished, timeout=RUN_TIMEOUT_MS):
        qtbot.mouseClick(window.run_button, Qt.MouseButton.LeftButton)


def test_run_all_on_this_machine_matches_the_cli(qtbot: Any, make_window: Any, cpu_only_machine: bool) -> None:

    torch_before = "torch" in sys.modules
    window = make_window()
    assert not window.banner.isVisible()  # not simulated
    run_all(qtbot, window)
    cli = diagnose_live()
    flow = window.flow
    for sid in ("environment", "driver", "wheel"):
        page = window.pages[sid]
        assert [c.finding.id for c in page.cards] == [f.id for f in cli.findings if f.step == sid]
        assert page.status is flow.state(sid).status
        assert not page.progress.isVisible()
    if cpu_only_machine:  # the verdict known in advance here; elsewhere the CLI comparison above is the test
        assert window.pages["driver"].status is StepStatus.ERROR
        assert [c.finding.id for c in window.pages["driver"].cards] == ["no_nvidia_gpu"]
        assert window.pages["wheel"].status is StepStatus.INFO
        assert [c.finding.id for c in window.pages["wheel"].cards] == ["cpu_only_build"]
    for sid in ("placement", "dataloader", "benchmark"):
        assert flow.state(sid).status is not StepStatus.PENDING

    assert window.summary.verdict_headline == verdict(cli).headline
    if cli.findings:
        assert window.summary.cards[0].finding.id == cli.findings[0].id  # root cause first
    # the step list shows each status, and the probe never brought torch into the GUI process
    assert window.steps_list.item(1).data(Qt.ItemDataRole.UserRole) == flow.state("driver").status.value
    if cpu_only_machine:
        assert window.summary.verdict_headline == "This machine has no NVIDIA GPU"
    assert torch_before or "torch" not in sys.modules  # the probe ran elsewhere: no torch in this process
    # monitor: this machine has no GPU, so it says why; the run left a step marker on the time axis
    if cpu_only_machine:
        assert window.monitor_view.gpu_note.text().startswith("No NVIDIA GPU plot: ")
    assert next(m.step for m in window.monitor.snapshot().markers) == "environment"


def test_back_next_and_rerun_one_step(qtbot: Any, make_window: Any) -> None:
    window = make_window()
    env = window.pages["environment"]
    assert not env.back.isEnabled()
    qtbot.mouseClick(env.next, Qt.MouseButton.LeftButton)
    assert window.stack.currentWidget() is window.pages["driver"] and window.flow.current.id == "driver"
    qtbot.mouseClick(window.pages["driver"].back, Qt.MouseButton.LeftButton)
    assert window.stack.currentWidget() is env
    with qtbot.waitSignal(window.run_finished, timeout=RUN_TIMEOUT_MS):
        qtbot.mouseClick(window.pages["wheel"].run, Qt.MouseButton.LeftButton)
    # one probe run answers all three diagnosis steps; the runtime steps were not asked for
    assert window.flow.state("driver").status is StepStatus.ERROR
    assert window.flow.state("placement").status is StepStatus.PENDING
    assert window.pages["wheel"].run.text() == "Run again"


@pytest.mark.parametrize("name", ["healthy-linux-rtx4090", "cpu-only-build-rtx4090"])
def test_simulated_machine(qtbot: Any, make_window: Any, name: str) -> None:

    assert name in {s.name for s in list_scenarios()}, f"scenario {name} is missing"
    window = make_window("--simulate", name, "--replay-speed", "8")
    assert window.banner.isVisible() and window.banner.text().startswith("SIMULATED")
    assert not window.target_combo.isEnabled()
    stages: list[str] = []  # the replay runs with the recorded timing (8x faster)
    original = window._on_event

    def spy(ev: dict[str, Any]) -> None:
        if ev.get("event") == "stage" and ev.get("status") == "start":
            stages.append(str(ev.get("stage")))
        original(ev)

    window._on_event = spy
    run_all(qtbot, window)
    expected = simulate(name)
    assert "import_torch" in stages
    for sid in ("environment", "driver", "wheel"):
        assert [c.finding.id for c in window.pages[sid].cards] == [f.id for f in expected.findings if f.step == sid]
    report = window.flow.report()
    assert window.summary.verdict_headline == verdict(report).headline
    assert window.current_page is window.summary  # the run ends on the verdict
    summary_item = window.steps_list.item(window.flow.ids.index("summary"))
    assert summary_item.data(Qt.ItemDataRole.UserRole) == verdict(report).severity  # one status, one colour
    if name == "cpu-only-build-rtx4090":
        assert window.flow.state("wheel").status is StepStatus.ERROR
        assert window.summary.verdict_headline == verdict(expected).headline  # the root cause stays first
        placement = window.flow.state("placement")
        assert placement.status is StepStatus.SKIPPED and "Wheel type found a problem" in placement.reason
        assert window.flow.offered() == ["dataloader"]  # CPU only: offered, not run (walkthrough #5)
    else:
        assert not expected.has_error and window.flow.summary_status() is not StepStatus.ERROR
        # the recorded runtime tests ran too; their verdict is about speed, said after "the GPU is usable"
        for sid in ("placement", "dataloader", "benchmark"):
            assert window.pages[sid].status not in (StepStatus.PENDING, StepStatus.UNAVAILABLE)
        # gpuassist's own synthetic DataLoader is a measurement, never the headline (walkthrough #3)
        assert window.summary.verdict_headline == "PyTorch can use NVIDIA GeForce RTX 4090"
        assert not any(c.finding.id == "tensors_on_different_devices" for c in window.summary.cards)
    text = window.export_text("markdown")
    assert "SIMULATED" in text


def test_closing_during_a_run_stops_the_probe_and_exits_quickly(qtbot: Any, make_window: Any) -> None:
    window = make_window()
    seen: list[dict[str, Any]] = []
    original = window._on_event
    window._on_event = lambda ev: (seen.append(ev), original(ev))
    assert window.run(None)
    qtbot.waitUntil(lambda: any(e.get("event") == "hello" for e in seen), timeout=20_000)
    probe_pids = [p.pid for p in psutil.Process().children(recursive=True)]
    assert probe_pids, "the probe should be running"
    started = time.monotonic()
    window.close()
    took = time.monotonic() - started
    assert took <= 2.0, f"closing took {took:.2f} s"
    assert not window.busy and not window.monitor.running
    assert not [p for p in psutil.Process().children(recursive=True) if p.status() != psutil.STATUS_ZOMBIE]


def test_stop_button_cancels_the_run(qtbot: Any, make_window: Any) -> None:
    window = make_window("--simulate", "probe-hang-in-cuda-init")
    with qtbot.waitSignal(window.run_finished, timeout=10_000):
        window.run(None)
        qtbot.waitUntil(lambda: window.flow.running == "environment", timeout=5_000)
        assert window.stop_button.isEnabled()
        qtbot.mouseClick(window.stop_button, Qt.MouseButton.LeftButton)
    assert window.flow.state("environment").status is StepStatus.CANCELLED
    assert window.pages["environment"].run.isEnabled()


def test_open_a_report_json(qtbot: Any, make_window: Any, tmp_path: Path) -> None:

    report = simulate("cpu-only-build-rtx4090")
    path = tmp_path / "ticket.json"
    path.write_text(json.dumps(report.to_json()))
    window = make_window()
    assert window.open_report_file(path)
    assert window.stack.currentWidget() is window.summary
    assert window.summary.verdict_headline == verdict(report).headline
    assert window.banner.isVisible() and "ticket.json" in window.banner.text()
    assert not window.run_button.isEnabled()
    assert [c.finding.id for c in window.pages["wheel"].cards] == [f.id for f in report.findings if f.step == "wheel"]


@pytest.mark.parametrize("paste", sorted(p.name for p in (DATA / "pastes").glob("*.txt")))
def test_paste_collect_env_output(qtbot: Any, make_window: Any, paste: str) -> None:
    """The window reads a paste exactly as `diagnose --from` does: same verdict, same cards, same refusals."""
    text = (DATA / "pastes" / paste).read_text(encoding="utf-8")
    window = make_window()
    try:
        expected = load_text(text, label="pasted text")
    except UnreadableInput as refusal:
        # A corpus text the CLI refuses (a held-out miss kept as scored) must be refused the same way here.
        assert not window.load_pasted_text(text)
        assert window.last_error is not None and str(refusal) in window.last_error
        return
    assert window.load_pasted_text(text)
    assert window.summary.verdict_headline == verdict(expected).headline
    assert [c.finding.id for c in window.summary.cards] == [f.id for f in expected.findings]


def test_unreadable_input_is_one_line_not_a_traceback(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window()
    assert not window.load_pasted_text("hello world, nothing to see")
    assert window.last_error is not None and "\n" not in window.last_error
    assert window.last_error.startswith("Cannot diagnose the pasted text: ")
    bad = tmp_path / "broken.json"
    bad.write_text('{"schema": "gpuassist.report/1", "findings": [')
    assert not window.open_report_file(bad)
    assert window.last_error.startswith("Cannot diagnose broken.json: ") and "Traceback" not in window.last_error
    assert window.flow.source == "live"  # nothing was replaced by the bad input


def test_export_all_formats(qtbot: Any, make_window: Any, tmp_path: Path, cpu_only_machine: bool) -> None:
    window = make_window()
    run_all(qtbot, window)
    qtbot.waitUntil(lambda: window.monitor_view.redraws > 0, timeout=5_000)
    home = str(Path.home())
    paths = {fmt: tmp_path / f"r.{fmt}" for fmt in ("html", "markdown", "json", "csv")}
    for fmt, p in paths.items():
        assert window.export_to(fmt, p), window.last_error
    html = paths["html"].read_text()
    live = diagnose_live()
    assert verdict(live).headline in html
    assert "<svg" in html and "s since Run all" in html  # the monitor figure, cropped to the run
    assert '<table class="header">' in html  # target, GPU, driver, torch, OS, date, version
    md = paths["markdown"].read_text()
    assert all(f.id in md for f in live.findings)
    data = json.loads(paths["json"].read_text())
    assert data["schema"] == "gpuassist.report/1"
    assert [f["id"] for f in data["findings"]][:2] == [f.id for f in live.findings][:2]
    assert data["monitor"]["t"]
    if cpu_only_machine:
        ids = [f["id"] for f in data["findings"]]
        assert ids[0] == "no_nvidia_gpu" and "cpu_only_build" in ids
        assert data["monitor"]["gpu_reason"]
    assert data["meta"]["redaction"]["personal"] is True
    assert home not in paths["json"].read_text()  # redacted by default
    assert paths["csv"].read_text().startswith("t_seconds,step,cpu_percent,ram_percent,core0_percent")
    # the same report the CLI writes (same renderer), modulo time stamps and the monitor

    cli_path = tmp_path / "cli.json"
    cli_main(["diagnose", "--python", sys.executable, "--format", "json", "--output", str(cli_path)])
    cli = json.loads(cli_path.read_text())
    diagnosis = [f["id"] for f in data["findings"] if f["step"] in ("environment", "driver", "wheel")]
    assert [f["id"] for f in cli["findings"]] == diagnosis  # the GUI adds the runtime steps' findings after
    assert cli["steps"][:3] == data["steps"][:3]


def test_settings_persist_target_geometry_and_redaction(qtbot: Any, make_window: Any, settings: Any) -> None:
    from gpuassist.ui.main_window import remembered_key

    base = os.path.realpath(sys.executable)  # another path to a real interpreter: the venv's base Python
    window = make_window()
    window.set_target(base)
    window.summary.redact.setChecked(False)
    window.resize(790, 700)  # the offscreen screen is 800 px wide: a restored geometry is fitted to it
    window.close()
    assert settings.value(remembered_key()) == base  # the choice is remembered for this machine
    assert settings.value("redact") == "0"
    assert settings.value("geometry") is not None
    again = make_window()
    assert abs(again.width() - 790) <= 20 and abs(again.height() - 700) <= 40  # frame margins vary
    assert not again.summary.redact.isChecked()
    assert again.target_combo.currentData() == base
    assert again.flow.context.target_explicit and "you chose" in again.target_reason.text()


def test_changing_target_reruns_what_depended_on_it(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window()
    run_all(qtbot, window)
    missing = str(tmp_path / "nope" / "bin" / "python")
    with qtbot.waitSignal(window.run_finished, timeout=RUN_TIMEOUT_MS):
        window.set_target(missing)
    env = window.flow.state("environment")
    assert env.status is StepStatus.ERROR  # the interpreter is not there: a finding, not a crash
    assert any("interpreter" in f.id for f in env.findings)
    assert window.flow.context.target == missing
    assert window.flow.state(SUMMARY).status is StepStatus.ERROR


def test_your_script_step_audits_the_chosen_file_and_the_export_carries_it(
    qtbot: Any, make_window: Any, settings: Any, tmp_path: Path
) -> None:
    script = DATA / "audit" / "broken_batches_on_cpu.py"
    window = make_window("--simulate", "healthy-linux-rtx4090", "--replay-speed", "0")
    page = window.pages["script"]
    window.go("script")
    assert window.script_label.text() == "none chosen" and "Optional" in page.pending_hint
    with qtbot.waitSignal(window.run_finished, timeout=RUN_TIMEOUT_MS):
        window.set_script(str(script))  # what Choose… does with the picked file
    assert window.flow.state("script").status is StepStatus.ERROR
    assert page.cards and all(c.finding.step == "script" for c in page.cards)
    assert any(c.copy_button.text() == "Copy" for c in page.cards)  # the code change, ready to paste
    assert settings.value("script") == str(script)
    md = window.export_text("markdown")
    assert "broken_batches_on_cpu.py:" in md
    again = make_window()  # the next start remembers it, without running anything
    assert again.script_label.text() == str(script) and not again.busy
