"""The default target (issue 11): which interpreter gpuassist diagnoses when the user names none, and why.

Fake layouts whose interpreters are symlinks to a real Python (discovery reads files only; nothing here is
run). Each case of the issue: an active venv or conda env, a project folder (and a subfolder) with .venv,
the envs of uv / Poetry / Pipenv / PDM / Hatch / pixi that a project's files point to, pyenv's local
version, PATH python with torch, the one env with torch, several (a guess the app asks about), nothing at
all, and gpuassist's own interpreter never chosen while another Python exists.
"""

from __future__ import annotations

import base64
import hashlib
import os
import time
from pathlib import Path

import pytest

from envs_layouts import PYVER, bin_path, fake_binary, linked_prefix, linked_venv, write
from gpuassist.envs.discovery import Context
from gpuassist.envs.target import EmptyPython, choose_target


@pytest.fixture()
def box(tmp_path: Path) -> dict[str, Path]:
    """A home, a system bin directory with python3 (no torch), and gpuassist's own venv (with torch, as
    `./run-app` used to make it)."""
    home = tmp_path / "home"
    home.mkdir()
    usrbin = tmp_path / "usr" / "bin"
    fake_binary(usrbin / PYVER)
    (usrbin / "python3").symlink_to(PYVER)
    own = linked_venv(tmp_path / "opt" / "gpuassist" / ".venv", torch="2.13.0+cpu")
    return {"home": home, "usrbin": usrbin, "own": own, "root": tmp_path / "root", "tmp": tmp_path}


def ctx_for(box: dict[str, Path], cwd: Path | None = None, path: list[Path] | None = None, **env: str) -> Context:
    base = {"PATH": bin_path(*(path if path is not None else [box["usrbin"]])), "HOME": str(box["home"])}
    base.update(env)
    return Context(
        env=base, home=str(box["home"]), cwd=str(cwd or box["home"]), executable=str(box["own"]), root=str(box["root"])
    )


def test_an_active_virtualenv_is_the_target(box: dict[str, Path]) -> None:
    venv = linked_venv(box["home"] / "envs" / "work")
    choice = choose_target(ctx_for(box, VIRTUAL_ENV=str(venv.parent.parent)))
    assert choice.python == str(venv) and choice.how == "active"
    assert "virtualenv active in the shell that started gpuassist" in choice.reason
    assert not choice.ask and not choice.own


def test_gpuassists_own_venv_active_is_skipped_for_the_next_rule(box: dict[str, Path]) -> None:
    project = box["home"] / "proj"
    venv = linked_venv(project / ".venv")
    choice = choose_target(ctx_for(box, cwd=project, VIRTUAL_ENV=str(box["own"].parent.parent)))
    assert choice.python == str(venv) and choice.how == "project"


def test_an_active_conda_env_is_the_target(box: dict[str, Path]) -> None:
    env = linked_prefix(box["home"] / "miniconda3" / "envs" / "ml", conda=True)
    linked_prefix(box["home"] / "miniconda3" / "envs" / "other", conda=True, torch="2.5.1+cu124")
    choice = choose_target(ctx_for(box, CONDA_PREFIX=str(env.parent.parent), CONDA_DEFAULT_ENV="ml"))
    assert choice.python == str(env) and "conda environment active" in choice.reason


@pytest.mark.parametrize("sub", ["", "src/pkg"])
def test_a_project_folder_or_its_subfolder_with_dot_venv(box: dict[str, Path], sub: str) -> None:
    project = box["home"] / "proj"
    venv = linked_venv(project / ".venv")
    write(project / "pyproject.toml", "[project]\nname = 'proj'\n")
    cwd = project / sub if sub else project
    cwd.mkdir(parents=True, exist_ok=True)
    linked_venv(box["home"] / ".virtualenvs" / "elsewhere", torch="2.5.1+cu124")  # has torch, but not the project's
    choice = choose_target(ctx_for(box, cwd=cwd))
    assert choice.python == str(venv) and choice.how == "project"
    assert "project venv .venv in ~/proj" in choice.reason and "folder gpuassist was started in" in choice.reason


