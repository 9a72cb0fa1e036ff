"""No fix is aimed at gpuassist's own environment unless the user chose it (issue 11 item 5), and the
interpreter a finding that blames the interpreter offers to diagnose ("Diagnose this one", item 4)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from envs_layouts import linked_venv
from gpuassist.envs.discovery import Origin
from gpuassist.envs.inspect import EnvRow, Inventory, TorchCopy
from gpuassist.facts import Facts
from gpuassist.findings import Evidence, Finding, Severity
from gpuassist.report.envs import envs_report
from gpuassist.rules import evaluate
from gpuassist.wizard.retarget import offered_interpreter

OWN = "/opt/gpuassist/.venv/bin/python"


def no_torch_facts(**target: object) -> Facts:
    return Facts(
        {
            "host.os": "Linux",
            "pci.nvidia_gpu_count": 0,
            "probe.outcome": "ok",
            "probe.python": OWN,
            "python.executable": OWN,
            "python.version": "3.11.7",
            "python.platform": "linux",
            "python.machine": "x86_64",
            "torch.version": None,
            "torch.dists": [],
            "torch.import_error": {"type": "ModuleNotFoundError", "message": "No module named 'torch'"},
            **target,
        }
    )


def fixes_of(facts: Facts) -> str:
    return "\n".join(f.fix for f in evaluate(facts).findings)


def test_a_default_target_that_is_gpuassists_own_gets_a_fix_in_a_new_environment() -> None:
    text = fixes_of(no_torch_facts(**{"target.own": True, "target.explicit": False}))
    assert "torch" in text and f"{OWN} -m pip" not in text
    assert "python3 -m venv ~/torch-env && ~/torch-env/bin/python -m pip install" in text


def test_gpuassists_own_chosen_by_the_user_is_a_fix_target_like_any_other() -> None:
    assert f"{OWN} -m pip install" in fixes_of(no_torch_facts(**{"target.own": True, "target.explicit": True}))
    assert f"{OWN} -m pip install" in fixes_of(no_torch_facts())  # a report without target.* facts


def rows() -> list[EnvRow]:
    def row(name: str, version: str) -> EnvRow:
        site = f"/home/u/{name}/lib/python3.11/site-packages"
        return EnvRow(
            python=f"/home/u/{name}/bin/python",
            name=name,
            kind="venv",
            status="ok",
            origins=[Origin("path", "PATH python", f"/home/u/{name}/bin/python")],
            python_version="3.11.7",
            prefix=f"/home/u/{name}",
            platform="linux",
            machine="x86_64",
            torch=[TorchCopy(version, version.split("+")[1], site, "pip", True)],
            torch_origin=f"{site}/torch/__init__.py",
        )

    return [row("app", "2.5.1+cpu"), row("gpu", "2.5.1+cu124")]


def test_diagnose_this_one_points_to_the_environment_the_finding_recommends() -> None:
    report = envs_report(Inventory(rows()).with_target("/home/u/app/bin/python"), {"pci.nvidia_gpu_count": 1})
    wrong = next(f for f in report.findings if f.id == "wrong_interpreter_or_kernel")
    assert offered_interpreter(wrong, "/home/u/app/bin/python") == "/home/u/gpu/bin/python"
    assert offered_interpreter(wrong, None) == "/home/u/gpu/bin/python"  # envs.target names the diagnosed one
    assert offered_interpreter(wrong, "/home/u/gpu/bin/python") is None


def test_the_active_env_of_the_shell_finding_and_other_findings() -> None:
    shell = Finding(
        "wrong_interpreter_or_kernel",
        Severity.WARNING,
        "t",
        "e",
        "f",
        [Evidence("env", {"VIRTUAL_ENV": "/home/u/proj/.venv"})],
    )
    assert offered_interpreter(shell, "/usr/bin/python3") == "/home/u/proj/.venv/bin/python"
    windows = Finding(
        "wrong_interpreter_or_kernel",
        Severity.WARNING,
        "t",
        "e",
        "f",
        [Evidence("env", {"VIRTUAL_ENV": "C:\\Users\\u\\proj\\.venv"})],
    )
    assert offered_interpreter(windows, None) == "C:\\Users\\u\\proj\\.venv\\Scripts\\python.exe"
    other = Finding("cpu_only_build", Severity.ERROR, "t", "e", "f", [Evidence("env", {"VIRTUAL_ENV": "/x"})])
    assert offered_interpreter(other, None) is None


def test_shadowed_torch_in_another_environment_offers_that_environment() -> None:
    shadowed = Finding(
        "stale_or_shadowed_torch",
        Severity.WARNING,
        "t",
        "e",
        "f",
        [Evidence("envs.inventory", [{"python": "/home/u/old/bin/python", "name": "old"}])],
    )
    assert offered_interpreter(shadowed, "/usr/bin/python3") == "/home/u/old/bin/python"
    assert offered_interpreter(shadowed, "/home/u/old/bin/python") is None  # it is the one diagnosed


def test_every_format_names_the_interpreter_and_why() -> None:
    from gpuassist.report.model import Report
    from gpuassist.report.render import render

    meta = {
        "source": "live",
        "target": "/home/u/proj/.venv/bin/python",
        "target_reason": "the project venv .venv in ~/proj, found from the folder gpuassist was started in",
    }
    report = Report(Facts({}), [], [], {}, meta)
    line = "Interpreter: /home/u/proj/.venv/bin/python — the project venv .venv in ~/proj"
    for fmt in ("text", "markdown", "html"):
        assert line in " ".join(render(report, fmt).split()), fmt
    simulated = Report(Facts({}), [], [], {}, {**meta, "source": "simulated", "simulated": True})
    assert "Interpreter:" not in render(simulated, "markdown")


def test_interpreters_suggested_for_a_missing_one_are_the_users_not_gpuassists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpuassist.diagnose import python_candidates

    monkeypatch.chdir(tmp_path)

    home = tmp_path / "home"
    work = linked_venv(home / ".virtualenvs" / "work")
    gpu = linked_venv(home / ".virtualenvs" / "gpu", torch="2.5.1+cu124")
    found = python_candidates({"PATH": "", "HOME": str(home)}, home=str(home))
    assert found[:2] == [str(gpu), str(work)] and sys.executable not in found
    assert python_candidates({"PATH": ""}, home=str(tmp_path / "empty")) == [sys.executable]
