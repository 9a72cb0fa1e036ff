"""Report and export assembly, shared by the app and the CLI (Qt-free): one document per format with
everything the app shows — a header (target and why, GPU, driver, torch, OS, date, version), every step's
findings with their fixes as copyable blocks, every step's measurement tables and recommended lines (the same
display blocks the pages render, :mod:`gpuassist.wizard.display`), and the monitor figure cropped to the run.

The app's Export buttons and ``gpuassist diagnose`` (``--full`` included) both call :func:`assemble`, so a
server without a screen gets the same report as the app.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

from gpuassist.findings import Finding
from gpuassist.monitor.figure import figure_svg
from gpuassist.monitor.sampler import LiveSource, Monitor, Trace
from gpuassist.report.blocks import Absent, Block, Code, KeyValues, Series, Table, print_blocks, terminal_console
from gpuassist.report.model import Report
from gpuassist.report.render import render, to_json_text
from gpuassist.report.tiers import is_demonstration
from gpuassist.step_table import TABLE
from gpuassist.wizard.display import fact_label, show, step_blocks
from gpuassist.wizard.model import FlowEvent, StepContext


@dataclass
class Section:
    """One step in a report: its status, its findings (demonstrations apart) and its measurement blocks."""

    step: str
    title: str
    status: str
    findings: list[Finding] = field(default_factory=list)
    demonstrations: list[Finding] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)


def header(report: Report) -> list[tuple[str, str]]:
    """The facts a support engineer reads first, in words."""
    facts, meta = report.facts, report.meta
    rows: list[tuple[str, str]] = []
    if meta.get("target"):
        why = meta.get("target_reason")
        rows.append(("Target interpreter", str(meta["target"]) + (f" — {why}" if why else "")))
    elif "python.executable" in facts:
        rows.append(("Target interpreter", show("python.executable", facts["python.executable"])))
    names = [str(d.get("name")) for d in facts.value("devices", []) or [] if isinstance(d, dict)]
    if not names:
        names = [str(g.get("name")) for g in facts.value("nvml.gpus", []) or [] if isinstance(g, dict)]
    if names:
        rows.append(("GPU", ", ".join(names)))
    elif "pci.nvidia_gpu_count" in facts:
        rows.append(("NVIDIA GPUs on the PCI bus", show("pci.nvidia_gpu_count", facts["pci.nvidia_gpu_count"])))
    if "driver.version" in facts:
        driver = show("driver.version", facts["driver.version"])
        if facts.value("driver.cuda_version"):
            driver += f" (CUDA up to {show('driver.cuda_version', facts['driver.cuda_version'])})"
        rows.append(("Driver", driver))
    if "torch.version" in facts:
        torch = show("torch.version", facts["torch.version"])
        if facts.value("torch.cuda_build"):
            torch += f", built for CUDA {facts.value('torch.cuda_build')}"
        rows.append(("torch", torch))
    system = " · ".join(show(k, facts[k]) for k in ("host.distro", "host.kernel") if facts.value(k))
    if system:
        rows.append(("Operating system", system))
    if facts.value("python.version"):
        rows.append(("Python", show("python.version", facts["python.version"])))
    if meta.get("generated_at"):
        rows.append(("Date", str(meta["generated_at"])))
    if meta.get("gpuassist_version"):
        rows.append(("gpuassist", str(meta["gpuassist_version"])))
    return rows


def sections(report: Report) -> list[Section]:
    """Every step the report speaks about, in the wizard's order, with what its page shows."""
    facts = report.facts
    recorded = {str(s.get("id")): str(s.get("status", "not_run")) for s in report.steps}
    out = []
    for info in TABLE:
        if info.id == "summary":
            continue
        mine = [f for f in report.findings if f.step == info.id]
        key_facts = [(label, show(key, facts[key])) for label, key in info.key_facts if key in facts]
        blocks = step_blocks(info.id, facts, key_facts)
        status = recorded.get(info.id, "not_run")
        if not mine and not blocks and status == "not_run":
            continue
        out.append(
            Section(
                info.id,
                info.title,
                status,
                [f for f in mine if not is_demonstration(f)],
                [f for f in mine if is_demonstration(f)],
                blocks,
            )
        )
    return out


