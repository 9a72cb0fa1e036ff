"""The instrumented run of the user's training script (``gpuassist audit --run``), host side (Qt- and torch-free).

``gpuassist audit --run [--seconds N | --steps N] -- python train.py ARGS`` runs ``train.py`` in the
interpreter the command names (looked up on PATH as the user's shell would), for a bounded time, through
``gpuassist/probe/audit_script.py`` and the probe runner (own process group, stage limits, cancel,
crash/hang capture). The script is not edited; the instruments live in that process only. The live
monitor samples the machine meanwhile (CPU/RAM, and the GPUs through NVML when there is a driver), so
the report carries the GPU trace of exactly this run, with the set-up and the script marked on it.

Everything the run learns becomes ``run.*`` facts (docs/facts.md, "Audit run facts") through
:func:`run_facts_from_events`, the one path for live runs and recorded streams alike
(``tests/data/audit_run/*.json``); :mod:`gpuassist.audit.run_rules` turns them into findings.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from gpuassist.audit.run_rules import RULES
from gpuassist.envs.discovery import Context, script_interpreter
from gpuassist.envs.target import choose_target
from gpuassist.facts import Facts
from gpuassist.monitor import Monitor
from gpuassist.own_python import fallback_python, own_python
from gpuassist.probe import audit_script
from gpuassist.probe.events import Event, OnEvent, parse_events
from gpuassist.probe.runner import StageLimits, facts_from_events, run_script
from gpuassist.report.build import build_report
from gpuassist.report.model import step_summaries
from gpuassist.rules import order_findings

DEFAULT_SECONDS = 30.0  # neither --seconds nor --steps
LONGEST_SECONDS = 86400.0  # --seconds: a bound, never "forever"
STEPS_CAP_SECONDS = 300.0  # --steps alone: a script that never reaches N steps still ends
SETUP_LIMIT = 120.0  # importing torch and installing the instruments
KILL_MARGIN = 15.0  # past the bound and the script's own stop grace, the host kills the process group
MONITOR_POINTS = 1200  # monitor samples kept in a report
RUN_STEP = "script"  # the report step of every finding about the user's script (the static audit's too)

PYTHON_NAME = re.compile(r"^(python|pypy)(\d+(\.\d+)*)?[dmu]?(\.exe)?$", re.IGNORECASE)
# Interpreter options passed through as given (the rest change what runs, or cannot apply to a script run).
PLAIN_FLAGS = set("bBdEiIOPqsSuvR")
FLAGS_WITH_VALUE = ("-W", "-X")
# Options whose value is a secret: any name with one of these words (--wandb-key, --key, --hf-token,
# --db-password), and -p, which is the password of mysql, psql-like and many training launchers' tools.
SECRET_OPTION = re.compile(
    r"pass(word)?|passwd|pwd|secret|token|key|auth|credential|cookie|session|^-p$", re.IGNORECASE
)


class RunUsageError(ValueError):
    """The command cannot be run as given; the message is the one line shown to the user."""


@dataclass(frozen=True)
class RunCommand:
    """What to run: ``python [flags] (script | -m module) args`` with the interpreter as the user named it."""

    python: str
    target: str  # the script's absolute path, or the module name
    module: bool = False
    args: tuple[str, ...] = ()
    python_flags: tuple[str, ...] = ()
    cwd: str = field(default_factory=os.getcwd)
    resolved: str | None = None  # ``python`` looked up on PATH, as the shell would (None: not found)
    python_reason: str = ""  # why this interpreter (the command named it, the shebang, the default target)

    def words(self) -> list[str]:
        """The command line after the interpreter (what audit_script.py gets after ``--``)."""
        return [*(["-m", self.target] if self.module else [self.target]), *self.args]

    def display(self) -> str:
        shown = (
            os.path.relpath(self.target, self.cwd)
            if not self.module and self.target.startswith(self.cwd)
            else self.target
        )
        return " ".join(
            [self.python, *self.python_flags, *(["-m"] if self.module else []), shown, *scrub_args(self.args)]
        )


class BoundJson(TypedDict):
    """A :class:`Bound` as JSON (the report's ``run.bound`` fact, the app's script-run event)."""

    seconds: float
    steps: int | None


@dataclass(frozen=True)
class Bound:
    """When the run is stopped: after ``seconds``, or earlier after ``steps`` optimizer steps."""

    seconds: float
    steps: int | None = None

    @classmethod
    def of(cls, seconds: float | None = None, steps: int | None = None) -> Bound:
        if seconds is not None and not seconds > 0:
            raise RunUsageError("--seconds must be a positive number")
        if seconds is not None and not seconds <= LONGEST_SECONDS:  # inf and nan too: every run ends
            raise RunUsageError(f"--seconds must be at most {LONGEST_SECONDS:g} (24 hours)")
        if steps is not None and steps < 1:
            raise RunUsageError("--steps must be at least 1")
        if seconds is None:
            seconds = STEPS_CAP_SECONDS if steps is not None else DEFAULT_SECONDS
        return cls(float(seconds), steps)

    def to_json(self) -> BoundJson:
        return {"seconds": self.seconds, "steps": self.steps}


@dataclass
class RunResult:
    """One instrumented run: its facts, the timed events they came from, and the monitor trace."""

    command: RunCommand
    bound: Bound
    facts: dict[str, Any]
    events: list[Event]
    monitor: dict[str, Any] = field(default_factory=dict)

    @property
    def outcome(self) -> str:
        return str(self.facts.get("run.outcome"))


# ---- the command line after `--` ---------------------------------------------------------------------


def is_python(word: str) -> bool:
    return bool(PYTHON_NAME.match(os.path.basename(word)))


def scrub_args(args: Sequence[str]) -> list[str]:
    """The script's arguments with the values of password/token/key options replaced (reports get pasted)."""
    out: list[str] = []
    hide_next = False
    for a in args:
        if hide_next:
            out.append("<redacted>")
            hide_next = False
            continue
        name, eq, _ = a.partition("=")
        if a.startswith("-p") and not a.startswith("--") and len(a) > 2 and not eq:  # -pPASS
            out.append("-p<redacted>")
            continue
        if a.startswith("-") and SECRET_OPTION.search(name):
            if eq:
                out.append(f"{name}=<redacted>")
            else:
                out.append(a)
                hide_next = True
            continue
        out.append(a)
    return out


