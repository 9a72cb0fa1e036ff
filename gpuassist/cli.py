"""Command line: ``gpuassist diagnose | fleet | scenarios | explain | placement | sweep | bench | audit``.

The contract (options, formats, exit status) is docs/architecture.md §3.

``placement``, ``sweep`` and ``bench`` run the runtime tests (``gpuassist.runtime``) in the target
interpreter with a progress bar on a terminal; their report holds only the steps they measured
(``diagnose`` stays env/driver/wheel only, for speed).

Exit status: 0 no error-severity finding; 1 at least one; 2 bad usage or unreadable input (one line on
stderr, never a traceback); 3 an internal error (one line; set GPUASSIST_DEBUG=1 for the traceback);
130 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from gpuassist import __version__, desktop
from gpuassist.interrupts import run_cancellable
from gpuassist.streams import silence_stdout, utf8_streams

# Lazy imports: start-up. Each subcommand imports its own engine when it runs, so `gpuassist diagnose`
# (budget: docs/architecture.md §5) never loads the audit, the runtime tests or the environment scan.

if TYPE_CHECKING:
    from gpuassist.audit import AuditResult
    from gpuassist.envs.target import TargetChoice
    from gpuassist.probe.events import Event

FORMATS = ("text", "json", "markdown", "html")
DEFAULT_TARGET_HELP = (
    "interpreter to diagnose (default: the one your code most likely runs: the active env, the "
    "project's env, or python on PATH; `gpuassist envs` shows the choice and why)"
)


class UsageError(Exception):
    """Bad usage or unreadable input: exit 2 with this one-line message."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, not the whole usage block
        command = " ".join(["gpuassist", *self.prog.split()[1:]])  # the root parser's prog is "gpuassist" alone
        self.exit(2, f"gpuassist: {message} (see {command} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="gpuassist", description="Why is PyTorch not using my GPU, and what do I do about it?")
    parser.add_argument("--version", action="version", version=f"gpuassist {__version__}")
    menu = parser.add_mutually_exclusive_group()
    menu.add_argument(
        "--install-desktop-entry",
        action="store_true",
        help="add the app and its icon to your desktop's menu (this user only, no root)",
    )
    menu.add_argument("--uninstall-desktop-entry", action="store_true", help="remove them again")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    d = sub.add_parser("diagnose", help="diagnose this machine (or a report, collect_env output or error text)")
    src = d.add_mutually_exclusive_group()
    src.add_argument("--python", metavar="PATH", help=DEFAULT_TARGET_HELP)
    src.add_argument(
        "--from",
        dest="from_file",
        metavar="FILE",
        help="diagnose offline from a gpuassist JSON report, collect_env output or an error "
        "message/traceback/log ('-' reads stdin)",
    )
    src.add_argument("--simulate", metavar="NAME", help="diagnose a simulated machine (see `gpuassist scenarios`)")
    d.add_argument(
        "--full",
        action="store_true",
        help="everything Run all does in the app: after the diagnosis, the device-placement test, the "
        "DataLoader sweep and the CNN benchmark (with --simulate: the recorded results, at once)",
    )
    d.add_argument("--format", choices=FORMATS, default="text")
    d.add_argument("--output", metavar="FILE", help="write the report to FILE instead of standard output")
    d.add_argument(
        "--no-redact",
        action="store_true",
        help="keep home directory, user and host names (secrets and GPU UUIDs are always removed)",
    )

    sub.add_parser("scenarios", help="list the simulated machines for --simulate")

    fl = sub.add_parser(
        "fleet",
        help="merge many nodes' reports (files, folders, '-' for JSON lines on stdin): "
        "nodes grouped by root cause, outliers, missing reports",
    )
    fl.add_argument("paths", nargs="+", metavar="PATH", help="report files, folders of reports, or '-'")
    fl.add_argument("--format", choices=FORMATS, default="text")
    fl.add_argument("--output", metavar="FILE", help="write to FILE instead of standard output")
    fl.add_argument(
        "--expect",
        metavar="NAMES",
        help="the nodes that should have reported: a file with one name per line (`scontrol show "
        "hostnames`) or a comma-separated list; names with no report are listed as missing",
    )
    fl.add_argument(
        "--reveal",
        action="store_true",
        help="show --expect's nodes by their real names instead of their pseudonyms (for your own "
        "triage: the output then names your hosts)",
    )

    a = sub.add_parser(
        "audit",
        help="read a training script or notebook (never running it) and point at the lines that keep the GPU idle",
    )
    a.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="Python scripts (.py) or Jupyter notebooks (.ipynb); with --run, the command after --",
    )
    a.add_argument("--format", choices=("text", "json"), default="text")
    a.add_argument("--output", metavar="FILE", help="write to FILE instead of standard output")
    a.add_argument(
        "--run",
        action="store_true",
        help="also run the script, bounded and instrumented, and report what really happened: "
        "gpuassist audit --run [--steps N | --seconds N] -- python train.py ARGS",
    )
    a.add_argument(
        "--seconds",
        type=float,
        metavar="N",
        help="with --run: stop after the script ran N seconds (importing torch not counted; default 30)",
    )
    a.add_argument(
        "--steps",
        type=int,
        metavar="N",
        help="with --run: stop after N optimizer steps (and at most 300 s unless --seconds says otherwise)",
    )
    a.add_argument("--python", metavar="PATH", help="with --run: the interpreter, when the command is a bare script")
    a.add_argument("--no-progress", action="store_true", help="with --run: no progress bar even on a terminal")
    a.add_argument("--no-redact", action="store_true", help="keep home directory, user and host names")

    e = sub.add_parser("explain", help="explain a finding id from the catalogue")
    e.add_argument("id", nargs="?", help="finding id (omit to list them all)")

    v = sub.add_parser("envs", help="every Python environment here: its torch, and which one your code runs")
    v.add_argument("--script", metavar="FILE", help="the interpreter FILE runs with (shebang) is the target")
    v.add_argument(
        "--python",
        metavar="PATH",
        help="the interpreter your code runs with (default: --script's, "
        "else the active env, the project's env, python on PATH)",
    )
    v.add_argument("--format", choices=("text", "json"), default="text")
    v.add_argument("--timeout", type=float, default=5.0, metavar="S", help="seconds per interpreter (default 5)")
    v.add_argument("--output", metavar="FILE", help="write to FILE instead of standard output")
    v.add_argument("--no-redact", action="store_true", help="keep home directory, user and host names")

    helps = {
        "placement": "device placement, copy bandwidth (pageable/pinned) and the cost of moving batches",
        "sweep": "find the DataLoader settings that keep the device fed (adaptive search)",
        "bench": "small CNN training benchmark on the CPU and every accelerator",
    }
    for name, text in helps.items():
        r = sub.add_parser(name, help=text)
        r.add_argument("--python", metavar="PATH", help=DEFAULT_TARGET_HELP.replace("to diagnose", "to measure in"))
        r.add_argument("--device", metavar="DEV", help="only these devices, comma-separated (cuda:1, cpu, mps)")
        r.add_argument("--format", choices=("text", "json"), default="text")
        r.add_argument(
            "--size",
            choices=("default", "small", "tiny"),
            default=None,
            help="measurement size (default: $GPUASSIST_RUNTIME_SIZE or 'default')",
        )
        r.add_argument("--output", metavar="FILE", help="write the report to FILE instead of standard output")
        r.add_argument("--no-redact", action="store_true", help="keep home directory, user and host names")
        r.add_argument("--no-progress", action="store_true", help="no progress bar even on a terminal")
        if name == "sweep":
            r.add_argument(
                "--mode",
                choices=("adaptive", "grid", "both"),
                default="adaptive",
                help="adaptive search (default), the full grid, or both to compare them",
            )
    return parser


