"""Nothing planted is executed (issue 12 item 2): the reproductions of shared/reviews/reliability-repros.md
("Planted programs executed by discovery") as tests, and each rule behind them.

Discovery runs only interpreters whose name (and the name of the file they resolve to, and the program
their `#!` names) is a Python's; its upward walk stops at the home directory or before the first directory
not owned by the user or root; a candidate owned by another user or in a world-writable directory is
listed as refused, never started. Interpreters the user names (--python) are run as asked.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from envs_layouts import linked_venv, write
from gpuassist.cli import main
from gpuassist.envs.discovery import Context, discover
from gpuassist.envs.inspect import inventory
from gpuassist.report.envs import envs_report, render_text

CLEARED = (
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "CONDA_EXE",
    "MAMBA_EXE",
    "MAMBA_ROOT_PREFIX",
    "PYENV_ROOT",
    "PYENV_VERSION",
    "JUPYTER_PATH",
    "JUPYTER_DATA_DIR",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "WORKON_HOME",
    "UV_PROJECT_ENVIRONMENT",
    "PIPX_HOME",
    "POETRY_VIRTUALENVS_PATH",
    "HATCH_DATA_DIR",
)


@pytest.fixture()
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty scratch folder as in the reproductions, with a home of its own and nothing on PATH."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", "")
    for var in CLEARED:
        monkeypatch.delenv(var, raising=False)
    return tmp_path


@pytest.mark.slow
def test_repro_a_planted_venv_in_a_parent_folder_is_not_run(
    scratch: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    x = scratch / "x"
    write(x / ".venv" / "pyvenv.cfg", "home = /usr/bin\n")
    write(x / ".venv" / "bin" / "python", f"#!/bin/sh\nid >> {x}/PWNED\n", executable=True)
    (x / "work").mkdir()
    monkeypatch.chdir(x / "work")
    rc = main(["envs", "--format", "json", "--no-redact", "--timeout", "20"])
    assert rc in (0, 1)
    assert not (x / "PWNED").exists(), "discovery ran a planted program"
    rows = json.loads(capsys.readouterr().out)["facts"]["envs.inventory"]
    planted = next(r for r in rows if r["python"] == str(x / ".venv" / "bin" / "python"))
    assert planted["status"] == "refused" and "runs /bin/sh" in planted["error"]
    assert not planted["is_target"]


@pytest.mark.slow
def test_repro_envs_script_never_runs_a_non_python_shebang(
    scratch: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    p = scratch / "p"
    write(p / "train.py", "#!/usr/bin/perl\n")
    write(p / "faulthandler", f'open(F,">{p}/PERL_PWNED");\n')
    shell = write(scratch / "q" / "train.py", f"#!/bin/sh\ntouch {scratch}/SH_PWNED\n", executable=True)
    monkeypatch.chdir(p)
    assert main(["envs", "--script", "train.py", "--format", "json", "--no-redact", "--timeout", "20"]) in (0, 1)
    data = json.loads(capsys.readouterr().out)
    assert not (p / "PERL_PWNED").exists()
    assert data["facts"]["envs.script"]["python"] is None
    assert "not a Python interpreter" in data["facts"]["envs.script"]["how"]
    assert not any(o["kind"] == "script" for r in data["facts"]["envs.inventory"] for o in r["origins"])
    assert main(["envs", "--script", str(shell), "--format", "json", "--timeout", "20"]) in (0, 1)
    capsys.readouterr()
    assert not (scratch / "SH_PWNED").exists()
    if not os.path.exists("/usr/bin/perl"):
        pytest.skip("no perl here: the perl program could not have run anyway (the /bin/sh one was checked)")


def test_the_upward_walk_stops_at_home(tmp_path: Path) -> None:
    above = linked_venv(tmp_path / ".venv")  # a real-looking venv above $HOME: someone else's folder
    home = tmp_path / "home"
    own_project = linked_venv(home / ".venv")  # $HOME itself is still looked at
    (home / "proj" / "src").mkdir(parents=True)
    disc = discover(Context(env={"PATH": ""}, home=str(home), cwd=str(home / "proj" / "src"), desktop=False))
    assert disc.find(str(above)) is None
    assert disc.find(str(own_project)) is not None


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to give a folder away")
def test_the_upward_walk_stops_before_a_folder_of_another_user(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    planted = linked_venv(shared / ".venv")
    mine = tmp_path / "shared" / "mine" / "work"
    mine.mkdir(parents=True)
    os.chown(shared, 4242, 4242)
    os.chown(mine.parent, 0, 0)
    disc = discover(Context(env={"PATH": ""}, home=str(tmp_path / "home"), cwd=str(mine), desktop=False))
    assert disc.find(str(planted)) is None


@pytest.mark.slow
def test_candidates_of_another_user_or_in_a_world_writable_folder_are_listed_not_run(tmp_path: Path) -> None:
    home = tmp_path / "home"
    marker = tmp_path / "ran"
    theirs = linked_venv(home / ".virtualenvs" / "theirs")
    project = home / "shared-proj"
    write(project / ".venv" / "pyvenv.cfg", "home = /usr/bin\n")
    loose = write(project / ".venv" / "bin" / "python", f"#!/usr/bin/python3\nopen('{marker}', 'w')\n", executable=True)
    project.chmod(0o777)
    try:
        me = os.stat(home).st_uid
        ctx = Context(env={"PATH": ""}, home=str(home), cwd=str(project), desktop=False)
        disc = discover(ctx)
        refused = {c.python: c.refused for c in disc.candidates}
        assert "writable by everyone" in (refused[str(loose)] or "")
        assert refused[str(theirs)] is None
        other = Context(env={"PATH": ""}, home=str(home), cwd=str(home), desktop=False, trusted_owners=(me + 4242,))
        foreign = {c.python: c.refused for c in discover(other).candidates}
        assert "belongs to another user" in (foreign[str(theirs)] or "")
        inv = inventory(ctx, timeout=10)
        row = next(r for r in inv.rows if r.python == str(loose))
        assert row.status == "refused" and not marker.exists()
        text = render_text(envs_report(inv, {}), width=250)
        assert "not run: in a folder anyone can write to" in text and "writable by everyone" in text
    finally:
        project.chmod(0o755)


def test_only_pythons_by_name_run(tmp_path: Path) -> None:
    home = tmp_path / "home"
    sh_venv = home / ".virtualenvs" / "sh"
    write(sh_venv / "pyvenv.cfg", "home = /bin\n")
    (sh_venv / "bin").mkdir(parents=True)
    (sh_venv / "bin" / "python").symlink_to(shutil.which("sh") or "/bin/sh")
    disc = discover(Context(env={"PATH": ""}, home=str(home), cwd=str(home), desktop=False))
    cand = disc.find(str(sh_venv / "bin" / "python"))
    assert cand is not None and "not a Python interpreter's name" in (cand.refused or "")


def test_an_interpreter_the_user_names_runs_whatever_it_is(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    named = write(tmp_path / "tools" / "mypython", f"#!/bin/sh\necho ran >> {marker}\nexit 3\n", executable=True)
    disc = discover(
        Context(env={"PATH": ""}, home=str(tmp_path), cwd=str(tmp_path), desktop=False), requested=[str(named)]
    )
    cand = disc.find(str(named))
    assert cand is not None and cand.refused is None  # --python: the user's choice


@pytest.mark.parametrize("command", [["diagnose"], ["envs"], ["placement"], ["sweep"], ["bench"], ["audit", "--run"]])
def test_an_empty_python_is_a_usage_error(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = write(tmp_path / "t.py", "print(1)\n")
    extra = ["--", str(script)] if command[0] == "audit" else []
    rc = main([*command, "--python", "", *extra])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "--python needs the path of a Python interpreter" in err[0]
