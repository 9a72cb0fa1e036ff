"""Installing the app's desktop entry and icons (shipped in :mod:`gpuassist.resources`) into the user's
menu: XDG paths, no root.

The installed entry's ``Exec`` is the absolute path of the ``gpuassist-gui`` program that belongs to the
gpuassist being run (the bundle's, a pipx/uv tool's or a venv's), so the menu starts the same install
whatever the menu's PATH is. Only files named after :data:`APP_ID` are ever written or removed.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import sysconfig
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from gpuassist.own_python import is_frozen
from gpuassist.resources import APP_ID, DESKTOP_FILE, ICON_SIZES, METAINFO_FILE, icon_png, icon_svg, resource

__all__ = ["APP_ID", "DESKTOP_FILE", "ICON_SIZES", "METAINFO_FILE", "icon_png", "icon_svg", "resource"]

GUI_PROGRAM = "gpuassist-gui"
# Written into the installed entry, so uninstalling never removes an entry someone else put there.
MARKER_KEY = "X-GpuAssist-Installed-By"
CACHE_TIMEOUT = 10.0


class DesktopEntryError(Exception):
    """The entry cannot be installed or removed: one line saying why."""


@dataclass(frozen=True)
class DesktopPaths:
    """Where a user's desktop looks for menu entries and icons (XDG Base Directory, Icon Theme specs)."""

    data_home: Path

    @classmethod
    def for_user(cls, env: Mapping[str, str] | None = None) -> DesktopPaths:
        env = os.environ if env is None else env
        configured = env.get("XDG_DATA_HOME", "")
        # the spec says a relative XDG_DATA_HOME is invalid and must be ignored
        base = Path(configured) if os.path.isabs(configured) else Path(os.path.expanduser("~")) / ".local" / "share"
        return cls(base)

    @property
    def entry(self) -> Path:
        return self.data_home / "applications" / DESKTOP_FILE

    @property
    def hicolor(self) -> Path:
        return self.data_home / "icons" / "hicolor"

    def icon(self, size: int | None) -> Path:
        """The PNG of ``size`` px, or the scalable SVG for None."""
        if size is None:
            return self.hicolor / "scalable" / "apps" / f"{APP_ID}.svg"
        return self.hicolor / f"{size}x{size}" / "apps" / f"{APP_ID}.png"

    def all_files(self) -> list[Path]:
        return [self.entry, *(self.icon(s) for s in ICON_SIZES), self.icon(None)]


def gui_program() -> Path:
    """The ``gpuassist-gui`` of the gpuassist being run: beside the bundle's program when frozen, else in
    the scripts folder of this interpreter's environment (venv, pipx or uv tool)."""
    suffix = ".exe" if os.name == "nt" else ""
    if is_frozen():
        candidates = [Path(sys.executable).with_name(GUI_PROGRAM + suffix)]
    else:
        candidates = [
            Path(sysconfig.get_path("scripts")) / (GUI_PROGRAM + suffix),
            Path(sys.executable).with_name(GUI_PROGRAM + suffix),
        ]
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return path
    raise DesktopEntryError(
        f"cannot find the {GUI_PROGRAM} program of this gpuassist (looked for "
        f"{', '.join(str(c) for c in candidates)}); is gpuassist installed?"
    )


_EXEC_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")


def exec_argument(arg: str) -> str:
    """``arg`` quoted for an ``Exec`` key (Desktop Entry spec: quoting, then the string escape of ``\\``)."""
    if arg and not (_EXEC_RESERVED & set(arg)) and "%" not in arg and "=" not in arg:
        return arg
    quoted = '"' + "".join("\\" + c if c in '"`$\\' else c for c in arg.replace("%", "%%")) + '"'
    return quoted.replace("\\", "\\\\")


def entry_text(program: Path) -> str:
    """The shipped desktop entry with ``Exec``/``TryExec`` pointing at ``program``."""
    lines = []
    for line in resource(DESKTOP_FILE).read_text(encoding="utf-8").splitlines():
        if line.startswith("Exec="):
            line = f"Exec={exec_argument(str(program))}"
        elif line.startswith("TryExec="):
            line = f"TryExec={str(program).replace(chr(92), chr(92) * 2)}"
        lines.append(line)
    lines.append(f"{MARKER_KEY}=gpuassist --install-desktop-entry")
    return "\n".join(lines) + "\n"


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def _refresh_icon_cache(paths: DesktopPaths) -> None:
    """Rebuild the user's hicolor icon cache only where one already exists (else desktops read the folders
    themselves); a missing or failing tool is not an error."""
    if not (paths.hicolor / "icon-theme.cache").is_file():
        return
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        subprocess.run(
            ["gtk-update-icon-cache", "-q", "-t", "-f", str(paths.hicolor)],
            timeout=CACHE_TIMEOUT,
            check=False,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )


def install(paths: DesktopPaths, program: Path) -> list[Path]:
    """Put the entry (starting ``program``) and the icons under ``paths``; returns the files written."""
    try:
        _write(paths.entry, entry_text(program).encode("utf-8"))
        for size in ICON_SIZES:
            _write(paths.icon(size), icon_png(size))
        _write(paths.icon(None), icon_svg())
    except OSError as exc:
        raise DesktopEntryError(f"cannot write under {paths.data_home}: {exc.strerror or exc}") from exc
    _refresh_icon_cache(paths)
    return paths.all_files()


def uninstall(paths: DesktopPaths) -> list[Path]:
    """Remove what :func:`install` wrote; returns the files removed. An entry with our name that gpuassist
    did not write is left alone (and said so)."""
    if paths.entry.is_file():
        text = paths.entry.read_text(encoding="utf-8", errors="replace")
        if f"\n{MARKER_KEY}=" not in text:
            raise DesktopEntryError(f"{paths.entry} was not written by gpuassist; leaving it alone")
    removed = []
    for path in paths.all_files():
        try:
            path.unlink()
            removed.append(path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise DesktopEntryError(f"cannot remove {path}: {exc.strerror or exc}") from exc
    _refresh_icon_cache(paths)
    return removed
