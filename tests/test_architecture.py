"""The layers of docs/architecture.md §1 hold: no import cycle (imports inside functions count), lazy
imports only where start-up needs them and say so, and the window's start-up loads a known set of modules.

import-linter's contracts (pyproject.toml, run by ./run-tests) check the layer order; these tests check
what it does not: cycles inside a package, the lazy-import policy, and the start-up module set.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

PACKAGE = Path(__file__).resolve().parents[1] / "gpuassist"
IN_TARGET = {"probe_script.py", "runtime_script.py", "audit_script.py", "channel.py"}  # run in the user's Python


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components of more than one node: each is an import cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    limit = sys.getrecursionlimit()  # restored: other tests rely on the default (deep code in the audit)
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for node in sorted(graph):
            if node not in index:
                visit(node)
    finally:
        sys.setrecursionlimit(limit)
    return out


@pytest.fixture(scope="module")
def imports() -> dict[str, set[str]]:
    g = grimp.build_graph("gpuassist")  # every import statement, inside functions too
    return {m: set(g.find_modules_directly_imported_by(m)) for m in g.modules}


def test_no_cycle_between_modules(imports: dict[str, set[str]]) -> None:
    assert strongly_connected(imports) == []


def test_no_cycle_between_packages(imports: dict[str, set[str]]) -> None:
    def top(module: str) -> str:
        parts = module.split(".")
        return parts[1] if len(parts) > 1 else parts[0]

    packages: dict[str, set[str]] = {}
    for importer, imported in imports.items():
        packages.setdefault(top(importer), set()).update(top(m) for m in imported if top(m) != top(importer))
    assert strongly_connected(packages) == []


def lazy_imports_without_a_reason() -> list[str]:
    """Imports inside functions whose module has no "# Lazy imports:" note and whose function has no
    "start-up" comment above them."""
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name in IN_TARGET:
            continue
        source = path.read_text(encoding="utf-8")
        if "\n# Lazy imports: start-up." in source:
            continue
        lines = source.splitlines()
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for inner in ast.walk(node):
                if isinstance(inner, (ast.Import, ast.ImportFrom)):
                    above = "\n".join(lines[node.lineno - 1 : inner.lineno]).lower()
                    if "start-up" not in above:
                        missing.append(f"{path.relative_to(PACKAGE.parent)}:{inner.lineno}")
    return missing


def test_lazy_imports_are_only_for_start_up_and_say_so() -> None:
    assert lazy_imports_without_a_reason() == []


#: What the window loads of gpuassist before its first frame is drawn. Adding a module here is a start-up cost: measure
#: it with benchmarks/gui_startup.py first (budget: docs/architecture.md §5).
GUI_START_UP = {
    # (the default target is chosen on the turn after the first frame: gpuassist.envs loads then)
    "gpuassist.wizard.retarget",
    "gpuassist",
    "gpuassist.facts",
    "gpuassist.findings",
    "gpuassist.monitor",
    "gpuassist.monitor.layout",
    "gpuassist.monitor.sampler",
    "gpuassist.report",
    "gpuassist.report.model",
    "gpuassist.ui",
    "gpuassist.ui.app",
    "gpuassist.ui.cards",
    "gpuassist.ui.main_window",
    "gpuassist.ui.monitor_view",
    "gpuassist.ui.pages",
    "gpuassist.ui.qtcompat",
    "gpuassist.ui.script_run_panel",
    "gpuassist.step_table",
    "gpuassist.ui.style",
    "gpuassist.ui.workers",
    "gpuassist.wizard",
    "gpuassist.wizard.flow",
    "gpuassist.wizard.model",
    "gpuassist.wizard.script_run",
    "gpuassist.wizard.steps",
    # the window icon and the desktop entry's name (files added by name, read when drawn)
    "gpuassist.ui.icon",
    "gpuassist.resources",
    "gpuassist.own_python",
    # the typed events the pages read while a step runs (TypedDicts: no import beyond json and typing)
    "gpuassist.probe",
    "gpuassist.probe.events",
    # signals close the window like its close button (the processes to leave alone at exit are listed once
    # the window is complete: gpuassist.lifetime and psutil load after the first frame)
    "gpuassist.interrupts",
}


@pytest.mark.slow
def test_the_window_starts_with_a_known_set_of_modules_and_no_torch(tmp_path: Path) -> None:
    code = (
        "import sys\nfrom gpuassist.ui.app import main\nmain([])\n"
        "print('MODULES', sorted(m for m in sys.modules if m.split('.')[0] == 'gpuassist'))\n"
        "print('HEAVY', sorted(m for m in ('torch', 'rich', 'jinja2', 'gpuassist.rules') if m in sys.modules))\n"
    )
    env = dict(
        os.environ,
        QT_QPA_PLATFORM="offscreen",
        GPUASSIST_STARTUP_PROBE="1",
        XDG_CONFIG_HOME=str(tmp_path),
        HOME=str(tmp_path),
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    out = {line.split(" ", 1)[0]: line.split(" ", 1)[1] for line in p.stdout.splitlines() if " " in line}
    assert "MODULES" in out, p.stderr
    assert set(ast.literal_eval(out["MODULES"])) == GUI_START_UP
    assert ast.literal_eval(out["HEAVY"]) == []


def test_every_package_and_module_is_in_the_layer_contract() -> None:
    """A new top-level module or package must take its place in the layers (pyproject.toml), or import-linter
    would not check it at all."""
    config = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    layers = next(c for c in config["contracts"] if c["type"] == "layers")["layers"]
    placed = {name.strip() for row in layers for name in row.replace(":", "|").split("|")}
    present = {
        f"gpuassist.{p.stem if p.suffix == '.py' else p.name}"
        for p in PACKAGE.iterdir()
        if (p.suffix == ".py" and p.stem != "__init__") or (p.is_dir() and (p / "__init__.py").exists())
    }
    assert present - placed == set()
