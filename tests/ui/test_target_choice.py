"""The app's default target (issue 11 item 4), offscreen: a guess among several environments opens the
environment table with the guess selected and one click changes it; the choice is remembered for this
machine; "Diagnose this one" on a finding that blames the interpreter makes that interpreter the target."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from envs_layouts import fake_binary
from gpuassist.envs.discovery import Origin
from gpuassist.envs.inspect import EnvRow, Inventory, TorchCopy
from gpuassist.envs.target import GUESS_WITH_TORCH, REMEMBERED, TargetChoice
from gpuassist.wizard.environments import Environments

pytestmark = pytest.mark.slow


def row(python: Path, name: str, version: str | None, *, target: bool = False) -> EnvRow:
    prefix = python.parent.parent
    site = f"{prefix}/lib/python3.11/site-packages"
    torch = (
        [TorchCopy(version, version.split("+")[1] if "+" in version else None, site, "pip", True)] if version else []
    )
    return EnvRow(
        python=str(python),
        name=name,
        kind="venv",
        status="ok",
        origins=[Origin("home_envs", f"virtualenv '{name}'", str(python))],
        python_version="3.11.7",
        prefix=str(prefix),
        platform="linux",
        machine="x86_64",
        torch=torch,
        torch_origin=f"{site}/torch/__init__.py" if version else None,
        is_target=target,
        last_used=1.7e9,
    )


@pytest.fixture()
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Three environments (two with torch): the default is a guess; the scan returns them at once."""
    pythons = {name: fake_binary(tmp_path / name / "bin" / "python") for name in ("cpuenv", "gpuenv", "bare")}
    guess = TargetChoice(
        str(pythons["cpuenv"]),
        "a guess: the most recently used of 2 environments that have torch (cpuenv)",
        GUESS_WITH_TORCH,
        ask=True,
        with_torch=(str(pythons["cpuenv"]), str(pythons["gpuenv"])),
        others=2,
        name="cpuenv",
    )
    calls: list[str | None] = []

    def choose(ctx: Any = None, *, remembered: str | None = None, **_: Any) -> TargetChoice:
        calls.append(remembered)
        if remembered:
            return TargetChoice(remembered, "the interpreter you chose in gpuassist on this machine", REMEMBERED)
        return guess

    def scan(target: str | None, emit: Any, cancel: Any) -> Environments:
        rows = [
            row(pythons["cpuenv"], "cpuenv", "2.5.1+cpu"),
            row(pythons["gpuenv"], "gpuenv", "2.5.1+cu124"),
            row(pythons["bare"], "bare", None),
        ]
        return Environments.from_inventory(Inventory(rows, seconds=0.2).with_target(target))

    monkeypatch.setattr("gpuassist.envs.target.choose_target", choose)  # the window looks it up there
    monkeypatch.setattr("gpuassist.wizard.environments.scan", scan)
    return {"pythons": pythons, "calls": calls}


@pytest.fixture()
def open_window(qtbot: Any, fresh_settings: Any) -> Iterator[Any]:
    from gpuassist.ui.app import build_window, parse_args

    made: list[Any] = []

    def make() -> Any:
        window = build_window(parse_args([]), fresh_settings)
        qtbot.addWidget(window)
        window.show()
        made.append(window)
        return window

    yield make
    for w in made:
        w.close()


