"""Where a fleet's reports come from: files, folders and streams, read one report at a time.

Each source is read as a sequence of *records*: a record starts at a line whose first character is neither
blank nor a closing bracket, and runs until the next such line. That one rule reads a single pretty-printed
report (``gpuassist diagnose --format json``: every line but its first and last is indented), a JSON-lines
stream of compact reports (one per line) and a concatenation of pretty reports (``cat reports/*.json``)
alike. Other text (``bash: gpuassist: command not found`` in a Slurm task's output, an ssh error between
pdsh lines) is an unreadable entry that quotes its first line, so a node that failed to run gpuassist is
named, not dropped, and never spoils the report next to it.

Nothing is read whole: sources are read in 256 KiB chunks and split at C speed, a record is bounded by
:data:`gpuassist.ingest.text.MAX_BYTES` (a report is far smaller), and only one record is held at a time, so
a stream of 100,000 reports never has to fit in memory. Each record is validated by the ingest layer's own
reader (:func:`gpuassist.ingest.report_json.parse_report`), the same one ``diagnose --from`` uses.
"""

from __future__ import annotations

import codecs
import os
import re
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
# In a folder: files named like reports (Slurm %t.json, *.jsonl, extension-less), read even when they hold an
# error message instead; any other file is read only when its text starts like a report (pssh -o files named
# after hosts such as gpu01.cluster.local), and skipped (counted) otherwise: sbatch logs, READMEs.
FOLDER_SUFFIXES = (".json", ".jsonl", ".ndjson", "")
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_FLEET_SCHEMA = re.compile(rb'"schema"\s*:\s*"gpuassist\.fleet/')


@dataclass(frozen=True)
class Entry:
    """One report read (``report``), or one that could not be (``error``: the one line that says why)."""

    label: str  # where it came from: a path, ``path:LINE`` inside a multi-report file, ``standard input:LINE``
    report: Report | None = None
    error: str | None = None
    path: str | None = None  # the file that is this one report (the app reopens it); None inside a stream
    fallback_name: str = ""  # the node's name when the report names none (the file's stem)
    skipped: bool = False  # not a node's report but a merged one (an earlier `gpuassist fleet --output` here)


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
        if Path(name).suffix.lower() not in FOLDER_SUFFIXES and not _starts_like_a_report(full):
            notes.skipped_files += 1  # sbatch logs, READMEs: not reports
            continue
        yield from _path_entries(full, notes, explicit=False)


