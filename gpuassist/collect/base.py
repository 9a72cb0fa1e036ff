"""What every host collector shares: its side effects (:class:`HostContext`) and small read helpers.

Each collector module exposes ``KEYS`` (the facts it is responsible for) and ``collect(ctx, out)``,
which writes facts into ``out`` as it goes. :func:`gpuassist.collect.collect_host` runs them under a
guard: if a collector raises half-way, the keys it already wrote are kept and the rest become
:class:`~gpuassist.facts.NotCollected` with the exception as the reason. That is why collectors write
into a dict instead of returning one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gpuassist.collect.io import CommandRunner, FileSystem
from gpuassist.facts import NotCollected

Collector = Callable[["HostContext", dict[str, Any]], None]


@dataclass(frozen=True)
class HostContext:
    """The machine as collectors see it. ``os_name`` is ``platform.system()`` (tests simulate others)."""

    fs: FileSystem
    run: CommandRunner
    env: Mapping[str, str]
    os_name: str

    @property
    def linux(self) -> bool:
        return self.os_name == "Linux"

    def not_applicable(self) -> NotCollected:
        return NotCollected(f"not applicable on {self.os_name}")


def read(fs: FileSystem, path: str, limit: int = 1 << 20) -> str | NotCollected | None:
    """File text; ``None`` when the file does not exist; NotCollected when it exists but cannot be read.

    The distinction matters to rules: "no /proc/driver/nvidia/version" proves the module is not loaded,
    "could not read it" proves nothing.
    """
    text = fs.read_text(path, limit)
    if text is not None:
        return text
    if fs.exists(path):
        return NotCollected(f"cannot read {path}")
    return None


def first_line(text: str | None) -> str | None:
    """First non-empty line, stripped (``None`` for empty text)."""
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()
    return None


def strip_or_none(text: str | NotCollected | None) -> str | NotCollected | None:
    if isinstance(text, str):
        return text.strip() or None
    return text
