"""Running a runtime test in the target interpreter and turning its events into facts (Qt- and torch-free).

The measurements themselves live in ``gpuassist/probe/runtime_script.py`` and run in a subprocess under
the user's interpreter (docs/architecture.md §2): gpuassist's process never imports torch. This module starts that
script through the probe runner's machinery (:func:`gpuassist.probe.runner.run_script`: own process
group, per-stage limits, cancel), streams its events (``progress`` lines included) to ``on_event``, and
derives facts with :func:`runtime_facts_from_events`, the one function used for live runs and for
recorded streams (``tests/data/runtime/*.json``) alike.

Outcome keys use the test's name as prefix (``placement.outcome``, ``sweep.stages``, ``bench.error``...),
so a runtime run never overwrites the diagnosis's ``probe.*`` facts. Events the host adds itself (NVML
readings taken while the benchmark runs) are ``{"event": "host_sample", ...}`` lines in the same stream.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpuassist.facts import Facts, from_jsonable
from gpuassist.probe import runtime_script
from gpuassist.probe.events import Event, OnEvent, parse_events
from gpuassist.probe.runner import StageLimits, facts_from_events, run_script
from gpuassist.report.build import build_report
from gpuassist.report.model import Report, step_summaries

TESTS = tuple(runtime_script.TESTS)
SIZE_ENV = "GPUASSIST_RUNTIME_SIZE"  # "tiny" / "small" / "default": shrinks every runtime test (tests, CI)
SIZE_PRESETS = ("default", "small", "tiny")
STEP_OF_TEST = {"placement": "placement", "sweep": "dataloader", "bench": "benchmark"}

# Whole-run caps per test (stage limits come from the script's table and scale with the sizes).
OVERALL = {"placement": 600.0, "sweep": 1500.0, "bench": 1200.0}


@dataclass
class RuntimeResult:
    """One runtime test: its facts (docs/facts.md, "Runtime facts") and the timed events they came from."""

    test: str
    facts: dict[str, Any]
    events: list[Event] = field(default_factory=list)

    @property
    def outcome(self) -> str:
        return str(self.facts.get(f"{self.test}.outcome"))

    @property
    def ok(self) -> bool:
        return self.outcome == "ok"


def size_preset(size: str | None = None, env: Mapping[str, str] | None = None) -> str:
    """The size preset: the argument, else $GPUASSIST_RUNTIME_SIZE, else ``default``."""
    chosen = size or (os.environ if env is None else env).get(SIZE_ENV) or "default"
    if chosen not in SIZE_PRESETS:
        raise ValueError(f"unknown size {chosen!r}; choose one of {', '.join(SIZE_PRESETS)}")
    return chosen


def runtime_facts_from_events(test: str, events: Sequence[Event]) -> dict[str, Any]:
    """Facts of a runtime test's event stream, live or recorded: runner outcome keys under the test's
    prefix, the script's facts, and host NVML samples (``bench.gpu_samples``) when there are any."""
    facts = facts_from_events(events, prefix=test, stage_keys=runtime_script.STAGE_KEYS[test])
    samples = [
        {"stage": e["stage"], "rt": e["rt"], "gpus": from_jsonable(e["gpus"])}
        for e in events
        if e["event"] == "host_sample"
    ]
    if samples:
        facts[f"{test}.gpu_samples"] = samples
    return facts


def build_command(
    test: str,
    *,
    device: Sequence[str] | None,
    size: str,
    sizes: Mapping[str, Any] | None,
    mode: str | None,
    limits: StageLimits,
) -> Callable[[str, Path, str], list[str]]:
    def command(python: str, script: Path, nonce: str) -> list[str]:
        cmd = [python, "-X", "faulthandler", str(script), "--test", test, "--nonce", nonce, "--size", size]
        if device:
            cmd += ["--device", ",".join(device)]
        if sizes:
            cmd += ["--sizes", json.dumps(dict(sizes))]
        if mode:
            cmd += ["--mode", mode]
        for stage, seconds in limits.stages.items():
            cmd += ["--limit", f"{stage}={float(seconds):g}"]
        return cmd

    return command


def run_runtime(
    test: str,
    python: str | None = None,
    *,
    device: str | Sequence[str] | None = None,
    size: str | None = None,
    sizes: Mapping[str, Any] | None = None,
    mode: str | None = None,
    limits: StageLimits | None = None,
    on_event: OnEvent | None = None,
    cancel: threading.Event | None = None,
    env: Mapping[str, str] | None = None,
) -> RuntimeResult:
    """Run runtime test ``test`` in ``python`` (default: this interpreter); never raises for anything the
    target interpreter does (a crash, hang or missing torch becomes ``<test>.outcome`` and NotCollected
    facts). ``device`` limits the devices (``"cuda:1"``, ``"cpu"``); ``size`` picks a preset, ``sizes``
    overrides single sizes (see ``runtime_script.SIZES``)."""
    if test not in runtime_script.TESTS:
        raise ValueError(f"unknown runtime test {test!r}")
    devices = [device] if isinstance(device, str) else list(device or [])
    preset = size_preset(size, env)
    limits = limits or StageLimits(startup=30.0, between=30.0, overall=OVERALL[test])
    command = build_command(test, device=devices, size=preset, sizes=sizes, mode=mode, limits=limits)
    result = run_script(
        python,
        "runtime_script.py",
        command,
        limits=limits,
        defaults=runtime_script.DEFAULT_LIMITS,
        on_event=on_event,
        cancel=cancel,
        env=env,
        to_facts=lambda evs: runtime_facts_from_events(test, evs),
    )
    return RuntimeResult(test, result.facts, result.events)


def replay(test: str, events: Sequence[Event]) -> RuntimeResult:
    """A recorded stream as if it had just run (same facts path as a live run)."""
    return RuntimeResult(test, runtime_facts_from_events(test, events), list(events))


def load_recording(path: str | os.PathLike[str]) -> tuple[dict[str, Any], list[RuntimeResult]]:
    """A recording file: ``{"description", "host_facts": {...}, "runs": {test: [events]}}`` →
    (host facts, results replayed through :func:`runtime_facts_from_events`); a malformed event is a
    :class:`~gpuassist.probe.events.MalformedEvent` naming the file and its place."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    host = {k: from_jsonable(v) for k, v in (data.get("host_facts") or {}).items()}
    results = [
        replay(test, parse_events(events, f"{Path(path).name}: runs.{test}"))
        for test, events in (data.get("runs") or {}).items()
    ]
    return host, results


def runtime_report(
    results: Sequence[RuntimeResult],
    host_facts: Mapping[str, Any] | None = None,
    *,
    source: str = "live",
    meta: Mapping[str, Any] | None = None,
) -> Report:
    """A Report (facts + findings + steps) for runtime results; only the steps that ran are judged, so
    host-level findings (no GPU, driver...) stay with ``gpuassist diagnose``."""

    facts = Facts(dict(host_facts or {}))
    for r in results:
        facts.update(r.facts)
    ran = {STEP_OF_TEST[r.test] for r in results}
    report = build_report(facts, source=source, meta=meta, ran=ran)
    findings = [f for f in report.findings if f.step in ran]
    return Report(facts, findings, step_summaries(findings, ran), report.monitor, report.meta)
