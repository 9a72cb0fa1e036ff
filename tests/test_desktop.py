"""The app's resources (icon, desktop entry, AppStream metainfo) and installing them into a user's menu:
shipped with the package, valid for the freedesktop tools, written only under XDG paths, Exec pointing at
this install's gpuassist-gui, and removed again without touching anything else."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from gpuassist import cli, desktop, own_python

ROOT = Path(__file__).resolve().parent.parent
RESOURCES = ROOT / "gpuassist" / "resources"


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])  # IHDR is always the first chunk
    return width, height


def validate_desktop_file(path: Path) -> None:
    tool = shutil.which("desktop-file-validate")
    if tool is None:
        pytest.skip("desktop-file-validate is not installed (apt-get install desktop-file-utils; CI installs it)")
    result = subprocess.run([tool, str(path)], capture_output=True, text=True, timeout=30)
    # hints are advice; errors and warnings fail
    problems = [line for line in result.stdout.splitlines() if ": error:" in line or ": warning:" in line]
    assert result.returncode == 0 and not problems, result.stdout + result.stderr


@pytest.mark.parametrize("size", desktop.ICON_SIZES)
def test_icon_png_is_shipped_at_its_size(size: int) -> None:
    assert png_size(desktop.icon_png(size)) == (size, size)


def test_icon_svg_and_desktop_files_are_shipped() -> None:
    assert b"<svg" in desktop.icon_svg()
    assert desktop.resource(desktop.DESKTOP_FILE).read_text(encoding="utf-8").startswith("[Desktop Entry]")
    assert desktop.APP_ID in desktop.resource(desktop.METAINFO_FILE).read_text(encoding="utf-8")


def test_desktop_entry_and_metainfo_agree() -> None:
    entry = desktop.resource(desktop.DESKTOP_FILE).read_text(encoding="utf-8")
    meta = desktop.resource(desktop.METAINFO_FILE).read_text(encoding="utf-8")
    assert f"Icon={desktop.APP_ID}\n" in entry
    assert f'<launchable type="desktop-id">{desktop.DESKTOP_FILE}</launchable>' in meta
    for program in ("gpuassist", "gpuassist-gui"):
        assert f"<binary>{program}</binary>" in meta
    assert "<caption>" in meta and "<release " in meta and "<content_rating" in meta


@pytest.mark.slow
def test_pngs_match_the_svg() -> None:
    """The committed PNGs are the render of the committed SVG (packaging/render_icons.py)."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "packaging" / "render_icons.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert result.returncode == 0, result.stderr


def test_shipped_desktop_entry_validates() -> None:
    validate_desktop_file(RESOURCES / desktop.DESKTOP_FILE)