def test_uv_project_env_from_uv_project_environment(box: dict[str, Path]) -> None:
    project = box["home"] / "uvproj"
    write(project / "pyproject.toml", "[project]\nname = 'uvproj'\n")
    write(project / "uv.lock", "version = 1\n")
    venv = linked_venv(project / "build-env", uv=True)
    choice = choose_target(ctx_for(box, cwd=project, UV_PROJECT_ENVIRONMENT="build-env"))
    assert choice.python == str(venv) and "UV_PROJECT_ENVIRONMENT" in choice.reason
    plain = box["home"] / "uvplain"
    dot = linked_venv(plain / ".venv", uv=True)
    choice = choose_target(ctx_for(box, cwd=plain))
    assert choice.python == str(dot) and "uv project venv .venv" in choice.reason


def poetry_env_name(name: str, project: Path) -> str:
    """Poetry's own naming of a project's env: the name, then a hash of the project path."""
    digest = hashlib.sha256(os.path.normcase(os.path.realpath(project)).encode()).digest()
    return f"{name.lower()}-{base64.urlsafe_b64encode(digest).decode()[:8]}-py3.11"


def test_poetry_env_in_its_cache_is_found_from_the_project(box: dict[str, Path]) -> None:
    project = box["home"] / "code" / "Poetry Proj"
    write(project / "pyproject.toml", '[tool.poetry]\nname = "Demo-App"\nversion = "0.1.0"\n')
    cache = box["home"] / ".cache" / "pypoetry" / "virtualenvs"
    mine = linked_venv(cache / poetry_env_name("demo-app", project))
    linked_venv(cache / "demo-app-AAAAAAAA-py3.11", torch="2.5.1+cu124")  # another checkout of the same name
    (project / "tests").mkdir()
    choice = choose_target(ctx_for(box, cwd=project / "tests", path=[box["usrbin"]]))
    assert choice.python == str(mine) and "Poetry env" in choice.reason


def test_pipenv_env_is_found_through_its_project_file(box: dict[str, Path]) -> None:
    project = box["home"] / "pipproj"
    write(project / "Pipfile", "[packages]\n")
    venvs = box["home"] / ".local" / "share" / "virtualenvs"
    mine = linked_venv(venvs / "pipproj-Xy12ab34")
    write(venvs / "pipproj-Xy12ab34" / ".project", str(project))
    other = linked_venv(venvs / "other-Zz99zz99", torch="2.5.1+cu124")
    write(venvs / "other-Zz99zz99" / ".project", str(box["home"] / "other"))
    choice = choose_target(ctx_for(box, cwd=project))
    assert choice.python == str(mine) and "Pipenv env" in choice.reason
    assert choose_target(ctx_for(box)).python == str(other)  # from $HOME: the one env that has torch


def test_pdm_hatch_pixi_and_dot_conda(box: dict[str, Path]) -> None:
    pdm = box["home"] / "pdmproj"
    interp = linked_venv(box["home"] / "pdm-envs" / "pdmproj-3.11")
    write(pdm / ".pdm-python", str(interp) + "\n")
    assert choose_target(ctx_for(box, cwd=pdm)).python == str(interp)

    hatch = box["home"] / "hatchproj"
    write(hatch / "pyproject.toml", '[project]\nname = "hatchproj"\n[tool.hatch.envs.default]\n')
    checksum = base64.urlsafe_b64encode(hashlib.sha256(str(hatch).encode()).digest()).decode()[:8]
    henv = linked_venv(
        box["home"] / ".local" / "share" / "hatch" / "env" / "virtual" / "hatchproj" / checksum / "hatchproj"
    )
    choice = choose_target(ctx_for(box, cwd=hatch))
    assert choice.python == str(henv) and "Hatch env" in choice.reason

    pixi = box["home"] / "pixiproj"
    write(pixi / "pixi.toml", '[project]\nname = "p"\n')
    penv = linked_prefix(pixi / ".pixi" / "envs" / "default", conda=True)
    assert choose_target(ctx_for(box, cwd=pixi)).python == str(penv)

    vscode = box["home"] / "condaproj"
    cenv = linked_prefix(vscode / ".conda", conda=True)
    assert choose_target(ctx_for(box, cwd=vscode)).python == str(cenv)


