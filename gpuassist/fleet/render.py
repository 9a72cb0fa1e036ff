"""Render a fleet verdict as terminal text (rich), JSON, Markdown or HTML (jinja2), like single reports.

All four lead with the same headline (:func:`headline`): how many nodes share which root cause, which
nodes differ from their peers, and which nodes are missing or unreadable.
"""

from __future__ import annotations

import io
import json
import re
from functools import lru_cache
from typing import Any

from gpuassist.findings import OK_COLOUR, OK_ICON, Severity, actions_from_fix
from gpuassist.fleet.merge import FleetResult, Group
from gpuassist.report.render import action_groups, fix_lines
from gpuassist.step_table import title as step_title

FORMATS = ("text", "json", "markdown", "html")
NAMES_SHOWN = 12  # node names listed per group/outlier in text and Markdown (JSON has them all)
MATRIX_MAX_NODES = 500  # the HTML nodes × findings table, beyond which it would not be read


def headline(result: FleetResult) -> tuple[str, str]:
    """(severity, sentence) read first."""
    s = result.summary()
    parts = [f"{s['nodes']} node{'s' if s['nodes'] != 1 else ''}"]
    if s["with_errors"]:
        parts.append(f"{s['with_errors']} with errors")
    if s["with_warnings"]:
        parts.append(f"{s['with_warnings']} with warnings")
    parts.append(f"{s['healthy']} healthy")
    if s["missing"]:
        parts.append(f"{s['missing']} missing")
    if s["unreadable"]:
        parts.append(f"{s['unreadable']} unreadable report{'s' if s['unreadable'] != 1 else ''}")
    severity = "error" if s["with_errors"] else "warning" if (s["with_warnings"] or not result.complete) else "ok"
    return severity, ", ".join(parts)


def root_groups(result: FleetResult) -> list[Group]:
    return [g for g in result.groups if g.root_cause]


def other_groups(result: FleetResult) -> list[Group]:
    return [g for g in result.groups if not g.root_cause]


def names(items: list[str], limit: int = NAMES_SHOWN) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" … and {len(items) - limit} more" if len(items) > limit else "")


_MD_SPECIAL = str.maketrans(
    {
        "|": "\\|",
        "<": "&lt;",
        ">": "&gt;",
        "`": "\\`",
        "*": "\\*",
        "_": "\\_",
        "[": "\\[",
        "]": "\\]",
        "\n": " ",
        "\r": " ",
    }
)


def md(text: object) -> str:
    """Text from a report, safe in a Markdown table cell or paragraph: a node name or an error line must not
    end a table row, open a link or inject HTML into the ticket that renders it."""
    return str(text).translate(_MD_SPECIAL)


