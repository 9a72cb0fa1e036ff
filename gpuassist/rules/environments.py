"""Findings across the machine's Python environments (facts ``envs.*``, gathered by `gpuassist envs` and the
GUI's environment table through :func:`gpuassist.envs.inventory`, never by a plain diagnosis).

The single most common "installed the CUDA build but PyTorch still uses the CPU" story is that the
script, notebook or IDE runs another interpreter than the one the user installed into. These rules
compare the target interpreter (what the user's code runs) with every other environment found, and each
finding names the environment to switch to and the exact command. Rows come from the facts as JSON, so a
report reopened on another machine gives the same findings.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from packaging.version import InvalidVersion, Version

from gpuassist.envs.inspect import OK, EnvRow
from gpuassist.facts import Facts
from gpuassist.findings import Evidence, Finding, Severity
from gpuassist.rules import fixes, view
from gpuassist.rules.hardware import no_nvidia_visible
from gpuassist.rules.make import finding
from gpuassist.rules.ordering import order_findings
from gpuassist.rules.registry import rule
from gpuassist.rules.wheel import stale_or_shadowed_torch


def rows(facts: Facts) -> list[EnvRow]:
    data = facts.value("envs.inventory")
    if not isinstance(data, list):
        return []
    return [EnvRow.from_json(d) for d in data if isinstance(d, dict)]


def target_row(facts: Facts, inventory: Sequence[EnvRow]) -> EnvRow | None:
    marked = next((r for r in inventory if r.is_target), None)
    if marked is not None:
        return marked
    target = facts.value("envs.target")
    return next((r for r in inventory if target and target in (r.python, r.executable)), None)


def _windows(row: EnvRow) -> bool:
    return row.platform == "win32" or "\\" in row.python


def _kernel_name(row: EnvRow) -> str:
    """A kernelspec name for the environment (ipykernel accepts letters, digits, ``.``, ``_``, ``-``)."""
    name = row.name.split("/")[0] if row.name.endswith(("/.venv", "/venv", "/env")) else row.name
    name = re.sub(r"\s*\(.*\)$", "", name)  # "base (miniconda3)" → "base"
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-").lower() or "torch-env"


def _activate(row: EnvRow) -> str | None:
    prefix = row.prefix
    if not prefix:
        return None
    if row.env_kind == "conda" or row.kind == "conda":
        return f"conda activate {fixes.quote(prefix)}"
    if row.kind in ("venv", "pipx"):
        if _windows(row):
            return f"{prefix}\\Scripts\\activate"
        return f"source {fixes.quote(prefix)}/bin/activate"
    return None


def _describe(row: EnvRow) -> str:
    if row.torch_version is None:
        return "has no torch"
    if row.flavour == "cpu":
        return f"has a CPU-only build of torch ({row.torch_version}, {row.build})"
    return f"has torch {row.torch_version} ({row.build})"


def _rank(row: EnvRow, target: EnvRow | None) -> tuple[int, int, int, int]:
    """Which alternative to recommend first: the active env, a project venv, one with a single torch copy,
    then the same Python minor version as the target."""
    same_minor = bool(
        target
        and target.python_version
        and row.python_version
        and row.python_version.split(".")[:2] == target.python_version.split(".")[:2]
    )
    return (
        0 if row.is_active else 1,
        0 if any(o.kind == "project" for o in row.origins) else 1,
        0 if len(row.torch) == 1 else 1,
        0 if same_minor else 1,
    )


def _row_evidence(r: EnvRow) -> dict[str, Any]:
    keys = ("python", "name", "python_version", "torch_version", "build", "flavour", "installer", "prefix")
    data = r.to_json()
    out = {k: data[k] for k in keys}
    out["found_as"] = [o.label for o in r.origins]
    return out


def switch_fix(better: EnvRow, script: str | None = None) -> str:
    """Every way to run code with ``better``: directly, activated, as a Jupyter kernel, in an IDE."""
    py = fixes.quote(better.python)
    name = _kernel_name(better)
    lines = [
        f"Run your code with the interpreter that has the {better.build or 'GPU'} build:",
        f"  {py} {fixes.quote(script) if script else 'your_script.py'}",
    ]
    activate = _activate(better)
    if activate:
        lines += ["or make it the `python` of your shell:", f"  {activate}"]
    if script:
        lines += [f"or change the first line of {script} to:", f"  #!{better.python}"]
    lines += [
        "Jupyter: register it as a kernel, then pick it in the notebook (Kernel → Change kernel) and restart:",
        f"  {py} -m pip install ipykernel",
        f'  {py} -m ipykernel install --user --name {name} --display-name "Python ({name})"',
        'VS Code: Ctrl+Shift+P → "Python: Select Interpreter" → "Enter interpreter path…" → '
        f"{better.python} (PyCharm: Settings → Project → Python Interpreter → Add → Existing).",
        f'Check: {py} -c "import torch; print(torch.__version__, torch.cuda.is_available())"',
    ]
    return "\n".join(lines)


def _severity(facts: Facts) -> Severity:
    if no_nvidia_visible(facts) is True:
        return Severity.INFO  # a CUDA build elsewhere does not help without an NVIDIA GPU
    return Severity.ERROR if view.nvidia_gpus(facts).count else Severity.WARNING


@rule("envs_target_lacks_gpu_build", supersedes=("wrong_interpreter_or_kernel",))  # the shell-env rule
def target_lacks_gpu_build(facts: Facts) -> Finding | None:
    """The interpreter the user's code runs has no torch or a CPU-only one, while another has a GPU build."""
    inventory = rows(facts)
    target = target_row(facts, inventory)
    if target is None or target.status != OK or target.gpu_build:
        return None
    if target.torch_version is not None and target.flavour != "cpu":
        return None  # a build gpuassist cannot classify: not evidence of the wrong interpreter
    better = sorted(
        (r for r in inventory if r is not target and r.status == OK and r.gpu_build), key=lambda r: _rank(r, target)
    )
    if not better:
        return None
    best = better[0]
    script = facts.value("envs.script") or {}
    script_path = script.get("script") if isinstance(script, dict) else None
    how = "; ".join(dict.fromkeys(o.label for o in target.origins)) or "the target"
    others = "; ".join(f"{r.name} ({r.python}: torch {r.torch_version}, {r.build})" for r in better[1:4])
    severity = _severity(facts)
    explanation = (
        f"The interpreter your code runs with, {target.python} ({how}), {_describe(target)}, but "
        f"{best.name} ({best.python}) has torch {best.torch_version} ({best.build}). Installing a CUDA build "
        "into one environment does nothing for a script, notebook or IDE that runs another."
        + (f" Other environments with a GPU build: {others}." if others else "")
    )
    if severity is Severity.INFO:
        explanation += " This machine has no NVIDIA GPU, so switching would not give you one here."
    return finding(
        "wrong_interpreter_or_kernel",
        severity,
        title=f"Your code runs {target.name}, which {_describe(target)}; {best.name} has the {best.build} build",
        explanation=explanation,
        fix=switch_fix(best, script_path),
        evidence=[
            Evidence("envs.target", facts.value("envs.target")),
            Evidence("envs.inventory", [_row_evidence(target), *(_row_evidence(r) for r in better[:4])]),
            *([Evidence("envs.script", script)] if script else []),
        ],
        explains=["cpu_only_build", "torch_not_installed"],
    )


