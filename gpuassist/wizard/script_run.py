"""The optional run of the user's script in the "Your script" step (Qt-free).

The static audit only reads the file. Ticking "Also run it" asks for more: the script is run, bounded and
instrumented, through :func:`gpuassist.audit.run.run_audit` — in the target interpreter, in the script's own
folder, with the arguments the user typed — and its findings are merged with the static ones exactly as
``gpuassist audit --run`` merges them (:func:`~gpuassist.audit.run.run_report`,
:func:`~gpuassist.audit.run.add_static_audit`). This module holds what the app needs around that: the
request (arguments and bound), why a script cannot be run here, the run's band on the live monitor, and
the words of the progress line.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gpuassist.own_python import fallback_python
from gpuassist.probe.events import ProgressEvent
from gpuassist.wizard.model import (
    OnEvent,
    RunRequest,
    RunRequestError,
    StepContext,
    StepOwnEvent,
)

if TYPE_CHECKING:  # start-up: the audit run's engine loads when a run is asked for
    from gpuassist.audit.run import BoundJson

# Lazy imports: start-up. The audit run's engine loads when a script is first chosen or run.


def run_unavailable(ctx: StepContext, path: str | None) -> str | None:
    """Why ``path`` cannot be run from here (None: it can). A simulated machine has nothing to run it on,
    and a notebook is not a script."""
    if ctx.simulated:
        return "not on a simulated machine: your script would run on this computer, not on the simulated one"
    if not path:
        return "choose a script first"
    if path.lower().endswith(".ipynb"):
        return (
            "a notebook is only read: to run it, export it as a script (jupyter nbconvert --to script) "
            "and choose the .py file"
        )
    if not os.path.isfile(path):
        return f"{path} does not exist"
    return None


def target_python(ctx: StepContext) -> str:
    """The interpreter the run uses: the target the app diagnoses (the app's own Python by default)."""

    return ctx.target or fallback_python()


def working_dir(path: str) -> str:
    """The script's own folder: where it finds the files it names relative to itself."""
    return os.path.dirname(os.path.abspath(path))


class RunMarks:
    """The run's band on the app's live monitor. :func:`~gpuassist.audit.run.run_audit` marks its set-up and
    the script; on the app's time axis the step keeps its own band ("Your script": reading the file,
    starting the interpreter, importing torch) up to the moment the script starts, then the script gets a
    band of its own, under the same step, so what the GPUs did during exactly the user's code is visible."""

    def __init__(self, monitor: Any, step_id: str, title: str) -> None:
        self.monitor = monitor
        self.step_id = step_id
        self.title = title
        self._open = False

    def mark_start(self, key: str, title: str) -> None:
        if key == "run.script":
            self.monitor.mark_start(self.step_id, self.title)
            self._open = True

    def mark_end(self, key: str) -> None:
        if key == "run.script":
            self.close()

    def close(self) -> None:
        """End the script's band (also when the run was stopped before the script said it ended)."""
        if self._open:
            self._open = False
            self.monitor.mark_end(self.step_id)

    def snapshot(self) -> Any:
        return self.monitor.snapshot()


@dataclass
class RunOutcome:
    """A finished run with the static audit folded in: the findings for the page and the facts for the report."""

    findings: list[Any]
    facts: dict[str, Any]
    outcome: str
    ending: str  # how it ended, in words
    failure: str = ""  # the script's own failure (its exception, a non-zero exit status), in words


def run_script(
    ctx: StepContext, path: str, request: RunRequest, static: Any, on_event: OnEvent, cancel: threading.Event
) -> RunOutcome:
    """Run ``path`` as ``request`` asks, in the target interpreter and the script's folder, and merge its
    findings with the static audit ``static`` (an ``AuditResult`` or None) as ``gpuassist audit --run`` does.
    Raises :class:`RunRequestError` for a request that cannot run; never for anything the script does."""
    from gpuassist.audit.run import RUN_STEP, RunUsageError, add_static_audit, parse_command, run_audit, run_report
    from gpuassist.audit.run_blocks import ending_lines

    args, bound = request.args(), request.bound()
    cwd = working_dir(path)
    try:
        command = parse_command([os.path.abspath(path), *args], python=target_python(ctx), cwd=cwd)
    except RunUsageError as exc:
        raise RunRequestError(str(exc)) from None
    on_event(
        {
            "event": "script_run",
            "script": os.path.basename(path),
            "python": command.python,
            "cwd": cwd,
            "bound": bound.to_json(),
            "display": command.display(),
        }
    )
    monitor = ctx.monitor
    marks = RunMarks(monitor, RUN_STEP, f"Running {os.path.basename(path)}") if monitor is not None else None
    try:
        result = run_audit(command, bound, on_event=on_event, cancel=cancel, monitor=marks)
    finally:
        if marks is not None:
            marks.close()
    report = run_report(result)
    if static is not None:
        add_static_audit(report, static, cwd)
    lines = ending_lines(report.facts)
    ending = lines[0] if lines else ""
    stop = result.facts.get("run.stop")
    failure = ""
    if isinstance(stop, dict) and stop.get("reason") == "error":
        failure = next((line for line in lines if line.startswith("exception at ")), ending)
    elif isinstance(stop, dict) and stop.get("reason") == "exit" and stop.get("exit_code") not in (0, None):
        failure = ending
    return RunOutcome(list(report.findings), dict(result.facts), result.outcome, ending, failure)


# ---- the progress line ------------------------------------------------------------------------------------


class RunProgress:
    """What the script step's progress bar and line say, from its events: reading the file, starting the
    interpreter, importing torch, then the script's steps and seconds against the limit. ``fraction`` is
    None while there is no measure of how far it is (the bar then just shows activity)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.fraction: float | None = None
        self.text = "Starting…"
        self.script = "your script"
        self.bound: BoundJson = {"seconds": 0.0, "steps": None}  # none yet: no measure of how far it is
        self.running = False

    def on_event(self, ev: StepOwnEvent) -> bool:
        """Take one event; True when the bar or the line changed."""
        if ev["event"] == "audit":
            self.text = f"{ev['message'] or 'Reading the script'} (read, not run)…"
        elif ev["event"] == "script_run":
            self.script = ev["script"] or self.script
            self.bound = ev["bound"]
            self.text = f"Starting {ev['python']} in {ev['cwd']}…"
        elif ev["event"] == "stage" and ev["stage"] == "setup" and ev["status"] == "start":
            self.text = "Importing torch and installing gpuassist's instruments in that interpreter…"
        elif ev["event"] == "stage" and ev["stage"] == "script" and ev["status"] == "start":
            self.running = True
            self.fraction = 0.0
            self.text = f"Running {self.script}…"
        elif ev["event"] == "progress" and ev["stage"] == "script":
            self._progress(ev)
        elif ev["event"] == "stage" and ev["stage"] == "script":
            self.running = False
            self.fraction = 1.0
            self.text = f"{self.script} stopped; judging what it did…"
        elif ev["event"] == "killed":
            why = "you stopped it" if ev["reason"] == "cancelled" else ev["reason"]
            self.text = f"Stopping {self.script} ({why})…"
        else:
            return False
        return True

    def _progress(self, ev: ProgressEvent) -> None:
        steps = ev.get("steps", 0)
        seconds = float(ev.get("seconds") or 0.0)
        limit_steps, limit_seconds = self.bound["steps"], self.bound["seconds"]
        shares = []
        if limit_steps is not None and limit_steps > 0:
            shares.append(steps / limit_steps)
        if limit_seconds > 0:
            shares.append(seconds / float(limit_seconds))
        if shares:
            self.fraction = min(1.0, max(shares))
        done = f"{steps:,} of {limit_steps:,} steps" if limit_steps is not None else f"{steps:,} steps"
        of = f" of at most {float(limit_seconds):g} s" if limit_seconds else ""
        self.text = f"Running {self.script}: {done}, {seconds:.0f} s{of}"