def _read_input(name: str) -> bytes:
    """A file (or ``-``, standard input) for ``--from``: only a regular file, never more than the size cap
    plus one byte (a FIFO, a device or a huge file is refused at once, in one line)."""
    from gpuassist.files import FileError, read_bounded
    from gpuassist.ingest.text import MAX_BYTES

    try:
        return read_bounded(name, MAX_BYTES)
    except FileError as exc:
        raise UsageError(f"cannot read {'standard input' if name == '-' else name}: {exc}") from None


def _write_output(text: str, output: str | None, *, fmt: str = "text") -> None:
    """Standard output (no ``--output``, or ``-``) or FILE, written whole or not at all (a temporary file
    renamed over it). JSON escapes the control characters a terminal obeys; every other format is passed
    through :func:`terminal_safe`, which keeps only colours."""
    from gpuassist.plaintext import json_safe, terminal_safe

    text = json_safe(text) if fmt == "json" else terminal_safe(text)
    if output is None or output == "-":
        if sys.stdout is None:
            raise UsageError("cannot write the report: standard output is closed")
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as exc:
            silence_stdout()
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "it is closed"
            raise UsageError(f"cannot write to standard output: {why}") from None
        return
    from gpuassist.files import FileError, write_atomic

    try:
        write_atomic(output, text)
    except FileError as exc:
        raise UsageError(f"cannot write {output}: {exc}") from None
    print(f"gpuassist: report written to {output}", file=sys.stderr)