def _kernel_row(inventory: Sequence[EnvRow], kernel: dict[str, Any]) -> EnvRow | None:
    label = f"kernel '{kernel.get('name')}'"
    python = kernel.get("python")
    return next(
        (r for r in inventory if any(o.kind == "kernel" and o.label == label and o.path == python for o in r.origins)),
        None,
    ) or next((r for r in inventory if python and python in (r.python, r.executable)), None)


@rule("envs_kernel_without_torch")
def kernel_without_torch(facts: Facts) -> Finding | None:
    """A Jupyter kernel launches an interpreter that is missing, has no torch, or a CPU-only torch, while
    another environment has what the notebook needs."""
    inventory = rows(facts)
    kernels = [k for k in facts.value("envs.kernels") or [] if isinstance(k, dict) and k.get("python")]
    with_gpu = sorted((r for r in inventory if r.status == OK and r.gpu_build), key=lambda r: _rank(r, None))
    with_torch = sorted((r for r in inventory if r.status == OK and r.torch_version), key=lambda r: _rank(r, None))
    problems: list[str] = []
    removals: list[str] = []
    bad: list[dict[str, Any]] = []
    best: EnvRow | None = None
    for k in kernels:
        row = _kernel_row(inventory, k)
        name, python = k.get("name"), k.get("python")
        if row is None or row.status == "missing":
            choice: EnvRow | None = next(iter(with_gpu or with_torch), None)
            what = "which does not exist (the environment was deleted or moved)"
            removals.append(f"  jupyter kernelspec remove {name}")
        elif row.status != OK or row.gpu_build or (row.torch_version is not None and row.flavour != "cpu"):
            continue  # fine, or it could not be read (the table shows why): no claim
        else:
            choice = next(iter(with_gpu or ([] if row.torch_version else with_torch)), None)
            what = f"which {_describe(row)}"
        if choice is None:
            continue
        best = best or choice
        problems.append(f"kernel '{name}' (\"{k.get('display_name')}\") launches {python}, {what}")
        bad.append(k)
    if not problems or best is None:
        return None
    fix = switch_fix(best)
    fix += (
        f'\nOr point an existing kernel at it: in its kernel.json set "argv"[0] to "{best.python}" '
        f"(kernel directories: {', '.join(str(k.get('directory')) for k in bad[:3])})."
    )
    if removals:
        fix += "\nRemove kernels whose interpreter is gone:\n" + "\n".join(removals)
    return finding(
        "wrong_interpreter_or_kernel",
        Severity.WARNING,
        title=f"Jupyter kernel '{bad[0].get('name')}' launches {bad[0].get('python')}, not the one that has torch"
        + (f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""),
        explanation=(
            "A notebook uses the interpreter its kernel launches, not the one in your shell: "
            + "; ".join(problems)
            + f". {best.name} ({best.python}) has torch {best.torch_version} ({best.build})."
        ),
        fix=fix,
        evidence=[Evidence("envs.kernels", bad), Evidence("envs.inventory", [_row_evidence(best)])],
    )


