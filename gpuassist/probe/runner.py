"""Host side of the probe: run ``probe_script.py`` in the target interpreter and survive whatever happens.

The target interpreter may be missing, not a Python, crash in native code, or hang in CUDA init (design
§2). The runner starts it in its own process group, reads its JSON-line stream while draining stderr into
a bounded buffer, enforces the time limit of the stage in progress, and on expiry or cancel kills the
whole group (SIGTERM, which makes faulthandler dump the hung stack, then SIGKILL). Every outcome becomes
facts (``probe.outcome`` ...), never an exception.

Everything the runner learns is an *event*, stamped with ``rt`` (seconds since launch): the probe's own
lines (protocol in ``probe_script.py``; lines before its ``hello`` with this run's nonce, and lines that
are not protocol, are ignored and counted) plus the ones the runner adds:

    {"event": "launch", "python": PATH_AS_ASKED, "rt": 0.0}
    {"event": "not_found", "reason": "it does not exist", "rt": ...}          (nothing was started)
    {"event": "killed", "reason": "timeout" | "overall" | "cancelled" | "exit_timeout",
     "stage": STAGE_OR_startup, "limit": SECONDS, "rt": ...}
    {"event": "exit", "returncode": N, "signal": "SIGSEGV" | None, "stderr_tail": [LINES],
     "garbage_lines": N, "rt": ...}
    {"event": "python_version", "version": "3.6.15", "rt": ...}   (it exited without a hello, yet answers
                                                                    as a Python too old for the script)

Every line is checked against the protocol as it arrives (:func:`gpuassist.probe.events.parse_line`): a
line that breaks it is counted with the garbage and logged, never passed on, so what follows reads typed
events (:data:`gpuassist.probe.events.Event`). Facts are derived from the events by
:func:`facts_from_events` only, so a recorded stream (JSON-dumped events) replays into exactly the facts
the live run produced.

The machinery is not specific to the probe: :func:`run_script` runs any script of this package that speaks
the same protocol (``runtime_script.py``, the placement / DataLoader / CNN measurements, also emits
``{"event": "progress", ...}`` lines, which are passed through untouched). :func:`run_probe` is
``run_script`` with the probe's script, stages and defaults; ``facts_from_events`` takes the outcome-key
prefix and the per-stage keys, so a runtime stream yields ``placement.outcome`` ... instead of
``probe.outcome`` ... and never overwrites the diagnosis's facts.
"""

from __future__ import annotations

import contextlib
import importlib.resources
import logging
import os
import queue
import re
import secrets
import selectors
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpuassist import lifetime
from gpuassist.facts import NotCollected, from_jsonable
from gpuassist.own_python import fallback_python
from gpuassist.probe import probe_script
from gpuassist.probe.events import (
    Event,
    ExitEvent,
    KilledEvent,
    KillReason,
    MalformedEvent,
    OnEvent,
    ScriptEvent,
    parse_line,
)

log = logging.getLogger(__name__)

STAGES: tuple[str, ...] = probe_script.STAGES
STAGE_KEYS: Mapping[str, tuple[str, ...]] = probe_script.STAGE_KEYS
FAULT_ENV = probe_script.FAULT_ENV
MIN_PYTHON = "3.8"  # the oldest Python the in-target scripts run on

STDERR_LIMIT = 256 * 1024  # bytes of stderr kept (the tail: faulthandler output comes last)
STDERR_TAIL_LINES = 30  # lines of stderr put into probe.stderr_tail
LINE_LIMIT = 4 * 1024 * 1024  # a protocol line longer than this is garbage
SCRIPT_LIMIT_SLACK = 30.0  # the script's own overall limit is the host's plus this (the host's comes first)

# Windows reports native crashes as NTSTATUS exit codes rather than signals.
WINDOWS_CRASH_CODES = {
    0xC0000005: "EXCEPTION_ACCESS_VIOLATION",
    0xC000001D: "EXCEPTION_ILLEGAL_INSTRUCTION",
    0xC00000FD: "EXCEPTION_STACK_OVERFLOW",
    0xC0000409: "STATUS_STACK_BUFFER_OVERRUN",
}