def _split_flags(words: Sequence[str]) -> tuple[list[str], list[str]]:
    """(interpreter flags, the rest) for the words after the interpreter."""
    flags: list[str] = []
    i = 0
    while i < len(words):
        w = words[i]
        if w in FLAGS_WITH_VALUE:
            if i + 1 >= len(words):
                raise RunUsageError(f"{w} needs a value")
            flags += [w, words[i + 1]]
            i += 2
        elif w.startswith(FLAGS_WITH_VALUE) and len(w) > 2:
            flags.append(w)
            i += 1
        elif w in ("-c", "-") or w.startswith("-c"):
            raise RunUsageError("audit --run runs a script file or a module (-m); `python -c` code cannot be audited")
        elif w.startswith("-") and w != "-m" and len(w) > 1 and not w.startswith("--") and set(w[1:]) <= PLAIN_FLAGS:
            flags.append(w)
            i += 1
        elif w.startswith("-") and w != "-m":
            raise RunUsageError(
                f"unsupported interpreter option {w}: give `python [-u] [-X opt] [-W arg] SCRIPT "
                "ARGS` or `python -m MODULE ARGS`"
            )
        else:
            break
    return flags, list(words[i:])


def _default_python(env: Mapping[str, str], cwd: str) -> tuple[str, str]:
    """(interpreter, why) when the command names none: the default target (gpuassist.envs.target), which
    is gpuassist's own only when no other Python exists."""
    ctx = Context(
        env=dict(env), home=os.path.expanduser("~"), cwd=cwd, executable=own_python(), windows=os.name == "nt"
    )
    choice = choose_target(ctx)
    return (choice.python or fallback_python(env)), choice.reason


