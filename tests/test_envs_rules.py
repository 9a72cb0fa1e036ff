"""Cross-environment rules over recorded rows (JSON, as a reopened report carries them): no process runs."""

from __future__ import annotations

from typing import Any

import pytest

from envs_layouts import env_row
from gpuassist.envs.inspect import build_flavour
from gpuassist.facts import Facts
from gpuassist.findings import Severity
from gpuassist.rules.engine import registered_rules
from gpuassist.rules.environments import environment_findings
from gpuassist.sim import simulate

GPU_HOST = {"pci.nvidia_gpu_count": 1, "nvml.status": "ok", "nvml.gpus": [{"index": 0, "name": "RTX 4090"}]}
NO_GPU_HOST = {"pci.nvidia_gpu_count": 0, "nvml.status": "driver_not_loaded"}


def row(name: str, version: str | None, *, target: bool = False, **kw: Any) -> dict[str, Any]:
    return env_row(name, version, is_target=target, **kw).to_json()


def facts(rows: list[dict[str, Any]], host: dict[str, Any] | None = None, **more: Any) -> Facts:
    return Facts({**(host or {}), "envs.inventory": rows, "envs.target": None, **more})


@pytest.mark.parametrize(
    ("version", "conda_build", "packages", "platform", "expected"),
    [
        ("2.5.1+cu124", None, [], "linux", ("cuda", "cu124")),
        ("2.4.1+rocm6.1", None, [], "linux", ("rocm", "rocm6.1")),
        ("2.5.1+cpu", None, [], "linux", ("cpu", "cpu")),
        ("2.1.0", "py3.10_cpu_0", [], "linux", ("cpu", "conda py3.10_cpu_0")),
        ("2.1.0", "py3.10_cuda12.1_cudnn8.9.2_0", [], "linux", ("cuda", "conda py3.10_cuda12.1_cudnn8.9.2_0")),
        ("2.1.0", "cpu_generic_py310h", [], "linux", ("cpu", "conda cpu_generic_py310h")),
        ("2.5.1", None, [], "linux", ("cuda", "PyPI default (CUDA)")),
        ("2.5.1", None, [], "win32", ("cpu", "PyPI default (CPU)")),
        (None, None, [], "linux", (None, None)),
    ],
)
def test_build_flavour(
    version: str | None,
    conda_build: str | None,
    packages: list[Any],
    platform: str,
    expected: tuple[str | None, str | None],
) -> None:
    assert build_flavour(version, conda_build, packages, platform, "x86_64") == expected


def test_cpu_target_and_cuda_env_elsewhere_is_an_error_with_a_gpu() -> None:
    rows = [
        row("app", "2.5.1+cpu", target=True, origins=(("path", "PATH python"),)),
        row("gpu", "2.5.1+cu124", kind="conda", env_kind="conda", origins=(("conda", "conda env 'gpu'"),)),
    ]
    (f,) = environment_findings(facts(rows, GPU_HOST))
    assert (f.id, f.severity) == ("wrong_interpreter_or_kernel", Severity.ERROR)
    assert "/home/u/gpu/bin/python your_script.py" in f.fix
    assert "conda activate /home/u/gpu" in f.fix
    assert "/home/u/gpu/bin/python -m ipykernel install --user --name gpu" in f.fix
    assert "Python: Select Interpreter" in f.fix


def test_without_a_gpu_it_is_only_information_and_without_torch_it_still_points_to_the_cuda_env() -> None:
    rows = [row("app", None, target=True), row("gpu", "2.5.1+cu124")]
    (f,) = environment_findings(facts(rows, NO_GPU_HOST))
    assert f.severity is Severity.INFO and "has no torch" in f.title and "no NVIDIA GPU" in f.explanation


@pytest.mark.parametrize("target_version", ["2.5.1+cu124", "2.5.1+rocm6.2", "2.1.0a0+git1234"])
def test_no_claim_when_the_target_has_a_gpu_or_unclassifiable_build(target_version: str) -> None:
    rows = [row("app", target_version, target=True), row("gpu", "2.5.1+cu124")]
    assert [f.id for f in environment_findings(facts(rows, GPU_HOST))] == []


def test_kernel_with_a_deleted_interpreter_or_no_torch() -> None:
    rows = [
        row("gpu", "2.5.1+cu124"),
        row("base", None, kind="conda", origins=(("kernel", "kernel 'python3'"),)),
        row("gone", None, status="missing", origins=(("kernel", "kernel 'old'"),)),
    ]
    kernels = [
        {
            "name": "python3",
            "display_name": "Python 3",
            "python": "/home/u/base/bin/python",
            "directory": "/home/u/.local/share/jupyter/kernels/python3",
        },
        {
            "name": "old",
            "display_name": "Old",
            "python": "/home/u/gone/bin/python",
            "directory": "/home/u/.local/share/jupyter/kernels/old",
        },
    ]
    (f,) = environment_findings(facts(rows, GPU_HOST, **{"envs.kernels": kernels}))
    assert f.id == "wrong_interpreter_or_kernel" and "(and 1 more)" in f.title
    assert "kernel 'python3'" in f.explanation and "which has no torch" in f.explanation
    assert "does not exist" in f.explanation and "jupyter kernelspec remove old" in f.fix
    assert "/home/u/gpu/bin/python -m ipykernel install --user --name gpu" in f.fix


def test_rules_are_registered_and_a_plain_diagnosis_gathers_no_inventory() -> None:
    names = registered_rules()
    assert {"envs_target_lacks_gpu_build", "envs_kernel_without_torch", "envs_shadowed_torch"} <= set(names)
    report = simulate("healthy-wsl2-rtx3080-laptop")
    assert not report.facts.with_prefix("envs.")
    assert not any(f.title.startswith("Jupyter kernel") for f in report.findings)


def test_the_shell_env_rule_and_the_inventory_rule_say_it_once_in_a_full_diagnosis() -> None:
    """A diagnosis of /home/u/app (CPU torch) from a shell with /home/u/gpu active, plus the environment table:
    both rules would report wrong_interpreter_or_kernel; the report keeps the inventory's (it names the
    environment to switch to) and the shell evidence."""
    from gpuassist.rules import evaluate

    diagnosis = {
        **GPU_HOST,
        "probe.outcome": "ok",
        "torch.version": "2.5.1+cpu",
        "torch.import_error": None,
        "cuda.available": False,
        "python.executable": "/home/u/app/bin/python",
        "python.prefix": "/home/u/app",
        "python.env_kind": "venv",
        "env": {"VIRTUAL_ENV": "/home/u/gpu"},
    }
    shell_only = [f for f in evaluate(Facts(diagnosis)).findings if f.id == "wrong_interpreter_or_kernel"]
    assert len(shell_only) == 1 and "active in your shell" in shell_only[0].title  # it fires on its own
    rows = [row("app", "2.5.1+cpu", target=True), row("gpu", "2.5.1+cu124")]
    both = evaluate(Facts({**diagnosis, "envs.inventory": rows, "envs.target": "/home/u/app/bin/python"}))
    wrong = [f for f in both.findings if f.id == "wrong_interpreter_or_kernel"]
    assert len(wrong) == 1, [f.title for f in wrong]
    assert "gpu has the cu124 build" in wrong[0].title
    assert {e.fact for e in wrong[0].evidence} >= {"envs.inventory", "env", "python.executable"}