def _target(python: str | None, *, script: str | None = None) -> TargetChoice:
    """The interpreter to work on and why (:func:`gpuassist.envs.target.choose_target`); ``--python ""`` is
    a usage error, not the default."""
    from gpuassist.envs.target import EmptyPython, choose_default

    try:
        return choose_default(python, script=script)
    except EmptyPython as exc:
        raise UsageError(str(exc)) from None


def cmd_desktop_entry(args: argparse.Namespace) -> int:
    """--install-desktop-entry / --uninstall-desktop-entry: the menu entry and icons under XDG paths."""
    if args.command is not None:
        raise UsageError(f"--install-desktop-entry and --uninstall-desktop-entry take no command ({args.command})")
    paths = desktop.DesktopPaths.for_user()
    try:
        if args.uninstall_desktop_entry:
            removed = desktop.uninstall(paths)
            print(
                f"gpuassist: removed {len(removed)} files"
                + (f" ({paths.entry})" if removed else ": no menu entry of gpuassist was installed")
            )
            return 0
        program = desktop.gui_program()
        desktop.install(paths, program)
    except desktop.DesktopEntryError as exc:
        raise UsageError(str(exc)) from None
    print(
        f"gpuassist: menu entry {paths.entry}\n  starts {program}\n"
        f"  icons under {paths.hicolor} ({len(desktop.ICON_SIZES)} sizes and scalable)"
    )
    return 0


def cmd_diagnose(args: argparse.Namespace) -> int:
    from gpuassist.report.redact import redact_report

    if args.full and args.from_file is not None:
        raise UsageError("--full runs the measurements on a machine; it cannot be combined with --from")
    if args.full:
        report = _full_run(args)
    elif args.from_file is not None:
        from gpuassist.ingest import UnreadableInput, load

        data = _read_input(args.from_file)
        label = "standard input" if args.from_file == "-" else os.path.basename(args.from_file)
        try:
            report = load(data, label=label)
        except UnreadableInput as exc:
            raise UsageError(f"cannot diagnose {label}: {exc}") from None
    elif args.simulate is not None:
        from gpuassist.report.node import NAME_ENV, node_info
        from gpuassist.sim import UnknownScenario, simulate

        try:
            report = simulate(args.simulate)
        except UnknownScenario as exc:
            raise UsageError(str(exc)) from None
        if os.environ.get(NAME_ENV):  # a cluster recipe rehearsed on simulated machines: the name it was given
            report.meta["node"] = node_info({NAME_ENV: os.environ[NAME_ENV]})
    else:
        from gpuassist.diagnose import diagnose_live

        choice = _target(args.python)
        if choice.python is None:
            raise UsageError(f"nothing to diagnose: {choice.reason}; give one with --python PATH")
        report = run_cancellable(lambda cancel: diagnose_live(choice=choice, cancel=cancel))

    from gpuassist.report.model import Report
    from gpuassist.wizard.export import assemble

    redacted = Report.from_json(redact_report(report.to_json(), personal=not args.no_redact))
    to_terminal = args.format == "text" and args.output is None and sys.stdout.isatty()
    text = assemble(
        redacted,
        args.format,
        width=_terminal_width() if to_terminal else 100,
        colour=to_terminal if args.format == "text" else None,
    )
    _write_output(text, args.output, fmt=args.format)
    return 1 if redacted.has_error else 0


