"""The side effects host collectors are allowed: reading files, running commands, reading env vars.

Collectors receive these as arguments (docs/architecture.md §4) so tests and simulated machines feed recorded data
to the *same* code that runs on a real machine:

- :class:`RootedFS` reads a real tree (``/`` on the machine, ``tests/data/hosts/...`` in tests);
  :class:`DictFS` serves a scenario's recorded files from memory.
- :class:`SubprocessRunner` runs real commands, always with a timeout; :class:`RecordedRunner` answers
  from recordings. Both return a :class:`CommandResult` and never raise for a missing binary or a hang.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Protocol

from gpuassist.files import list_names


@dataclass(frozen=True)
class FileInfo:
    """What ``stat`` + ``access`` tell about a path, in JSON-able form."""

    path: str
    kind: str  # "char", "block", "file", "dir", "link", "other"
    mode: str  # e.g. "crw-rw-rw-"
    readable: bool
    writable: bool


class FileSystem(Protocol):
    """Read-only view of the files a collector may look at (absolute POSIX paths)."""

    def read_text(self, path: str, limit: int = 1 << 20) -> str | None:
        """File text, or None when it does not exist or cannot be read."""

    def exists(self, path: str) -> bool: ...

    def listdir(self, path: str) -> list[str]:
        """Sorted entry names; [] when the directory does not exist."""

    def info(self, path: str) -> FileInfo | None: ...

    def realpath(self, path: str) -> str: ...


class RootedFS:
    """A real directory tree standing in for ``/`` (``RootedFS("/")`` is the machine itself)."""

    def __init__(self, root: str | os.PathLike[str] = "/") -> None:
        self.root = os.fspath(root)

    def _p(self, path: str) -> str:
        return os.path.join(self.root, path.lstrip("/")) if self.root != "/" else path

    def read_text(self, path: str, limit: int = 1 << 20) -> str | None:
        try:
            with open(self._p(path), "rb") as fh:
                return fh.read(limit).decode("utf-8", "replace")
        except OSError:
            return None

    def exists(self, path: str) -> bool:
        return os.path.lexists(self._p(path))

    def listdir(self, path: str) -> list[str]:
        return list_names(self._p(path))

    def info(self, path: str) -> FileInfo | None:
        p = self._p(path)
        try:
            st = os.stat(p)
        except OSError:
            return None
        if stat.S_ISCHR(st.st_mode):
            kind = "char"
        elif stat.S_ISBLK(st.st_mode):
            kind = "block"
        elif stat.S_ISDIR(st.st_mode):
            kind = "dir"
        elif stat.S_ISREG(st.st_mode):
            kind = "file"
        else:
            kind = "other"
        return FileInfo(path, kind, stat.filemode(st.st_mode), os.access(p, os.R_OK), os.access(p, os.W_OK))

    def realpath(self, path: str) -> str:
        if self.root == "/":
            return os.path.realpath(path)
        real = os.path.realpath(self._p(path))
        root = os.path.realpath(self.root)
        return "/" + os.path.relpath(real, root) if real.startswith(root) else path


class DictFS:
    """Files held in memory: ``{"/proc/driver/nvidia/version": "NVRM version: ..."}``.

    Directories are implied by the paths. A value may be a dict with ``text`` and ``mode``
    (e.g. ``{"mode": "crw-rw----", "readable": false}``) for device nodes whose permissions matter.
    """

    def __init__(self, files: Mapping[str, object]) -> None:
        self.files: dict[str, object] = {"/" + k.lstrip("/"): v for k, v in files.items()}
        dirs: set[str] = set()
        for path in self.files:
            parent = PurePosixPath(path).parent
            while str(parent) != "/":
                dirs.add(str(parent))
                parent = parent.parent
        self.dirs = dirs | {"/"}

    def read_text(self, path: str, limit: int = 1 << 20) -> str | None:
        v = self.files.get(path)
        if v is None:
            return None
        if isinstance(v, dict):
            if v.get("readable") is False:
                return None
            return str(v.get("text", ""))[:limit]
        return str(v)[:limit]

    def exists(self, path: str) -> bool:
        return path in self.files or path in self.dirs

    def listdir(self, path: str) -> list[str]:
        prefix = path.rstrip("/") + "/"
        names = {p[len(prefix) :].split("/", 1)[0] for p in [*self.files, *self.dirs] if p.startswith(prefix)}
        return sorted(n for n in names if n)

    def info(self, path: str) -> FileInfo | None:
        if path in self.dirs:
            return FileInfo(path, "dir", "drwxr-xr-x", True, False)
        v = self.files.get(path)
        if v is None:
            return None
        meta = v if isinstance(v, dict) else {}
        mode = str(meta.get("mode", "-rw-r--r--"))
        kind = {"c": "char", "b": "block", "d": "dir", "l": "link"}.get(mode[:1], "file")
        readable, writable = bool(meta.get("readable", True)), bool(meta.get("writable", kind == "char"))
        return FileInfo(path, kind, mode, readable, writable)

    def realpath(self, path: str) -> str:
        v = self.files.get(path)
        if isinstance(v, dict) and "link" in v:
            return str(v["link"])
        return path


@dataclass(frozen=True)
class CommandResult:
    """Outcome of one command. ``status`` is "ok" (ran; see returncode), "not_found" or "timeout"."""

    argv: tuple[str, ...]
    status: str
    returncode: int | None = None
    stdout: str = ""
    stderr: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok" and self.returncode == 0


class CommandRunner(Protocol):
    def __call__(self, argv: list[str], timeout: float = 5.0) -> CommandResult: ...


class SubprocessRunner:
    """Runs real commands: never a shell, always a timeout, output decoded leniently."""

    def __call__(self, argv: list[str], timeout: float = 5.0) -> CommandResult:
        if shutil.which(argv[0]) is None:
            return CommandResult(tuple(argv), "not_found")
        try:
            p = subprocess.run(argv, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL, check=False)
        except subprocess.TimeoutExpired:
            return CommandResult(tuple(argv), "timeout")
        except OSError as exc:
            return CommandResult(tuple(argv), "not_found", stderr=str(exc))
        return CommandResult(
            tuple(argv),
            "ok",
            p.returncode,
            p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"),
        )


class RecordedRunner:
    """Answers commands from a recording: ``{"nvidia-smi -L": {"returncode": 0, "stdout": "..."}}``.

    A command absent from the recording behaves like a binary that is not installed.
    """

    def __init__(self, recordings: Mapping[str, Mapping[str, object]]) -> None:
        self.recordings = dict(recordings)
        self.calls: list[list[str]] = []

    def __call__(self, argv: list[str], timeout: float = 5.0) -> CommandResult:
        self.calls.append(list(argv))
        rec = self.recordings.get(" ".join(argv))
        if rec is None:
            return CommandResult(tuple(argv), "not_found")
        status = str(rec.get("status", "ok"))
        rc = rec.get("returncode", 0)
        return CommandResult(
            tuple(argv),
            status,
            int(rc) if isinstance(rc, int) else None,
            str(rec.get("stdout", "")),
            str(rec.get("stderr", "")),
        )
