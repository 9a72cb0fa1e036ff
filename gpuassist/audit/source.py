"""Read a script or a notebook into one Python module the analyser can parse, or one clear error.

A notebook's code cells run in one namespace, top to bottom, so they are joined into a single module (a
model built in cell 2 and trained in cell 5 is one program); each line remembers its cell so findings
read ``notebook.ipynb:cell 5:3:9`` (the layout ruff uses). IPython syntax (``%magic``, ``!shell``,
``?help``) is neutralised line by line; a cell that still does not parse is skipped with a note, never
the whole notebook. A ``.py`` that does not parse is an input error: the user gets the line and reason.
Nothing here executes the code.
"""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize
import warnings
from dataclasses import dataclass
from typing import Any

from gpuassist.files import FileError, read_bounded

MAX_BYTES = 50 * 1024 * 1024  # notebooks carry their outputs (images); scripts are far smaller

# Cell magics whose body is still Python run in the kernel's namespace; any other makes the cell foreign.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})
# %magic, !shell, ?help, obj? / obj??, x = !cmd, x = %magic
# Matched after the indentation (see _neutralise_ipython): a leading \s* in front of a class that also takes
# spaces made every line of spaces quadratic (40 s for a 60 KB notebook cell).
IPYTHON_LINE = re.compile(r"(?:[%!?]|[\w.,\s\[\]()*]+=\s*[%!]|[\w.]+\?{1,2}\s*$)")


class AuditInputError(ValueError):
    """The file cannot be audited; the message is the one line shown to the user."""


@dataclass(frozen=True)
class Segment:
    """A run of lines of the combined module: a notebook cell (``cell`` from 1) or the whole script."""

    cell: int | None
    first_line: int  # 1-based line of the combined module where the segment starts
    line_count: int


@dataclass(frozen=True)
class SkippedCell:
    cell: int
    reason: str


@dataclass(frozen=True)
class Source:
    """What the analyser reads: ``text`` is one Python module; ``segments`` map its lines back."""

    path: str
    kind: str  # "script" | "notebook"
    text: str
    segments: tuple[Segment, ...]
    skipped: tuple[SkippedCell, ...] = ()

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    def line_text(self, line: int) -> str:
        lines = self.lines
        return lines[line - 1] if 1 <= line <= len(lines) else ""

    def locate(self, line: int) -> tuple[int | None, int]:
        """(cell, line within the cell) for a line of the combined module."""
        for seg in self.segments:
            if seg.first_line <= line < seg.first_line + seg.line_count:
                return seg.cell, line - seg.first_line + 1
        return None, line

    def column(self, line: int, byte_col: int) -> int:
        """1-based character column (ast counts UTF-8 bytes)."""
        raw = self.line_text(line).encode("utf-8")
        return len(raw[:byte_col].decode("utf-8", "replace")) + 1

    def location(self, line: int, col: int | None = None) -> str:
        """``train.py:12:5``, or ``notebook.ipynb:cell 3:2:5`` for a notebook (col is 1-based)."""
        cell, local = self.locate(line)
        where = f"{self.path}:cell {cell}:{local}" if cell is not None else f"{self.path}:{local}"
        return where if col is None else f"{where}:{col}"

    def line_label(self, line: int) -> str:
        """How a message names another line: ``line 12`` or ``cell 3, line 2``."""
        cell, local = self.locate(line)
        return f"line {local}" if cell is None else f"cell {cell}, line {local}"


def parse(source: Source) -> ast.Module:
    """The module's syntax tree (already known to parse: :func:`read_source` checked it)."""
    return _parse(source.text, source.path, notebook=source.kind == "notebook")


def read_source(path: str) -> Source:
    """Read ``path`` (a ``.py`` script or an ``.ipynb`` notebook); AuditInputError says why it cannot be."""
    data = _read_bytes(path)
    if path.lower().endswith(".ipynb"):
        return _notebook(path, data)
    return _script(path, data)


def _read_bytes(path: str) -> bytes:
    """The file's bytes: a regular file only, never more than the cap plus one byte (a FIFO or /dev/zero is
    refused at once)."""
    try:
        data = read_bounded(path, MAX_BYTES)
    except FileError as exc:
        hint = " (name the script or notebook)" if str(exc) == "it is a directory" else ""
        raise AuditInputError(f"cannot audit {path}: {exc}{hint}") from None
    if len(data) > MAX_BYTES:
        raise AuditInputError(
            f"cannot audit {path}: more than {MAX_BYTES // (1024 * 1024)} MiB is too large for a script"
        )
    return data


def _parse(text: str, filename: str, *, notebook: bool) -> ast.Module:
    flags = ast.PyCF_ONLY_AST | (ast.PyCF_ALLOW_TOP_LEVEL_AWAIT if notebook else 0)
    with warnings.catch_warnings():  # invalid escapes etc. warn at compile time: not ours to print
        warnings.simplefilter("ignore")
        tree = compile(text, filename, "exec", flags=flags, dont_inherit=True)
    assert isinstance(tree, ast.Module)
    return tree