def _full_run(args: argparse.Namespace) -> Any:
    """``diagnose --full``: the app's Run all, headless (:func:`gpuassist.wizard.export.run_all_headless`)."""
    from gpuassist.wizard.export import run_all_headless
    from gpuassist.wizard.model import StepContext

    if args.simulate is not None:
        from gpuassist.sim import UnknownScenario, load_scenario

        try:
            load_scenario(args.simulate)
        except UnknownScenario as exc:
            raise UsageError(str(exc)) from None
        context = StepContext(scenario=args.simulate, replay_speed=0)
    else:
        choice = _target(args.python)
        if choice.python is None:
            raise UsageError(f"nothing to diagnose: {choice.reason}; give one with --python PATH")
        context = StepContext(
            target=choice.python, target_reason=choice.reason, target_explicit=args.python is not None
        )
    report = run_all_headless(context)
    if report is None:
        raise UsageError("the diagnosis produced nothing to report")
    return report


def _terminal_width() -> int:
    try:
        return max(60, min(os.get_terminal_size().columns, 140))
    except OSError:
        return 100


class _Progress:
    """A rich progress bar on stderr fed by runtime events (stage starts, progress lines)."""

    def __init__(self, test: str, enabled: bool) -> None:
        self.progress: Any = None
        self.task: Any = None
        if not enabled:
            return
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        self.progress = Progress(
            TextColumn(f"[bold]{test}[/bold] {{task.description}}"),
            BarColumn(),
            TextColumn("{task.fields[count]}"),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        self.task = self.progress.add_task("starting", total=None, count="")
        self.progress.start()

    def __call__(self, event: Event) -> None:
        if self.progress is None:
            return
        if event["event"] == "stage" and event["status"] == "start":
            self.progress.update(self.task, description=event["stage"], completed=0, total=None, count="")
        elif event["event"] == "progress":
            done, total = event["done"], event["total"] or None
            self.progress.update(
                self.task,
                description=f"{event['stage']}: {event['message']}"[:70],
                completed=done,
                total=total,
                count=f"{done}/{total}" if total else "",
            )

    def stop(self) -> None:
        if self.progress is not None:
            self.progress.stop()


def cmd_runtime(args: argparse.Namespace) -> int:
    import threading

    from gpuassist.collect import collect_this_machine
    from gpuassist.report.model import Report
    from gpuassist.report.redact import redact_report
    from gpuassist.report.render import render
    from gpuassist.runtime import common, run_bench, run_placement, run_sweep
    from gpuassist.wizard.export import assemble

    test = args.command
    choice = _target(args.python)
    try:
        size = common.size_preset(args.size)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    devices = [d.strip() for d in (args.device or "").split(",") if d.strip()] or None
    host: dict[str, Any] = {}
    collector = threading.Thread(
        target=lambda: host.update(collect_this_machine()), daemon=True, name="gpuassist-host-facts"
    )
    collector.start()  # host facts (NVML PCIe link, WSL) are gathered while the test runs
    bar = _Progress(test, sys.stderr.isatty() and not args.no_progress)
    kwargs: dict[str, Any] = {"device": devices, "size": size, "on_event": bar}

    def work(cancel: threading.Event) -> Any:
        if test == "placement":
            return run_placement(choice.python, cancel=cancel, **kwargs)
        if test == "sweep":
            return run_sweep(choice.python, mode=args.mode, cancel=cancel, **kwargs)
        return run_bench(choice.python, cancel=cancel, **kwargs)

    try:
        result = run_cancellable(work)
    finally:
        bar.stop()
    collector.join(timeout=30)
    if result.facts.get(f"{test}.outcome") in ("interpreter_not_found", "python_too_old"):
        raise UsageError(f"cannot run {choice.python}: {result.facts.get(f'{test}.error')}")
    report = common.runtime_report(
        [result], {**host, **choice.facts()}, meta={**choice.meta(), "test": test, "size": size}
    )
    redacted = Report.from_json(redact_report(report.to_json(), personal=not args.no_redact))
    if args.format == "json":
        text = render(redacted, "json")
    else:
        # the same findings and measurement tables as the app's page and `diagnose --full` (one presentation)
        to_terminal = args.output is None and sys.stdout.isatty()
        text = assemble(redacted, "text", colour=to_terminal, width=_terminal_width() if to_terminal else 100)
    _write_output(text, args.output, fmt=args.format)
    return 1 if redacted.has_error else 0


def cmd_envs(args: argparse.Namespace) -> int:
    import threading

    from gpuassist.collect import collect_this_machine
    from gpuassist.envs.inspect import inventory
    from gpuassist.report.envs import envs_report, render_text
    from gpuassist.report.model import Report
    from gpuassist.report.redact import redact_report

    if args.script is not None and not os.path.isfile(args.script):
        raise UsageError(f"cannot read {args.script}: no such file")
    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    if args.python is not None:
        _target(args.python)  # `--python ""` is a usage error
    host: dict[str, Any] = {}
    collector = threading.Thread(
        target=lambda: host.update(collect_this_machine()), daemon=True, name="gpuassist-host-facts"
    )
    collector.start()  # host facts say whether there is a GPU at all; gathered while interpreters run
    inv = run_cancellable(
        lambda cancel: inventory(script=args.script, target=args.python, timeout=args.timeout, cancel=cancel)
    )
    collector.join(timeout=10)
    report = envs_report(inv, host, meta={"target_reason": inv.target_reason})
    redacted = Report.from_json(redact_report(report.to_json(), personal=not args.no_redact))
    if args.format == "json":
        from gpuassist.report.render import render

        text = render(redacted, "json")
    else:
        to_terminal = args.output is None and sys.stdout.isatty()
        text = render_text(redacted, colour=to_terminal, width=_terminal_width() if to_terminal else 140)
    _write_output(text, args.output, fmt=args.format)
    return 1 if redacted.has_error else 0


def cmd_audit(args: argparse.Namespace) -> int:
    """Findings in the user's code (``path:line:col ID message``, each with its fix), exit 1 on an error one."""
    from gpuassist.audit import render_json, render_text
    from gpuassist.report.redact import Redactor

    if args.run:
        return _audit_run(args)
    if args.seconds is not None or args.steps is not None or args.python is not None:
        raise UsageError("--seconds, --steps and --python go with --run")
    result = _static_audit(args.paths)
    to_terminal = args.output is None and sys.stdout.isatty()
    text = (
        render_json(result, redactor=Redactor(personal=not args.no_redact))
        if args.format == "json"
        else Redactor(personal=not args.no_redact).text(render_text(result, colour=to_terminal))
    )
    _write_output(text, args.output, fmt=args.format)
    return 1 if result.has_error else 0


def _audit_run(args: argparse.Namespace) -> int:
    """``audit --run``: the script's instrumented run plus its static audit, in one report (the run's numbers,
    the static audit's code changes). Ctrl+C stops the run and still reports what it saw."""
    import threading

    from gpuassist.audit import AuditInputError, audit_paths
    from gpuassist.audit.run import Bound, RunUsageError, add_static_audit, parse_command, run_audit, run_report
    from gpuassist.audit.run_blocks import summary_text
    from gpuassist.collect import collect_this_machine
    from gpuassist.report.model import Report
    from gpuassist.report.redact import redact_report
    from gpuassist.report.render import render
    from gpuassist.wizard.display import fact_label, show

    if args.python is not None:
        _target(args.python)  # `--python ""` is a usage error
    try:
        command = parse_command(args.paths, python=args.python)
        bound = Bound.of(args.seconds, args.steps)
    except RunUsageError as exc:
        raise UsageError(str(exc)) from None
    static = None
    if not command.module:
        shown = os.path.relpath(command.target, command.cwd)  # findings read as the user named the file
        try:
            static = audit_paths([command.target if shown.startswith("..") else shown])
        except AuditInputError:
            static = None  # it does not parse: the run reports the SyntaxError at its line
    host: dict[str, Any] = {}
    collector = threading.Thread(
        target=lambda: host.update(collect_this_machine()), daemon=True, name="gpuassist-host-facts"
    )
    collector.start()  # GPU names and driver for the report, gathered while the script runs
    bar = _Progress("audit --run", sys.stderr.isatty() and not args.no_progress)
    try:  # Ctrl+C stops the script and keeps what it showed
        result = run_cancellable(
            lambda cancel: run_audit(command, bound, on_event=bar, cancel=cancel), keep_result=True
        )
    finally:
        bar.stop()
    collector.join(timeout=30)
    if result.outcome == "interpreter_not_found":
        raise UsageError(f"cannot run {command.python}: {result.facts.get('run.error')}")
    report = run_report(result, host)
    if static is not None:
        add_static_audit(report, static, command.cwd)
    redacted = Report.from_json(redact_report(report.to_json(), personal=not args.no_redact))
    if args.format == "json":
        text = render(redacted, "json")
    else:
        to_terminal = args.output is None and sys.stdout.isatty()
        width = _terminal_width() if to_terminal else 100
        text = (
            summary_text(redacted.facts, colour=to_terminal, width=width)
            + "\n"
            + render(redacted, "text", colour=to_terminal, width=width, fact_label=fact_label, show_value=show)
        )
    _write_output(text, args.output, fmt=args.format)
    return 1 if redacted.has_error else 0


def _static_audit(paths: list[str]) -> AuditResult:
    from gpuassist.audit import AuditInputError, audit_paths

    try:
        return audit_paths(paths)
    except AuditInputError as exc:
        raise UsageError(str(exc)) from None


def cmd_fleet(args: argparse.Namespace) -> int:
    """Exit 1 when a node has an error-severity finding or a report is missing or unreadable."""
    from gpuassist.fleet import SourceNotes, iter_entries, merge
    from gpuassist.fleet.render import render as render_fleet
    from gpuassist.report.node import node_key

    expected: list[str] = []
    if args.expect:
        if os.path.isfile(args.expect):
            expected = _read_input(args.expect).decode("utf-8", "replace").split()
        else:
            expected = [n.strip() for n in args.expect.split(",") if n.strip()]
    notes = SourceNotes()
    if args.reveal and not expected:
        raise UsageError("--reveal needs --expect (the real names to match the pseudonyms against)")
    result = merge(
        iter_entries(args.paths, sys.stdin.buffer, notes),
        expected,
        key=node_key(os.environ),
        notes=notes,
        reveal=args.reveal,
    )
    kwargs = {}
    if args.format == "text":
        to_terminal = args.output is None and sys.stdout.isatty()
        kwargs = {"colour": to_terminal, "width": _terminal_width() if to_terminal else 100}
    _write_output(render_fleet(result, args.format, **kwargs), args.output, fmt=args.format)
    return 1 if result.has_error or not result.complete else 0


def cmd_scenarios(_: argparse.Namespace) -> int:
    from gpuassist.sim import list_scenarios

    for s in list_scenarios():
        print(f"{s.name:32} {s.description}")
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    from gpuassist.finding_docs import how_detected
    from gpuassist.knowledge import catalogue

    cat = catalogue()
    if not args.id:
        for item in cat.values():
            print(f"{item.id:38} {item.summary}")
        return 0
    entry = cat.get(args.id.strip().strip("`").lower())
    if entry is None:
        close = [i for i in cat if args.id.lower() in i]
        hint = f"; did you mean {', '.join(close[:3])}?" if close else "; `gpuassist explain` lists them"
        raise UsageError(f"unknown finding id {args.id!r}{hint}")
    print(f"{entry.id}: {entry.title}")
    print(
        f"layer: {entry.layer} · step: {entry.step}{' · core' if entry.core else ''} · "
        f"detected from: {how_detected(entry.id)}\n"
    )
    print(entry.summary + "\n")
    print(entry.explanation + "\n")
    if entry.symptoms:
        print("What you see:")
        for s in entry.symptoms:
            print(f"  {s}")
        print()
    print(f"How gpuassist detects it: {entry.detection}\n")
    print(f"Fix:\n{entry.fix}\n")
    print(f"To confirm: {entry.confirm}")
    if entry.sources:
        print("\nSources: " + "; ".join(entry.sources))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. Whatever happens (an interrupt, SIGTERM, SIGHUP, an error), no process it started
    outlives it: runs are cancelled and waited for, then every remaining descendant is killed."""
    from gpuassist import interrupts, lifetime

    if sys.stderr is None:  # started with stderr closed (`2>&-`): messages have nowhere to go, and that is fine
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (lives as long as the process)
    utf8_streams()
    if argv is None:  # the `gpuassist` program itself, not a call from another program (a test, the app)
        # orphans of our runs (setsid daemons) come back to us, to be reaped at the latest on exit; only a
        # short-lived process may be a subreaper: orphans that end on their own stay zombies until it exits
        lifetime.become_subreaper()
    before = lifetime.descendant_pids()  # called in-process (tests), processes started earlier are not ours
    try:
        with interrupts.terminate_as_interrupt():
            return _main(argv)
    except KeyboardInterrupt as exc:  # a signal between the handlers and the command
        _say("interrupted")
        return interrupts.exit_status(exc)
    finally:
        with contextlib.suppress(Exception):  # never let cleanup turn a result into a traceback
            lifetime.reap_descendants(exclude=before)


def _say(message: str) -> None:
    """One line on stderr; a file name or a key from a hostile report cannot drive the terminal."""
    from gpuassist.plaintext import strip_controls

    if sys.stderr is not None:
        with contextlib.suppress(OSError, ValueError):
            print(f"gpuassist: {strip_controls(message).replace(chr(10), ' ')}", file=sys.stderr)


def _main(argv: Sequence[str] | None) -> int:
    from gpuassist import interrupts

    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra and args.command == "audit" and args.run:  # `audit --run python train.py --epochs 2`, no `--`
        _say(
            f"{' '.join(extra)}: the script's own options go after `--`: "
            "gpuassist audit --run [--steps N | --seconds N] -- python train.py ARGS"
        )
        return 2
    if extra:
        command = f"gpuassist {args.command}" if args.command else "gpuassist"
        _say(f"unrecognized arguments: {' '.join(extra)} (see {command} --help)")
        return 2
    if args.command is None and not (args.install_desktop_entry or args.uninstall_desktop_entry):
        parser.print_help()
        return 2
    if sys.stdout is None:  # started with stdout closed (`>&-`)
        if getattr(args, "output", None) in (None, "-"):
            _say("cannot write the report: standard output is closed (use --output FILE)")
            return 2
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (lives as long as the process)
    handlers = {
        "diagnose": cmd_diagnose,
        "scenarios": cmd_scenarios,
        "explain": cmd_explain,
        "audit": cmd_audit,
        "envs": cmd_envs,
        "placement": cmd_runtime,
        "sweep": cmd_runtime,
        "bench": cmd_runtime,
        "fleet": cmd_fleet,
    }
    try:
        if args.install_desktop_entry or args.uninstall_desktop_entry:
            return cmd_desktop_entry(args)
        return handlers[args.command](args)
    except UsageError as exc:
        _say(str(exc))
        return 2
    except KeyboardInterrupt as exc:
        _say("interrupted" if not isinstance(exc, interrupts.Terminated) else f"stopped by {exc.args[0]}")
        return interrupts.exit_status(exc)
    except BrokenPipeError:
        silence_stdout()  # the reader went away (`| head`): not an error of ours
        return 0
    except OSError as exc:  # the machine refused something ordinary (a full disk, a closed stream)
        if os.environ.get("GPUASSIST_DEBUG"):
            raise
        _say(f"{exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else ""))
        return 2
    except Exception as exc:
        if os.environ.get("GPUASSIST_DEBUG"):
            raise
        _say(f"internal error: {type(exc).__name__}: {exc} (GPUASSIST_DEBUG=1 shows details)")
        return 3


if __name__ == "__main__":
    sys.exit(main())