@dataclass(frozen=True)
class StageLimits:
    """Time limits in seconds. ``stages`` overrides the per-stage defaults of the probe."""

    startup: float = 20.0  # launch → first protocol line (interpreter start-up, site, sitecustomize)
    stages: Mapping[str, float] = field(default_factory=dict)
    between: float = 10.0  # end of one stage → start of the next
    exit: float = 5.0  # "done" → process gone
    overall: float = 120.0  # whole run, whatever the stages say
    grace: float = 1.0  # SIGTERM → SIGKILL

    def for_stage(
        self, stage: str, announced: float | None = None, defaults: Mapping[str, float] | None = None
    ) -> float:
        """The limit for ``stage``: ours, else the script's default table (the probe's unless given), else
        what the script announced when the stage started, else 30 s."""
        if stage in self.stages:
            return float(self.stages[stage])
        table = probe_script.DEFAULT_LIMITS if defaults is None else defaults
        if stage in table:
            return float(table[stage])
        if announced is not None and announced > 0:
            return float(announced)
        return 30.0


@dataclass
class ProbeResult:
    """What a probe run produced: the facts (docs/facts.md, "Probe facts") and the raw timed events."""

    facts: dict[str, Any]
    events: list[Event]

    @property
    def outcome(self) -> str:
        return str(self.facts.get("probe.outcome"))

    @property
    def seconds(self) -> float:
        return float(self.events[-1]["rt"]) if self.events else 0.0


def probe_script_path() -> Path:
    """The probe file of the installed package (it runs under an interpreter without gpuassist)."""
    return Path(probe_script.__file__).resolve()


# Files a script run in the target interpreter loads from its own directory.
SCRIPT_SIBLINGS = ("channel.py",)


@contextlib.contextmanager
def _script_file(name: str = "probe_script.py") -> Iterator[Path]:
    """A real file for script ``name`` of this package, next to the files it loads (materialised together
    in a temporary directory when the package is installed inside a zip)."""
    path = Path(probe_script.__file__).resolve().with_name(name)
    if path.is_file():
        yield path
        return
    package = importlib.resources.files("gpuassist.probe")
    with tempfile.TemporaryDirectory(prefix="gpuassist-probe-") as tmp:
        for needed in (name, *SCRIPT_SIBLINGS):
            (Path(tmp) / needed).write_bytes((package / needed).read_bytes())
        yield Path(tmp) / name


def _probe_file() -> contextlib.AbstractContextManager[Path]:
    return _script_file("probe_script.py")


def build_command(
    python: str, script: Path, *, limits: StageLimits, stages: Sequence[str] | None, device_tests: bool, nonce: str
) -> list[str]:
    """The command line: as the user would run Python (no -I), with faulthandler on."""
    cmd = [python, "-X", "faulthandler", str(script), "--nonce", nonce]
    if stages:
        cmd += ["--stages", ",".join(stages)]
    if device_tests:
        cmd.append("--device-tests")
    for stage in STAGES:
        cmd += ["--limit", f"{stage}={limits.for_stage(stage):g}"]
    return cmd


def _signal_name(num: int) -> str:
    try:
        return signal.Signals(num).name
    except ValueError:
        return f"signal {num}"


def _resolve(python: str, env: Mapping[str, str]) -> tuple[str | None, str | None]:
    """(path to run, None) or (None, why it cannot be run)."""
    if os.sep not in python and not (os.altsep and os.altsep in python):
        found = shutil.which(python, path=env.get("PATH", os.defpath))
        if found is None:
            return None, f"'{python}' was not found on PATH"
        python = found
    if not os.path.exists(python):
        return None, "it does not exist"
    if os.path.isdir(python):
        return None, "it is a directory, not a program"
    if not os.access(python, os.X_OK):
        return None, "it is not executable"
    return python, None


class _Stream:
    """Splits a byte stream into lines, bounding the partial line."""

    def __init__(self) -> None:
        self.buf = b""
        self.overflow = 0

    def feed(self, data: bytes) -> list[bytes]:
        self.buf += data
        *lines, self.buf = self.buf.split(b"\n")
        if len(self.buf) > LINE_LIMIT:
            self.buf = b""
            self.overflow += 1
        return lines

    def rest(self) -> list[bytes]:
        rest, self.buf = self.buf, b""
        return [rest] if rest.strip() else []


