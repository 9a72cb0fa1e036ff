"""The app bundle (packaging/build) works on a machine, not just builds: its CLI gives the same diagnosis
as the source on every simulated machine, probes a real Python from the frozen app, its GUI shows its
window under Xvfb, and it installs its own menu entry.

Building takes 1-2 minutes, so these run when GPUASSIST_TEST_PACKAGING=1 (.ci/run sets it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from gpuassist import desktop
from gpuassist.sim import list_scenarios, simulate

ROOT = Path(__file__).resolve().parent.parent
ENABLE = "GPUASSIST_TEST_PACKAGING"
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get(ENABLE) != "1", reason=f"builds the app bundle (1-2 min): set {ENABLE}=1 (.ci/run does)"
    ),
]


@pytest.fixture(scope="module")
def bundle() -> Path:
    result = subprocess.run(
        [str(ROOT / "packaging" / "build")], capture_output=True, text=True, timeout=1500, stdin=subprocess.DEVNULL
    )
    assert result.returncode == 0, result.stderr[-4000:]
    folder = Path(result.stdout.strip().splitlines()[-1])
    assert folder.is_dir(), f"the build's last line is not a folder: {folder}"
    return folder


def run(
    bundle: Path,
    program: str,
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float = 180,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(bundle / program), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
    )


def findings(report_json: str) -> list[str]:
    report: dict[str, Any] = json.loads(report_json)
    return [f["id"] for f in report["findings"]]


@pytest.mark.timeout(1800)
def test_bundle_is_complete_and_carries_no_torch(bundle: Path) -> None:
    check = subprocess.run(
        [sys.executable, str(ROOT / "packaging" / "check_bundle.py"), str(bundle), "--source", str(ROOT / "gpuassist")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert check.returncode == 0, check.stderr  # it also fails on any torch, libtorch or CUDA library
    assert not (bundle / "_internal" / "torch").exists()


def test_bundled_cli_diagnoses_every_simulated_machine_like_the_source(bundle: Path) -> None:
    differ = {}
    for scenario in list_scenarios():
        result = run(bundle, "gpuassist", "diagnose", "--simulate", scenario.name, "--format", "json")
        assert result.returncode in (0, 1), f"{scenario.name}: {result.stderr}"
        expected = [f.id for f in simulate(scenario.name).findings]
        if findings(result.stdout) != expected:
            differ[scenario.name] = (findings(result.stdout), expected)
    assert not differ, differ


def test_bundled_cli_probes_the_active_venv(bundle: Path, tmp_path: Path) -> None:
    """The frozen app is not a Python: with no --python it picks the user's (here: the venv active in the
    shell) and runs the probe there."""
    env = {**os.environ, "VIRTUAL_ENV": sys.prefix}
    env.pop("CONDA_PREFIX", None)
    result = run(bundle, "gpuassist", "diagnose", "--format", "json", "--no-redact", env=env, cwd=tmp_path)
    assert result.returncode in (0, 1), result.stderr
    report = json.loads(result.stdout)
    assert Path(report["meta"]["target"]).parent == Path(sys.prefix) / "bin", report["meta"]
    assert report["facts"]["probe.outcome"] == "ok", report["facts"].get("probe.error")
    assert report["facts"]["python.version"] == ".".join(map(str, sys.version_info[:3]))
    try:
        torch_version: str | None = metadata.version("torch")
    except metadata.PackageNotFoundError:
        torch_version = None
    if torch_version is not None:
        assert report["facts"]["torch.version"] == torch_version


def test_bundled_cli_reports_the_users_environment_not_the_bundles(bundle: Path, tmp_path: Path) -> None:
    """The bootloader points LD_LIBRARY_PATH at the bundle: the facts (and the probe) get the user's."""
    for value in ("/opt/mine/lib", None):
        env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
        if value:
            env["LD_LIBRARY_PATH"] = value
        result = run(bundle, "gpuassist", "diagnose", "--format", "json", "--no-redact", env=env, cwd=tmp_path)
        assert result.returncode in (0, 1), result.stderr
        seen = json.loads(result.stdout)["facts"]["env"]
        assert seen.get("LD_LIBRARY_PATH") == value, seen
        assert str(bundle) not in json.dumps(seen)


def test_bundled_cli_with_no_hint_probes_a_real_python(bundle: Path, tmp_path: Path) -> None:
    """No active env, no project: still a Python found on this machine, never the bundle's own program."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX")}
    env["HOME"] = str(tmp_path)
    result = run(bundle, "gpuassist", "diagnose", "--format", "json", "--no-redact", env=env, cwd=tmp_path)
    assert result.returncode in (0, 1), result.stderr
    report = json.loads(result.stdout)
    target = report["meta"]["target"]
    assert target and not Path(target).resolve().is_relative_to(bundle.resolve()), report["meta"]
    assert report["facts"]["probe.outcome"] == "ok", report["facts"].get("probe.error")


def test_bundled_cli_probes_an_explicit_python(bundle: Path) -> None:
    result = run(
        bundle, "gpuassist", "diagnose", "--python", sys.executable, "--format", "json", "--no-redact", timeout=180
    )
    assert result.returncode in (0, 1), result.stderr
    report = json.loads(result.stdout)
    assert report["meta"]["target"] == sys.executable
    assert report["facts"]["probe.outcome"] == "ok"


def test_bundled_gui_shows_its_window_under_xvfb(bundle: Path) -> None:
    xvfb_run = shutil.which("xvfb-run")
    if xvfb_run is None:
        pytest.skip("xvfb-run is not installed (apt-get install xvfb; CI installs it)")
    env = {**os.environ, "QT_QPA_PLATFORM": "xcb", "GPUASSIST_STARTUP_PROBE": "1", "GPUASSIST_NO_DIALOGS": "1"}
    result = subprocess.run(
        [
            xvfb_run,
            "-a",
            "-s",
            "-screen 0 1280x800x24",
            str(bundle / "gpuassist-gui"),
            "--simulate",
            "cpu-only-build-rtx4090",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "window-shown" in result.stdout and "torch=False" in result.stdout, result.stdout + result.stderr


def test_bundle_installs_its_menu_entry(bundle: Path, tmp_path: Path) -> None:
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    result = run(bundle, "gpuassist", "--install-desktop-entry", env=env)
    assert result.returncode == 0, result.stderr
    entry = (tmp_path / "applications" / desktop.DESKTOP_FILE).read_text(encoding="utf-8")
    assert f"Exec={desktop.exec_argument(str(bundle / 'gpuassist-gui'))}\n" in entry
    assert (tmp_path / "icons" / "hicolor" / "512x512" / "apps" / f"{desktop.APP_ID}.png").is_file()
    assert run(bundle, "gpuassist", "--uninstall-desktop-entry", env=env).returncode == 0
    assert not (tmp_path / "applications" / desktop.DESKTOP_FILE).exists()