def _version(text: str | None) -> Version | None:
    try:
        return Version(str(text))
    except InvalidVersion:
        return None


@rule("envs_shadowed_torch")
def shadowed_torch_in_envs(facts: Facts) -> list[Finding] | None:
    """Two copies of torch on one interpreter's path (or one imported from outside the environment), in any
    environment found. The target of a full diagnosis is left to ``install.stale_or_shadowed_torch``, which
    judges it from the probe's own facts; this reuses that rule on each row's facts."""

    probed = {str(facts.value("python.executable") or "")} if facts.known("torch.dists") else set()
    out: list[Finding] = []
    for row in rows(facts):
        if row.status != OK or not row.torch or (probed & {row.python, row.executable or ""}):
            continue
        row_facts = Facts(
            {
                "torch.dists": [t.to_json() for t in row.torch],
                "torch.spec_origin": row.torch_origin,
                "python.prefix": row.prefix,
                "python.user_site": row.user_site,
                "python.executable": row.python,
                "python.platform": row.platform,
            }
        )
        base = stale_or_shadowed_torch(row_facts)
        if not isinstance(base, Finding):
            continue
        imported = row.imported
        newer = [
            t
            for t in row.torch
            if not t.imported
            and imported is not None
            and (_version(t.version) or Version("0")) > (_version(imported.version) or Version("0"))
        ]
        title = f"{row.name}: " + (
            f"{len(row.torch)} copies of torch on one path"
            if len(row.torch) > 1
            else "torch is imported from outside the environment"
        )
        note = ""
        if imported is not None and newer:
            title += f", the one imported ({imported.version}) is the older"
            note = (
                f" The one `import torch` loads is {imported.version} from {imported.location}; "
                f"{newer[0].version} in {newer[0].location} is never used."
            )
            if row.user_site and imported.location.startswith(row.user_site):
                note += (
                    " The old copy is in your user site-packages (~/.local), which Python searches before "
                    "the environment's. Quick check without it: "
                    f'PYTHONNOUSERSITE=1 {fixes.quote(row.python)} -c "import torch; print(torch.__version__)"'
                )
        severity = base.severity
        if (
            imported is not None
            and newer
            and not row.gpu_build
            and any((t.local_tag or "").startswith(("cu", "rocm")) for t in newer)
        ):
            severity = Severity.ERROR
        out.append(
            Finding(
                id=base.id,
                severity=severity,
                title=title,
                explanation=f"In {row.python}: {base.explanation}{note}",
                fix=base.fix,
                evidence=[
                    Evidence(
                        "envs.inventory",
                        [
                            {
                                **_row_evidence(row),
                                "torch": [t.to_json() for t in row.torch],
                                "torch_origin": row.torch_origin,
                            }
                        ],
                    )
                ],
                step=base.step,
                explains=list(base.explains),
            )
        )
    return out or None


RULES = (target_lacks_gpu_build, kernel_without_torch, shadowed_torch_in_envs)


def environment_findings(facts: Facts) -> list[Finding]:
    """Only the cross-environment findings, ordered (what `gpuassist envs` and the GUI's table show)."""
    found: list[Finding] = []
    for func in RULES:
        out = func(facts)
        if isinstance(out, Finding):
            found.append(out)
        elif out:
            found.extend(out)
    return order_findings(found)
