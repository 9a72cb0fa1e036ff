"""Render a report as JSON, Markdown, HTML (jinja2 templates) or terminal text (rich).

All four read the same :class:`Report` and share :func:`verdict` and :func:`format_value`, so a verdict
reads the same in a terminal, a support ticket and the GUI.
"""

from __future__ import annotations

import io
import json
import os
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from gpuassist.facts import NotCollected, from_jsonable
from gpuassist.findings import OK_COLOUR, OK_ICON, Finding, Severity
from gpuassist.knowledge import catalogue
from gpuassist.plaintext import json_safe, md_cell, md_code, md_escape, md_fence, plain_json
from gpuassist.report.collect_env_layout import collect_env_text
from gpuassist.report.model import Report
from gpuassist.report.tiers import tiers
from gpuassist.step_table import title as step_title

FORMATS = ("text", "json", "markdown", "html")


@dataclass(frozen=True)
class Verdict:
    icon: str
    colour: str
    headline: str
    detail: str
    severity: str  # error / warning / info / ok


def verdict(report: Report) -> Verdict:
    """The one sentence a person reads first."""
    problem = tiers(report.findings).problem  # a measurement of gpuassist's own workload is never the verdict
    if problem is not None:
        return Verdict(
            problem.severity.icon, problem.severity.colour, problem.title, problem.explanation, problem.severity.value
        )
    top = report.findings[0] if report.findings else None
    if top is not None and report.meta.get("source") == "error_text" and _gpu_in_use(top.id):
        # A pasted error from a GPU that works (out of memory, a kernel's assert): say what it is.
        return Verdict(top.severity.icon, top.severity.colour, top.title, top.explanation, "info")
    if report.meta.get("inconclusive"):
        return Verdict(
            Severity.INFO.icon,
            Severity.INFO.colour,
            "The pasted text does not show the cause",
            "It is about PyTorch/CUDA/the GPU but has no error message or tool output that names a "
            "cause. Paste `python -m torch.utils.collect_env` and the full error, or run `gpuassist "
            "diagnose` on that machine.",
            "info",
        )
    top = next((f for f in report.findings if f.severity is Severity.INFO), None)
    facts = report.facts
    if facts.value("cuda.available"):
        names = [str(d.get("name")) for d in facts.value("devices", []) or [] if isinstance(d, dict)]
        counted = {n: names.count(n) for n in dict.fromkeys(names)}  # "2 × NVIDIA A100", not the name twice
        listed = ", ".join(f"{k} × {n}" if k > 1 else n for n, k in counted.items()) or "the GPU"
        return Verdict(
            OK_ICON,
            OK_COLOUR,
            f"PyTorch can use {listed}",
            f"torch {facts.value('torch.version')} initialised CUDA and ran a test on every device.",
            "ok",
        )
    if facts.value("mps.available"):
        return Verdict(
            OK_ICON, OK_COLOUR, "PyTorch can use the Apple GPU through MPS", top.explanation if top else "", "ok"
        )
    failed = _script_failure(facts)
    if failed is not None:  # nothing wrong in what ran, but the run ended early on the script's own error
        return Verdict(Severity.WARNING.icon, Severity.WARNING.colour, failed[0], failed[1], "warning")
    return Verdict(OK_ICON, OK_COLOUR, "No problem found", top.title if top else "", "ok")


def _gpu_in_use(fid: str) -> bool:
    entry = catalogue().get(fid)
    return bool(entry and entry.gpu_in_use)


def _script_failure(facts: Any) -> tuple[str, str] | None:
    """(headline, detail) when an audited script raised an exception no finding explains (a missing data
    file, a bad argument): "no problem found" would claim more than a run cut short can show."""
    exc = facts.value("run.exception")
    if not isinstance(exc, dict):
        return None
    site = exc.get("site")
    at = (
        f" at {os.path.basename(str(site.get('file')))}:{site.get('line')}"
        if isinstance(site, dict) and site.get("file")
        else ""
    )
    stop = facts.value("run.stop")
    steps = stop.get("steps") if isinstance(stop, dict) else None
    after = f" after {steps} step{'s' if steps != 1 else ''}" if isinstance(steps, int) else ""
    return (
        f"The script stopped with {exc.get('type')}{at}{after}: no GPU problem in what ran",
        f"{exc.get('type')}: {exc.get('message')}. Fix that error (run it with the same arguments and working "
        "directory as when you train), then audit the run again to see the training steps.",
    )


