"""`gpuassist diagnose` with no --python, end to end with REAL venvs (issue 11): it diagnoses the venv active
in the shell, else the project's .venv found from a subfolder, never gpuassist's own while another Python
exists, and says why in meta.target_reason and in the terminal header."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from envs_layouts import real_venv

pytestmark = pytest.mark.slow

SYSTEM_PATH = os.pathsep.join(p for p in ("/usr/bin", "/bin") if os.path.isdir(p))


@pytest.fixture(scope="session")
def venvs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("target-cli")
    home = base / "home"
    return {
        "home": home,
        "work": real_venv(home / ".virtualenvs" / "work"),
        "project": real_venv(home / "proj" / ".venv"),
    }


def diagnose(cwd: Path, home: Path, *args: str, **env: str) -> tuple[int, dict[str, Any] | str]:
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("VIRTUAL_ENV", "CONDA", "PYENV", "MAMBA", "UV_", "POETRY", "PIPENV", "WORKON"))
    }
    clean.update({"HOME": str(home), "PATH": SYSTEM_PATH, "PYTHONPATH": ""}, **env)
    fmt = "text" if "--text" in args else "json"
    cmd = [
        sys.executable,
        "-m",
        "gpuassist",
        "diagnose",
        "--format",
        fmt,
        "--no-redact",
        *(a for a in args if a != "--text"),
    ]
    p = subprocess.run(cmd, cwd=cwd, env=clean, capture_output=True, text=True, timeout=120)
    assert p.returncode in (0, 1), p.stderr
    return p.returncode, (json.loads(p.stdout) if fmt == "json" else p.stdout)


def test_the_venv_active_in_the_shell(venvs: dict[str, Path], tmp_path: Path) -> None:
    work = venvs["work"].parent.parent
    _, report = diagnose(tmp_path, venvs["home"], VIRTUAL_ENV=str(work), PATH=f"{work / 'bin'}:{SYSTEM_PATH}")
    assert isinstance(report, dict)
    assert report["meta"]["target"] == str(venvs["work"])
    assert "virtualenv active in the shell" in report["meta"]["target_reason"]
    assert report["facts"]["python.prefix"] == str(work)  # the probe really ran there
    _, text = diagnose(tmp_path, venvs["home"], "--text", VIRTUAL_ENV=str(work))
    assert f"Interpreter: {venvs['work']} — the virtualenv active" in " ".join(str(text).split())


def test_the_project_venv_from_a_subfolder(venvs: dict[str, Path]) -> None:
    sub = venvs["home"] / "proj" / "src" / "pkg"
    sub.mkdir(parents=True, exist_ok=True)
    _, report = diagnose(sub, venvs["home"])
    assert isinstance(report, dict)
    assert report["meta"]["target"] == str(venvs["project"])
    assert "project venv .venv in ~/proj" in report["meta"]["target_reason"]


def test_gpuassists_own_venv_is_never_the_default_while_another_python_exists(venvs: dict[str, Path]) -> None:
    own_prefix = Path(sys.prefix)
    repo = Path(__file__).resolve().parents[1]
    _, report = diagnose(repo, venvs["home"], VIRTUAL_ENV=str(own_prefix), PATH=f"{own_prefix / 'bin'}:{SYSTEM_PATH}")
    assert isinstance(report, dict)
    target = report["meta"]["target"]
    assert target and not target.startswith(str(own_prefix)), report["meta"]
    assert report["facts"]["target.own"] is False


def test_gpuassists_own_only_when_nothing_else_exists_and_no_fix_installs_there(tmp_path: Path) -> None:
    home = tmp_path / "empty-home"
    home.mkdir()
    _, report = diagnose(tmp_path, home, PATH="")
    assert isinstance(report, dict)
    assert report["meta"]["target"] == sys.executable
    assert "no other Python" in report["meta"]["target_reason"]
    assert report["facts"]["target.own"] is True and report["facts"]["target.explicit"] is False
    assert not any(f"{sys.executable} -m pip install" in f["fix"] for f in report["findings"])
