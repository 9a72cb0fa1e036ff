"""`gpuassist envs` output: the inventory as a Report (JSON, reopenable like any gpuassist report) and as a
terminal table. The table is rendered from the (redacted) report's facts, not from live objects, so what
the terminal shows is exactly what the JSON carries."""

from __future__ import annotations

import io
import os
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

from gpuassist import __version__
from gpuassist.envs.inspect import OK, REFUSED, TOO_OLD, EnvRow, Inventory
from gpuassist.facts import Facts
from gpuassist.findings import Finding
from gpuassist.report.model import Report, step_summaries
from gpuassist.rules.environments import environment_findings

MARKS = (
    ("▶", "target: what your code runs"),
    ("★", "gpuassist's own"),
    ("●", "active env"),
    ("K", "a Jupyter kernel launches it"),
)


def envs_report(
    inv: Inventory, host: Mapping[str, Any] | None = None, *, meta: Mapping[str, Any] | None = None
) -> Report:
    """A report holding the ``envs.*`` facts (plus host facts, which say whether a GPU exists) and the
    cross-environment findings."""

    facts = Facts(dict(host or {}))
    facts.update(inv.facts())
    findings = environment_findings(facts)  # only these: the other rules need the full probe
    full_meta: dict[str, Any] = {
        "generated_at": datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        "gpuassist_version": __version__,
        "source": "envs",
        "simulated": False,
        "target": inv.target,
    }
    full_meta.update(meta or {})
    return Report(facts, findings, step_summaries(findings, {"environment"}), {}, full_meta)


def marks_of(row: EnvRow) -> str:
    """The row's marks (see :data:`MARKS`), as the terminal table and the GUI's environment table show them."""
    return "".join(
        m for m, on in zip("▶★●K", (row.is_target, row.is_self, row.is_active, bool(row.kernels)), strict=True) if on
    )


def torch_cell(row: EnvRow) -> tuple[str, str]:
    """(text, rich style) of the torch column: the version and extra copies, or why the row could not be read.
    Styles: ``green`` GPU build, ``yellow`` CPU-only, ``bold yellow`` several copies, ``red`` unreadable."""
    if row.status == TOO_OLD:
        return "✖ too old for any torch", "red"
    if row.status == REFUSED:
        return f"✖ not run: {refusal(row)}", "red"
    if row.status != OK:
        error = row.error or ""
        short = "not a working Python 3.8+" if "not a working Python" in error else error.split(" (it said")[0]
        return f"✖ {row.status}: {short}"[:60], "red"
    if row.torch_version is None:
        return ("module without metadata" if row.torch_origin else "—"), "dim"
    text = row.torch_version
    if len(row.torch) > 1:
        text += f" (+{len(row.torch) - 1} more copy)" if len(row.torch) == 2 else f" (+{len(row.torch) - 1} copies)"
    style = "green" if row.gpu_build else ("yellow" if row.flavour == "cpu" else "")
    return text, ("bold yellow" if len(row.torch) > 1 else style)


def refusal(row: EnvRow) -> str:
    """Why gpuassist did not run a row's interpreter, in a few words (the whole reason is ``row.error``)."""
    error = row.error or ""
    if "writable by everyone" in error:
        return "in a folder anyone can write to"
    if "another user" in error:
        return "owned by another user"
    if "not a Python" in error:
        return "not a Python interpreter"
    return "not trusted"


def torch_location(row: EnvRow) -> str:
    """Where the torch that `import torch` loads lives (its site-packages), else the first copy's."""
    if row.status != OK:
        return ""
    copy = row.imported or (row.torch[0] if row.torch else None)
    if copy is not None:
        return copy.location
    if not row.torch_origin:
        return ""
    if row.torch_origin.startswith("namespace:"):  # a directory called torch without __init__.py
        return os.path.dirname(row.torch_origin[len("namespace:") :].split(",")[0])
    return os.path.dirname(os.path.dirname(row.torch_origin))  # .../site-packages/torch/__init__.py