def report_trace(report: Report) -> Trace | None:
    """The monitor trace a report carries (None when it has none, or it is unreadable)."""
    if not report.monitor:
        return None
    try:
        trace = Trace.from_dict(report.monitor)
    except (ValueError, KeyError, TypeError):
        return None
    return trace if len(trace) and trace.markers else None


def step_tags() -> dict[str, str]:
    """Step id → its number in the wizard (the short label of a narrow band)."""
    numbered = [i.id for i in TABLE if i.id != "summary"]
    return {sid: str(n) for n, sid in enumerate(numbered, 1)}


def assemble(report: Report, fmt: str, *, width: int | None = None, colour: bool | None = None) -> str:
    """The exported document in ``fmt`` (text, json, markdown, html)."""
    if fmt == "json":
        return to_json_text(report)
    parts = sections(report)
    if fmt == "text":
        text = render(report, "text", width=width, colour=colour, fact_label=fact_label, show_value=show)
        return text + terminal_blocks(report, parts, width=width, colour=colour)
    trace = report_trace(report)
    figure = figure_svg(trace, step_tags()) if trace is not None and fmt == "html" else ""
    return render(
        report, fmt, header=header(report), sections=parts, figure_svg=figure, fact_label=fact_label, show_value=show
    )


def run_all_headless(context: StepContext, *, live_monitor: bool = True) -> Report | None:
    """Everything Run all does, without a window (``gpuassist diagnose --full``): the diagnosis, then the
    placement test, the DataLoader sweep and the CNN benchmark (offered instead when the diagnosis settles
    the question), with the monitor's trace of the run. A simulated machine replays its recorded results at
    once and carries its recorded trace."""
    # Start-up: the step runners load only for a full run.
    from gpuassist.wizard.steps import build_flow

    flow = build_flow(context)
    monitor: Monitor | None = None
    if live_monitor and not context.simulated:
        monitor = Monitor(LiveSource(label="this machine"))
        monitor.start()
        context.monitor = monitor

    def on_event(ev: FlowEvent) -> None:
        if monitor is None or ev["event"] != "step" or ev["step"] == "summary":
            return
        sid = ev["step"]
        if ev["status"] == "start":
            step = flow.step(sid)
            monitor.mark_start(sid, "Diagnosis" if step.group else step.title)
        else:
            monitor.mark_end(sid)

    try:
        flow.execute(None, on_event)
    finally:
        if monitor is not None:
            monitor.stop()
    report = flow.report()
    if report is None:
        return None
    if monitor is not None:
        report.monitor = monitor.snapshot().to_dict(max_points=1200)
    elif context.scenario is not None:
        from gpuassist.sim import load_scenario  # start-up: only a simulated full run reads the scenario

        recorded = load_scenario(context.scenario).data.get("monitor")
        if isinstance(recorded, dict) and "t" in recorded:
            ran = {s for s in flow.ids if flow.state(s).status.finished} | {"environment", "driver", "wheel"}
            report.monitor = dict(recorded, markers=[m for m in recorded.get("markers") or [] if m.get("step") in ran])
    report.meta = dict(report.meta, full=True, offered=flow.offered())
    return report


def terminal_blocks(
    report: Report, parts: list[Section], *, width: int | None = None, colour: bool | None = None
) -> str:
    """Every step's measurements as terminal tables (rich), after the findings; then what was offered."""
    # Start-up: rich (~40 ms) loads only for the text format.
    from rich.text import Text

    buf = io.StringIO()
    console = terminal_console(buf, width=width, colour=colour)
    for part in parts:
        if not part.blocks or all(isinstance(b, KeyValues) and b.title == "What was found" for b in part.blocks):
            continue
        console.print(Text(f"\n{part.title}", style="bold underline"))
        print_blocks(console, part.blocks)
    offered = [s for s in report.steps if s.get("status") == "offered"]
    if offered:
        names = ", ".join(str(s.get("title")) for s in offered)
        console.print(
            Text(
                f"\nNot run: {names}. The verdict above already answers the question; they would "
                "measure the CPU only (run them anyway: gpuassist placement | sweep | bench).",
                style="dim",
            )
        )
    return buf.getvalue()


# Types the templates see (documentation for readers of report.*.j2).
BLOCK_KINDS = {cls.__name__.lower() for cls in (KeyValues, Table, Code, Absent, Series)}
