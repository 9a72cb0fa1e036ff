"""Display blocks and value formatters: what a step's measurements look like, as Qt-free data.

A page, a terminal table and a report render the same blocks, so a measurement is described once:
``ui/blocks.py`` turns them into widgets, the report templates (HTML, Markdown) read them as they are, and
:func:`print_blocks` writes them to a terminal (``gpuassist diagnose --full``, ``gpuassist audit --run``).
The formatters give one spelling per kind of value (bytes, seconds, numbers, yes/no) wherever it is shown.
"""

from __future__ import annotations

import io
import math
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # start-up: rich loads only for the text format (not with the app, nor for --format json)
    from rich.console import Console

# --------------------------------------------------------------------------------------------------------
# blocks


class _Kind:
    @property
    def kind(self) -> str:
        """``keyvalues``, ``table``, ``code``, ``absent`` or ``series``: what the report templates switch on."""
        return type(self).__name__.lower()


@dataclass(frozen=True)
class KeyValues(_Kind):
    title: str
    rows: list[tuple[str, str]]
    note: str = ""


@dataclass(frozen=True)
class Table(_Kind):
    title: str
    columns: list[str]
    rows: list[list[str]]
    highlight: int | None = None  # row index shown as the chosen/best row
    numeric: tuple[int, ...] = ()  # column indices aligned right
    note: str = ""


@dataclass(frozen=True)
class Code(_Kind):
    title: str
    text: str
    note: str = ""


@dataclass(frozen=True)
class Absent(_Kind):
    title: str
    text: str


@dataclass(frozen=True)
class Series(_Kind):
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


# --------------------------------------------------------------------------------------------------------
# the terminal


def print_blocks(console: Console, blocks: Iterable[Block]) -> None:
    """``blocks`` on a rich console, a blank line apart: tables as tables, key-value blocks as a two-column
    grid, code indented, absent measurements dimmed (a series is a figure: the terminal leaves it out). A
    table too wide for the console even with its cells wrapped between words is printed one row at a time
    (a path or a line of code is never cut in two). Every string is printed as text, never read as rich
    markup (a script's output or a path can hold ``[...]``)."""
    # Start-up: rich (~40 ms) loads only for the text format.
    from rich.measure import Measurement
    from rich.table import Table as RichTable
    from rich.text import Text

    def grid(rows: Iterable[tuple[str, str]], *, indent: int = 0) -> RichTable:
        out = RichTable.grid(padding=(0, 2, 0, 0))
        if indent:
            out.add_column(width=indent - 2)
        out.add_column(style="dim")
        out.add_column(overflow="fold")
        for label, value in rows:
            out.add_row(*([""] if indent else []), Text(label), Text(value))
        return out

    for n, b in enumerate(b for b in blocks if not isinstance(b, Series)):
        if n:
            console.print()
        if isinstance(b, Table):
            t = RichTable(title=Text(b.title), title_justify="left", show_lines=False)
            for i, c in enumerate(b.columns):
                t.add_column(Text(c), justify="right" if i in b.numeric else "left", overflow="fold")
            for i, row in enumerate(b.rows):
                t.add_row(*map(Text, row), style="bold green" if i == b.highlight else None)
            if Measurement.get(console, console.options.update_width(10_000), t).minimum <= console.width:
                console.print(t)
                continue
            console.print(Text(b.title, style="bold"))
            for i, row in enumerate(b.rows):
                console.print(Text(f"  {row[0]}", style="bold green" if i == b.highlight else "bold"))
                console.print(grid(zip(b.columns[1:], row[1:], strict=False), indent=4))
        elif isinstance(b, KeyValues):
            console.print(Text(b.title, style="bold"))
            console.print(grid(b.rows))
        elif isinstance(b, Code):
            console.print(Text(b.title, style="bold"))
            console.print(Text(textwrap.indent(b.text, "  "), style="cyan"), soft_wrap=True)
        elif isinstance(b, Absent):
            console.print(Text(f"{b.title}: {b.text}", style="dim"))
        if isinstance(b, (KeyValues, Table, Code)) and b.note:
            console.print(Text(b.note, style="dim"))


def terminal_console(buf: io.StringIO, *, width: int | None = None, colour: bool | None = None) -> Console:
    """The console every terminal rendering of blocks writes to: ``width`` columns (default 100), colour when
    asked (None: when the output is a terminal)."""
    # Start-up: rich (~40 ms) loads only for the text format.
    from rich.console import Console

    return Console(
        file=buf, width=width or 100, force_terminal=colour, no_color=colour is False, highlight=False, soft_wrap=False
    )