def parse_command(
    argv: Sequence[str], *, python: str | None = None, cwd: str | None = None, env: Mapping[str, str] | None = None
) -> RunCommand:
    """``python train.py ARGS`` / ``python -m pkg.train ARGS`` / ``train.py ARGS`` (with ``python``, or the
    script's shebang, or PATH's python) → what to run. Raises :class:`RunUsageError` with one line."""
    cwd = cwd or os.getcwd()
    env = os.environ if env is None else env
    words = list(argv)
    if not words:
        raise RunUsageError("nothing to run: give the command after --, e.g. `-- python train.py --epochs 1`")
    interpreter: str | None = None
    reason = "the interpreter named with --python" if python is not None else "the interpreter the command names"
    if is_python(words[0]):
        if python is not None:
            raise RunUsageError(f"the interpreter is given twice (--python {python} and {words[0]}): give it once")
        interpreter, words = words[0], words[1:]
    elif words[0].startswith("-") and words[0] != "-m":
        raise RunUsageError(f"the command after -- starts with {words[0]}: give `python SCRIPT ARGS`")
    flags, words = _split_flags(words)
    if words[:1] == ["-m"]:
        if len(words) < 2 or not words[1] or words[1].startswith("-"):
            raise RunUsageError("-m needs a module name")
        chosen = interpreter or python
        if chosen is None:
            chosen, reason = _default_python(env, cwd)
        return RunCommand(chosen, words[1], True, tuple(words[2:]), tuple(flags), cwd, _lookup(chosen, env), reason)
    if not words:
        raise RunUsageError("no script to run: give `python SCRIPT ARGS`")
    script = os.path.abspath(os.path.join(cwd, words[0]))
    if not os.path.isfile(script):
        if interpreter is None and shutil.which(words[0], path=env.get("PATH", os.defpath)):
            raise RunUsageError(
                f"`{words[0]}` is not a Python interpreter: audit --run needs `python SCRIPT ARGS` "
                "(use --python PATH for a particular interpreter)"
            )
        raise RunUsageError(f"cannot run {words[0]}: no such file")
    if interpreter is None and python is None:
        ctx = Context(
            env=dict(env), home=os.path.expanduser("~"), cwd=cwd, executable=own_python(), windows=os.name == "nt"
        )
        shebang = script_interpreter(script, ctx)
        found = shebang.python
        if shebang.shebang and "not a Python" in shebang.how:
            raise RunUsageError(
                f"{words[0]} runs with `{shebang.shebang}`, not a Python interpreter: give `python SCRIPT ARGS`"
            )
        if found is not None and not is_python(found):
            raise RunUsageError(f"{words[0]} runs with {found}, not a Python interpreter: give `python SCRIPT ARGS`")
        if found is not None and shebang.shebang:
            interpreter, reason = found, f"the interpreter {os.path.basename(script)}'s first line (#!) names"
        else:
            interpreter, reason = _default_python(env, cwd)
    chosen = interpreter or python or fallback_python(env)
    return RunCommand(chosen, script, False, tuple(words[1:]), tuple(flags), cwd, _lookup(chosen, env), reason)


def _lookup(python: str, env: Mapping[str, str]) -> str | None:
    if os.sep in python or (os.altsep and os.altsep in python):
        return os.path.abspath(python)
    return shutil.which(python, path=env.get("PATH", os.defpath))


# ---- events → facts ------------------------------------------------------------------------------------


def run_facts_from_events(events: Sequence[Event], command: RunCommand, bound: Bound) -> dict[str, Any]:
    """Facts of a run's event stream, live or recorded: the runner's outcome keys under ``run.``, the
    script's ``run.*`` facts (the last summary sent when the script crashed), and what was asked."""
    facts = facts_from_events(events, prefix="run", stage_keys=audit_script.STAGE_KEYS)
    facts["run.command"] = {
        "python": command.python,
        "script": command.target,
        "module": command.module,
        "args": scrub_args(command.args),
        "python_flags": list(command.python_flags),
        "cwd": command.cwd,
        "display": command.display(),
        "resolved": command.resolved,
    }
    facts["run.bound"] = bound.to_json()
    return facts


def command_line(
    command: RunCommand, bound: Bound, script_limit: float, stop_grace: float
) -> Callable[[str, Path, str], list[str]]:
    def build(python: str, script: Path, nonce: str) -> list[str]:
        cmd = [
            python,
            "-X",
            "faulthandler",
            *command.python_flags,
            str(script),
            "--nonce",
            nonce,
            "--seconds",
            f"{bound.seconds:g}",
            "--grace",
            f"{stop_grace:g}",
            "--limit",
            f"setup={SETUP_LIMIT:g}",
            "--limit",
            f"script={script_limit:g}",
        ]
        if bound.steps is not None:
            cmd += ["--steps", str(bound.steps)]
        return [*cmd, "--", *command.words()]

    return build


def run_audit(
    command: RunCommand,
    bound: Bound,
    *,
    on_event: OnEvent | None = None,
    cancel: threading.Event | None = None,
    env: Mapping[str, str] | None = None,
    monitor: Any = None,
    stop_grace: float = audit_script.STOP_GRACE,
    kill_margin: float = KILL_MARGIN,
) -> RunResult:
    """Run ``command`` under the instruments until ``bound``; never raises for anything the script does (a
    crash, hang, exception or missing torch becomes facts). ``monitor``: a started
    :class:`gpuassist.monitor.Monitor` to mark and read (default: a live one for this run); ``cancel``
    stops the run within about a second. A script that does not stop within ``stop_grace`` seconds of its
    bound is ended by its own watchdog; one that cannot even be ended so is killed ``kill_margin`` later."""

    own = monitor is None
    mon = Monitor() if own else monitor
    if own:
        mon.start()
    titles = {"setup": "Importing torch, installing the instruments", "script": "Your script"}

    def relay(event: Event) -> None:
        if event["event"] == "stage" and event["stage"] in titles:
            if event["status"] == "start":
                mon.mark_start(f"run.{event['stage']}", titles[event["stage"]])
            else:
                mon.mark_end(f"run.{event['stage']}")
        if on_event is not None:
            on_event(event)

    script_limit = bound.seconds + stop_grace + kill_margin
    limits = StageLimits(
        startup=30.0,
        between=30.0,
        exit=5.0,
        grace=2.0,
        overall=SETUP_LIMIT + script_limit + 60.0,
        stages={"setup": SETUP_LIMIT, "script": script_limit},
    )
    try:
        result = run_script(
            command.python,
            "audit_script.py",
            command_line(command, bound, script_limit, stop_grace),
            limits=limits,
            defaults=audit_script.DEFAULT_LIMITS,
            on_event=relay,
            cancel=cancel,
            env=env,
            to_facts=lambda evs: run_facts_from_events(evs, command, bound),
            cwd=command.cwd,
        )
    finally:
        if own:
            mon.stop()
    trace = mon.snapshot().to_dict(max_points=MONITOR_POINTS)
    trace["label"] = f"{trace.get('label')} during `{command.display()}`"
    return RunResult(command, bound, result.facts, result.events, trace)