def test_pyenv_local_version_and_shims_are_read_not_run(box: dict[str, Path]) -> None:
    pyenv = box["home"] / ".pyenv"
    v311 = linked_prefix(pyenv / "versions" / "3.11.9")
    linked_prefix(pyenv / "versions" / "3.12.4")
    write(pyenv / "version", "3.12.4\n")
    marker = box["tmp"] / "shim-ran"
    for name in ("python", "python3"):  # pyenv's shims are bash scripts: running one would run bash
        write(pyenv / "shims" / name, f"#!/usr/bin/env bash\necho ran >> {marker}\n", executable=True)
    project = box["home"] / "proj"
    write(project / ".python-version", "3.11.9\n")
    ctx = ctx_for(box, cwd=project, path=[pyenv / "shims", box["usrbin"]], PYENV_ROOT=str(pyenv))
    choice = choose_target(ctx)
    assert choice.python == str(v311) and "pyenv local version 3.11.9" in choice.reason
    # elsewhere the global version answers `python`; the shim's origin is kept on that interpreter
    elsewhere = choose_target(ctx_for(box, path=[pyenv / "shims", box["usrbin"]], PYENV_ROOT=str(pyenv)))
    assert elsewhere.python == str(pyenv / "versions" / "3.12.4" / "bin" / "python")
    assert "shims/python" in elsewhere.reason
    assert not marker.exists()


def test_path_python_with_torch_then_the_one_env_with_torch(box: dict[str, Path]) -> None:
    sysroot = box["tmp"] / "sys"
    py = linked_prefix(sysroot, torch="2.4.0")
    choice = choose_target(ctx_for(box, path=[py.parent]))
    assert choice.python == str(py) and choice.how == "path_with_torch" and "which has torch" in choice.reason
    conda = linked_prefix(box["home"] / "miniforge3" / "envs" / "gpu", conda=True, torch="2.5.1+cu124")
    choice = choose_target(ctx_for(box))  # usr/bin/python3 has no torch
    assert choice.python == str(conda) and choice.how == "only_with_torch" and not choice.ask


def test_several_envs_with_torch_is_a_guess_the_app_asks_about(box: dict[str, Path]) -> None:
    old = linked_venv(box["home"] / ".virtualenvs" / "old", torch="2.1.0+cpu")
    new = linked_venv(box["home"] / ".virtualenvs" / "new", torch="2.5.1+cu124")
    for venv, age in ((old, 30), (new, 1)):  # when torch was last imported there
        init = next((venv.parent.parent / "lib").glob("python*/site-packages/torch"))
        cache = write(init / "__pycache__" / "__init__.cpython-311.pyc", "")
        stamp = time.time() - age * 86400
        os.utime(cache, (stamp, stamp))
    choice = choose_target(ctx_for(box))
    assert choice.python == str(new) and choice.how == "guess_with_torch" and choice.ask
    assert "a guess" in choice.reason and set(choice.with_torch) == {str(old), str(new)}


def test_nothing_with_torch_is_the_path_python_with_a_note(box: dict[str, Path]) -> None:
    linked_venv(box["home"] / ".virtualenvs" / "a")
    choice = choose_target(ctx_for(box))
    assert choice.python == str(box["usrbin"] / "python3") and choice.how == "path"
    assert "no environment with torch was found" in choice.reason and "1 other environment exists" in choice.reason
    assert choice.ask


def test_gpuassists_own_is_chosen_only_when_no_other_python_exists(box: dict[str, Path]) -> None:
    # own venv in the working directory (a clone of gpuassist with its .venv) and on PATH: still never chosen
    clone = box["own"].parent.parent.parent
    choice = choose_target(
        ctx_for(box, cwd=clone, path=[box["own"].parent, box["usrbin"]], VIRTUAL_ENV=str(box["own"].parent.parent))
    )
    assert choice.python == str(box["usrbin"] / "python3") and not choice.own
    nothing = choose_target(ctx_for(box, cwd=clone, path=[]))
    assert nothing.python == str(box["own"]) and nothing.own and nothing.how == "own"
    assert "no other Python" in nothing.reason and not nothing.explicit