def fence(text: str) -> str:
    """A code fence longer than any backtick run inside ``text``, so a fix cannot close its own block."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def to_json_text(result: FleetResult) -> str:
    return json.dumps(result.to_json(), indent=2, ensure_ascii=False) + "\n"


def _icon(severity: str) -> str:
    return OK_ICON if severity == "ok" else Severity(severity).icon


def _colour(severity: str) -> str:
    return OK_COLOUR if severity == "ok" else Severity(severity).colour


@lru_cache(maxsize=1)
def _env() -> Any:
    # Start-up: jinja2 (~30 ms) loads only for the HTML and Markdown formats, as for single reports.
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("gpuassist.fleet", "templates"),
        autoescape=jinja2.select_autoescape(["html", "html.j2"], default_for_string=False),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["names"] = names
    env.filters["md"] = md
    env.filters["fence"] = fence
    env.filters["icon"] = _icon
    env.filters["fix_groups"] = fix_groups
    return env


def fix_groups(fix: str) -> list[tuple[str, list[Any]]]:
    """A shared fix as the report's option blocks: each runnable block on its own, prose outside them, a
    reboot its own last block (never one block to paste with both options in it)."""
    return action_groups(actions_from_fix(fix))


def _context(result: FleetResult) -> dict[str, Any]:
    severity, line = headline(result)
    findings = [g.id for g in result.groups]
    return {
        "f": result,
        "summary": result.summary(),
        "severity": severity,
        "headline": line,
        "roots": root_groups(result),
        "others": other_groups(result),
        "colours": {s: _colour(s) for s in ("error", "warning", "info", "ok")},
        "matrix": result.nodes[:MATRIX_MAX_NODES],
        "matrix_ids": findings,
        "matrix_cut": max(0, len(result.nodes) - MATRIX_MAX_NODES),
        "severity_of": {g.id: g.severity for g in result.groups},
    }


def to_markdown(result: FleetResult) -> str:
    return str(_env().get_template("fleet.md.j2").render(**_context(result)))


def to_html(result: FleetResult) -> str:
    return str(_env().get_template("fleet.html.j2").render(**_context(result)))


def to_text(result: FleetResult, *, width: int | None = None, colour: bool | None = None) -> str:
    # Start-up: rich loads only for terminal text (the app's fleet view never needs it).
    from rich.console import Console
    from rich.console import Group as RichGroup
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    buf = io.StringIO()
    console = Console(
        file=buf, width=width or 100, force_terminal=colour, no_color=colour is False, highlight=False, soft_wrap=False
    )
    style = {"error": "bold red", "warning": "bold yellow", "info": "bold blue", "ok": "bold green"}
    severity, line = headline(result)
    console.print(Text(f"{_icon(severity)} Fleet: {line}", style=style[severity]))
    if result.pseudonymous:
        console.print(
            Text(
                "Node names are pseudonyms (the reports were redacted); --expect NAMES --reveal shows your own "
                "list's real names",
                style="dim",
            )
        )
    if any(n.simulated for n in result.nodes):
        console.print(Text(" SIMULATED: some reports describe simulated machines ", style="bold black on yellow"))
    for g in root_groups(result):
        body: list[Any] = [Text(f"{len(g.nodes)} node{'s' if len(g.nodes) != 1 else ''}: {names(g.nodes)}")]
        if g.fix and g.fix_variants:
            body.append(
                Text(
                    f"({g.fix_variants} node-specific variant{'s' if g.fix_variants != 1 else ''} "
                    "of the shared fix below: see each node's report)",
                    style="dim",
                )
            )
        sev = Severity(g.severity)
        console.print(
            Panel(
                RichGroup(*body),
                title=Text(f"{sev.icon} {g.title}", style=sev.rich_style),
                subtitle=Text(f"{g.id} · {step_title(g.step)}", style="dim"),
                title_align="left",
                subtitle_align="right",
                border_style=sev.rich_style.replace("bold ", ""),
            )
        )
        # below the panel and soft-wrapped, as in a node's report: a copied command stays one line
        for fix_line in fix_lines(actions_from_fix(g.fix), Text, heading="Shared fix:") if g.fix else []:
            console.print(fix_line, soft_wrap=True)
    if result.outliers:
        table = Table(
            title="Outliers: where nodes differ from the majority", title_justify="left", show_lines=False, expand=False
        )
        table.add_column("fact", style="bold")
        table.add_column("majority")
        table.add_column("differs on")
        for o in result.outliers:
            major = f"{o.majority[0]} ({o.majority[1]} of {o.known})" if o.majority else "no majority"
            differs = "\n".join(f"{v}: {names(n, 6)}" for v, n in o.others[:6])
            if len(o.others) > 6:
                differs += f"\n… {len(o.others) - 6} more values"
            table.add_row(o.label, major, differs)
        console.print(table)
    others = other_groups(result)
    if others:
        table = Table(
            title="Also found (explained by a root cause above, or for information)",
            title_justify="left",
            box=None,
            padding=(0, 1),
        )
        table.add_column()
        table.add_column(style="dim")
        table.add_column()
        for g in others:
            table.add_row(
                Text(f"{Severity(g.severity).icon} {g.title}", style=Severity(g.severity).rich_style),
                g.id,
                f"{len(g.nodes)}: {names(g.nodes, 6)}",
            )
        console.print(table)
    if result.unreadable:
        console.print(Text("Unreadable or missing reports:", style="bold yellow"))
        for u in result.unreadable:
            console.print(Text(f"  {u.label}: {u.error}"))
    if result.missing:
        console.print(Text(f"Expected but no report: {names(result.missing, 50)}", style="bold yellow"))
    if result.duplicates:
        console.print(Text(f"More than one report from: {names(result.duplicates)} (all kept, numbered)", style="dim"))
    if result.skipped_files:
        console.print(
            Text(
                f"{result.skipped_files} other file(s) in the folders did not look like reports (logs, notes) "
                "and were skipped",
                style="dim",
            )
        )
    healthy = result.healthy
    if healthy:
        console.print(Text(f"{OK_ICON} healthy: {names(healthy, 20)}", style="green"))
    return buf.getvalue()


def render(result: FleetResult, fmt: str, **kwargs: Any) -> str:
    if fmt == "json":
        return to_json_text(result)
    if fmt == "markdown":
        return to_markdown(result)
    if fmt == "html":
        return to_html(result)
    if fmt == "text":
        return to_text(result, **kwargs)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
