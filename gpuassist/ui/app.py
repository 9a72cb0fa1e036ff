"""`gpuassist-gui`: build the QApplication, the wizard flow, the monitor and the main window.

Start-up stays lean (docs/architecture.md §5: first frame ≤ 1.1 × a bare PySide6 window with one pyqtgraph plot):
nothing heavy is imported before the window shows — no torch ever in this process, NVML is opened on the sampler
thread, scenarios/ingest/renderers load when first used — and the window is built with ``defer``: the first frame
has the page in view; the other pages, the default target's choice, sampling and --run/--report come on the turn
after it.
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

# Lazy imports: start-up. Qt and the window load after the arguments are checked, so a usage error costs
# no Qt start (docs/architecture.md §5: window shown within 1.1 × a bare window).

log = logging.getLogger("gpuassist.ui")

# benchmarks: print a line once the window's first frame is drawn, then quit ("complete": once it is complete)
STARTUP_ENV = "GPUASSIST_STARTUP_PROBE"


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="gpuassist-gui", description="Why is PyTorch not using my GPU?")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--simulate", metavar="NAME", help="run the app on a simulated machine (gpuassist scenarios)")
    src.add_argument(
        "--python",
        metavar="PATH",
        help="interpreter to diagnose (default: the one chosen before on "
        "this machine, else the active env, the project's env or python on PATH; never this app's "
        "own while another exists)",
    )
    src.add_argument("--report", metavar="FILE", help="open a gpuassist JSON report, collect_env output or error log")
    p.add_argument("--fleet", metavar="DIR", help="open a folder of nodes' reports as a fleet view (gpuassist fleet)")
    p.add_argument("--run", action="store_true", help="start Run all right away")
    p.add_argument("--page", metavar="STEP", help="show this step's page first (environment … summary)")
    p.add_argument("--replay-speed", type=float, default=1.0, help=argparse.SUPPRESS)
    return p.parse_args(list(argv))


def _log_file() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(Path.home(), ".local", "state")
    return Path(base) / "gpuassist" / "gui.log"


def setup_logging() -> Path | None:
    path = _log_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        logging.basicConfig(
            filename=str(path), level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
        )
        return path
    except OSError:
        logging.basicConfig(level=logging.WARNING)
        return None


def install_excepthook(log_path: Path | None) -> None:
    """An exception escaping a Qt slot becomes one line in a message box; the traceback goes to the log."""

    def hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):
            sys.__excepthook__(kind, exc, tb)
            return
        log.error("unhandled exception:\n%s", "".join(traceback.format_exception(kind, exc, tb)))
        first = (str(exc).strip().splitlines() or [""])[0]
        message = f"Something went wrong: {kind.__name__}{': ' + first if first else ''}"
        if log_path is not None:
            message += f"\n(details in {log_path})"
        try:
            from PySide6.QtWidgets import QApplication, QMessageBox

            if QApplication.instance() is not None and not os.environ.get("GPUASSIST_NO_DIALOGS"):
                QMessageBox.warning(None, "gpuassist", message)
                return
        except Exception:
            pass
        print(f"gpuassist: {message}", file=sys.stderr)

    sys.excepthook = hook


def make_monitor(scenario: Any, speed: float = 1.0) -> Any:
    """This machine's monitor, or for a simulated machine its recorded trace, played step by step at the
    replay speed of the steps."""
    from gpuassist.monitor import LiveSource, Monitor, TraceSource

    data = scenario.data.get("monitor") if scenario is not None else None
    if data:
        try:
            return Monitor(
                TraceSource(data, label=f"recorded trace of scenario {scenario.name} (SIMULATED)", speed=speed)
            )
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("scenario %s: unusable monitor trace (%s); showing this machine", scenario.name, exc)
    return Monitor(LiveSource(label="this machine" if scenario is None else "this machine, not the simulated one"))


def build_window(args: argparse.Namespace, settings: Any, *, defer: bool = False) -> Any:
    """The window for parsed arguments (shared by main() and the tests); ``defer``: what the first frame does
    not show is built on the turn after it (:class:`~gpuassist.ui.main_window.MainWindow`)."""
    from gpuassist.ui.main_window import MainWindow
    from gpuassist.wizard import StepContext, build_flow

    scenario = None
    label = ""
    if args.simulate:
        from gpuassist.sim import load_scenario

        scenario = load_scenario(args.simulate)  # UnknownScenario: handled by the caller
        label = scenario.description
    target = args.python
    if scenario is not None:
        target = (scenario.data.get("probe") or {}).get("python")
    ctx = StepContext(target=target, scenario=args.simulate, replay_speed=args.replay_speed)
    flow = build_flow(ctx)
    monitor = make_monitor(scenario, args.replay_speed)
    window = MainWindow(flow, monitor, settings, scenario_label=label, defer=defer)
    from PySide6.QtCore import QTimer

    def when_up(work: Any, delay_ms: int = 0) -> None:
        """``work`` once the window is up: complete (``defer``: after its first frame), and the loop running."""
        if window.complete:
            QTimer.singleShot(delay_ms, work)
        else:
            window.completed.connect(lambda: QTimer.singleShot(delay_ms, work))

    # sampling starts once the window is up: its first imports (psutil, NVML) would compete with start-up
    when_up(monitor.start, 50)
    if args.fleet:  # the fleet view opens over the main window, once it is shown
        when_up(lambda: window.open_fleet(args.fleet))
    if args.python:
        window.set_target(args.python, reason="the interpreter named with --python", remember=False)
    return window


def resume_collector() -> None:
    """Turn the garbage collector back on (gpuassist-gui pauses it for the start-up) with every object made so
    far moved out of its way: modules, classes and widgets live as long as the app."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


