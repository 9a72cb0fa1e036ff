"""The knowledge layer: the root-cause catalogue and the CUDA/driver/wheel tables, as data.

Both live in JSON next to this module (``catalogue.json``, ``cuda_compat.json``) so that adding a symptom
pattern or a new wheel variant is a data change with its source attached, not a code change. The ids are
the stable finding ids of ``docs/knowledge/root-causes.md``. Nothing here imports torch or Qt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Any

from gpuassist.knowledge.messages import symptom_rows
from gpuassist.step_table import REPORT_STEP_IDS

__all__ = [
    "CatalogueEntry",
    "SymptomPattern",
    "catalogue",
    "compat",
    "entry",
    "symptom_patterns",
]


@dataclass(frozen=True)
class SymptomPattern:
    """A regex for text users paste (errors, logs, collect_env output), tied to one finding id.

    ``specific`` patterns name their cause outright ("Driver/library version mismatch"); generic ones
    ("No CUDA GPUs are available") are listed under every id they can mean, with a lower ``weight``
    (0..1), so a paste of a generic message yields possibilities rather than a verdict.
    """

    id: str
    pattern: str
    regex: re.Pattern[str]
    specific: bool
    weight: float


@dataclass(frozen=True)
class CatalogueEntry:
    """One root cause: how it looks, how gpuassist detects it, and how to fix it.

    ``priority`` orders root causes before the symptoms they explain (lower = more fundamental:
    hardware 1xx < platform/container 2xx < driver 3xx < install/wheel 4xx < env 5xx < libraries 6xx
    < runtime/code/perf 7xx). ``runtime_only`` marks causes that only a runtime test (or the user's
    own error text) can show; static host facts never prove them.
    """

    id: str
    title: str
    layer: str
    step: str
    core: bool
    summary: str
    explanation: str
    symptoms: tuple[str, ...]
    patterns: tuple[SymptomPattern, ...]
    detection: str
    fix: str
    confirm: str
    runtime_only: bool
    priority: int
    sources: tuple[str, ...]
    #: The error shows a GPU that works (out of memory, a kernel's assert, NCCL): reported at info severity as
    #: "your GPU is in use: this is a different problem", never as a reason PyTorch cannot use the GPU.
    gpu_in_use: bool = False


def _read_json(name: str) -> Any:
    text = resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
    return json.loads(text)


def _str(raw: Mapping[str, Any], key: str, where: str) -> str:
    value = raw.get(key)
    if not isinstance(value, str) or not value:
        raise ValueError(f"catalogue.json: {where}: {key!r} must be a non-empty string")
    return value


def _entry_from_json(raw: Mapping[str, Any]) -> CatalogueEntry:
    fid = _str(raw, "id", "entry")
    step = _str(raw, "step", fid)
    if step not in REPORT_STEP_IDS:
        raise ValueError(f"catalogue.json: {fid}: step {step!r} is not one of {REPORT_STEP_IDS}")
    priority = raw.get("priority")
    if not isinstance(priority, int) or isinstance(priority, bool):
        raise ValueError(f"catalogue.json: {fid}: priority must be an integer")
    patterns = []
    for p in raw.get("patterns", []):
        try:
            compiled = re.compile(p["regex"], re.IGNORECASE)
        except re.error as exc:  # a broken pattern is a data bug: say which one
            msg = f"catalogue.json: {fid}: pattern {p['regex']!r} does not compile: {exc}"
            raise ValueError(msg) from exc
        patterns.append(
            SymptomPattern(
                id=fid,
                pattern=p["regex"],
                regex=compiled,
                specific=bool(p.get("specific", False)),
                weight=float(p.get("weight", 1.0 if p.get("specific") else 0.4)),
            )
        )
    return CatalogueEntry(
        id=fid,
        title=_str(raw, "title", fid),
        layer=_str(raw, "layer", fid),
        step=step,
        core=bool(raw.get("core", False)),
        summary=_str(raw, "summary", fid),
        explanation=_str(raw, "explanation", fid),
        symptoms=tuple(str(s) for s in raw.get("symptoms", [])),
        patterns=tuple(patterns),
        detection=_str(raw, "detection", fid),
        fix=_str(raw, "fix", fid),
        confirm=_str(raw, "confirm", fid),
        runtime_only=bool(raw.get("runtime_only", False)),
        priority=priority,
        sources=tuple(str(s) for s in raw.get("sources", [])),
        gpu_in_use=bool(raw.get("gpu_in_use", False)),
    )


@cache
def catalogue() -> Mapping[str, CatalogueEntry]:
    """Every catalogue entry by id, in file order (read once; read-only)."""
    data = _read_json("catalogue.json")
    entries: dict[str, CatalogueEntry] = {}
    for raw in data["entries"]:
        e = _entry_from_json(raw)
        if e.id in entries:
            raise ValueError(f"catalogue.json: duplicate id {e.id!r}")
        entries[e.id] = e
    return MappingProxyType(entries)


def entry(id: str) -> CatalogueEntry:
    """The entry for ``id``; KeyError names the id when it is not in the catalogue."""
    try:
        return catalogue()[id]
    except KeyError:
        raise KeyError(f"finding id {id!r} is not in the catalogue") from None


@cache
def symptom_patterns() -> tuple[SymptomPattern, ...]:
    """All patterns of all entries and of the message tables (messages.json): specific ones first, then by
    weight (highest first)."""
    every = [p for e in catalogue().values() for p in e.patterns]
    known = catalogue()
    for fid, pattern, specific, weight in symptom_rows():
        if fid not in known:
            raise ValueError(f"messages.json: {fid!r} is not a catalogue id")
        every.append(SymptomPattern(fid, pattern, re.compile(pattern, re.IGNORECASE), specific, weight))
    return tuple(sorted(every, key=lambda p: (not p.specific, -p.weight)))


@cache
def compat() -> Mapping[str, Any]:
    """The parsed ``cuda_compat.json`` (driver table, MVC families, wheel builds, releases, GPU hints).

    Treat it as read-only; ``gpuassist.knowledge.wheels`` offers typed, tested views of it.
    """
    return MappingProxyType(_read_json("cuda_compat.json"))
