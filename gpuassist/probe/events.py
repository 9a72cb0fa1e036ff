"""The events of a script run in the target interpreter, typed: what the probe, the runtime tests and the
audit run send (JSON lines, ``probe_script.py`` documents the protocol), what the runner adds around them
(launch, not found, killed, exit, python version) and what the host adds itself (NVML readings taken
during the benchmark). Qt-free, and imported by nothing the in-target scripts load: those speak plain
JSON, and every line they send is checked here, at the boundary, before anything else reads it.

:func:`parse_line` turns one line of a live stream into an :data:`Event` (:class:`MalformedEvent`, with one
line that says what is wrong, for anything that is not one); :func:`parse_event` checks a decoded object
(a recorded stream's, a scenario's) the same way. Everything downstream (facts, the app's progress lines,
the CLI's bar) reads these types, so mypy checks each access.

Every event carries ``rt`` (seconds since launch, stamped by the runner). ``step`` is set only on events
the wizard forwards from a step (``gpuassist.wizard.flow``): the id of the step that emitted it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Literal, TypedDict, cast

StageStatus = Literal["start", "end", "failed", "skipped"]
KillReason = Literal["timeout", "overall", "cancelled", "exit_timeout"]
STAGE_STATUSES: tuple[StageStatus, ...] = ("start", "end", "failed", "skipped")
KILL_REASONS: tuple[KillReason, ...] = ("timeout", "overall", "cancelled", "exit_timeout")
SCRIPT_KINDS = ("hello", "stage", "fact", "progress", "done")  # what a script may send; the rest is the host's


class Routed(TypedDict, total=False):
    """What every event may carry besides its own fields."""

    step: str  # the wizard step that emitted it (set by the flow when it forwards a step's events)


class _Timed(Routed):
    rt: float  # seconds since launch (the runner's clock)


class LaunchEvent(_Timed):
    event: Literal["launch"]
    python: str  # the interpreter as asked for


class NotFoundEvent(_Timed):
    event: Literal["not_found"]
    reason: str  # why nothing was started


class _HelloRequired(_Timed):
    event: Literal["hello"]
    protocol: int
    nonce: str
    pid: int
    stages: list[str]
    t: float  # seconds since the script started (its clock)


class HelloEvent(_HelloRequired, total=False):
    test: str  # a runtime test's name


class _StageRequired(_Timed):
    event: Literal["stage"]
    stage: str
    status: StageStatus
    t: float


class StageEvent(_StageRequired, total=False):
    limit: float  # on start: the script's own limit for the stage
    error: str  # on failed
    traceback: str  # on failed
    reason: str  # on skipped


class FactEvent(_Timed):
    event: Literal["fact"]
    key: str
    value: object  # JSON; ``{"$not_collected": reason}`` for a fact that could not be read


class _ProgressRequired(_Timed):
    event: Literal["progress"]
    stage: str
    done: int
    total: int
    message: str
    t: float


class ProgressEvent(_ProgressRequired, total=False):
    steps: int  # the audit run: steps the script has taken
    seconds: float  # the audit run: seconds it has run


class DoneEvent(_Timed):
    event: Literal["done"]
    t: float


class KilledEvent(_Timed):
    event: Literal["killed"]
    reason: KillReason
    stage: str | None  # the stage in progress ("startup" before the script greeted)
    limit: float  # the limit that ran out


class ExitEvent(_Timed):
    event: Literal["exit"]
    returncode: int
    signal: str | None  # the signal (or Windows crash code) that ended it
    stderr_tail: list[str]
    garbage_lines: int  # lines that were not the protocol


class PythonVersionEvent(_Timed):
    event: Literal["python_version"]
    version: str  # a Python that exited without a hello answered as this version


class HostSampleEvent(_Timed):
    event: Literal["host_sample"]
    stage: str | None
    gpus: list[dict[str, object]]  # one NVML reading per GPU (gpuassist.runtime.bench.SAMPLE_FIELDS)


ScriptEvent = HelloEvent | StageEvent | FactEvent | ProgressEvent | DoneEvent
Event = LaunchEvent | NotFoundEvent | ScriptEvent | KilledEvent | ExitEvent | PythonVersionEvent | HostSampleEvent
OnEvent = Callable[[Event], None]


class MalformedEvent(ValueError):
    """A line or object that is not an event of the protocol; the message is one line saying why."""


# ---- checking ---------------------------------------------------------------------------------------------

#: A field's check and what it must be, in words (for the error).
_Field = tuple[Callable[[object], bool], str]


def _is_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _one_of(allowed: tuple[str, ...]) -> _Field:
    return (lambda v: v in allowed), "one of " + ", ".join(allowed)


_STR: _Field = (lambda v: isinstance(v, str), "a string")
_INT: _Field = (lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer")
_NUM: _Field = (_is_number, "a number")
_OPT_STR: _Field = (lambda v: v is None or isinstance(v, str), "a string or null")
_STRS: _Field = (lambda v: isinstance(v, list) and all(isinstance(s, str) for s in v), "a list of strings")
_DICTS: _Field = (lambda v: isinstance(v, list) and all(isinstance(d, dict) for d in v), "a list of objects")
_ANY: _Field = (lambda v: True, "anything")

# kind → (required fields, optional fields); ``rt`` is checked apart (a script's lines get it on arrival)
_FIELDS: Mapping[str, tuple[Mapping[str, _Field], Mapping[str, _Field]]] = {
    "launch": ({"python": _STR}, {}),
    "not_found": ({"reason": _STR}, {}),
    "hello": ({"protocol": _INT, "nonce": _STR, "pid": _INT, "stages": _STRS, "t": _NUM}, {"test": _STR}),
    "stage": (
        {"stage": _STR, "status": _one_of(STAGE_STATUSES), "t": _NUM},
        {"limit": _NUM, "error": _STR, "traceback": _STR, "reason": _STR},
    ),
    "fact": ({"key": _STR, "value": _ANY}, {}),
    "progress": (
        {"stage": _STR, "done": _INT, "total": _INT, "message": _STR, "t": _NUM},
        {"steps": _INT, "seconds": _NUM},
    ),
    "done": ({"t": _NUM}, {}),
    "killed": ({"reason": _one_of(KILL_REASONS), "stage": _OPT_STR, "limit": _NUM}, {}),
    "exit": ({"returncode": _INT, "signal": _OPT_STR, "stderr_tail": _STRS, "garbage_lines": _INT}, {}),
    "python_version": ({"version": _STR}, {}),
    "host_sample": ({"stage": _OPT_STR, "gpus": _DICTS}, {}),
}


def _problem(obj: Mapping[str, object], kinds: Iterable[str], *, timed: bool) -> str | None:
    """What is wrong with ``obj`` as an event of one of ``kinds`` (None: nothing)."""
    kind = obj.get("event")
    if not isinstance(kind, str):
        return 'no "event" name'
    if kind not in kinds:
        return f"unknown event {kind!r}"
    required, optional = _FIELDS[kind]
    if timed:
        required = {**required, "rt": _NUM}
    for name in required:
        if name not in obj:
            return f'{kind} event without "{name}"'
    for name, (check, words) in {**required, **optional, "step": _STR}.items():
        if name in obj and not check(obj[name]):
            return f'{kind} event: "{name}" must be {words}, not {obj[name]!r:.60}'
    return None


def parse_event(obj: object, *, kinds: Iterable[str] = _FIELDS) -> Event:
    """``obj`` as a typed event (the same object: extra fields are kept, as a recording keeps them), or
    :class:`MalformedEvent` saying what is wrong. ``kinds`` limits the event names accepted."""
    if not isinstance(obj, dict):
        raise MalformedEvent(f"an event is a JSON object, not {type(obj).__name__}")
    problem = _problem(obj, kinds, timed=True)
    if problem is not None:
        raise MalformedEvent(problem)
    return cast(Event, obj)


def parse_line(text: str, rt: float) -> ScriptEvent:
    """One line a script sent, stamped with ``rt``: a typed event of the scripts' protocol (hello, stage,
    fact, progress, done), or :class:`MalformedEvent`. A line some other code printed before the event on
    the same line (``noise{"event": ...}``) still yields the event."""
    obj: object = None
    for candidate in (text, text[text.find('{"event"') :] if '{"event"' in text else ""):
        if not candidate:
            continue
        try:
            obj = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(obj, dict) and "event" in obj:
            break
    if not isinstance(obj, dict):
        raise MalformedEvent(f"not a JSON object: {text!r:.80}")
    problem = _problem(obj, SCRIPT_KINDS, timed=False)
    if problem is not None:
        raise MalformedEvent(problem)
    obj["rt"] = rt
    return cast(ScriptEvent, obj)


def parse_events(objs: object, where: str = "events") -> list[Event]:
    """A recorded stream (a JSON list of events) as typed events; :class:`MalformedEvent` names the first
    bad one by its position."""
    if not isinstance(objs, list):
        raise MalformedEvent(f"{where}: a list of events, not {type(objs).__name__}")
    events: list[Event] = []
    for i, obj in enumerate(objs):
        try:
            events.append(parse_event(obj))
        except MalformedEvent as exc:
            raise MalformedEvent(f"{where}[{i}]: {exc}") from None
    return events
