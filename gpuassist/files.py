"""Reading the user's files and writing ours, bounded and safe.

Reads: only a regular file (or standard input) is read, and never more than the cap plus one byte, so a
FIFO, ``/dev/zero``, a terminal or a 200 MB log is refused in one line and at once, not after it filled
memory or blocked forever. The check is made on the opened descriptor (``fstat``), not on the name, so a
file swapped for a FIFO between the check and the read cannot slip through.

Writes (``--output``): the text goes to a temporary file in the target's own directory and is renamed over
the target only when it was written whole, so a full disk or a killed process never leaves a half report
or destroys the previous one. ``-`` means standard output. A symbolic link named as the output is
*replaced* by the report (the rename acts on the link), never followed: a link planted where a report is
expected cannot make gpuassist overwrite the file it points to. An existing regular file is replaced,
because naming it with ``--output`` is asking for that.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from typing import BinaryIO

STDIO = "-"


class FileError(OSError):
    """A file cannot be read or written; ``str()`` is the one line shown to the user (without the name)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "cannot be used"


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


def read_bounded(name: str, limit: int, *, stdin: BinaryIO | None = None) -> bytes:
    """The bytes of file ``name`` (``-``: standard input), at most ``limit`` plus one byte of them (so the
    caller can say "too large" without reading more). FileError says why it cannot be read."""
    if name == STDIO:
        stream = stdin if stdin is not None else _stdin()
        try:
            return stream.read(limit + 1)
        except (OSError, ValueError) as exc:
            raise FileError("standard input is closed" if isinstance(exc, ValueError) else _why(exc)) from None
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(name, flags)
    except FileNotFoundError:
        raise FileError("no such file") from None
    except IsADirectoryError:
        raise FileError("it is a directory") from None
    except OSError as exc:
        raise FileError(_why(exc)) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise FileError("it is a directory")
        if not stat.S_ISREG(mode):
            raise FileError(f"it is {_kind(mode)}, not a regular file")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except FileError:
        raise
    except OSError as exc:
        raise FileError(_why(exc)) from None
    finally:
        os.close(fd)


def read_head(path: str, limit: int) -> bytes:
    """At most ``limit`` bytes from the start of regular file ``path``; ``b""`` when it is missing, unreadable
    or not a regular file. For the small files discovery reads in folders anyone may have written to (a
    shebang, ``pyvenv.cfg``, ``.python-version``, a kernel spec): a FIFO planted there must not hang it."""
    try:
        return read_bounded(path, limit)[:limit]
    except (FileError, ValueError):
        return b""


def list_names(path: str) -> list[str]:
    """The names in folder ``path``, sorted (the same order on every machine); ``[]`` when it is missing,
    unreadable, not a folder, or not a path at all (a NUL byte)."""
    try:
        return sorted(os.listdir(path))
    except (OSError, ValueError):
        return []


def _stdin() -> BinaryIO:
    if sys.stdin is None:
        raise FileError("standard input is closed")
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:
        raise FileError("standard input is not readable")
    return buffer  # type: ignore[no-any-return]


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def write_atomic(name: str, text: str) -> None:
    """Write ``text`` (UTF-8) to ``name`` whole or not at all: a temporary file beside it, flushed to disk,
    renamed over it. The previous file stays intact on any failure. FileError says why it failed."""
    target = os.path.abspath(name)
    folder = os.path.dirname(target)
    if os.path.isdir(target):
        raise FileError("it is a directory")
    existing = None
    with contextlib.suppress(OSError):
        existing = os.lstat(target)
    if existing is not None and not (stat.S_ISREG(existing.st_mode) or stat.S_ISLNK(existing.st_mode)):
        raise FileError(f"it is {_kind(existing.st_mode)}, not a regular file")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise FileError(_why(exc)) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(text.encode("utf-8"))
            f.flush()
            os.fsync(f.fileno())
        if existing is not None and stat.S_ISREG(existing.st_mode):
            with contextlib.suppress(OSError):
                os.chmod(tmp, stat.S_IMODE(existing.st_mode))
        else:
            with contextlib.suppress(OSError):
                umask = os.umask(0)
                os.umask(umask)
                os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise FileError(_why(exc)) from None
