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
    from rich import box
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

    def table(b: Table, widths: list[int], *, compact: bool = False) -> RichTable:
        """The block as a rich table with these column widths; ``compact``: no vertical rules, for wide ones."""
        style: dict[str, Any] = (
            {"box": box.SIMPLE_HEAD, "pad_edge": False, "show_edge": False, "collapse_padding": True} if compact else {}
        )
        t = RichTable(title=Text(b.title), title_justify="left", show_lines=False, **style)
        for i, (c, w) in enumerate(zip(b.columns, widths, strict=True)):
            just: Any = "right" if i in b.numeric else "left"
            t.add_column(Text(c, overflow="ellipsis"), justify=just, overflow="fold", width=w)
        for i, row in enumerate(b.rows):
            t.add_row(*map(Text, row), style="bold green" if i == b.highlight else None)
        return t

    def column_widths(b: Table, compact: bool) -> list[int] | None:
        """Widths that keep every word of every cell whole (a header may be shortened: num_worke…), the spare
        room shared by how much each column would still use; None when even that does not fit. rich's own
        shrinking folds words (a path, a line of code) when a table is tight, so the widths are set here."""
        cells = [[row[i] if i < len(row) else "" for row in b.rows] for i in range(len(b.columns))]
        least = [
            max([len(w) for cell in col for w in cell.split()] + [min(len(head), 6), 1])
            for head, col in zip(b.columns, cells, strict=True)
        ]
        most = [
            max([len(line) for cell in col for line in cell.splitlines()] + [len(head), 1])
            for head, col in zip(b.columns, cells, strict=True)
        ]
        probe = table(b, [1] * len(b.columns), compact=compact)
        overhead = Measurement.get(console, console.options.update_width(10_000), probe).maximum - len(b.columns)
        room = console.width - overhead
        if sum(least) > room:
            return None
        spare, want = room - sum(least), [m - lo for m, lo in zip(most, least, strict=True)]
        if sum(want) <= spare:
            return most
        return [lo + (spare * w) // sum(want) for lo, w in zip(least, want, strict=True)]

    for n, b in enumerate(b for b in blocks if not isinstance(b, Series)):
        if n:
            console.print()
        if isinstance(b, Table):
            layouts = ((compact, column_widths(b, compact)) for compact in (False, True))
            fitted = next(((compact, w) for compact, w in layouts if w is not None), None)
            if fitted is not None:
                console.print(table(b, fitted[1], compact=fitted[0]))
                continue
            console.print(Text(b.title, style="bold"))
            for i, row in enumerate(b.rows):
                head = f"  {b.columns[0]}: {row[0]}" if b.columns and b.columns[0].strip() else f"  {row[0]}"
                console.print(Text(head, style="bold green" if i == b.highlight else "bold"), soft_wrap=True)
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