def format_value(value: Any, limit: int = 2000) -> str:
    value = from_jsonable(value)
    if isinstance(value, NotCollected):
        return str(value)
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    text = json.dumps(value, ensure_ascii=False, default=str) if isinstance(value, (dict, list)) else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def findings_by_step(findings: list[Finding]) -> list[tuple[str, list[Finding]]]:
    out: dict[str, list[Finding]] = {}
    for f in findings:
        out.setdefault(f.step, []).append(f)
    return [(step_title(step), items) for step, items in out.items()]


def to_json_text(report: Report) -> str:
    return json_safe(json.dumps(report.to_json(), indent=2, ensure_ascii=False, default=str)) + "\n"


@lru_cache(maxsize=1)
def _env() -> Any:
    # Start-up: jinja2 (~30 ms) loads only for the HTML and Markdown formats.
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("gpuassist.report", "templates"),
        autoescape=jinja2.select_autoescape(["html", "html.j2"], default_for_string=False),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["fv"] = format_value
    env.filters.update(md=md_escape, mdcell=md_cell, mdcode=md_code, mdfence=md_fence)
    return env


def target_line(report: Report) -> str | None:
    """ "Interpreter: PATH — why" for a report about an interpreter on this machine (``meta.target`` and
    ``meta.target_reason``); None for a simulated machine or a report read from elsewhere without one."""
    target = report.meta.get("target")
    if not target or report.simulated:
        return None
    reason = report.meta.get("target_reason")
    return f"Interpreter: {target}" + (f" — {reason}" if reason else "")


