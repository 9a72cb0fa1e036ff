"""Discovery over fake layouts: every source is found with its provenance, symlinks and duplicates are
merged, and nothing is executed (every fake interpreter appends to a marker file if it ever runs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from envs_layouts import bin_path, fake_prefix, fake_venv, kernelspec, marker_python, write
from gpuassist.envs.discovery import Context, discover, script_interpreter


@pytest.fixture()
def machine(tmp_path: Path) -> dict[str, Path]:
    """A home with one of every kind of environment; ``marker`` gets a line whenever any of them runs."""
    home, root, marker = tmp_path / "home", tmp_path / "root", tmp_path / "ran.txt"
    proj = home / "proj" / "src"
    proj.mkdir(parents=True)
    p: dict[str, Path] = {"home": home, "root": root, "marker": marker, "cwd": proj}
    p["usrbin"] = root / "usr" / "bin"
    p["system"] = marker_python(p["usrbin"] / "python3.11", marker)
    (p["usrbin"] / "python3").symlink_to("python3.11")
    (root / "bin").symlink_to(p["usrbin"])  # usrmerge: /bin/python3 is /usr/bin/python3
    p["project"] = fake_venv(home / "proj" / ".venv", marker)
    p["uvproject"] = fake_venv(home / "other" / ".venv", marker, uv=True)
    p["active"] = fake_venv(home / "envs" / "active", marker)
    p["miniconda"] = fake_prefix(home / "miniconda3", marker, conda=True)
    p["conda_torch"] = fake_prefix(home / "miniconda3" / "envs" / "torch", marker, conda=True)
    p["conda_listed"] = fake_prefix(tmp_path / "elsewhere" / "listed", marker, conda=True)
    write(
        home / ".conda" / "environments.txt",
        f"{home / 'miniconda3'}\n{tmp_path / 'elsewhere' / 'listed'}\n{tmp_path / 'deleted-env'}\n",
    )
    p["opt_conda"] = fake_prefix(root / "opt" / "conda" / "envs" / "sys", marker, conda=True)
    p["pyenv"] = fake_prefix(home / ".pyenv" / "versions" / "3.12.1", marker)
    p["uv"] = fake_prefix(
        home / ".local" / "share" / "uv" / "python" / "cpython-3.12.4-linux-x86_64-gnu", marker, python_name="python3"
    )
    p["pipx"] = fake_venv(home / ".local" / "pipx" / "venvs" / "black", marker)
    p["pipx_share"] = fake_venv(home / ".local" / "share" / "pipx" / "venvs" / "ruff", marker)
    kernels = home / ".local" / "share" / "jupyter" / "kernels"
    kernelspec(kernels, "ml", str(p["conda_torch"]), "Python (ml)")
    kernelspec(kernels, "gone", str(tmp_path / "deleted-env" / "bin" / "python"))
    write(kernels / "ir" / "kernel.json", '{"argv": ["R", "--slave"], "language": "R", "display_name": "R"}')
    write(kernels / "broken" / "kernel.json", "{not json")
    kernelspec(root / "usr" / "share" / "jupyter" / "kernels", "sysk", str(p["pyenv"]))
    # a kernelspec installed inside an env with a bare "python": it launches that env's interpreter
    kernelspec(home / "miniconda3" / "envs" / "torch" / "share" / "jupyter" / "kernels", "python3", "python")
    return p


def ctx_for(p: dict[str, Path], **env: str) -> Context:
    base = {"PATH": bin_path(p["usrbin"], p["root"] / "bin"), "HOME": str(p["home"])}
    base.update(env)
    return Context(env=base, home=str(p["home"]), cwd=str(p["cwd"]), executable=None, root=str(p["root"]))


def labels(disc, python: Path) -> list[str]:
    cand = disc.find(str(python))
    assert cand is not None, f"{python} not found"
    return [o.label for o in cand.origins]


def test_every_source_is_found_with_its_provenance_and_nothing_runs(machine: dict[str, Path]) -> None:
    ctx = ctx_for(machine, VIRTUAL_ENV=str(machine["active"].parent.parent))
    disc = discover(ctx)
    assert any(lab.startswith("project venv .venv in") for lab in labels(disc, machine["project"]))
    assert labels(disc, machine["active"]) == ["active virtualenv ($VIRTUAL_ENV)"]
    assert disc.find(str(machine["active"])).is_active
    assert labels(disc, machine["conda_torch"])[0] == "conda env 'torch'"
    assert "kernel 'ml'" in labels(disc, machine["conda_torch"])
    assert "kernel 'python3'" in labels(disc, machine["conda_torch"])
    assert labels(disc, machine["miniconda"])[0].startswith("conda base")
    assert labels(disc, machine["conda_listed"]) == ["conda env 'listed'"]  # from environments.txt only
    assert labels(disc, machine["opt_conda"]) == ["conda env 'sys'"]
    assert labels(disc, machine["pyenv"])[0] == "pyenv 3.12.1"
    assert "kernel 'sysk'" in labels(disc, machine["pyenv"])
    assert labels(disc, machine["uv"]) == ["uv python cpython-3.12.4-linux-x86_64-gnu"]
    assert labels(disc, machine["pipx"]) == ["pipx venv 'black'"]
    assert labels(disc, machine["pipx_share"]) == ["pipx venv 'ruff'"]
    kinds = {c.name: c.kind for c in disc.candidates}
    assert kinds["torch"] == "conda" and kinds["pyenv 3.12.1"] == "pyenv" and kinds["black"] == "pipx"
    assert not machine["marker"].exists(), "discovery ran an interpreter"


def test_symlinks_and_duplicates_merge_but_a_venv_stays_its_own_environment(machine: dict[str, Path]) -> None:
    disc = discover(ctx_for(machine))
    system = disc.find(str(machine["system"]))
    assert system is not None
    # /usr/bin/python3, /bin/python3 (a symlinked directory) and python3.11 are one interpreter
    assert [o.label for o in system.origins].count("PATH python3") == 2
    assert len({o.path for o in system.origins}) == 2
    assert sum(1 for c in disc.candidates if c.real == str(machine["system"].resolve())) == 1
    # python and python3 in one venv are that venv, not the interpreter their symlinks point to
    venv = disc.find(str(machine["project"].parent / "python3"))
    assert venv is not None and venv.kind == "venv" and venv.python == str(machine["project"])


def test_uv_project_venv_is_labelled_from_pyvenv_cfg(machine: dict[str, Path]) -> None:
    ctx = Context(
        env={"PATH": "", "HOME": str(machine["home"])},
        home=str(machine["home"]),
        cwd=str(machine["home"] / "other"),
        root=str(machine["root"]),
    )
    disc = discover(ctx)
    cand = disc.find(str(machine["uvproject"]))
    assert cand is not None and cand.uv_venv
    assert any(lab.startswith("uv project venv .venv in") for lab in labels(disc, machine["uvproject"]))


def test_kernelspecs_record_the_interpreter_each_launches(machine: dict[str, Path]) -> None:
    disc = discover(ctx_for(machine))
    by_name = {k.name: k for k in disc.kernels}
    assert "ir" not in by_name  # R kernels are not judged
    assert by_name["ml"].python == str(machine["conda_torch"]) and by_name["ml"].display_name == "Python (ml)"
    assert by_name["gone"].python is not None and not by_name["gone"].exists
    assert by_name["python3"].python == str(machine["conda_torch"])
    assert "environment the kernelspec is installed in" in by_name["python3"].how
    assert by_name["broken"].error is not None and any("broken" in n for n in disc.notes)
    gone = disc.find(by_name["gone"].python)
    assert gone is not None and not gone.exists and gone.kernels == ["kernel 'gone'"]
    assert not machine["marker"].exists()


def test_jupyter_path_and_bare_python_resolve_without_running_jupyter(machine: dict[str, Path], tmp_path: Path) -> None:
    extra = tmp_path / "jp"
    kernelspec(extra / "kernels", "bare", "python3")
    tools = tmp_path / "tools"
    # the `jupyter` launcher's shebang names the Python that runs the server (and so bare-python kernels)
    write(tools / "jupyter", f"#!{machine['pyenv']}\nimport sys\n", executable=True)
    disc = discover(ctx_for(machine, JUPYTER_PATH=str(extra), PATH=bin_path(tools, machine["usrbin"])))
    bare = next(k for k in disc.kernels if k.name == "bare")
    assert bare.python == str(machine["pyenv"]) and "`jupyter` command" in bare.how
    assert not machine["marker"].exists()


def test_script_shebangs(machine: dict[str, Path], tmp_path: Path) -> None:
    ctx = ctx_for(machine)
    env_script = write(tmp_path / "train.py", "#!/usr/bin/env python3\nprint('hi')\n")
    target = script_interpreter(str(env_script), ctx)
    assert target.python == str(machine["usrbin"] / "python3") and target.shebang == "/usr/bin/env python3"
    s_flag = write(tmp_path / "s.py", "#!/usr/bin/env -S python3 -u\n")
    assert script_interpreter(str(s_flag), ctx).python == str(machine["usrbin"] / "python3")
    absolute = write(tmp_path / "abs.py", f"#!{machine['pyenv']} -u\n")
    assert script_interpreter(str(absolute), ctx).python == str(machine["pyenv"])
    plain = write(tmp_path / "plain.py", "import torch\n")
    no_shebang = script_interpreter(str(plain), ctx)
    assert no_shebang.shebang is None and no_shebang.python == str(machine["usrbin"] / "python3")
    missing = write(tmp_path / "m.py", "#!/usr/bin/env python9\n")
    assert script_interpreter(str(missing), ctx).python is None
    # discover(script=) adds the interpreter with its provenance, and venvs next to the script
    write(machine["home"] / "proj" / "train.py", "#!/usr/bin/env python3\n")
    disc = discover(ctx, script=str(machine["home"] / "proj" / "train.py"))
    assert any(lab.startswith("script train.py (#!/usr/bin/env python3") for lab in labels(disc, machine["system"]))
    assert any("next to train.py" in lab for lab in labels(disc, machine["project"]))
    assert not machine["marker"].exists()


def test_conda_exe_and_active_conda_prefix(machine: dict[str, Path], tmp_path: Path) -> None:
    other = tmp_path / "mambaforge-custom"
    env_python = fake_prefix(other / "envs" / "gpu", machine["marker"], conda=True)
    write(other / "bin" / "conda", "#!/bin/sh\n", executable=True)
    ctx = ctx_for(
        machine,
        CONDA_EXE=str(other / "bin" / "conda"),
        CONDA_PREFIX=str(other / "envs" / "gpu"),
        CONDA_DEFAULT_ENV="gpu",
    )
    disc = discover(ctx)
    found = labels(disc, env_python)
    assert found[0] == "active conda env 'gpu' ($CONDA_PREFIX)" and "conda env 'gpu'" in found
    assert disc.find(str(env_python)).is_active
    assert not machine["marker"].exists()


def test_app_own_and_requested_interpreters(machine: dict[str, Path]) -> None:
    ctx = Context(
        env={"PATH": ""},
        home=str(machine["home"]),
        cwd=str(machine["cwd"]),
        executable=str(machine["pyenv"]),
        root=str(machine["root"]),
    )
    disc = discover(ctx, requested=[str(machine["uv"])])
    own = disc.find(str(machine["pyenv"]))
    assert own is not None and own.is_self and own.origins[0].label == "gpuassist's own"
    assert labels(disc, machine["uv"])[0] == "chosen as the target"