def _descendants() -> set[int]:
    from gpuassist import lifetime

    return lifetime.descendant_pids()


def main(argv: Sequence[str]) -> int:
    t0 = time.perf_counter()
    try:
        args = parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if args.python is not None and not args.python.strip():
        print(
            "gpuassist: --python needs the path of a Python interpreter (it was given an empty string)", file=sys.stderr
        )
        return 2
    if args.python and not os.path.exists(args.python):
        print(f"gpuassist: --python {args.python}: no such file", file=sys.stderr)
        return 2
    log_path = setup_logging()
    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from gpuassist.ui.icon import set_app_identity

    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "gpuassist-gui"])
    from gpuassist.ui.qtcompat import unsound_bindings_message

    problem = unsound_bindings_message()
    if problem:
        print(f"gpuassist: {problem}", file=sys.stderr)
        return 2
    app.setOrganizationName("gpuassist")
    app.setApplicationName("gpuassist")
    set_app_identity(app)  # type: ignore[arg-type]
    install_excepthook(log_path)
    settings = QSettings()
    try:
        window = build_window(args, settings, defer=True)
    except LookupError as exc:  # unknown scenario
        print(f"gpuassist: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    window.show()
    # SIGINT (Ctrl+C in the terminal), SIGTERM (kill, a logout) and SIGHUP (the terminal closed) close the
    # window like its close button: the run is cancelled, its processes killed, the sampler joined.
    from gpuassist import interrupts

    received: list[int] = []

    def on_signal(signum: int) -> None:
        received.append(signum)
        QTimer.singleShot(0, window.close)
        QTimer.singleShot(0, app.quit)  # also ends a modal dialog's loop

    restore = interrupts.install_qt_handlers(on_signal)
    ticker = QTimer()
    ticker.timeout.connect(lambda: None)  # Python runs signal handlers only when it gets control back
    ticker.start(200)
    probe = os.environ.get(STARTUP_ENV)
    if probe:

        def report(what: str, last: bool) -> None:
            print(f"window-{what} {time.perf_counter() - t0:.4f} torch={'torch' in sys.modules}", flush=True)
            if last:
                window.close()
                app.quit()

        # the first frame is drawn: the start-up is over; with "complete", also the turn after it that builds
        # the other pages and chooses the target (the benchmark's second line)
        window.first_frame.connect(lambda: report("shown", probe != "complete"))
        if probe == "complete":
            window.completed.connect(lambda: report("complete", True))
    # once the window is complete (its first frame drawn; psutil is not a start-up import), before any run: the
    # processes this one already had are not ours to reap at exit. (No subreaper here: in a long session,
    # orphans that end on their own would stay zombies; a run's leftovers are found by their marker instead,
    # gpuassist.lifetime.) A window closed before it was complete started nothing: nothing to reap.
    before: list[set[int]] = []

    def completed() -> None:
        resume_collector()
        before.append(_descendants())
        if args.report:
            window.open_report_file(args.report)
        elif args.run:
            window.run(None)
        if args.page and (args.report or args.run):  # the asked page, over the report's Summary or the run's step
            window.go(args.page)

    window.completed.connect(completed)
    window.destroyed.connect(resume_collector)  # closed before it was complete
    QTimer.singleShot(2000, resume_collector)  # and in any case within two seconds
    if args.page:  # in the first frame already
        QTimer.singleShot(0, lambda: window.go(args.page))
        if args.run:  # the run follows the step in progress; come back to the asked page at the end
            window.run_finished.connect(lambda: window.go(args.page))
    try:
        code = app.exec()
        window.shutdown()
    finally:
        ticker.stop()
        restore()
        if before:
            from gpuassist import lifetime

            lifetime.reap_descendants(exclude=before[0])
    return 128 + received[0] if received else int(code)