def _context(report: Report, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """What the templates read. ``extra`` (from :mod:`gpuassist.wizard.export`): ``header`` rows, step
    ``sections`` with their measurement blocks, the monitor ``figure_svg``; without them a report still
    renders its findings by step."""
    facts = report.facts
    extra = dict(extra or {})
    if "sections" not in extra:
        extra["sections"] = [
            {"title": title, "findings": items, "demonstrations": [], "blocks": []}
            for title, items in findings_by_step(report.findings)
        ]
    return {
        "header": [],
        "figure_svg": "",
        "option_groups": option_groups,
        "fact_label": lambda key: key,
        "show_value": lambda key, value: format_value(value, 600),
        **extra,
        "r": report,
        "verdict": verdict(report),
        "groups": findings_by_step(report.findings),
        "facts": [(k, format_value(v)) for k, v in sorted(facts.items())],
        "collect_env": collect_env_text(facts),
        "meta": report.meta,
        "steps": report.steps,
        # Offline input (a paste, an error text) ran no step: list only the steps it speaks about.
        "shown_steps": [s for s in report.steps if s.get("status") != "not_run"]
        if report.meta.get("source") in ("collect_env", "error_text")
        else report.steps,
        "severity": {s.value: s for s in Severity},
        "ok_colour": OK_COLOUR,
        "ok_icon": OK_ICON,
        "plots": report.meta.get("plots") or [],
        "redaction": report.meta.get("redaction") or {},
        "target_line": target_line(report),
    }


def to_markdown(report: Report, **extra: Any) -> str:
    return str(_env().get_template("report.md.j2").render(**_context(report, extra)))


def to_html(report: Report, **extra: Any) -> str:
    return str(_env().get_template("report.html.j2").render(**_context(report, extra)))


def to_text(
    report: Report,
    *,
    width: int | None = None,
    colour: bool | None = None,
    fact_label: Any = None,
    show_value: Any = None,
) -> str:
    """Terminal text: verdict first, then each finding with its fix, then the key facts."""
    # Start-up: rich (~40 ms) loads only for the text format, not for --format json or the app.
    from rich.console import Console, Group
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    buf = io.StringIO()
    console = Console(
        file=buf, width=width or 100, force_terminal=colour, no_color=colour is False, highlight=False, soft_wrap=False
    )
    v = verdict(report)
    style = {"error": "bold red", "warning": "bold yellow", "info": "bold blue", "ok": "bold green"}[v.severity]
    if report.simulated:
        console.print(
            Text(
                f" SIMULATED: scenario {report.meta.get('scenario')} — not this machine ", style="bold black on yellow"
            )
        )
    source = report.meta.get("source")
    if source and source not in ("live", "simulated"):
        console.print(Text(f"Diagnosed from {report.meta.get('source_label', source)}", style="dim"))
    console.print(Text(f"{v.icon} {v.headline}", style=style))
    line = target_line(report)  # right under the verdict: which interpreter it is about, and why that one
    if line:
        console.print(Text(line, style="dim"))
    for f in report.findings:
        body: list[Any] = [Text(f.explanation)]
        if f.evidence:
            ev = Table.grid(padding=(0, 1))
            ev.add_column(style="dim")
            ev.add_column()
            for e in f.evidence[:8]:  # in words when the caller gives the words (wizard/export.py)
                value = show_value(e.fact, e.value) if show_value else format_value(e.value, 160)
                ev.add_row(
                    fact_label(e.fact) if fact_label else e.fact, value if len(value) <= 160 else value[:159] + "…"
                )
            body.append(Text("\nEvidence:", style="bold"))
            body.append(ev)
        console.print(
            Panel(
                Group(*body),
                title=Text(f"{f.severity.icon} {f.title}", style=f.severity.rich_style),
                subtitle=Text(f"{f.id} · {step_title(f.step)}", style="dim"),
                title_align="left",
                subtitle_align="right",
                border_style=f.severity.rich_style.replace("bold ", ""),
            )
        )
        # Below the panel and soft-wrapped: a command copied from the terminal stays one line.
        for line in _fix_options(f, Text):
            console.print(line, soft_wrap=True)
    facts = report.facts
    table = Table(title="Key facts", show_header=False, title_justify="left", box=None, padding=(0, 1))
    table.add_column(style="bold")
    table.add_column()
    for key in KEY_FACTS:
        if key in facts:
            value = facts.get(key)
            table.add_row(
                fact_label(key) if fact_label else key,
                show_value(key, value) if show_value else format_value(value, 120),
            )
    console.print(table)
    missing = report.meta.get("missing_facts")
    if missing:
        console.print(Text("Not in the input (so not judged): " + ", ".join(missing), style="dim"))
    return buf.getvalue()


def option_groups(finding: Finding) -> list[tuple[str, list[Any]]]:
    """The fix's alternatives in order, each with its heading ("Option 1 of 2 — or") and its blocks."""
    return action_groups(list(finding.actions))


def action_groups(actions: list[Any]) -> list[tuple[str, list[Any]]]:
    """Actions grouped by option, each group with its heading ("Option 1 of 2 — or")."""
    numbers = sorted({a.option for a in actions})
    out = []
    for i, n in enumerate(numbers):
        head = (
            f"Option {i + 1} of {len(numbers)}" + (" — or" if i < len(numbers) - 1 else "") if len(numbers) > 1 else ""
        )
        out.append((head, [a for a in actions if a.option == n]))
    return out


def _fix_options(finding: Finding, text: Any) -> list[Any]:
    """The fix in a terminal: each option's blocks, commands prefixed by "$ " so prose never looks like one."""
    return fix_lines(list(finding.actions), text)


def fix_lines(actions: list[Any], text: Any, heading: str = "Fix:") -> list[Any]:
    """Terminal lines for ``actions``: each option's blocks, commands prefixed by "$ " so prose never looks
    like one (print them soft-wrapped: a copied command must stay one line)."""
    out: list[Any] = []
    groups = action_groups(actions)
    if not groups:
        return out
    out.append(text(heading, style="bold"))
    for head, actions in groups:
        if head:
            out.append(text(head, style="bold"))
        for a in actions:
            out.append(text(a.title, style="bold" if a.text else ""))
            for line in a.commands:
                out.append(text(("  " if line.startswith("#") else "  $ ") + line, style="cyan"))
            for line in a.code.splitlines():
                out.append(text("  " + line, style="cyan"))
            if a.note:
                out.append(text(a.note, style="dim"))
    return out


KEY_FACTS = [
    "python.executable",
    "python.version",
    "torch.version",
    "torch.cuda_build",
    "torch.arch_list",
    "cuda.available",
    "cuda.device_count",
    "driver.version",
    "driver.cuda_version",
    "pci.nvidia_gpu_count",
    "nvml.status",
    "host.os",
    "host.distro",
    "host.kernel",
    "platform.container",
    "platform.wsl",
    "probe.outcome",
]


def render(report: Report, fmt: str, **kwargs: Any) -> str:
    """``report`` in format ``fmt``. Every format but JSON (which escapes them) is rendered from a copy
    without control characters: report text is shown, never obeyed by a terminal."""
    if fmt == "json":
        return to_json_text(report)
    report = Report.from_json(plain_json(report.to_json()))
    if fmt == "markdown":
        return to_markdown(report, **kwargs)
    if fmt == "html":
        return to_html(report, **kwargs)
    if fmt == "text":
        return to_text(report, **kwargs)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