class _Run:
    """One live probe process: reading, deadlines, killing. Not reusable."""

    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        limits: StageLimits,
        nonce: str,
        started: float,
        emit: Callable[[Event], None],
        cancel: threading.Event | None,
        defaults: Mapping[str, float] | None = None,
    ) -> None:
        self.proc = proc
        self.limits = limits
        self.defaults = defaults
        self.nonce = nonce
        self.started = started
        self.emit = emit
        self.cancel = cancel
        self.stderr: deque[bytes] = deque()
        self.stderr_bytes = 0
        self.garbage = 0
        self.greeted = False
        self.malformed_logged = False
        self.done = False
        self.stage: str | None = None
        self.limit = limits.startup
        self.deadline = started + limits.startup
        self.kill_reason: KillReason | None = None
        self.kill_sent_at: float | None = None
        self.sigkill_sent = False

    def now(self) -> float:
        return time.monotonic()

    def rt(self) -> float:
        return round(self.now() - self.started, 4)

    # --- input --------------------------------------------------------------------------------------

    def on_stdout_line(self, raw: bytes) -> None:
        text = raw.decode("utf-8", "replace").strip()
        if not text:
            return
        try:
            event = parse_line(text, self.rt())
        except MalformedEvent as exc:
            self.garbage += 1
            if self.greeted and not self.malformed_logged:  # before the hello it is somebody else's output
                log.warning("a protocol line was ignored (%s)", exc)
                self.malformed_logged = True
            return
        if not self.greeted:
            if event["event"] != "hello" or event["nonce"] != self.nonce:
                self.garbage += 1  # e.g. a sitecustomize printing JSON before the probe started
                return
            self.greeted = True
        if self.done:
            self.garbage += 1
            return
        self._track(event)
        self.emit(event)

    def _track(self, event: ScriptEvent) -> None:
        now = self.now()
        if event["event"] == "hello":
            self._set_deadline(None, self.limits.between, now)
        elif event["event"] == "stage":
            if event["status"] == "start":
                name = event["stage"]
                self._set_deadline(name, self.limits.for_stage(name, event.get("limit"), self.defaults), now)
            else:
                self._set_deadline(None, self.limits.between, now)
        elif event["event"] == "done":
            self.done = True
            self._set_deadline(None, self.limits.exit, now)

    def _set_deadline(self, stage: str | None, limit: float, now: float) -> None:
        self.stage, self.limit = stage, limit
        self.deadline = min(now + limit, self.started + self.limits.overall)

    def on_stderr(self, data: bytes) -> None:
        self.stderr.append(data)
        self.stderr_bytes += len(data)
        while self.stderr_bytes > STDERR_LIMIT and len(self.stderr) > 1:
            self.stderr_bytes -= len(self.stderr.popleft())
        if self.stderr_bytes > STDERR_LIMIT:
            only = self.stderr.pop()[-STDERR_LIMIT:]
            self.stderr.append(only)
            self.stderr_bytes = len(only)

    # --- control ------------------------------------------------------------------------------------

    def check(self) -> None:
        """Start or escalate a kill when a deadline passed or the caller cancelled."""
        now = self.now()
        if self.kill_reason is None:
            if self.cancel is not None and self.cancel.is_set():
                self._kill("cancelled", now)
            elif now >= self.deadline:
                overall = now >= self.started + self.limits.overall - 1e-3
                self._kill("exit_timeout" if self.done else ("overall" if overall else "timeout"), now)
        elif not self.sigkill_sent and self.kill_sent_at is not None and now >= self.kill_sent_at + self.limits.grace:
            self._signal_group(hard=True)
            self.sigkill_sent = True

    def _kill(self, reason: KillReason, now: float) -> None:
        self.kill_reason = reason
        self.kill_sent_at = now
        limit = self.limits.overall if reason == "overall" else self.limit
        stage = self.stage or ("startup" if not self.greeted else None)
        self.emit({"event": "killed", "reason": reason, "stage": stage, "limit": limit, "rt": self.rt()})
        # cancel: the user is waiting, so the grace period is short
        if reason == "cancelled":
            self.kill_sent_at = now - max(0.0, self.limits.grace - 0.3)
        self._signal_group(hard=False)

    def _signal_group(self, *, hard: bool) -> None:
        try:
            if os.name == "nt":
                if hard:
                    subprocess.run(
                        ["taskkill", "/F", "/T", "/PID", str(self.proc.pid)],
                        capture_output=True,
                        timeout=10,
                        check=False,
                    )
                self.proc.kill()
            else:
                os.killpg(self.proc.pid, signal.SIGKILL if hard else signal.SIGTERM)
        except (OSError, subprocess.SubprocessError):
            pass  # already gone

    def next_timeout(self) -> float:
        now = self.now()
        if self.kill_reason is not None and self.kill_sent_at is not None and not self.sigkill_sent:
            return max(0.0, min(0.05, self.kill_sent_at + self.limits.grace - now))
        return max(0.0, min(0.05, self.deadline - now))

    # --- the loop -----------------------------------------------------------------------------------

    def run(self) -> None:
        if os.name == "nt":
            self._run_threads()
        else:
            self._run_selectors()
        self._finish()

    def _run_selectors(self) -> None:
        assert self.proc.stdout is not None and self.proc.stderr is not None
        out_stream = _Stream()
        sel = selectors.DefaultSelector()
        for pipe, name in ((self.proc.stdout, "out"), (self.proc.stderr, "err")):
            os.set_blocking(pipe.fileno(), False)
            sel.register(pipe.fileno(), selectors.EVENT_READ, name)
        exited_at: float | None = None
        try:
            while sel.get_map():
                for key, _ in sel.select(self.next_timeout()):
                    try:
                        data = os.read(key.fd, 65536)
                    except BlockingIOError:
                        continue
                    except OSError:
                        data = b""
                    if not data:
                        sel.unregister(key.fd)
                        if key.data == "out":
                            for line in out_stream.rest():
                                self.on_stdout_line(line)
                        continue
                    if key.data == "out":
                        for line in out_stream.feed(data):
                            self.on_stdout_line(line)
                    else:
                        self.on_stderr(data)
                self.check()
                if self.proc.poll() is not None:
                    # a grandchild may hold the pipes open: give it a moment, then stop reading
                    exited_at = exited_at or self.now()
                    if self.now() - exited_at > 0.5:
                        self._signal_group(hard=True)
                        break
        finally:
            sel.close()
        self.garbage += out_stream.overflow
        while self.proc.poll() is None:
            self.check()
            time.sleep(self.next_timeout() or 0.01)

    def _run_threads(self) -> None:  # Windows: no select() on pipes

        q: queue.Queue[tuple[str, bytes]] = queue.Queue()

        def pump(pipe: Any, name: str) -> None:
            read = pipe.read1 if hasattr(pipe, "read1") else pipe.read
            try:
                for chunk in iter(lambda: read(65536), b""):
                    q.put((name, chunk))
            except (OSError, ValueError):
                pass
            q.put((name, b""))

        threads = [
            threading.Thread(target=pump, args=(p, n), daemon=True, name=f"gpuassist-probe-{n}")
            for p, n in ((self.proc.stdout, "out"), (self.proc.stderr, "err"))
        ]
        for t in threads:
            t.start()
        out_stream = _Stream()
        open_pipes = {"out", "err"}
        exited_at: float | None = None
        while open_pipes:
            try:
                name, data = q.get(timeout=self.next_timeout() or 0.01)
            except queue.Empty:
                name, data = "", b""
            if name == "out":
                if data:
                    for line in out_stream.feed(data):
                        self.on_stdout_line(line)
                else:
                    open_pipes.discard("out")
                    for line in out_stream.rest():
                        self.on_stdout_line(line)
            elif name == "err":
                if data:
                    self.on_stderr(data)
                else:
                    open_pipes.discard("err")
            self.check()
            if self.proc.poll() is not None:
                exited_at = exited_at or self.now()
                if self.now() - exited_at > 0.5:
                    break
        while self.proc.poll() is None:
            self.check()
            time.sleep(self.next_timeout() or 0.01)
        for t in threads:
            t.join(timeout=1.0)

    def _finish(self) -> None:
        rc = self.proc.wait(timeout=30)
        if os.name != "nt":
            with contextlib.suppress(OSError):
                os.killpg(self.proc.pid, signal.SIGKILL)  # children the probe left behind
        for pipe in (self.proc.stdout, self.proc.stderr):
            with contextlib.suppress(OSError):
                if pipe is not None:
                    pipe.close()
        text = b"".join(self.stderr).decode("utf-8", "replace")
        sig = None
        if rc < 0:
            sig = _signal_name(-rc)
        elif os.name == "nt" and rc in WINDOWS_CRASH_CODES:
            sig = WINDOWS_CRASH_CODES[rc]
        elif 128 < rc < 160 and ("Fatal Python error" in text or "Segmentation fault" in text):
            sig = _signal_name(rc - 128)  # a wrapper shell reporting its child's death
        self.emit(
            {
                "event": "exit",
                "returncode": rc,
                "signal": sig,
                "stderr_tail": text.splitlines()[-200:],
                "garbage_lines": self.garbage,
                "rt": self.rt(),
            }
        )