def test_a_guess_opens_the_environments_with_it_selected_and_one_click_changes_it(
    qtbot: Any, machine: dict[str, Any], open_window: Any, fresh_settings: Any
) -> None:
    from gpuassist.ui.main_window import remembered_key

    pythons = machine["pythons"]
    window = open_window()
    assert window.flow.context.target == str(pythons["cpuenv"])
    assert not window.flow.context.target_explicit  # a guess: fixes may not aim at gpuassist's own env
    assert "a guess" in window.target_reason.text() and str(pythons["cpuenv"]) in window.target_reason.text()
    qtbot.waitUntil(lambda: window.environments is not None and window.envs_worker is None, timeout=10_000)
    panel = window.envs_panel
    assert panel.isVisible() and panel.asking and panel.ask_label.isVisible()
    assert "Which Python does your code run" in panel.ask_label.text() and "cpuenv" in panel.ask_label.text()
    names = [r.cells[1] for r in panel.rows]
    assert names == ["gpuenv", "cpuenv", "bare"]  # a GPU build first, then other torch builds, then the rest
    selected = panel.table.selectionModel().selectedRows()
    assert [i.row() for i in selected] == [1] and panel.rows[1].is_target  # the guess, pre-selected
    assert panel.rows[0].cells[3] == "2.5.1+cu124" and panel.rows[0].cells[6]  # torch build, last used
    # one click on another row makes it the target and remembers it for this machine
    rect = panel.table.visualRect(panel.table.model().index(0, 1))
    qtbot.mouseClick(panel.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.flow.context.target == str(pythons["gpuenv"])
    assert window.flow.context.target_explicit and "your choice" in window.target_reason.text()
    assert fresh_settings.value(remembered_key()) == str(pythons["gpuenv"])
    assert not panel.asking and not panel.ask_label.isVisible()
    assert next(r for r in panel.rows if r.is_target).python == str(pythons["gpuenv"])
    # a second click does not pick again: asking is over, a double-click or "Use as target" is needed now
    rect = panel.table.visualRect(panel.table.model().index(2, 1))
    qtbot.mouseClick(panel.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.flow.context.target == str(pythons["gpuenv"])
    window.close()
    # the next start uses the remembered choice and asks nothing
    again = open_window()
    assert machine["calls"][-1] == str(pythons["gpuenv"])
    assert again.flow.context.target == str(pythons["gpuenv"]) and again.flow.context.target_explicit
    assert again._envs_panel is None or not again.envs_panel.isVisible()


def test_diagnose_this_one_on_a_finding_that_blames_the_interpreter(
    qtbot: Any, machine: dict[str, Any], make_window: Any, settings: Any
) -> None:
    from gpuassist.ui.main_window import remembered_key

    pythons = machine["pythons"]
    window = make_window()
    window.flow.set_target(str(pythons["cpuenv"]), reason="test", explicit=True)
    rows = [row(pythons["cpuenv"], "cpuenv", "2.5.1+cpu"), row(pythons["gpuenv"], "gpuenv", "2.5.1+cu124")]
    window.environments = Environments.from_inventory(Inventory(rows).with_target(str(pythons["cpuenv"])))
    window.envs_button.setChecked(True)
    window.refresh()
    panel = window.envs_panel
    card = next(c for c in panel.cards if c.finding.id == "wrong_interpreter_or_kernel")
    assert card.diagnose_button is not None and card.diagnose_button.text() == "Diagnose this one"
    assert str(pythons["gpuenv"]) in card.diagnose_button.toolTip()
    qtbot.mouseClick(card.diagnose_button, Qt.MouseButton.LeftButton)
    assert window.flow.context.target == str(pythons["gpuenv"])
    assert settings.value(remembered_key()) == str(pythons["gpuenv"])
    # the same finding in a report read from elsewhere offers no button (nothing here to diagnose)
    from gpuassist.report.envs import envs_report
    from gpuassist.ui.cards import FindingCard, card_actions

    report_window = make_window()
    report = envs_report(Inventory(rows).with_target(str(pythons["cpuenv"])), {})
    report_window.show_loaded(report)
    assert not card_actions().enabled
    finding = next(f for f in report.findings if f.id == "wrong_interpreter_or_kernel")
    assert FindingCard(finding).diagnose_button is None


def test_the_apps_exports_name_the_interpreter_and_why(qtbot: Any, make_window: Any) -> None:
    window = make_window()
    with qtbot.waitSignal(window.run_finished, timeout=60_000):
        assert window.run_step("environment")
    assert "the interpreter you chose in gpuassist on this machine" in window.target_reason.text()
    for fmt in ("markdown", "html"):
        text = " ".join(window.export_text(fmt).split())
        assert "Interpreter:" in text and "the interpreter you chose in gpuassist on this machine" in text, fmt
    report = window.flow.report()
    assert report is not None and report.meta["target_reason"].startswith("the interpreter you chose")


def test_the_app_refuses_an_empty_python(capsys: pytest.CaptureFixture[str]) -> None:
    from gpuassist.ui.app import main

    assert main(["--python", ""]) == 2
    assert "--python needs the path of a Python interpreter" in capsys.readouterr().err


def test_a_guess_made_after_the_first_frame_still_asks(
    qtbot: Any, machine: dict[str, Any], fresh_settings: Any
) -> None:
    """`gpuassist-gui` chooses the target on the turn after the first frame (defer): the guess and the question
    are the same as when it was chosen while the window was built."""
    from gpuassist.ui.app import build_window, parse_args

    window = build_window(parse_args([]), fresh_settings, defer=True)
    qtbot.addWidget(window)
    try:
        assert window.flow.context.target is None and machine["calls"] == []
        with qtbot.waitSignal(window.completed, timeout=5000):
            window.show()
        assert machine["calls"] == [None]  # chosen once, with nothing remembered
        assert window.flow.context.target == str(machine["pythons"]["cpuenv"])
        assert "a guess" in window.target_reason.text()
        qtbot.waitUntil(lambda: window.environments is not None and window.envs_worker is None, timeout=10_000)
        assert window.envs_panel.asking and "cpuenv" in window.envs_panel.ask_label.text()
    finally:
        window.close()
