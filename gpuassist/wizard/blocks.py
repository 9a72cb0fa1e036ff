"""Display blocks and value formatters: what a step's measurements look like, as Qt-free data.

A page, a terminal table and a report render the same blocks (``ui/blocks.py`` turns them into widgets),
so a measurement is described once. The formatters give one spelling per kind of value (bytes, seconds,
numbers, yes/no) wherever it is shown.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

# --------------------------------------------------------------------------------------------------------
# blocks


@dataclass(frozen=True)
class KeyValues:
    title: str
    rows: list[tuple[str, str]]
    note: str = ""


@dataclass(frozen=True)
class Table:
    title: str
    columns: list[str]
    rows: list[list[str]]
    highlight: int | None = None  # row index shown as the chosen/best row
    numeric: tuple[int, ...] = ()  # column indices aligned right
    note: str = ""


@dataclass(frozen=True)
class Code:
    title: str
    text: str
    note: str = ""


@dataclass(frozen=True)
class Absent:
    title: str
    text: str


@dataclass(frozen=True)
class Series:
    title: str
    x_label: str
    y_label: str
    lines: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    log_x: bool = False


Block = KeyValues | Table | Code | Absent | Series


def block_texts(block: Block) -> list[str]:
    """Every string a block puts on screen (tests: no raw JSON anywhere)."""
    if isinstance(block, KeyValues):
        return [block.title, block.note, *(s for row in block.rows for s in row)]
    if isinstance(block, Table):
        return [block.title, block.note, *block.columns, *(s for row in block.rows for s in row)]
    if isinstance(block, Code):
        return [block.title, block.text, block.note]
    if isinstance(block, Absent):
        return [block.title, block.text]
    return [block.title, block.x_label, block.y_label, *block.lines]


# --------------------------------------------------------------------------------------------------------
# single values


def as_number(value: Any) -> float | None:
    """A real number, or None for anything else (bools, strings, NaN)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return None if math.isnan(value) else float(value)


def fmt_num(value: Any, digits: int = 1, unit: str = "") -> str:
    x = as_number(value)
    if x is None:
        return "—"
    text = f"{x:,.{digits}f}"
    return f"{text} {unit}" if unit else text


def fmt_bool(value: Any) -> str:
    if value is None:
        return "—"
    return "yes" if value else "no"


def fmt_bytes(n: Any) -> str:
    x = as_number(n)
    if x is None:
        return "—"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if x < 1024 or unit == "GiB":
            return f"{x:.0f} {unit}" if x == int(x) else f"{x:.1f} {unit}"
        x /= 1024
    return f"{x:.1f} GiB"


def fmt_seconds(value: Any) -> str:
    x = as_number(value)
    return "—" if x is None else (f"{x * 1000:.2f} ms" if x < 0.1 else f"{x:.2f} s")