def _check_parses(text: str, path: str) -> None:
    try:
        _parse(text, path, notebook=False)
    except SyntaxError as exc:
        where = f" at line {exc.lineno}" if exc.lineno else ""
        raise AuditInputError(f"cannot audit {path}: syntax error{where}: {exc.msg}") from None
    except (RecursionError, MemoryError):
        raise AuditInputError(f"cannot audit {path}: the code is too deeply nested to parse") from None


def _script(path: str, data: bytes) -> Source:
    if b"\0" in data:
        raise AuditInputError(f"cannot audit {path}: it is a binary file, not Python source")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # an unknown `# coding:` cookie, or non-UTF-8 bytes without one
        if "invalid or missing encoding" not in str(exc.msg):
            raise AuditInputError(f"cannot audit {path}: {exc.msg}") from None
        encoding = "utf-8"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise AuditInputError(
            f"cannot audit {path}: not {encoding} text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "declare the file's encoding with a `# -*- coding: ... -*-` line"
        ) from None
    return script_source(text.removeprefix("\ufeff"), path)


def script_source(text: str, path: str) -> Source:
    """A script given as text; AuditInputError names the line when it does not parse."""
    _check_parses(text, path)
    count = max(1, len(text.splitlines()))
    return Source(path=path, kind="script", text=text, segments=(Segment(None, 1, count),))


def _notebook(path: str, data: bytes) -> Source:
    if b"\0" in data:
        raise AuditInputError(f"cannot audit {path}: it is a binary file, not a notebook")
    try:
        nb = json.loads(data)
    except UnicodeDecodeError:
        raise AuditInputError(f"cannot audit {path}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise AuditInputError(
            f"cannot audit {path}: not a valid notebook (invalid JSON at line {exc.lineno}, column {exc.colno})"
        ) from None
    except RecursionError:
        raise AuditInputError(f"cannot audit {path}: not a valid notebook (JSON nested too deeply)") from None
    cells = _notebook_cells(path, nb)
    language = _notebook_language(nb)
    if language and language.lower() != "python":
        raise AuditInputError(f"cannot audit {path}: it is a {language} notebook; gpuassist audits Python")
    parts: list[str] = []
    segments: list[Segment] = []
    skipped: list[SkippedCell] = []
    line = 1
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        raw = cell.get("source", cell.get("input", ""))
        text = "".join(raw) if isinstance(raw, list) else raw if isinstance(raw, str) else None
        if text is None or not all(isinstance(x, str) for x in (raw if isinstance(raw, list) else [raw])):
            raise AuditInputError(f"cannot audit {path}: not a valid notebook (cell {number} has no source text)")
        code, reason = _cell_code(text, path)
        if code is None:
            skipped.append(SkippedCell(number, reason))
            continue
        if not code.strip():
            continue
        body = code.rstrip("\n") + "\n"
        count = len(body.splitlines())
        parts.append(body)
        segments.append(Segment(number, line, count))
        line += count
    return Source(path=path, kind="notebook", text="".join(parts), segments=tuple(segments), skipped=tuple(skipped))


def _notebook_cells(path: str, nb: Any) -> list[Any]:
    if isinstance(nb, dict) and isinstance(nb.get("cells"), list):
        return list(nb["cells"])
    if isinstance(nb, dict) and isinstance(nb.get("worksheets"), list):  # nbformat 3
        out: list[Any] = []
        for sheet in nb["worksheets"]:
            if isinstance(sheet, dict) and isinstance(sheet.get("cells"), list):
                out.extend(sheet["cells"])
        return out
    raise AuditInputError(f'cannot audit {path}: not a Jupyter notebook (no "cells" list)')


def _notebook_language(nb: dict[str, Any]) -> str | None:
    meta = nb.get("metadata")
    if not isinstance(meta, dict):
        return None
    for key, field in (("kernelspec", "language"), ("language_info", "name")):
        value = meta.get(key)
        if isinstance(value, dict) and isinstance(value.get(field), str):
            return str(value[field])
    return None


def _cell_code(text: str, path: str) -> tuple[str | None, str]:
    """The cell as Python (IPython lines turned into ``pass``), or None and why it is skipped."""
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        magic = (lines[first].lstrip()[2:].split() or [""])[0]
        if magic not in PYTHON_CELL_MAGICS:
            return None, f"cell magic %%{magic} (not Python run in the notebook)"
        lines[first] = ""  # the body of %%time and friends is ordinary Python
        text = "\n".join(lines)
    reason = ""
    for candidate in (text, _neutralise_ipython(text)):
        try:
            _parse(candidate, path, notebook=True)
        except SyntaxError as exc:
            reason = f"syntax error at line {exc.lineno}: {exc.msg}"
            continue
        except (RecursionError, MemoryError):
            return None, "too deeply nested to parse"
        return candidate, ""
    return None, reason


def _neutralise_ipython(text: str) -> str:
    out = []
    for line in text.split("\n"):
        indent = len(line) - len(line.lstrip())
        m = IPYTHON_LINE.match(line, indent)
        out.append(f"{line[:indent]}pass" if m else line)
    return "\n".join(out)
