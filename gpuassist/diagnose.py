"""The diagnosis pipeline: probe + host facts → rules → report. Qt-free; the CLI and the GUI both call it.

The probe subprocess is started first and the host facts are gathered while torch imports in the
target interpreter, so a diagnosis costs about one `import torch` (docs/architecture.md §5: faster than collect_env).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping
from typing import Any

from gpuassist.envs.discovery import Context, discover
from gpuassist.envs.ondisk import torch_dir
from gpuassist.envs.target import TargetChoice, own_choice, requested_choice
from gpuassist.facts import Facts, NotCollected
from gpuassist.own_python import own_python
from gpuassist.probe.events import OnEvent
from gpuassist.report.model import Report


def python_candidates(env: Mapping[str, str], limit: int = 8, *, home: str | None = None) -> list[str]:
    """Interpreters worth suggesting when the requested one is missing: the user's environments found by
    discovery (files read, nothing run), those with torch first; gpuassist's own only when there is no
    other (a fix never points into gpuassist's own environment unless the user chose it)."""
    here = Context.current()
    ctx = Context(env=dict(env), home=home or here.home, cwd=here.cwd, executable=here.executable, windows=here.windows)
    found = [c for c in discover(ctx).candidates if c.exists and not c.refused and not c.is_self]
    found.sort(key=lambda c: torch_dir(c, ctx.home) is None)
    return [c.python for c in found][:limit] or [p for p in (own_python(),) if p]


def diagnose_live(
    python: str | None = None,
    *,
    on_event: OnEvent | None = None,
    cancel: threading.Event | None = None,
    env: Mapping[str, str] | None = None,
    choice: TargetChoice | None = None,
) -> Report:
    """Diagnose this machine and an interpreter: ``choice`` (the CLI and the app pass
    :func:`gpuassist.envs.target.choose_target`'s, which says why), else ``python``, else the one running
    gpuassist. Its path and the reason go to ``meta.target`` / ``meta.target_reason``."""
    # Start-up: the window imports this module to list interpreters; collectors, runner and rules (~250 ms)
    # load with the first diagnosis.
    if choice is None:
        choice = requested_choice(python, "the interpreter the caller named") if python else own_choice()
    python = choice.python
    from gpuassist.collect import collect_this_machine
    from gpuassist.probe.runner import run_probe
    from gpuassist.report.build import build_report
    from gpuassist.report.node import node_info

    started = time.perf_counter()
    env = dict(os.environ if env is None else env)
    host: dict[str, Any] = {}
    host_seconds: list[float] = []
    host_error: list[BaseException] = []

    def collect_host() -> None:
        t0 = time.perf_counter()
        try:
            host.update(collect_this_machine())
        except Exception as exc:  # raised again on the calling thread
            host_error.append(exc)
        finally:
            host_seconds.append(time.perf_counter() - t0)

    # Host facts are gathered on a helper thread while torch imports in the target. The probe runs on the
    # calling thread: an interrupt or an error here unwinds through the runner, which kills the probe's
    # process group on the way out (never a probe left running behind an abandoned thread).
    collector = threading.Thread(target=collect_host, name="gpuassist-host-facts", daemon=True)
    collector.start()
    probe_error: str | None = None
    result = None
    try:
        result = run_probe(python, on_event=on_event, cancel=cancel)
    except Exception as exc:  # the runner is meant not to raise; never let it take the app down
        probe_error = f"{type(exc).__name__}: {exc}"
    collector.join()
    if host_error:
        raise host_error[0]
    facts = Facts(host)
    facts.set("host.python_candidates", python_candidates(env))
    facts.update(choice.facts())
    if result is not None:
        facts.update(result.facts)
    else:
        facts.set("probe.outcome", "failed")
        facts.set("probe.error", probe_error or "unknown")
        facts.set("torch.version", NotCollected("the probe could not run"))
    host_seconds_total = host_seconds[0] if host_seconds else 0.0
    meta: dict[str, Any] = {
        **choice.meta(),
        "timings": {
            "host_seconds": round(host_seconds_total, 3),
            "total_seconds": round(time.perf_counter() - started, 3),
        },
    }
    node = node_info(env)
    if node is not None:
        meta["node"] = node
    return build_report(facts, source="live", meta=meta)