def run_probe(
    python: str | None = None,
    *,
    limits: StageLimits | None = None,
    on_event: OnEvent | None = None,
    cancel: threading.Event | None = None,
    env: Mapping[str, str] | None = None,
    stages: Sequence[str] | None = None,
    device_tests: bool = True,
) -> ProbeResult:
    """Run the probe in ``python`` (default: this interpreter) and return its facts; never raises for
    anything the target interpreter does.

    ``env`` is the probe's whole environment (default: this process's, without the test fault knob).
    ``on_event`` is called on this thread for each event as it arrives; ``cancel`` stops the run within
    about a second. ``stages`` restricts the stages; ``device_tests=False`` skips work on the devices.
    """
    limits = limits or StageLimits()

    def command(path: str, script: Path, nonce: str) -> list[str]:
        return build_command(path, script, limits=limits, stages=stages, device_tests=device_tests, nonce=nonce)

    return run_script(
        python,
        "probe_script.py",
        command,
        limits=limits,
        on_event=on_event,
        cancel=cancel,
        env=env,
        to_facts=facts_from_events,
    )


def run_script(
    python: str | None,
    script_name: str,
    command: Callable[[str, Path, str], list[str]],
    *,
    limits: StageLimits,
    defaults: Mapping[str, float] | None = None,
    on_event: OnEvent | None = None,
    cancel: threading.Event | None = None,
    env: Mapping[str, str] | None = None,
    to_facts: Callable[[Sequence[Event]], dict[str, Any]] | None = None,
    cwd: str | None = None,
) -> ProbeResult:
    """Run ``script_name`` (a protocol-speaking script of this package) under ``python`` and return the
    facts ``to_facts`` derives from its events; never raises for anything the target interpreter does.
    ``cwd`` is the working directory it starts in (default: this process's), e.g. a user script's folder.

    ``command(resolved_python, script_path, nonce)`` builds the command line. ``defaults`` are the
    script's per-stage limits (``None``: the probe's). The process runs in its own process group, which
    is killed on a stage timeout, the overall cap, or ``cancel``. ``to_facts`` defaults to
    :func:`facts_from_events` (the probe's keys).
    """
    to_facts = to_facts or facts_from_events
    requested = python or fallback_python()
    run_env = {k: v for k, v in os.environ.items() if k != FAULT_ENV} if env is None else dict(env)
    events: list[Event] = []
    callback_failed = False

    def emit(event: Event) -> None:
        nonlocal callback_failed
        events.append(event)
        if on_event is not None:
            try:
                on_event(event)
            except Exception:  # a broken display must not stop the script, nor leave it running
                if not callback_failed:
                    log.exception("%s on_event callback failed", script_name)
                callback_failed = True

    started = time.monotonic()
    emit({"event": "launch", "python": requested, "rt": 0.0})
    path, reason = _resolve(requested, run_env)
    if path is None:
        why = reason or "it could not be run"
        emit({"event": "not_found", "reason": why, "rt": round(time.monotonic() - started, 4)})
        return ProbeResult(to_facts(events), events)
    nonce = secrets.token_hex(8)
    # the script's own last resort (it outlives no host and no limit); descendants carry the run's marker
    run_env.update(lifetime.run_environment(nonce))
    run_env[lifetime.OVERALL_ENV] = f"{limits.overall + SCRIPT_LIMIT_SLACK:g}"
    with _script_file(script_name) as script:
        cmd = command(path, script, nonce)
        popen_kw: dict[str, Any] = {}
        if os.name == "nt":
            popen_kw["creationflags"] = getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
        else:
            popen_kw["start_new_session"] = True
        try:
            proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=run_env,
                close_fds=True,
                cwd=cwd,
                **popen_kw,
            )
        except OSError as exc:
            why = exc.strerror or str(exc)
            emit(
                {
                    "event": "not_found",
                    "reason": f"it could not be started ({why})",
                    "rt": round(time.monotonic() - started, 4),
                }
            )
            return ProbeResult(to_facts(events), events)
        run = _Run(proc, limits, nonce, started, emit, cancel, defaults)
        try:
            run.run()
        except BaseException:
            run._signal_group(hard=True)  # never leave a process behind, whatever happened here
            with contextlib.suppress(Exception):
                proc.wait(timeout=5)
            raise
        finally:
            # descendants that left the process group (setsid, a daemon) carry the run's marker
            with contextlib.suppress(Exception):
                lifetime.reap_run(nonce, grace=limits.grace)
    if not run.greeted and run.kill_reason is None and proc.returncode is not None and proc.returncode > 0:
        version = python_version_of(path, run_env)
        if version is not None:
            emit({"event": "python_version", "version": version, "rt": round(time.monotonic() - started, 4)})
    return ProbeResult(to_facts(events), events)


