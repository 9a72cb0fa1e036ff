"""The app's window start-up (`build_window(defer=True)`, what `gpuassist-gui` does): the first frame shows the
page in view; the other pages and the default target's choice come on the turn after it, and the window then
is the same as one built all at once (docs/architecture.md §5, benchmarks/gui_startup.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gpuassist.wizard import SUMMARY


@pytest.fixture
def windows(qtbot: Any) -> Iterator[Any]:
    """windows(settings, *argv, defer=...) → a MainWindow built like `gpuassist-gui ARGV`, not yet shown."""
    from gpuassist.ui.app import build_window, parse_args

    made: list[Any] = []

    def make(settings: Any, *argv: str, defer: bool) -> Any:
        window = build_window(parse_args(argv), settings, defer=defer)
        qtbot.addWidget(window)
        made.append(window)
        return window

    yield make
    for w in made:
        if not w._closing:  # closed once (its sampler joined) before the leak check
            w.close()


def combo_items(window: Any) -> list[Any]:
    return [window.target_combo.itemData(i) for i in range(window.target_combo.count())]


def test_the_first_frame_has_the_page_in_view_and_the_rest_follows_it(qtbot: Any, windows: Any, settings: Any) -> None:
    window = windows(settings, defer=True)
    first = window.flow.ids[0]
    assert list(window.pages) == [first] and not window.complete
    assert window.target_combo.count() == 0 and window.flow.context.target is None  # chosen after the first frame
    # its line holds the place from the first frame on, so the layout does not move when the reason comes
    assert not window.target_reason.isHidden() and window.target_reason.text().startswith("Choosing the interpreter")
    assert window.stack.currentWidget() is window.pages[first]
    assert not window.run_button.isEnabled() and not window.run_all()  # no run before its target is chosen
    with qtbot.waitSignal(window.first_frame, timeout=5000), qtbot.waitSignal(window.completed, timeout=5000):
        window.show()
    assert window.frame_drawn and window.complete and window.run_button.isEnabled()
    # every page, in step order, as a window built at once has them
    assert list(window.pages) != [first] and set(window.pages) == set(window.flow.ids)
    assert [window.stack.widget(i) for i in range(window.stack.count())] == [window.pages[s] for s in window.flow.ids]
    assert window.stack.currentWidget() is window.pages[first]
    # the same target, selector and reason as a window built at once
    at_once = windows(settings, defer=False)
    assert at_once.complete and set(at_once.pages) == set(window.flow.ids)
    assert window.flow.context.target == at_once.flow.context.target == sys.executable
    assert combo_items(window) == combo_items(at_once)
    assert window.target_combo.currentData() == sys.executable
    assert window.target_reason.text() == at_once.target_reason.text() and "Diagnosing" in window.target_reason.text()
    # the pages built after the first frame are drawn like the others
    window.go(SUMMARY)
    assert window.stack.currentWidget() is window.summary
    assert window.summary.rendered_key is not None


def test_python_named_on_the_command_line_wins_over_the_later_choice(
    qtbot: Any, windows: Any, settings: Any, tmp_path: Path
) -> None:
    other = tmp_path / "venv" / "bin" / "python"
    other.parent.mkdir(parents=True)
    other.symlink_to(sys.executable)
    window = windows(settings, "--python", str(other), defer=True)
    assert window.flow.context.target == str(other)  # the first frame already names it
    with qtbot.waitSignal(window.completed, timeout=5000):
        window.show()
    assert window.flow.context.target == str(other) and window.flow.context.target_explicit
    assert window.target_combo.currentData() == str(other)
    assert window.target_choice is None and not window.asking  # nothing to ask: the user said which
    assert "--python" in window.target_reason.text()
    assert sys.executable in combo_items(window)  # the others found are listed to switch to
    assert combo_items(window).count(str(other)) == 1


def test_a_page_asked_for_before_the_window_is_complete_is_built_at_once(
    qtbot: Any, windows: Any, settings: Any
) -> None:
    window = windows(settings, defer=True)
    window.go(SUMMARY)  # --page summary: before the first frame
    assert window.stack.currentWidget() is window.pages[SUMMARY] and not window.complete
    with qtbot.waitSignal(window.completed, timeout=5000):
        window.show()
    assert window.stack.currentWidget() is window.summary  # completing does not move the user
    assert [window.stack.widget(i) for i in range(window.stack.count())] == [window.pages[s] for s in window.flow.ids]


def test_a_window_closed_before_it_is_complete_builds_nothing_more(qtbot: Any, windows: Any, settings: Any) -> None:
    window = windows(settings, defer=True)
    window.show()
    window.close()
    qtbot.wait(50)
    assert not window.complete and list(window.pages) == [window.flow.ids[0]]
    assert not window.monitor.running  # the sampler starts with the complete window
