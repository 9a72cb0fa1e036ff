"""`pipx install .` and `uv tool install .` give working `gpuassist` and `gpuassist-gui` commands, and never
a CUDA build of torch (gpuassist does not import torch; a plain torch requirement would pull several GB).

Each installs gpuassist into a fresh tool environment (about half a minute with warm caches), so these
run when GPUASSIST_TEST_PACKAGING=1 (.ci/run sets it).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

from gpuassist.resources import APP_ID

ROOT = Path(__file__).resolve().parent.parent
ENABLE = "GPUASSIST_TEST_PACKAGING"
pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(900),
    pytest.mark.skipif(
        os.environ.get(ENABLE) != "1", reason=f"installs gpuassist with pipx and uv: set {ENABLE}=1 (.ci/run does)"
    ),
]
CUDA_LIBRARIES = re.compile(r"^nvidia_(cublas|cudnn|cuda_runtime|nccl|cusparse|cufft)", re.IGNORECASE)


def torch_required() -> bool:
    """Whether gpuassist (as installed here) still lists torch among its runtime requirements."""
    for req in metadata.requires("gpuassist") or []:
        name = re.split(r"[\s;<>=!~\[(]", req, maxsplit=1)[0]
        if name.lower() == "torch" and "extra ==" not in req.replace(" ", ""):
            return True
    return False


def tool_venv(where: Path, package: str) -> Path:
    """A throw-away venv holding only ``package`` (pipx and uv each alone: pipx uses uv when it sees it)."""
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, timeout=120)
    subprocess.run(
        [str(where / "bin" / "python"), "-m", "pip", "install", "--quiet", package],
        check=True,
        timeout=300,
        capture_output=True,
    )
    return where / "bin"


def isolated_env(tmp: Path, **extra: str) -> dict[str, str]:
    """This environment without anything that would point the tools at other Pythons or venvs."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONPATH")}
    env.update(HOME=str(tmp / "home"), QT_QPA_PLATFORM="offscreen", GPUASSIST_NO_DIALOGS="1", **extra)
    env["PATH"] = os.pathsep.join([str(tmp / "bin"), "/usr/local/bin", "/usr/bin", "/bin"])
    # keep the tools' download caches: the test is about the install, not the network
    env.setdefault("XDG_CACHE_HOME", str(Path(os.path.expanduser("~")) / ".cache"))
    return env


def check_commands(bin_dir: Path, site_packages: Path, env: dict[str, str]) -> None:
    for name in ("gpuassist", "gpuassist-gui"):
        assert (bin_dir / name).is_file(), f"no {name} command in {bin_dir}"
    version = subprocess.run(
        [str(bin_dir / "gpuassist"), "--version"], capture_output=True, text=True, timeout=60, env=env
    )
    assert version.returncode == 0 and version.stdout.startswith("gpuassist "), version.stderr
    diag = subprocess.run(
        [str(bin_dir / "gpuassist"), "diagnose", "--simulate", "cpu-only-build-rtx4090", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert diag.returncode == 1, diag.stderr
    assert json.loads(diag.stdout)["findings"][0]["id"] == "cpu_only_build"
    gui = subprocess.run(
        [str(bin_dir / "gpuassist-gui"), "--simulate", "cpu-only-build-rtx4090"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, "GPUASSIST_STARTUP_PROBE": "1"},
    )
    assert gui.returncode == 0 and "window-shown" in gui.stdout, gui.stdout + gui.stderr
    assert "torch=False" in gui.stdout
    # the menu entry starts the tool's own gpuassist-gui, inside its environment (stable across PATH changes)
    data_home = Path(env["HOME"]) / "share"
    entry = subprocess.run(
        [str(bin_dir / "gpuassist"), "--install-desktop-entry"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**env, "XDG_DATA_HOME": str(data_home)},
    )
    assert entry.returncode == 0, entry.stderr
    (exec_line,) = [
        line
        for line in (data_home / "applications" / f"{APP_ID}.desktop").read_text().splitlines()
        if line.startswith("Exec=")
    ]
    gui = Path(exec_line[len("Exec=") :].strip('"'))
    assert gui.name == "gpuassist-gui" and gui.is_file() and site_packages.parents[2] in gui.parents, exec_line
    installed = [p.name for p in site_packages.iterdir()]
    assert not [n for n in installed if CUDA_LIBRARIES.match(n)], f"CUDA libraries got installed: {installed}"
    torch_dists = [n for n in installed if re.match(r"^torch-[^/]*\.dist-info$", n)]
    if torch_required():  # until torch leaves gpuassist's dependencies: only the CPU build, never CUDA
        assert all("+cpu" in n for n in torch_dists), torch_dists
    else:
        assert not torch_dists, f"torch was installed although gpuassist does not need it: {torch_dists}"


@pytest.fixture
def tmp(tmp_path: Path) -> Iterator[Path]:
    (tmp_path / "home").mkdir()
    (tmp_path / "bin").mkdir()
    yield tmp_path


def test_pipx_install_gives_working_commands(tmp: Path) -> None:
    pipx_bin = tool_venv(tmp / "pipx-venv", "pipx")
    env = isolated_env(tmp, PIPX_HOME=str(tmp / "pipx"), PIPX_BIN_DIR=str(tmp / "bin"), PIPX_MAN_DIR=str(tmp / "man"))
    command = [str(pipx_bin / "pipx"), "install"]
    if torch_required():  # pip has no exclude: pin the CPU build that lies on disk
        (tmp / "cpu.txt").write_text(f"torch=={metadata.version('torch')}\n")
        command.append(f"--pip-args=-c {tmp / 'cpu.txt'}")
    result = subprocess.run([*command, str(ROOT)], capture_output=True, text=True, timeout=600, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    (site,) = (tmp / "pipx" / "venvs" / "gpuassist" / "lib").glob("python*/site-packages")
    check_commands(tmp / "bin", site, env)


def test_uv_tool_install_gives_working_commands(tmp: Path) -> None:
    uv_bin = tool_venv(tmp / "uv-venv", "uv")
    env = isolated_env(tmp, UV_TOOL_DIR=str(tmp / "uv-tools"), UV_TOOL_BIN_DIR=str(tmp / "bin"))
    command = [str(uv_bin / "uv"), "tool", "install", "--python", sys.executable]
    if torch_required():  # uv does not read pip's configuration: leave torch out altogether
        (tmp / "no-torch.txt").write_text("torch\n")
        command += ["--excludes", str(tmp / "no-torch.txt")]
    result = subprocess.run([*command, str(ROOT)], capture_output=True, text=True, timeout=600, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    (site,) = (tmp / "uv-tools" / "gpuassist" / "lib").glob("python*/site-packages")
    check_commands(tmp / "bin", site, env)