# Valid in every Python from 2.6 on: an interpreter too old for the probe still says which version it is.
_VERSION_SNIPPET = "import sys; sys.stdout.write('%d.%d.%d' % tuple(sys.version_info[:3]))"
_VERSION_RE = re.compile(r"\d+\.\d+\.\d+")


def python_version_of(python: str, env: Mapping[str, str], timeout: float = 5.0) -> str | None:
    """The version of a Python the probe could not run in (e.g. 2.7 or 3.6, older than the probe's 3.8),
    so the verdict is "this Python is too old for PyTorch" rather than "this is not a Python".
    None when it does not answer like a Python within ``timeout``."""
    kw: dict[str, Any] = {"start_new_session": True} if os.name != "nt" else {}
    try:
        done = subprocess.run(
            [python, "-c", _VERSION_SNIPPET],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            env=dict(env),
            timeout=timeout,
            **kw,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    text = done.stdout.decode("ascii", "replace").strip()
    return text if done.returncode == 0 and _VERSION_RE.fullmatch(text) else None


# ---- events → facts -----------------------------------------------------------------------------------


def parse_fault_traceback(lines: Sequence[str], limit: int = 60) -> str | None:
    """The last faulthandler dump in stderr: from "Fatal Python error" (a crash) or from the thread
    headers (a dump on SIGTERM when a hung stage was stopped) to the end of the dump."""
    start = None
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].startswith("Fatal Python error: "):
            start = i
            break
    if start is None:
        for i in range(len(lines) - 1, -1, -1):
            if lines[i].startswith(("Current thread 0x", "Thread 0x")):
                start = i
                # earlier thread blocks of the same dump
                j = i - 1
                dump_line = ("Thread 0x", "  File ", "  <")
                while j >= 0 and (not lines[j].strip() or lines[j].startswith(dump_line)):
                    if lines[j].startswith("Thread 0x"):
                        start = j
                    j -= 1
                break
    if start is None:
        return None
    out: list[str] = []
    for line in lines[start:]:
        if out and not line.strip() and out[-1] == "":
            continue
        if line.startswith("Extension modules:"):
            out.append(line[:300] + ("..." if len(line) > 300 else ""))
            continue
        if (
            out
            and not line.startswith(
                (
                    " ",
                    "Current thread",
                    "Thread 0x",
                    "Fatal Python",
                    "Python runtime",
                    "Stack (",
                    "Extension modules",
                    "<",
                )
            )
            and line.strip()
        ):
            break  # the dump has ended; later lines are somebody else's
        out.append(line.rstrip())
    return "\n".join(out[:limit]).strip() or None


