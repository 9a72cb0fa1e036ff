"""Inspection of REAL venvs (built once per session, without pip) carrying stub torch distributions, plus
interpreters that hang or crash; then the findings and `gpuassist envs` end to end on that machine."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from envs_layouts import bin_path, kernelspec, marker_python, real_venv, site_packages, stub_torch, write
from gpuassist.cli import main
from gpuassist.envs.discovery import Candidate, Context, discover
from gpuassist.envs.inspect import Inventory, inspect_all, inspect_one, inventory
from gpuassist.facts import Facts
from gpuassist.report.envs import envs_report, render_text
from gpuassist.rules.environments import environment_findings

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def venvs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """cuda: torch 2.5.1+cu124; cpu: 2.5.1+cpu; bare: no torch; conda: conda-meta CPU build; all real."""
    base = tmp_path_factory.mktemp("envs")
    out = {name: real_venv(base / name) for name in ("cuda", "cpu", "bare", "conda")}
    stub_torch(site_packages(base / "cuda"), "2.5.1+cu124")
    stub_torch(site_packages(base / "cpu"), "2.5.1+cpu")
    stub_torch(site_packages(base / "conda"), "2.1.0", installer="conda")
    write(base / "conda" / "conda-meta" / "pytorch-2.1.0-py3.10_cpu_0.json", "{}")
    write(base / "conda" / "conda-meta" / "cpuonly-2.0-0.json", "{}")
    old = base / "old-torch"  # a stray older copy that PYTHONPATH puts ahead of site-packages
    stub_torch(old, "2.1.0+cpu")
    out["old"] = old
    out["base"] = base
    return out


def cand(python: Path, name: str = "x") -> Candidate:
    return Candidate(
        str(python), str(python), str(python), "venv", str(python.parent.parent), name, python.exists(), []
    )


def test_versions_build_tags_conda_builds_and_installers(venvs: dict[str, Path]) -> None:
    cands = [cand(venvs[n], n) for n in ("cuda", "cpu", "bare", "conda")]
    rows = {r.name: r for r in inspect_all(cands, timeout=20)}
    assert all(r.status == "ok" for r in rows.values()), [(r.name, r.error) for r in rows.values()]
    cuda, cpu, bare, conda = rows["cuda"], rows["cpu"], rows["bare"], rows["conda"]
    assert (cuda.torch_version, cuda.flavour, cuda.build, cuda.installer) == ("2.5.1+cu124", "cuda", "cu124", "pip")
    assert cuda.imported is not None and cuda.imported.location == str(site_packages(venvs["base"] / "cuda"))
    assert (cpu.torch_version, cpu.flavour, cpu.build) == ("2.5.1+cpu", "cpu", "cpu")
    assert bare.torch == [] and bare.torch_version is None and bare.python_version
    assert conda.conda_build == "py3.10_cpu_0" and conda.env_kind == "conda"
    assert (conda.flavour, conda.build, conda.installer) == ("cpu", "conda py3.10_cpu_0", "conda")


def test_two_copies_on_one_path_the_older_imported(venvs: dict[str, Path]) -> None:
    row = inspect_one(
        cand(venvs["cuda"], "cuda"), timeout=20, env={"PATH": os.defpath, "PYTHONPATH": str(venvs["old"])}
    )
    assert row.status == "ok"
    assert [t.version for t in row.torch] == ["2.1.0+cpu", "2.5.1+cu124"]
    assert row.imported is not None and row.imported.version == "2.1.0+cpu" and row.flavour == "cpu"
    facts = Facts({"envs.inventory": [row.to_json()], "envs.target": None})
    (found,) = environment_findings(facts)
    assert found.id == "stale_or_shadowed_torch" and found.severity.value == "error"
    assert "the one imported (2.1.0+cpu) is the older" in found.title
    assert f"{row.python} -m pip uninstall -y torch" in found.fix


def test_a_hanging_interpreter_becomes_a_timeout_row_and_is_killed(tmp_path: Path, venvs: dict[str, Path]) -> None:
    pidfile = tmp_path / "pid"
    hang = write(
        tmp_path / "hang" / "bin" / "python", f'#!/bin/sh\necho $$ > "{pidfile}"\nexec sleep 60\n', executable=True
    )
    crash = write(tmp_path / "crash" / "bin" / "python", "#!/bin/sh\nkill -SEGV $$\n", executable=True)
    started = time.monotonic()
    rows = inspect_all(
        [
            cand(hang, "hang"),
            cand(crash, "crash"),
            cand(venvs["cpu"], "cpu"),
            cand(tmp_path / "gone" / "bin" / "python", "gone"),
        ],
        timeout=1.0,
    )
    elapsed = time.monotonic() - started
    # not a speed budget: the hanging interpreter sleeps 60 s, so anything far below that proves the
    # inventory stopped waiting for it at its time limit instead of when it exited
    assert elapsed < 30.0, f"a hanging interpreter held the table for {elapsed:.1f} s (limit 1 s)"
    by = {r.name: r for r in rows}
    assert by["hang"].status == "timeout" and "no answer within 1.0 s" in (by["hang"].error or "")
    assert by["crash"].status == "crashed" and "SIGSEGV" in (by["crash"].error or "")
    assert by["cpu"].status == "ok" and by["cpu"].torch_version == "2.5.1+cpu"
    assert by["gone"].status == "missing"
    pid = int(pidfile.read_text())
    for _ in range(50):  # the runner killed the process group; the zombie is reaped by now or shortly
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, signal.SIGKILL)
        pytest.fail("the hanging interpreter was left running")


@pytest.fixture()
def workstation(tmp_path: Path, venvs: dict[str, Path]) -> tuple[Context, Path, Path]:
    """PATH python3 is the CPU venv (its bin directory is first on PATH, as when it is activated); a wrapper
    script named python3 comes after it on PATH; a kernel launches the CPU venv too; a script's shebang
    picks it; the CUDA venv is a project venv one directory up. The wrapper is never run (it is a `#!/bin/sh`
    program, not a Python) and leaves a line in the marker file if it ever is."""
    home, marker = tmp_path / "home", tmp_path / "ran.txt"
    shims = tmp_path / "bin"
    marker_python(shims / "python3", marker, real=str(venvs["cpu"]))
    (home / "proj").mkdir(parents=True)
    (home / "proj" / ".venv").symlink_to(venvs["base"] / "cuda")
    kernelspec(home / ".local" / "share" / "jupyter" / "kernels", "ml", str(venvs["cpu"]), "Python (ml)")
    script = write(home / "proj" / "train.py", "#!/usr/bin/env python3\nimport torch\n")
    env = {"PATH": bin_path(venvs["cpu"].parent, shims), "HOME": str(home)}
    ctx = Context(env=env, home=str(home), cwd=str(home / "proj"), executable=None, root=str(tmp_path / "root"))
    return ctx, script, marker


def test_discovery_runs_nothing_inspection_runs_only_pythons(workstation: tuple[Context, Path, Path]) -> None:
    ctx, script, marker = workstation
    discover(ctx, script=str(script))
    assert not marker.exists()
    inv = inventory(ctx, script=str(script), timeout=20, env=dict(ctx.env))
    assert not marker.exists(), "a shell script named python3 was run"
    wrapper = next(
        r for r in inv.rows if r.python.endswith("/bin/python3") and "home" not in r.python and r.status == "refused"
    )
    assert "/bin/sh" in (wrapper.error or "") and "not a Python" in (wrapper.error or "")
    target = inv.target_row()
    assert target is not None and target.torch_version == "2.5.1+cpu"
    assert inv.target_reason and "train.py" in inv.target_reason
    # one row for the CPU venv, found as PATH python3, kernel 'ml' and the script
    found_as = [o.label for o in target.origins]
    assert "kernel 'ml'" in found_as and "PATH python3" in found_as
    assert any(lab.startswith("script train.py (#!/usr/bin/env python3") for lab in found_as)


def test_findings_name_the_cuda_env_with_the_exact_commands(
    workstation: tuple[Context, Path, Path], venvs: dict[str, Path]
) -> None:
    ctx, script, _ = workstation
    inv = inventory(ctx, script=str(script), timeout=20, env=dict(ctx.env))
    report = envs_report(
        inv,
        {
            "pci.nvidia_gpu_count": 1,
            "nvml.status": "ok",
            "nvml.gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090"}],
        },
    )
    wrong = [f for f in report.findings if f.id == "wrong_interpreter_or_kernel"]
    assert len(wrong) == 2
    target_finding, kernel_finding = wrong
    cuda_python = str(ctx.cwd) + "/.venv/bin/python"
    assert target_finding.severity.value == "error"
    assert "CPU-only build" in target_finding.title and "cu124" in target_finding.title
    assert f"{cuda_python} {script}" in target_finding.fix
    assert f"{cuda_python} -m ipykernel install --user --name proj" in target_finding.fix
    assert f"#!{cuda_python}" in target_finding.fix
    assert "Jupyter kernel 'ml' launches" in kernel_finding.title
    assert str(venvs["cpu"]) in kernel_finding.explanation and cuda_python in kernel_finding.fix
    text = render_text(report, width=200)
    assert "2.5.1+cu124" in text and "▶" in text and "Jupyter kernels:" in text
    wide = render_text(report, width=1000)  # no folding: the torch location column shows site-packages
    locations = {r.imported.location for r in inv.rows if r.imported is not None}
    assert str(site_packages(venvs["base"] / "cpu")) in locations and len(locations) == 2
    assert all(loc.endswith("site-packages") and loc in wide for loc in locations)
    assert report.has_error


def test_cli_envs_json_is_a_reopenable_report(
    tmp_path: Path, venvs: dict[str, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    script = write(tmp_path / "train.py", f"#!{venvs['cpu']}\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", str(venvs["base"] / "cuda" / "bin"))
    for var in ("VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_EXE", "PYENV_ROOT", "JUPYTER_PATH", "XDG_DATA_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)
    rc = main(["envs", "--script", str(script), "--format", "json", "--no-redact", "--timeout", "20"])
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == "gpuassist.report/1" and data["meta"]["source"] == "envs"
    rows = data["facts"]["envs.inventory"]
    target = next(r for r in rows if r["is_target"])
    assert target["python"] == str(venvs["cpu"]) and target["build"] == "cpu"
    assert any(r["build"] == "cu124" and "PATH python" in [o["label"] for o in r["origins"]] for r in rows)
    assert any(r["is_self"] for r in rows)
    ids = [f["id"] for f in data["findings"]]
    assert "wrong_interpreter_or_kernel" in ids
    assert rc == (1 if any(f["severity"] == "error" for f in data["findings"]) else 0)
    assert main(["envs", "--script", str(tmp_path / "nope.py")]) == 2


def test_a_python_too_old_for_torch_is_a_row_with_its_version(tmp_path: Path) -> None:
    """An old CPython (2.7, 3.6) cannot run the inspection, but it is a real interpreter: the table says
    which version it is and that no torch fits it, not that it is broken."""
    old = write(
        tmp_path / "py36" / "bin" / "python",
        '#!/bin/sh\nif [ "$1" = "-c" ]; then printf 3.6.15; exit 0; fi\n'
        'echo "SyntaxError: future feature annotations is not defined" >&2\nexit 1\n',
        executable=True,
    )
    row = inspect_one(cand(old, "py36"), timeout=2.0)
    assert (row.status, row.python_version) == ("too_old", "3.6.15")
    assert "needs Python 3.8" in (row.error or "")
    assert "too old for any torch" in render_text(envs_report(Inventory([row]), {}), width=200)
