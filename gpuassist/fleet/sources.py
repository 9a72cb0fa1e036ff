"""Where a fleet's reports come from: files, folders and streams, read one report at a time.

Each source is read as a sequence of *records*: a record starts at a line whose first character is ``{``
and runs until the next such line. That one rule reads a single pretty-printed report (``gpuassist
diagnose --format json``: only its first and last braces sit in column 0), a JSON-lines stream of compact
reports (one per line) and a concatenation of pretty reports (``cat reports/*.json``) alike. Text before
a record (``bash: gpuassist: command not found`` in a Slurm task's output) is an unreadable entry that
quotes its first line, so a node that failed to run gpuassist is named, not dropped.

Nothing is read whole: lines are read with a bound (a report is far smaller than
:data:`gpuassist.ingest.text.MAX_BYTES`), and only one record is held at a time, so a stream of 100,000
reports never has to fit in memory. Each record is validated by the ingest layer's own reader
(:func:`gpuassist.ingest.report_json.parse_report`), the same one ``diagnose --from`` uses.
"""

from __future__ import annotations

import codecs
import os
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from gpuassist.ingest.report_json import looks_like_json, parse_report
from gpuassist.ingest.text import MAX_BYTES, UnreadableInput, decode
from gpuassist.report.model import Report

STDIN = "-"
STDIN_LABEL = "standard input"
# In a folder: reports as written by the recipes (Slurm %t.json, pssh -o files named by host, *.jsonl).
FOLDER_SUFFIXES = (".json", ".jsonl", ".ndjson", "")
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


@dataclass(frozen=True)
class Entry:
    """One report read (``report``), or one that could not be (``error``: the one line that says why)."""

    label: str  # where it came from: a path, ``path:LINE`` inside a multi-report file, ``standard input:LINE``
    report: Report | None = None
    error: str | None = None
    path: str | None = None  # the file it came from (the app reopens it), None for a stream
    fallback_name: str = ""  # the node's name when the report names none (the file's stem)


@dataclass
class SourceNotes:
    """What the reader skipped in folders (counted, never silently lost)."""

    skipped_files: int = 0


def iter_entries(
    paths: Sequence[str], stdin: BinaryIO | None = None, notes: SourceNotes | None = None
) -> Iterator[Entry]:
    """Every report in ``paths`` (files, folders, ``-`` for ``stdin``), one at a time, in the given order."""
    notes = notes if notes is not None else SourceNotes()
    for arg in paths:
        if arg == STDIN:
            if stdin is None:
                yield Entry(STDIN_LABEL, error="standard input is not available")
                continue
            yield from _stream_entries(stdin, STDIN_LABEL, None, STDIN_LABEL)
            continue
        yield from _path_entries(arg, notes, explicit=True)


def _path_entries(path: str, notes: SourceNotes, *, explicit: bool) -> Iterator[Entry]:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        yield Entry(path, error="no such file or folder", path=path, fallback_name=_stem(path))
        return
    except OSError as exc:
        yield Entry(path, error=f"cannot read it: {exc.strerror or exc}", path=path, fallback_name=_stem(path))
        return
    if stat.S_ISDIR(st.st_mode):
        yield from _folder_entries(path, notes)
        return
    if not stat.S_ISREG(st.st_mode):  # a FIFO or a device never ends; a report is a plain file
        yield Entry(path, error="not a regular file", path=path, fallback_name=_stem(path))
        return
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below, after the generator is drained
    except OSError as exc:
        yield Entry(path, error=f"cannot read it: {exc.strerror or exc}", path=path, fallback_name=_stem(path))
        return
    with handle:
        yield from _stream_entries(handle, path, path, _stem(path))


def _folder_entries(folder: str, notes: SourceNotes) -> Iterator[Entry]:
    try:
        with os.scandir(folder) as it:
            names = sorted(e.name for e in it if not e.name.startswith("."))
    except OSError as exc:
        yield Entry(folder, error=f"cannot list the folder: {exc.strerror or exc}", path=folder)
        return
    for name in names:
        full = os.path.join(folder, name)
        if os.path.isdir(full):
            continue  # one level: the recipes write one folder of reports
        if Path(name).suffix.lower() not in FOLDER_SUFFIXES:
            notes.skipped_files += 1  # sbatch logs, READMEs: not reports
            continue
        yield from _path_entries(full, notes, explicit=False)


def _stem(path: str) -> str:
    return Path(path).stem or Path(path).name