def test_requested_and_remembered_win_and_an_empty_python_is_an_error(box: dict[str, Path]) -> None:
    venv = linked_venv(box["home"] / "envs" / "work")
    ctx = ctx_for(box, VIRTUAL_ENV=str(venv.parent.parent))
    assert choose_target(ctx, requested="/opt/py/bin/python").python == "/opt/py/bin/python"
    remembered = choose_target(ctx, remembered=str(box["usrbin"] / "python3"))
    assert remembered.how == "remembered" and remembered.explicit
    assert choose_target(ctx, remembered=str(box["tmp"] / "deleted" / "python")).python == str(venv)
    with pytest.raises(EmptyPython):
        choose_target(ctx, requested="")
    with pytest.raises(EmptyPython):
        choose_target(ctx, requested="  ")


def test_a_desktop_users_project_under_home_is_found_from_home(box: dict[str, Path]) -> None:
    """A GUI started from a menu has $HOME as its working directory: ~/code/*/.venv is still found."""
    venv = linked_venv(box["home"] / "code" / "vision" / ".venv", torch="2.5.1+cu124")
    linked_venv(box["home"] / "thesis" / "venv")
    choice = choose_target(ctx_for(box))
    assert choice.python == str(venv) and choice.how == "only_with_torch"
    assert choice.discovery is not None
    labels = [o.label for c in choice.discovery.candidates for o in c.origins]
    assert any("project venv venv in" in lab and "thesis" in lab for lab in labels)


def test_choosing_is_fast_and_runs_nothing(box: dict[str, Path]) -> None:
    marker = box["tmp"] / "ran"
    for i in range(30):
        write(box["home"] / "projects" / f"p{i}" / ".venv" / "pyvenv.cfg", "home = /usr/bin\n")
        write(
            box["home"] / "projects" / f"p{i}" / ".venv" / "bin" / "python",
            f"#!/bin/sh\necho >> {marker}\n",
            executable=True,
        )
    started = time.perf_counter()
    choice = choose_target(ctx_for(box))
    elapsed = time.perf_counter() - started
    assert choice.python == str(box["usrbin"] / "python3")
    assert not marker.exists()
    # not a budget (benchmarks/ measure time): far below a second proves nothing was started
    assert elapsed < 5.0


def test_micromamba_and_virtualenvwrapper_envs_are_discovered(box: dict[str, Path]) -> None:
    mamba = linked_prefix(box["home"] / ".local" / "share" / "mamba" / "envs" / "dl", conda=True, torch="2.5.1+cu124")
    wrapper = linked_venv(box["home"] / ".virtualenvs" / "tools")
    choice = choose_target(ctx_for(box))
    assert choice.python == str(mamba) and choice.how == "only_with_torch"
    assert choice.discovery is not None and choice.discovery.find(str(wrapper)) is not None


def test_condas_auto_activated_base_without_torch_does_not_hide_the_env_with_torch(box: dict[str, Path]) -> None:
    base = linked_prefix(box["home"] / "miniconda3", conda=True)
    (box["home"] / "miniconda3" / "condabin").mkdir()
    ml = linked_prefix(box["home"] / "miniconda3" / "envs" / "ml", conda=True, torch="2.5.1+cu124")
    ctx = ctx_for(
        box, path=[base.parent, box["usrbin"]], CONDA_PREFIX=str(base.parent.parent), CONDA_DEFAULT_ENV="base"
    )
    choice = choose_target(ctx)
    assert choice.python == str(ml) and choice.how == "only_with_torch"
    # base with torch in it is where the user works: it stays the target
    with_torch = linked_prefix(box["tmp"] / "anaconda3", conda=True, torch="2.4.0")
    (box["tmp"] / "anaconda3" / "condabin").mkdir()
    ctx = ctx_for(box, CONDA_PREFIX=str(with_torch.parent.parent), CONDA_DEFAULT_ENV="base")
    assert choose_target(ctx).python == str(with_torch)
