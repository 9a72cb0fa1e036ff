"""Recorded machines under tests/data/hosts/<name>/ and helpers to run one collector on them."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from gpuassist.collect.base import HostContext
from gpuassist.collect.io import CommandRunner, DictFS, FileSystem, RecordedRunner, RootedFS
from gpuassist.collect.nvml import RecordedNvml

HOSTS_DIR = Path(__file__).parent / "data" / "hosts"
HOST_NAMES = sorted(p.name for p in HOSTS_DIR.iterdir() if p.is_dir())


def _json(name: str, file: str) -> Any:
    path = HOSTS_DIR / name / file
    return json.loads(path.read_text()) if path.exists() else {}


def fs(name: str) -> RootedFS:
    return RootedFS(HOSTS_DIR / name)


def runner(name: str) -> RecordedRunner:
    return RecordedRunner(_json(name, "commands.json"))


def env(name: str) -> dict[str, str]:
    return dict(_json(name, "env.json"))


def nvml(name: str) -> RecordedNvml:
    return RecordedNvml(_json(name, "nvml.json"))


def ctx(name: str, os_name: str = "Linux", run: CommandRunner | None = None) -> HostContext:
    return HostContext(fs(name), run or runner(name), env(name), os_name)


def dict_ctx(
    files: Mapping[str, object],
    *,
    commands: Mapping[str, Mapping[str, object]] | None = None,
    environ: Mapping[str, str] | None = None,
    os_name: str = "Linux",
    filesystem: FileSystem | None = None,
) -> HostContext:
    return HostContext(filesystem or DictFS(files), RecordedRunner(commands or {}), dict(environ or {}), os_name)


def run(collector: Callable[[HostContext, dict[str, Any]], None], context: HostContext) -> dict[str, Any]:
    out: dict[str, Any] = {}
    collector(context, out)
    return out