def facts_from_events(
    events: Sequence[Event], *, prefix: str = "probe", stage_keys: Mapping[str, Sequence[str]] | None = None
) -> dict[str, Any]:
    """The facts for a stream of events (live or recorded): the one place outcomes are decided.

    ``prefix`` names the outcome keys (``probe.outcome``, ``probe.stages`` ...; a runtime test uses its
    own, e.g. ``placement``); ``stage_keys`` maps each stage to the fact keys it delivers, which become
    NotCollected (with the reason) when that stage did not finish (default: the probe's)."""
    stage_keys = STAGE_KEYS if stage_keys is None else stage_keys
    what = "the probe" if prefix == "probe" else f"the {prefix} test"
    facts: dict[str, Any] = {}
    python: str | None = None
    not_found: str | None = None
    old_python: str | None = None  # the version of a Python the script could not run in
    greeted = False
    done = False
    planned: list[str] = []
    stages: dict[str, dict[str, Any]] = {}
    started_at: dict[str, tuple[float, float]] = {}  # stage → (script's t, runner's rt) at its start
    current: str | None = None
    killed: KilledEvent | None = None
    exit_event: ExitEvent | None = None
    for ev in events:
        if ev["event"] == "launch":
            python = ev["python"]
        elif ev["event"] == "not_found":
            not_found = ev["reason"] or "it could not be run"
        elif ev["event"] == "python_version":
            old_python = ev["version"]
        elif ev["event"] == "hello":
            greeted = True
            planned = list(ev["stages"])
        elif ev["event"] == "fact":
            facts[ev["key"]] = from_jsonable(ev["value"])
        elif ev["event"] == "stage":
            name = ev["stage"]
            if ev["status"] == "start":
                current = name
                started_at[name] = (ev["t"], ev["rt"])
                stages[name] = {"stage": name, "status": "running", "seconds": None, "limit": ev.get("limit")}
            else:
                entry = stages.setdefault(name, {"stage": name, "seconds": None, "limit": ev.get("limit")})
                entry["status"] = "ok" if ev["status"] == "end" else ev["status"]
                if name in started_at:
                    entry["seconds"] = round(ev["t"] - started_at[name][0], 4)
                if ev.get("error"):
                    entry["error"] = ev.get("error")
                if ev.get("reason"):
                    entry["reason"] = ev.get("reason")
                if current == name:
                    current = None
        elif ev["event"] == "done":
            done = True
        elif ev["event"] == "killed":
            killed = killed or ev
        elif ev["event"] == "exit":
            exit_event = ev

    rc = exit_event["returncode"] if exit_event else None
    sig = exit_event["signal"] if exit_event else None
    stderr_lines = list(exit_event["stderr_tail"]) if exit_event else []
    facts[f"{prefix}.python"] = python
    facts[f"{prefix}.returncode"] = rc
    facts[f"{prefix}.signal"] = None
    facts[f"{prefix}.failed_stage"] = None
    facts[f"{prefix}.limit_seconds"] = None
    facts[f"{prefix}.fault_traceback"] = None
    facts[f"{prefix}.stderr_tail"] = "\n".join(stderr_lines[-STDERR_TAIL_LINES:]) or None
    facts[f"{prefix}.error"] = None
    facts[f"{prefix}.garbage_lines"] = exit_event["garbage_lines"] if exit_event else 0

    in_progress = current if greeted else "startup"
    if not_found is not None:
        outcome = "interpreter_not_found"
        facts[f"{prefix}.error"] = not_found
    elif killed is not None and killed["reason"] != "exit_timeout":
        outcome = "cancelled" if killed["reason"] == "cancelled" else "timeout"
        facts[f"{prefix}.failed_stage"] = killed["stage"] or in_progress
        facts[f"{prefix}.limit_seconds"] = killed["limit"] if outcome == "timeout" else None
        facts[f"{prefix}.fault_traceback"] = parse_fault_traceback(stderr_lines)
        facts[f"{prefix}.error"] = (
            "stopped by the user" if outcome == "cancelled" else f"no progress within {killed['limit']} s"
        )
    elif done:
        outcome = "ok"
    elif sig is not None:
        outcome = "crashed"
        facts[f"{prefix}.signal"] = sig
        facts[f"{prefix}.failed_stage"] = in_progress
        facts[f"{prefix}.fault_traceback"] = parse_fault_traceback(stderr_lines)
    elif not greeted and old_python is not None:
        outcome = "python_too_old"
        facts.setdefault("python.version", old_python)
        facts[f"{prefix}.error"] = (
            f"Python {old_python} could not run {what} (it needs Python {MIN_PYTHON} or "
            "newer, as every current PyTorch release does)"
        )
    elif not greeted:
        outcome = "interpreter_not_found"
        last = next((s.strip() for s in reversed(stderr_lines) if s.strip()), "")
        facts[f"{prefix}.error"] = (
            f"it exited with status {rc} without running the probe, so it is not a working Python 3.8+ "
            "interpreter" + (f" (it said: {last[:200]})" if last else "")
        )
    else:
        outcome = "failed"
        facts[f"{prefix}.failed_stage"] = in_progress
        facts[f"{prefix}.error"] = f"{what} exited with status {rc} before finishing"
        facts[f"{prefix}.fault_traceback"] = parse_fault_traceback(stderr_lines)
    facts[f"{prefix}.outcome"] = outcome

    # stage table: the one in progress ended the way the process did; the rest never ran
    status_for_current = outcome if outcome in ("timeout", "cancelled", "crashed") else "failed"
    end_rt = float(exit_event["rt"]) if exit_event else None
    if killed is not None:
        end_rt = float(killed["rt"])
    table: list[dict[str, Any]] = []
    for name in planned or list(stages):
        found = stages.get(name)
        entry = found or {"stage": name, "status": "skipped", "seconds": None, "limit": None}
        if entry.get("status") == "running":
            entry["status"] = status_for_current
            if name in started_at and end_rt is not None:
                entry["seconds"] = round(end_rt - started_at[name][1], 4)
        table.append(entry)
    facts[f"{prefix}.stages"] = table

    # keys of stages that did not deliver them: "could not collect", with the reason
    why = {
        "interpreter_not_found": f"the interpreter could not be run: {facts[f'{prefix}.error']}",
        "python_too_old": facts[f"{prefix}.error"] or "",
        "timeout": f"{what} timed out in stage {facts[f'{prefix}.failed_stage']}",
        "crashed": f"{what} crashed ({facts[f'{prefix}.signal']}) in stage {facts[f'{prefix}.failed_stage']}",
        "cancelled": f"{what} was stopped before it got there",
        "failed": facts[f"{prefix}.error"] or f"{what} did not finish",
    }.get(outcome, "")
    import_error = facts.get("torch.import_error")
    for name in stage_keys:
        ran = stages.get(name)
        status = ran.get("status") if ran else None
        if status == "ok":
            continue
        if status == "skipped" and isinstance(import_error, dict):
            reason = f"import torch failed ({import_error.get('type')})"
        elif status == "failed" and ran is not None:
            reason = f"stage {name} failed: {ran.get('error') or 'error'}"
        elif outcome == "ok":
            reason = f"stage {name} was not run"
        else:
            reason = why
        for key in stage_keys[name]:
            facts.setdefault(key, NotCollected(reason))
    return facts


def replay_events(
    events: Sequence[Event], on_event: OnEvent, *, speed: float = 1.0, cancel: threading.Event | None = None
) -> ProbeResult:
    """Feed a recorded stream to ``on_event`` with its original pacing (``speed`` 2.0 = twice as fast,
    0 = no waiting), as a live run would, and return the same result the live run returned."""
    start = time.monotonic()
    delivered: list[Event] = []
    for ev in events:
        if speed > 0:
            wait = start + ev["rt"] / speed - time.monotonic()
            if wait > 0 and cancel is not None:
                if cancel.wait(wait):
                    break
            elif wait > 0:
                time.sleep(wait)
        if cancel is not None and cancel.is_set():
            break
        delivered.append(ev)
        on_event(ev)
    return ProbeResult(facts_from_events(delivered), list(delivered))