def _starts_like_a_report(path: str) -> bool:
    """A file whatever its name whose text starts with ``{`` (parallel-ssh -o names files after hosts,
    ``gpu01.cluster.local``), or that is UTF-16 (PowerShell)."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    if head.startswith(_UTF16_BOMS):
        return True
    return head.removeprefix(codecs.BOM_UTF8).lstrip().startswith(b"{")


def _stem(path: str) -> str:
    name = Path(path).name
    return Path(path).stem if Path(path).suffix.lower() in FOLDER_SUFFIXES else name


CHUNK = 1 << 18  # 256 KiB: big enough for C-speed splitting, small enough to keep the constant memory low
# A record starts at a line whose first character is neither blank nor a closing bracket: inside a
# pretty-printed report every line but the last is indented, so only the next report (``{``) or another
# program's text (``bash: …``) starts one.
_RECORD_START = re.compile(rb"\n(?=[^\s}\]])")


class _TooLarge(Exception):
    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


def _stream_entries(stream: BinaryIO, label: str, path: str | None, fallback: str) -> Iterator[Entry]:
    first = _peek(stream)
    if first.startswith(_UTF16_BOMS) or (len(first) >= 4 and first[1] == 0 and first[3] == 0):
        yield from _utf16_entries(stream, label, path, fallback)  # a PowerShell `>` redirect
        return
    many = False
    pending: tuple[int, bytes, bool] | None = None
    try:
        for record in _records(_chunks(stream)):
            if pending is not None:
                many = True
                yield _entry(pending, label, path, fallback, many)
            pending = record
    except _TooLarge as exc:
        if pending is not None:
            yield _entry(pending, label, path, fallback, True)
        yield Entry(
            f"{label}:{exc.line}",
            error=f"the text from line {exc.line} on is larger than {MAX_BYTES // (1024 * 1024)} MiB without "
            "another report starting; a report is far smaller (stopped reading here)",
            path=path,
            fallback_name=fallback,
        )
        return
    except OSError as exc:
        if pending is not None:
            yield _entry(pending, label, path, fallback, many)
        yield Entry(label, error=f"cannot read it: {exc.strerror or exc}", path=path, fallback_name=fallback)
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


def _chunks(stream: BinaryIO) -> Iterator[bytes]:
    while True:
        chunk = stream.read(CHUNK)
        if not chunk:
            return
        yield chunk


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
    records = list(_records([text.encode("utf-8")]))
    for record in records:
        yield _entry(record, label, path, fallback, len(records) > 1)


def _records(chunks: Iterable[bytes]) -> Iterator[tuple[int, bytes, bool]]:
    """(first line number, bytes, is_json) per record, split at C speed; consecutive lines of other text
    are one record. Holds one record (at most MAX_BYTES) plus one chunk."""
    buf = b""
    line = 1  # line number of buf[0]
    scanned = 0  # buf[:scanned] holds no record start
    text: tuple[int, bytes] | None = None  # a run of non-report text, joined until the next report

    def emit(number: int, record: bytes) -> Iterator[tuple[int, bytes, bool]]:
        nonlocal text
        body = record.strip()
        if body.startswith(codecs.BOM_UTF8):  # `cat` of files saved with a byte-order mark
            body = body[len(codecs.BOM_UTF8) :].lstrip()
        if not body:
            return
        if body.startswith(b"{"):
            if text is not None:
                yield text[0], text[1], False
                text = None
            yield number + _leading_lines(record), body, True
        elif text is None:
            text = (number + _leading_lines(record), body)
        elif len(text[1]) < 4096:  # enough of it to quote; the rest is dropped
            text = (text[0], text[1] + b"\n" + body)

    for chunk in chunks:
        if not buf and line == 1 and chunk.startswith(codecs.BOM_UTF8):
            chunk = chunk[len(codecs.BOM_UTF8) :]
        buf += chunk
        start = 0
        for m in _RECORD_START.finditer(buf, max(scanned - 1, 0)):
            record = buf[start : m.end()]
            yield from emit(line, record)
            line += record.count(b"\n")
            start = m.end()
        buf = buf[start:]
        scanned = len(buf)
        if len(buf) > MAX_BYTES:
            if text is not None:
                yield text[0], text[1], False
            raise _TooLarge(line)
    yield from emit(line, buf)
    if text is not None:
        yield text[0], text[1], False


def _leading_lines(record: bytes) -> int:
    """Blank lines before a record's text, so its line number is that of its first character."""
    return record[: len(record) - len(record.lstrip())].count(b"\n")


def _decode(data: bytes) -> str:
    """UTF-8 without NULs (what gpuassist writes) directly; anything else through the ingest layer's
    decoder, which knows the other encodings and refuses binary data."""
    if b"\x00" not in data:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            pass
    return decode(data)


def _entry(record: tuple[int, bytes, bool], label: str, path: str | None, fallback: str, many: bool) -> Entry:
    start, data, is_json = record
    where = f"{label}:{start}" if many else label
    fallback = where if many else fallback  # one of many reports in a stream: named by its line
    if not data:
        return Entry(where, error="the report is larger than a report can be", path=path, fallback_name=fallback)
    try:
        text = _decode(data)
        if not is_json or not looks_like_json(text):
            first = text.strip().splitlines()[0][:160] if text.strip() else ""
            raise UnreadableInput(f"not a gpuassist JSON report: {first!r}")
        report = parse_report(text)
    except UnreadableInput as exc:
        if _FLEET_SCHEMA.search(data[:4096]):  # our own merged output, saved among the reports
            return Entry(where, path=path, fallback_name=fallback, skipped=True)
        return Entry(where, error=str(exc), path=path, fallback_name=fallback)
    # a report that shares its file with others cannot be reopened from the file alone
    return Entry(where, report=report, path=None if many else path, fallback_name=fallback)