def _bounded_lines(stream: BinaryIO, label: str) -> Iterator[tuple[int, bytes]]:
    """(line number, line) with every line bounded; an endless line ends the source with an error."""
    number = 0
    while True:
        line = stream.readline(MAX_BYTES + 1)
        if not line:
            return
        number += 1
        if len(line) > MAX_BYTES:
            raise _Overlong(number)
        yield number, line


class _Overlong(Exception):
    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


def _stream_entries(stream: BinaryIO, label: str, path: str | None, fallback: str) -> Iterator[Entry]:
    first = _peek(stream)
    if first.startswith(_UTF16_BOMS) or (len(first) >= 4 and first[1] == 0 and first[3] == 0):
        yield from _utf16_entries(stream, label, path, fallback)  # a PowerShell `>` redirect
        return
    records = _records(_bounded_lines(stream, label))
    many = False
    pending: tuple[int, bytes, bool] | None = None
    try:
        for record in records:
            if pending is not None:
                many = True
                yield _entry(pending, label, path, fallback, many)
            pending = record
    except _Overlong as exc:
        if pending is not None:
            yield _entry(pending, label, path, fallback, True)
        yield Entry(
            f"{label}:{exc.line}",
            error=f"line {exc.line} is longer than {MAX_BYTES // (1024 * 1024)} "
            "MiB; a report is far smaller (stopped reading here)",
            path=path,
            fallback_name=fallback,
        )
        return
    if pending is None:
        yield Entry(label, error="the input is empty (the node wrote no report)", path=path, fallback_name=fallback)
    else:
        yield _entry(pending, label, path, fallback, many)


def _peek(stream: BinaryIO) -> bytes:
    peek = getattr(stream, "peek", None)
    if peek is None:
        return b""
    try:
        return bytes(peek(4)[:4])
    except (OSError, ValueError):
        return b""


def _utf16_entries(stream: BinaryIO, label: str, path: str | None, fallback: str) -> Iterator[Entry]:
    data = stream.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        yield Entry(label, error="the input is larger than a report can be", path=path, fallback_name=fallback)
        return
    try:
        text = decode(data)
    except UnreadableInput as exc:
        yield Entry(label, error=str(exc), path=path, fallback_name=fallback)
        return
    lines = ((no, line.encode("utf-8")) for no, line in enumerate(text.splitlines(keepends=True), 1))
    records = list(_records(lines))
    for record in records:
        yield _entry(record, label, path, fallback, len(records) > 1)


def _records(lines: Iterable[tuple[int, bytes]]) -> Iterator[tuple[int, bytes, bool]]:
    """(first line number, bytes, is_json) per record; text outside records is one non-JSON record per run."""
    start = 0
    chunks: list[bytes] = []
    size = 0
    is_json = False
    for number, line in lines:
        if number == 1 and line.startswith(codecs.BOM_UTF8):
            line = line[len(codecs.BOM_UTF8) :]
        opens = line.startswith(b"{")
        if chunks and (opens or (is_json and _closed(chunks))):
            yield start, b"".join(chunks), is_json
            chunks, size = [], 0
        if not chunks:
            if not line.strip():
                continue
            start, is_json = number, opens
        size += len(line)
        if size > MAX_BYTES:
            yield start, b"", is_json  # too large: reported by _entry, content dropped
            chunks, size = [], 0
            continue
        chunks.append(line)
    if chunks:
        yield start, b"".join(chunks), is_json


def _closed(chunks: list[bytes]) -> bool:
    """The record's last line closes a report in column 0 (a pretty report's final ``}``, a compact line):
    whatever follows is another record, so a stray error line never spoils the report before it."""
    return chunks[-1].rstrip().endswith(b"}") and chunks[-1][:1] in (b"}", b"{")


def _entry(record: tuple[int, bytes, bool], label: str, path: str | None, fallback: str, many: bool) -> Entry:
    start, data, is_json = record
    where = f"{label}:{start}" if many else label
    fallback = where if many else fallback  # one of many reports in a stream: named by its line
    if not data:
        return Entry(where, error="the report is larger than a report can be", path=path, fallback_name=fallback)
    try:
        text = decode(data)
        if not is_json or not looks_like_json(text):
            first = text.strip().splitlines()[0][:160] if text.strip() else ""
            raise UnreadableInput(f"not a gpuassist JSON report: {first!r}")
        report = parse_report(text)
    except UnreadableInput as exc:
        return Entry(where, error=str(exc), path=path, fallback_name=fallback)
    return Entry(where, report=report, path=path, fallback_name=fallback)