def test_metainfo_validates() -> None:
    tool = shutil.which("appstreamcli")
    if tool is None:
        pytest.skip("appstreamcli is not installed (apt-get install appstream; CI installs it)")
    result = subprocess.run(
        [tool, "validate", "--no-net", str(RESOURCES / desktop.METAINFO_FILE)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("arg", "written"),
    [
        ("/opt/gpuassist/gpuassist-gui", "/opt/gpuassist/gpuassist-gui"),
        ("/home/a b/bin/gpuassist-gui", '"/home/a b/bin/gpuassist-gui"'),
        ('/x/"q"$HOME/`x`/gpuassist-gui', r'"/x/\\"q\\"\\$HOME/\\`x\\`/gpuassist-gui"'),
        ("/x/100%/gpuassist-gui", '"/x/100%%/gpuassist-gui"'),
    ],
)
def test_exec_argument_quoting(arg: str, written: str) -> None:
    assert desktop.exec_argument(arg) == written


def test_user_paths_follow_xdg_data_home(tmp_path: Path) -> None:
    paths = desktop.DesktopPaths.for_user({"XDG_DATA_HOME": str(tmp_path)})
    assert paths.entry == tmp_path / "applications" / f"{desktop.APP_ID}.desktop"
    assert paths.icon(48) == tmp_path / "icons" / "hicolor" / "48x48" / "apps" / f"{desktop.APP_ID}.png"
    assert paths.icon(None) == tmp_path / "icons" / "hicolor" / "scalable" / "apps" / f"{desktop.APP_ID}.svg"
    relative = desktop.DesktopPaths.for_user({"XDG_DATA_HOME": "relative/dir", "HOME": str(tmp_path)})
    assert relative.data_home == Path(os.path.expanduser("~")) / ".local" / "share"  # the spec: ignore it


def test_install_writes_entry_and_icons_and_uninstall_removes_only_them(tmp_path: Path) -> None:
    program = tmp_path / "my apps" / "gpuassist-gui"
    paths = desktop.DesktopPaths(tmp_path / "share")
    other = paths.data_home / "applications" / "someone-else.desktop"
    other.parent.mkdir(parents=True)
    other.write_text("[Desktop Entry]\n")
    written = desktop.install(paths, program)
    assert set(written) == set(paths.all_files()) and all(p.is_file() for p in written)
    text = paths.entry.read_text(encoding="utf-8")
    assert f'Exec="{program}"\n' in text and f"TryExec={program}\n" in text
    assert png_size(paths.icon(256).read_bytes()) == (256, 256)
    validate_desktop_file(paths.entry)
    assert set(desktop.uninstall(paths)) == set(written)
    assert not any(p.exists() for p in written)
    assert other.is_file()
    assert desktop.uninstall(paths) == []  # twice is fine


def test_uninstall_leaves_an_entry_gpuassist_did_not_write(tmp_path: Path) -> None:
    paths = desktop.DesktopPaths(tmp_path)
    paths.entry.parent.mkdir(parents=True)
    paths.entry.write_text("[Desktop Entry]\nName=mine\n")
    with pytest.raises(desktop.DesktopEntryError, match="not written by gpuassist"):
        desktop.uninstall(paths)
    assert paths.entry.is_file()


def test_cli_installs_an_entry_that_starts_this_installs_gui(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert cli.main(["--install-desktop-entry"]) == 0
    gui = Path(sysconfig.get_path("scripts")) / "gpuassist-gui"
    entry = (tmp_path / "applications" / f"{desktop.APP_ID}.desktop").read_text(encoding="utf-8")
    assert f"Exec={desktop.exec_argument(str(gui))}\n" in entry
    assert str(gui) in capsys.readouterr().out
    assert cli.main(["--uninstall-desktop-entry"]) == 0
    assert not (tmp_path / "applications" / f"{desktop.APP_ID}.desktop").exists()
    with pytest.raises(SystemExit) as exited:  # one or the other
        cli.main(["--install-desktop-entry", "--uninstall-desktop-entry"])
    assert exited.value.code == 2


def test_frozen_app_finds_the_gui_beside_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("gpuassist", "gpuassist-gui"):
        (tmp_path / name).write_text("")
        (tmp_path / name).chmod(0o755)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "gpuassist"))
    assert desktop.gui_program() == tmp_path / "gpuassist-gui"
    (tmp_path / "gpuassist-gui").unlink()
    with pytest.raises(desktop.DesktopEntryError, match="cannot find the gpuassist-gui"):
        desktop.gui_program()


def test_frozen_app_is_not_a_python_target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In the bundle sys.executable is gpuassist itself: the probe goes to the PATH's Python instead."""
    python3 = tmp_path / "python3"
    python3.write_text("")
    python3.chmod(0o755)
    assert own_python.own_python() == sys.executable and own_python.fallback_python() == sys.executable
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert own_python.own_python() is None
    assert own_python.fallback_python({"PATH": str(tmp_path)}) == str(python3)
    assert own_python.fallback_python({"PATH": str(tmp_path / "nothing")}) == "python3"


@pytest.mark.slow
def test_wheel_carries_the_resources(tmp_path: Path) -> None:
    """A built wheel (what pip, pipx and uv install) holds the icon, entry, metainfo and probe scripts."""
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    (wheel,) = tmp_path.glob("gpuassist-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {
        f"gpuassist/resources/{desktop.DESKTOP_FILE}",
        f"gpuassist/resources/{desktop.METAINFO_FILE}",
        "gpuassist/resources/icons/gpuassist.svg",
        "gpuassist/probe/probe_script.py",
        "gpuassist/probe/channel.py",
        "gpuassist/knowledge/catalogue.json",
        *(f"gpuassist/resources/icons/gpuassist-{s}.png" for s in desktop.ICON_SIZES),
    }
    assert expected <= names, sorted(expected - names)
