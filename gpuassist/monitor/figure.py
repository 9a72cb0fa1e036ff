"""The monitor figure of a report, as SVG, without Qt: CPU, RAM and each GPU's use over the run, with the
wizard steps as shaded bands, cropped to the run (the first step's start to the last step's end), the time
axis in seconds since Run all. The app's export and ``gpuassist diagnose --full`` draw the same figure.
"""

from __future__ import annotations

import math
from html import escape

import numpy as np

from gpuassist.monitor.layout import bands
from gpuassist.monitor.sampler import GPU_FIELDS, Marker, Trace

WIDTH, ROW_H, LEFT, RIGHT, TOP = 920, 120, 56, 12, 34
MIN_BAND_PX = 6.0  # a 1-s step next to a 70-s sweep stays visible
PAD_S = 1.0
PALETTE = ["#90caf9", "#a5d6a7", "#ffcc80", "#ce93d8", "#80cbc4", "#ef9a9a", "#b0bec5", "#fff59d"]
LINE = {"CPU": "#1565c0", "RAM": "#6a1b9a", "GPU": "#2e7d32", "GPU memory": "#ef6c00"}


def run_markers(trace: Trace) -> list[Marker]:
    """The markers of the last run: from the last diagnosis on (an earlier Run all is not this report's)."""
    markers = sorted(trace.markers, key=lambda m: m.start)
    diagnosis = ("environment", "driver", "wheel")
    starts = [i for i, m in enumerate(markers) if m.step in diagnosis]
    if not starts:
        return markers
    first = starts[-1]
    while first > 0 and markers[first - 1].step in diagnosis:  # the three steps of one diagnosis
        first -= 1
    return markers[first:]


def run_window(trace: Trace) -> tuple[float, float] | None:
    """(start, end) of the run on the trace's clock: the steps' span, padded a little; None without steps."""
    markers = run_markers(trace)
    if not markers:
        return None
    start = min(m.start for m in markers)
    ends = [m.end for m in markers if m.end is not None]
    end = max(ends) if ends else (float(trace.t[-1]) if len(trace) else start + 1.0)
    return start - PAD_S, max(end, start + 1.0) + PAD_S


def _rows(trace: Trace) -> list[tuple[str, list[tuple[str, np.ndarray]]]]:
    rows: list[tuple[str, list[tuple[str, np.ndarray]]]] = [
        ("CPU and RAM (%)", [("CPU", trace.cpu), ("RAM", trace.ram)])
    ]
    for g, info in enumerate(trace.gpus):
        util = trace.gpu[:, g, GPU_FIELDS.index("util")] if trace.gpu.size else np.zeros(0)
        mem = trace.gpu[:, g, GPU_FIELDS.index("mem_used_gib")] if trace.gpu.size else np.zeros(0)
        lines = [("GPU", util)]
        if info.memory_total_gib:
            lines.append(("GPU memory", 100.0 * mem / info.memory_total_gib))
        rows.append((f"GPU {info.index}: {info.name} (% use, % memory)", lines))
    return rows


def figure_svg(trace: Trace, tags: dict[str, str] | None = None) -> str:
    """The figure as an SVG document (empty string when the trace has no samples in the run)."""
    window = run_window(trace)
    if window is None or not len(trace):
        return ""
    x0, x1 = window
    t = trace.t
    inside = (t >= x0) & (t <= x1)
    if not inside.any():
        return ""
    span = x1 - x0
    plot_w = WIDTH - LEFT - RIGHT
    rows = _rows(trace)
    height = TOP + len(rows) * (ROW_H + 26) + 40 + 14 * ((len(trace.markers) + 3) // 4)
    markers = run_markers(trace)
    origin = min(m.start for m in markers)  # "s since Run all"

    def x(v: float) -> float:
        return LEFT + (v - x0) / span * plot_w

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" width="100%" '
        f'font-family="system-ui, sans-serif" font-size="11" role="img" '
        f'aria-label="CPU, RAM and GPU use during the run">'
    ]
    out.append(f'<rect width="{WIDTH}" height="{height}" fill="#fff"/>')
    step_bands = bands(markers, float(t[-1]), tags)
    for b in step_bands:  # the step names once, above the plots
        left, right = x(max(b.start, x0)), x(min(b.end, x1))
        right = max(right, left + MIN_BAND_PX)
        label = b.title if right - left > 7 * len(b.title) else b.tag
        if label:
            out.append(
                f'<text x="{(left + right) / 2:.1f}" y="{TOP - 8}" text-anchor="middle" fill="#333">'
                f"{escape(label)}</text>"
            )
    for r, (title, lines) in enumerate(rows):
        top = TOP + r * (ROW_H + 26)
        for b in step_bands:
            left, right = x(max(b.start, x0)), x(min(b.end, x1))
            right = max(right, left + MIN_BAND_PX)
            out.append(
                f'<rect x="{left:.1f}" y="{top}" width="{right - left:.1f}" height="{ROW_H}" '
                f'fill="{PALETTE[b.colour % len(PALETTE)]}" opacity="0.45"><title>{escape(b.legend)}</title></rect>'
            )
        out.append(f'<rect x="{LEFT}" y="{top}" width="{plot_w}" height="{ROW_H}" fill="none" stroke="#c9ced6"/>')
        for pct in (0, 50, 100):
            y = top + ROW_H - pct / 100 * ROW_H
            out.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" fill="#666">{pct}</text>')
        for name, values in lines:
            pts = [
                (x(float(tv)), top + ROW_H - min(100.0, max(0.0, float(v))) / 100 * ROW_H)
                for tv, v in zip(t[inside], np.asarray(values)[inside], strict=False)
                if not math.isnan(float(v))
            ]
            if len(pts) > 1:
                path = " ".join(f"{px:.1f},{py:.1f}" for px, py in pts)
                out.append(f'<polyline points="{path}" fill="none" stroke="{LINE[name]}" stroke-width="1.4"/>')
        legend = "".join(f'<tspan fill="{LINE[name]}"> ■ {escape(name)}</tspan>' for name, _ in lines)
        out.append(f'<text x="{LEFT + 4}" y="{top + 13}" fill="#333">{escape(title)}{legend}</text>')
    bottom = TOP + (len(rows) - 1) * (ROW_H + 26) + ROW_H
    step = _tick_step(span)
    first_tick = math.ceil((x0 - origin) / step) * step
    tick = first_tick
    while tick <= x1 - origin:
        px = x(origin + tick)
        out.append(f'<text x="{px:.1f}" y="{bottom + 14}" text-anchor="middle" fill="#666">{tick:g}</text>')
        tick += step
    out.append(
        f'<text x="{LEFT + plot_w / 2:.1f}" y="{bottom + 28}" text-anchor="middle" fill="#333">s since Run all</text>'
    )
    legend_items = [
        f"{b.tag + ' ' if b.tag else ''}{b.title} {b.start - origin:.1f}–{b.end - origin:.1f} s" for b in step_bands
    ]
    for i in range(0, len(legend_items), 4):  # every band named with its times, four to a line
        out.append(
            f'<text x="{LEFT}" y="{bottom + 46 + 14 * (i // 4)}" fill="#444">'
            f"{escape('   ·   '.join(legend_items[i : i + 4]))}</text>"
        )
    out.append("</svg>")
    return "".join(out)


def _tick_step(span: float) -> float:
    for step in (1, 2, 5, 10, 20, 30, 60, 120, 300, 600):
        if span / step <= 10:
            return float(step)
    return 1200.0