def found_as(row: EnvRow) -> str:
    """How discovery found the interpreter (PATH, conda, a kernel, ...), each way once."""
    return "; ".join(dict.fromkeys(o.label for o in row.origins))


def render_text(report: Report, *, colour: bool = False, width: int = 120) -> str:
    """The table, the kernels and script lines, then each finding with its fix."""
    # Start-up: rich (~40 ms) loads only when text is printed (the app reads this module for its table).
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    facts = report.facts
    rows = [EnvRow.from_json(d) for d in facts.value("envs.inventory") or [] if isinstance(d, dict)]
    buf = io.StringIO()
    console = Console(
        file=buf, width=width, force_terminal=colour, no_color=not colour, highlight=False, soft_wrap=False
    )
    seconds = facts.value("envs.seconds")
    console.print(
        Text(
            f"Python environments: {len(rows)} found"
            + (f" in {seconds:.1f} s" if isinstance(seconds, (int, float)) else ""),
            style="bold",
        )
    )
    table = Table(show_edge=False, pad_edge=False, box=None, header_style="bold")
    for name, kw in (
        ("", {"no_wrap": True}),
        ("environment", {"overflow": "fold"}),
        ("python", {"no_wrap": True}),
        ("torch", {"overflow": "fold"}),
        ("build", {"overflow": "fold"}),
        ("installer", {}),
        ("torch location", {"overflow": "fold", "ratio": 2}),
        ("found as", {"overflow": "fold", "ratio": 2}),
        ("interpreter", {"overflow": "fold", "ratio": 2}),
    ):
        table.add_column(name, **kw)
    for r in rows:
        torch_text, torch_style = torch_cell(r)
        table.add_row(
            marks_of(r),
            Text(r.name, style="bold" if r.is_target else ""),
            r.python_version or "?",
            Text(torch_text, style=torch_style),
            r.build or "",
            r.installer or "",
            Text(torch_location(r), style="dim"),
            found_as(r),
            r.python,
        )
    console.print(table)
    console.print(Text("  ".join(f"{m} {what}" for m, what in MARKS), style="dim"))
    target, why = facts.value("envs.target"), facts.value("envs.target_reason")
    if target:
        console.print(Text("Target: ", style="bold") + Text(f"{target}" + (f" — {why}" if why else "")))
    kernels = [k for k in facts.value("envs.kernels") or [] if isinstance(k, dict)]
    if kernels:
        console.print(Text("\nJupyter kernels:", style="bold"))
        for k in kernels:
            state = "" if k.get("exists") else "  ✖ missing" if k.get("python") else f"  ? {k.get('how')}"
            console.print(f"  '{k.get('name')}' (\"{k.get('display_name')}\") → {k.get('python') or '?'}{state}")
    script = facts.value("envs.script")
    if isinstance(script, dict):
        console.print(
            Text("\nScript: ", style="bold")
            + Text(f"{script.get('script')} runs with {script.get('python') or '?'} ({script.get('how')})")
        )
    for note in facts.value("envs.notes") or []:
        console.print(Text(f"note: {note}", style="dim"))
    for r in rows:
        if r.status == REFUSED:
            console.print(Text(f"refused: {r.python}: {r.error}", style="dim"))
    console.print()
    if not report.findings:
        console.print(Text("✔ No problem across environments.", style="bold green"))
    for f in report.findings:
        _print_finding(console, f)
    return buf.getvalue()


def _print_finding(console: Any, f: Finding) -> None:
    from rich.text import Text  # start-up: as in render_text

    console.print(Text(f"{f.severity.icon} {f.title}", style=f.severity.rich_style) + Text(f"  [{f.id}]", style="dim"))
    console.print(Text(f.explanation))
    console.print(Text("Fix:", style="bold"))
    console.print(Text(f.fix))
    console.print()
