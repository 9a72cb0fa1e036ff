"""The environment table beside the target selector (issue 5 item 2), as Qt-free data.

Every Python environment on the machine (:func:`gpuassist.envs.inventory`: interpreters run in parallel,
each with a time limit — the app calls :func:`scan` on a worker, never on its UI thread), what torch each
one has, and the cross-environment findings (:mod:`gpuassist.rules.environments`). Picking a row makes
that interpreter the wizard's target; the table then marks it ▶ without running anything again.

The table reads the same cells as `gpuassist envs` (:mod:`gpuassist.report.envs`), so terminal and window
agree. A reopened report that carries ``envs.*`` facts (`gpuassist envs --format json`) shows its table too,
read-only.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

from gpuassist.envs.inspect import OK, EnvRow, Inventory, inventory
from gpuassist.facts import Facts
from gpuassist.findings import Finding
from gpuassist.report.envs import MARKS, found_as, marks_of, torch_cell, torch_location
from gpuassist.rules.environments import environment_findings

COLUMNS = ["", "Environment", "Python", "torch", "Build", "Installer", "Last used", "torch location", "Found as"]
TORCH_COLUMN = 3
LEGEND = "   ".join(f"{mark} {what}" for mark, what in MARKS) + "   · green: a GPU build of torch"


@dataclass(frozen=True)
class TableRow:
    """One interpreter as the table shows it. ``tone``: how the torch cell reads (``gpu``, ``cpu``,
    ``copies``, ``error`` or ``plain``); ``usable``: picking it as the target makes sense."""

    python: str
    cells: list[str]
    tone: str
    tooltip: str
    is_target: bool
    usable: bool


TONES = {"green": "gpu", "yellow": "cpu", "bold yellow": "copies", "red": "error"}


def ago(when: float | None, now: float | None = None) -> str:
    """ "today", "yesterday", "5 days ago", or the date; "" when unknown."""
    if when is None:
        return ""
    now = time.time() if now is None else now
    days = int((now - when) // 86400)
    if days <= 0:
        return "today"
    if days == 1:
        return "yesterday"
    if days < 60:
        return f"{days} days ago"
    return time.strftime("%Y-%m-%d", time.localtime(when))


def _order(row: EnvRow) -> tuple[int, bool]:
    """GPU builds of torch first, then other torch, then the rest; gpuassist's own after its peers."""
    return (0 if row.gpu_build else 1 if row.torch_version else 2, row.is_self)


def table_rows(rows: list[EnvRow]) -> list[TableRow]:
    """The table's rows, the environments that matter for the question first (see :func:`_order`)."""
    out = []
    for r in sorted(rows, key=_order):
        text, style = torch_cell(r)
        tip = [r.python]
        if r.executable and r.executable != r.python:
            tip.append(f"runs {r.executable}")
        if r.last_used is not None:
            tip.append("last used: when torch was last imported there (file access time, to the day)")
        if r.error:
            tip.append(r.error)
        if len(r.torch) > 1:
            tip += [
                f"torch {t.version} in {t.location}" + (" (the one imported)" if t.imported else "") for t in r.torch
            ]
        out.append(
            TableRow(
                python=r.python,
                cells=[
                    marks_of(r),
                    r.name,
                    r.python_version or "?",
                    text,
                    r.build or "",
                    r.installer or "",
                    ago(r.last_used),
                    torch_location(r),
                    found_as(r),
                ],
                tone=TONES.get(style, "plain"),
                tooltip="\n".join(tip),
                is_target=r.is_target,
                usable=r.status == OK,
            )
        )
    return out


@dataclass
class Environments:
    """The table's state: the inventory (live) or the ``envs.*`` facts of a reopened report."""

    inventory: Inventory | None = None
    facts: dict[str, Any] = field(default_factory=dict)
    pickable: bool = True

    @classmethod
    def from_inventory(cls, inv: Inventory) -> Environments:
        return cls(inv, inv.facts(), True)

    @classmethod
    def from_report_facts(cls, facts: Mapping[str, Any]) -> Environments | None:
        """The table a report carries (None when it has none): shown, not picked from."""
        envs = {k: v for k, v in facts.items() if k.startswith("envs.")}
        if not isinstance(envs.get("envs.inventory"), list):
            return None
        return cls(None, envs, False)

    @property
    def rows(self) -> list[EnvRow]:
        if self.inventory is not None:
            return list(self.inventory.rows)
        return [EnvRow.from_json(d) for d in self.facts.get("envs.inventory") or [] if isinstance(d, dict)]

    def table(self) -> list[TableRow]:
        return table_rows(self.rows)

    def retarget(self, python: str | None) -> Environments:
        """The same table with another interpreter marked as the target (nothing is run again)."""
        if self.inventory is None or not python:
            return self
        return Environments.from_inventory(self.inventory.with_target(python))

    def findings(self, host: Mapping[str, Any] | None = None) -> list[Finding]:
        """The cross-environment findings; ``host`` facts (the diagnosis) say whether a GPU is there."""

        facts = Facts(dict(host or {}))
        facts.update(self.facts)
        return environment_findings(facts)

    def summary(self) -> str:
        rows = self.rows
        seconds = self.facts.get("envs.seconds")
        gpu = sum(1 for r in rows if r.gpu_build)
        text = f"{len(rows)} Python environment{'s' if len(rows) != 1 else ''} found"
        if isinstance(seconds, (int, float)):
            text += f" in {seconds:.1f} s"
        return text + (f"; {gpu} with a GPU build of torch" if gpu else "; none has a GPU build of torch")


class EnvRowEvent(TypedDict):
    """One interpreter of the scan has answered (the app counts them while it waits)."""

    event: Literal["env_row"]
    name: str
    status: str  # ``ok`` or why it could not be read


def scan(target: str | None, emit: Callable[[EnvRowEvent], None], cancel: threading.Event) -> Environments:
    """Find and inspect every interpreter (seconds; run it on a worker). ``emit`` gets an
    :class:`EnvRowEvent` as each interpreter answers."""

    def on_row(row: EnvRow) -> None:
        emit({"event": "env_row", "name": row.name, "status": row.status})

    return Environments.from_inventory(inventory(target=target, cancel=cancel, on_row=on_row))