def replay(
    events: Sequence[Event], command: RunCommand, bound: Bound, monitor: Mapping[str, Any] | None = None
) -> RunResult:
    """A recorded stream as if it had just run (same facts path as a live run)."""
    return RunResult(command, bound, run_facts_from_events(events, command, bound), list(events), dict(monitor or {}))


def load_recording(path: str | os.PathLike[str]) -> RunResult:
    """A recording file: ``{"description", "command": {python, target, module, args, cwd}, "bound": {seconds,
    steps}, "events": [...], "monitor": {...}}`` → the run replayed through :func:`run_facts_from_events`."""

    data = json.loads(Path(path).read_text(encoding="utf-8"))
    c = data.get("command") or {}
    command = RunCommand(
        str(c.get("python", "python")),
        str(c.get("target", "train.py")),
        bool(c.get("module")),
        tuple(c.get("args") or ()),
        tuple(c.get("python_flags") or ()),
        str(c.get("cwd", "/")),
        c.get("resolved"),
    )
    b = data.get("bound") or {}
    return replay(
        parse_events(data["events"], f"{Path(path).name}: events"),
        command,
        Bound(float(b.get("seconds", DEFAULT_SECONDS)), b.get("steps")),
        data.get("monitor"),
    )


# ---- the report ----------------------------------------------------------------------------------------


def run_report(
    result: RunResult, host_facts: Mapping[str, Any] | None = None, *, meta: Mapping[str, Any] | None = None
) -> Any:
    """A Report of the run: the ``run.*`` facts (and the host's, when given), the run's findings, and the
    monitor trace of the run."""

    facts = Facts(dict(host_facts or {}))
    facts.update(result.facts)
    full_meta = {
        "target": result.command.python,
        "target_reason": result.command.python_reason,
        "command": result.command.display(),
        "bound": result.bound.to_json(),
        "source_label": f"a run of `{result.command.display()}`",
    }
    full_meta.update(meta or {})
    report = build_report(facts, source="audit_run", meta=full_meta, rules=RULES, ran={RUN_STEP})
    for f in report.findings:  # all about the user's script, next to the static audit's findings
        f.step = RUN_STEP
    report.steps = step_summaries(report.findings, {RUN_STEP})
    report.monitor = result.monitor
    return report


# Ids whose run finding is about one line: a static finding is the same one only at that line.
LINE_MATCHED = frozenset({"host_device_sync_in_loop", "tensors_on_different_devices"})


def add_static_audit(report: Any, static: Any, cwd: str | None = None) -> None:
    """Put the static audit of the same script (an ``AuditResult``) into the run's report. A run finding and
    a static one about the same thing become one finding: the run's title and numbers, the static audit's
    exact code change first in the fix, both sets of evidence. Static findings the run did not confirm stay
    as they are (the run may not have reached that code, or had no GPU to show it)."""

    base = cwd or os.getcwd()
    remaining = list(static.findings)
    for f in report.findings:
        same = [s for s in remaining if s.id == f.id]
        if f.id in LINE_MATCHED:
            at = next((e.value for e in f.evidence if e.fact == "run.location"), None)
            same = [
                s
                for s in same
                if isinstance(at, dict)
                and s.line == at.get("line")
                and os.path.abspath(os.path.join(base, s.path)) == os.path.abspath(str(at.get("file")))
            ]
        if not same:
            continue
        match = same[0]
        remaining.remove(match)
        measured = f.actions  # the run's own blocks, read before its text grows
        f.fix = f"{match.fix.text()}\n\n{f.fix}"
        f.structured_actions = [*match.fix.actions(), *measured]
        f.evidence += [e for e in match.to_finding().evidence if e not in f.evidence]
    report.findings = order_findings([*report.findings, *(s.to_finding() for s in remaining)])
    report.steps = step_summaries(report.findings, {RUN_STEP})
