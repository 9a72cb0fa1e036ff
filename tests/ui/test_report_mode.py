"""Reading a report is a mode you can leave (issue #16 item 6), and the window's layout (item 7).

Walkthrough #7: after a paste the app said "restart gpuassist to diagnose this machine", the live monitor kept
the previous run under the pasted report, and the Driver step said "not available" although the paste named
the driver and the GPU. Walkthrough #9/#10: the monitor could not be folded, Environments pushed the wizard
down, and the plots kept scrolling after the run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from gpuassist.wizard import SUMMARY, StepStatus

DATA = Path(__file__).resolve().parents[1] / "data"


def texts(widget: Any) -> list[str]:
    return [w.text() for w in widget.findChildren(QLabel) if not w.isHidden() and w.text()]


def test_a_paste_opens_beside_the_live_session_and_close_report_restores_it(qtbot: Any, make_window: Any) -> None:
    window = make_window("--simulate", "healthy-linux-rtx4090", "--replay-speed", "0")
    with qtbot.waitSignal(window.run_finished, timeout=60_000):
        qtbot.mouseClick(window.run_button, Qt.MouseButton.LeftButton)
    live_flow = window.flow
    live_headline = window.summary.verdict_headline
    paste = next(
        p
        for p in sorted((DATA / "pastes").glob("*.txt"))
        if "Nvidia driver version: 5" in p.read_text(encoding="utf-8", errors="replace")
    )
    assert window.load_pasted_text(paste.read_text(encoding="utf-8"))
    assert window.flow is not live_flow and window.flow.source == "report"
    assert window.close_report_button.isVisible() and "Close report" in window.banner.text()
    assert "restart" not in window.banner.text()
    assert not window.monitor_view.isVisible()  # a paste has no trace: no live plots under it
    driver = window.flow.state("driver")
    assert driver.status is not StepStatus.UNAVAILABLE  # the paste names the driver: the step says so
    window.go("driver")
    shown = texts(window.pages["driver"])
    assert "Driver version" in shown and "GPU" in shown
    window.close_report()
    assert window.flow is live_flow and window.flow.source != "report"
    assert not window.close_report_button.isVisible() and window.monitor_view.isVisible()
    assert window.summary.verdict_headline == live_headline
    assert window.run_button.isEnabled()


def test_the_monitor_folds_remembers_and_folds_itself_on_a_short_window(
    qtbot: Any, make_window: Any, settings: Any
) -> None:
    window = make_window("--simulate", "healthy-linux-rtx4090", "--replay-speed", "0")
    window.resize(1200, 900)
    qtbot.wait(50)
    window.monitor_view.collapse_button.click()
    assert window.monitor_view.collapsed and not window.monitor_view.graphics.isVisible()
    assert settings.value("monitor_collapsed") == "1"
    window.monitor_view.collapse_button.click()
    assert settings.value("monitor_collapsed") == "0"
    window.resize(1200, 700)  # below ~800 px: compact
    qtbot.waitUntil(lambda: window.compact, timeout=2_000)
    assert window.monitor_view.collapsed
    assert settings.value("monitor_collapsed") == "0"  # the compact fold is not the user's choice
    window.resize(1200, 900)
    qtbot.waitUntil(lambda: not window.compact, timeout=2_000)
    assert not window.monitor_view.collapsed


@pytest.mark.slow  # the table inspects the interpreters it finds
def test_environments_open_in_their_own_window_without_resizing_this_one(qtbot: Any, make_window: Any) -> None:
    window = make_window()
    before = window.size()
    window.envs_button.setChecked(True)
    qtbot.waitUntil(lambda: window.envs_panel.isVisible(), timeout=5_000)
    assert window.envs_panel.window() is not window and window.size() == before
    window.envs_button.setChecked(False)
    assert not window.envs_panel.isVisible()
    if window.envs_worker is not None:
        qtbot.waitUntil(lambda: window.envs_worker is None, timeout=30_000)


def test_after_run_all_the_plots_stay_on_the_run_until_live(qtbot: Any, make_window: Any) -> None:
    window = make_window("--simulate", "healthy-linux-rtx4090", "--replay-speed", "0")
    with qtbot.waitSignal(window.run_finished, timeout=60_000):
        qtbot.mouseClick(window.run_button, Qt.MouseButton.LeftButton)
    view = window.monitor_view
    assert window.current_page is window.pages[SUMMARY]
    assert view.frozen is not None and not view.live_button.isChecked()
    qtbot.waitUntil(lambda: "s since Run all" in view.legend.text(), timeout=5_000)  # redrawn every 200 ms
    view.live_button.setChecked(True)
    assert view.frozen is None
