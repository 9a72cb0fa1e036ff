"""Host facts: what the machine says about its GPUs, without importing torch (docs/facts.md "Host facts").

:func:`collect_host` takes every side effect as an argument (files, commands, environment, NVML), so a
recorded machine (``tests/data/hosts/<name>/``, :func:`collect_recorded`) goes through exactly the code
that runs on a real one (:func:`collect_this_machine`). It never raises: a collector that fails turns
the keys it had not yet produced into :class:`~gpuassist.facts.NotCollected` with the exception text.
"""

from __future__ import annotations

import json
import os
import platform as _platform
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from gpuassist.collect import devices, driver, kernel, pci, platform, scheduler, state, system, xid
from gpuassist.collect import env as env_collector
from gpuassist.collect import nvml as nvml_collector
from gpuassist.collect.base import Collector, HostContext
from gpuassist.collect.io import CommandRunner, FileSystem, RecordedRunner, RootedFS, SubprocessRunner
from gpuassist.collect.nvml import NvmlBackend, NvmlSession, RealNvml, RecordedNvml
from gpuassist.facts import NotCollected

__all__ = [
    "HOST_KEYS",
    "NvmlBackend",
    "NvmlSession",
    "RealNvml",
    "RecordedNvml",
    "collect_host",
    "collect_recorded",
    "collect_this_machine",
]

HOST_KEYS: tuple[str, ...] = (
    *system.KEYS,
    *pci.KEYS,
    *kernel.KEYS,
    *devices.KEYS,
    *nvml_collector.KEYS,
    *driver.KEYS,
    *platform.KEYS,
    *scheduler.KEYS,
    *env_collector.KEYS,
    *state.KEYS,
    *xid.KEYS,
)


def _guarded(keys: tuple[str, ...], fn: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """Run one collector; whatever it did not deliver becomes NotCollected, and nothing escapes."""
    out: dict[str, Any] = {}
    reason = NotCollected("collector did not report it")
    try:
        fn(out)
    except Exception as exc:
        reason = NotCollected(f"{type(exc).__name__}: {exc}")
    return {key: out.get(key, reason) for key in keys}


def collect_host(
    fs: FileSystem, run: CommandRunner, env: Mapping[str, str], nvml: NvmlBackend, *, os_name: str | None = None
) -> dict[str, Any]:
    """All host facts (keys: :data:`HOST_KEYS`). ``os_name`` simulates another OS (``Darwin``, ...)."""
    ctx = HostContext(fs, run, env, os_name or _platform.system())
    facts: dict[str, Any] = {}

    def step(keys: tuple[str, ...], collector: Collector) -> dict[str, Any]:
        part = _guarded(keys, lambda out: collector(ctx, out))
        facts.update(part)
        return part

    for module in (system, pci, kernel, devices):
        step(module.KEYS, module.collect)
    # The driver collector needs NVML's answer: its version comes first, and nvidia-smi runs only without it.
    nvml_facts = step(nvml_collector.KEYS, lambda c, out: nvml_collector.collect(c, out, nvml))
    step(driver.KEYS, lambda c, out: driver.collect(c, out, nvml_facts))
    for module in (platform, scheduler, env_collector):
        step(module.KEYS, module.collect)
    step(state.KEYS, lambda c, out: state.collect(c, out, facts))
    step(xid.KEYS, lambda c, out: xid.collect(c, out, facts))
    return facts


def collect_this_machine() -> dict[str, Any]:
    """Host facts of the machine gpuassist runs on."""
    return collect_host(RootedFS("/"), SubprocessRunner(), os.environ, RealNvml())


def collect_recorded(directory: str | os.PathLike[str]) -> dict[str, Any]:
    """Host facts of a recorded machine (``tests/data/hosts/<name>/``): the directory stands in for ``/``
    (``sys/``, ``proc/``, ``dev/``, ``etc/``, ``usr/lib/...``) and holds the optional recordings
    ``commands.json`` (:class:`RecordedRunner`), ``nvml.json`` (:class:`RecordedNvml`; absent = no NVML
    library), ``env.json`` (the environment) and ``host.json`` (``{"os": "Linux"}``)."""
    base = Path(directory)

    def load(name: str) -> Any:
        path = base / name
        return json.loads(path.read_text()) if path.exists() else {}

    host = load("host.json")
    return collect_host(
        RootedFS(base),
        RecordedRunner(load("commands.json")),
        load("env.json"),
        RecordedNvml(load("nvml.json") or {"init_error": "NVML_ERROR_LIBRARY_NOT_FOUND"}),
        os_name=str(host.get("os", "Linux")),
    )
