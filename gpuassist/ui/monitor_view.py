"""The live monitor strip: CPU (total + per core), RAM and per-GPU utilisation, memory, power, temperature
on one shared time axis, with a shaded band for each wizard step. CPU and GPU utilisation get the widest
plots, side by side: a GPU idling while the DataLoader step keeps the cores busy reads at a glance. Bands
carry their title inside when it fits, else the step's number from the step list, and are named in full in
the legend row under the plots (:mod:`gpuassist.monitor.layout`). The x axis follows the data.

Drawn from :meth:`Monitor.snapshot` on a QTimer at a steady 5 Hz; the sampler thread never touches Qt.
With no GPU the strip says why instead of showing an empty GPU plot. :meth:`MonitorView.show_trace` shows a
recorded trace instead (the one stored in an opened report).
"""

from __future__ import annotations

import html
import logging
import math
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFontMetricsF
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSizePolicy, QToolButton, QVBoxLayout, QWidget

from gpuassist.monitor import Monitor, Trace
from gpuassist.monitor.layout import Band, band_labels, bands, x_range
from gpuassist.ui.cards import plain_tip

REDRAW_MS = 200
MIN_BAND_PX = 6.0
WIDE = 2  # column stretch of the CPU and GPU-utilisation plots (the others get 1)
LABELLED = ("cpu", "util")  # plots whose bands carry a label, in a strip above the 100 % line
LABEL_TOP = 122.0  # y of the label strip's top on those plots (0-100 % below it)
STEP_COLOURS = ["#1a73e8", "#8e24aa", "#00897b", "#f4511e", "#6d4c41", "#3949ab", "#c0ca33", "#5d4037"]
CPU_COLOUR = "#1a73e8"
GPU_COLOURS = ["#2e7d32", "#ef6c00", "#6a1b9a", "#00838f"]


def _region_brush(colour: str) -> QColor:
    c = QColor(colour)
    c.setAlpha(38)
    return c


class MonitorView(QWidget):
    """Bottom strip of the main window; always visible."""

    export_csv_requested = Signal()
    collapsed_changed = Signal(bool)  # the user folded or unfolded the plots (the window remembers it)

    def __init__(
        self,
        monitor: Monitor,
        parent: QWidget | None = None,
        *,
        simulated: bool = False,
        tags: dict[str, str] | None = None,
    ) -> None:
        super().__init__(parent)
        self.monitor = monitor
        self.simulated = simulated
        self.tags = dict(tags or {})  # step id → its number in the step list, drawn in narrow bands
        self.setObjectName("monitor")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        pg.setConfigOptions(antialias=False, background="w", foreground="#3c4043")
        lay = self.outer = QVBoxLayout(self)
        lay.setContentsMargins(10, 6, 10, 6)
        lay.setSpacing(4)
        head = self.head = QHBoxLayout()
        self.title = QLabel("Live monitor")
        self.title.setTextFormat(Qt.TextFormat.PlainText)  # trace labels come from reopened reports
        self.title.setStyleSheet("font-weight: 600;")
        self.info = QLabel("starting…")
        self.info.setObjectName("monitorInfo")
        self.info.setTextFormat(Qt.TextFormat.RichText)
        # the latest readings never widen the window (several GPUs make a long line): clipped, in full as tooltip
        self.info.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.gpu_note = QLabel("")
        self.gpu_note.setTextFormat(Qt.TextFormat.PlainText)  # GPU names come from reopened reports
        self.gpu_note.setObjectName("monitorInfo")
        self.csv_button = QPushButton("Export CSV…")
        self.csv_button.clicked.connect(self.export_csv_requested.emit)
        self.live_button = QPushButton("Live")
        self.live_button.setCheckable(True)
        self.live_button.setChecked(True)
        self.live_button.setToolTip("Follow the machine now; off: the plots stay on the last run")
        self.live_button.toggled.connect(self.set_live)
        self.collapse_button = QToolButton()
        self.collapse_button.setObjectName("monitorCollapse")
        self.collapse_button.setCheckable(True)
        self.collapse_button.setAutoRaise(True)
        self.collapse_button.setArrowType(Qt.ArrowType.DownArrow)
        self.collapse_button.setToolTip("Hide the plots (the latest readings stay on this line)")
        self.collapse_button.toggled.connect(self._on_collapse)
        self.gpu_note.setWordWrap(False)
        head.addWidget(self.collapse_button)
        head.addWidget(self.title)
        head.addSpacing(12)
        head.addWidget(self.info, 1)
        head.addSpacing(12)
        head.addWidget(self.live_button)
        head.addWidget(self.csv_button)
        lay.addLayout(head)
        lay.addWidget(self.gpu_note)
        self.gpu_note.setVisible(False)
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setMinimumHeight(130)
        self.graphics.ci.setContentsMargins(0, 0, 0, 0)
        self.graphics.ci.setSpacing(6)
        lay.addWidget(self.graphics, 1)
        self.legend = QLabel("")
        self.legend.setObjectName("monitorLegend")
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setWordWrap(True)
        lay.addWidget(self.legend)

        self.plots: dict[str, pg.PlotItem] = {}
        self.curves: dict[str, Any] = {}
        self.core_curves: list[Any] = []
        self.regions: dict[tuple[str, float], tuple[list[Any], list[Any]]] = {}
        self.band_list: list[Band] = []
        self.label_shown: dict[str, str] = {}  # band title → "title" | "tag" | "" (what its band shows)
        self.static: Trace | None = None  # a recorded trace shown instead of the live one
        self.collapsed = False
        self.frozen: tuple[float, float] | None = None  # the x range of the last run, while not Live
        self.run_origin: float | None = None  # monitor time of the last Run all's start: the axis' zero
        self._gpu_built = False
        self._build_base_plots()
        self.redraws = 0
        self.timer = QTimer(self)
        self.timer.setInterval(REDRAW_MS)
        self.timer.timeout.connect(self.redraw)
        self.timer.start()

    # -- building --------------------------------------------------------------------------------------
    def _build_base_plots(self) -> None:
        self.cpu_plot = self._plot("cpu", "CPU % (total, and each core faint)", (0, 100))
        self.curves["cpu"] = self.cpu_plot.plot(pen=pg.mkPen(CPU_COLOUR, width=2), name="total")
        self.ram_plot: pg.PlotItem | None = None

    def _build_ram_plot(self) -> None:
        self.ram_plot = self._plot("ram", "RAM %", (0, 100))
        self.curves["ram"] = self.ram_plot.plot(pen=pg.mkPen("#00897b", width=2))

    def _reset_plots(self) -> None:
        self.graphics.clear()
        self.plots, self.curves, self.core_curves, self.regions = {}, {}, [], {}
        self._gpu_built = False
        self._build_base_plots()

    def show_trace(self, trace: Trace | None, *, source: str = "") -> None:
        """Show a recorded trace (an opened report's ``monitor``) instead of this machine's live one;
        ``None`` with ``source`` says that the report had none (the live trace stays)."""
        if trace is None:
            if self.static is not None:
                self.static = None
                self._reset_plots()
            self.title.setText(
                f"Live monitor — {self.monitor.label}" + (f" ({source} has no recorded trace)" if source else "")
            )
            self.timer.start()
            return
        self.static = trace
        self._reset_plots()
        self._redraw()
        self.timer.stop()  # nothing changes: drawn once

    def _plot(self, key: str, title: str, yrange: tuple[float, float] | None) -> pg.PlotItem:
        column = len(self.plots)
        p = self.graphics.addPlot(row=0, col=column, title=f"<span style='font-size:9pt'>{html.escape(title)}</span>")
        self.graphics.ci.layout.setColumnStretchFactor(column, WIDE if key in LABELLED else 1)
        p.hideButtons()
        p.setMenuEnabled(False)
        p.setMouseEnabled(x=False, y=False)
        p.showGrid(x=False, y=True, alpha=0.15)
        p.getAxis("bottom").setStyle(tickLength=-4)
        p.getAxis("bottom").tickStrings = self._tick_strings  # seconds since Run all, not since the app started
        p.getAxis("left").setWidth(34)
        if key in LABELLED:  # room above 100 % for the step labels, so they never hide the curves
            p.setYRange(0, LABEL_TOP, padding=0)
            p.getAxis("left").setTicks([[(v, str(v)) for v in range(0, 101, 20)]])
        elif yrange is not None:
            p.setYRange(*yrange, padding=0.02)
        else:
            p.enableAutoRange(axis="y")
        if self.plots:
            p.setXLink(next(iter(self.plots.values())))
        self.plots[key] = p
        return p

    def _tick_strings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        origin = self.run_origin or 0.0
        digits = 0 if spacing >= 1 else 1
        return [f"{v - origin:.{digits}f}" for v in values]

    # -- after a run: the plots stay on it ---------------------------------------------------------------
    def run_started(self) -> None:
        """A new Run all: the axis counts from now, and the plots follow the machine again."""
        self.run_origin = self.monitor.elapsed() if self.static is None else None
        self.live_button.setChecked(True)
        self.set_live(True)

    def freeze_on_run(self, markers_from: float | None = None) -> None:
        """The run ended: keep the x range on it (from its first step to its end) until Live is pressed."""
        trace = self.static or self.monitor.snapshot()
        markers = [m for m in trace.markers if markers_from is None or m.start >= markers_from - 1e-6]
        if not markers:
            return
        start = min(m.start for m in markers)
        end = max((m.end for m in markers if m.end is not None), default=start + 1.0)
        self.frozen = (start - 1.0, max(end, start + 5.0) + 1.0)
        self.live_button.setChecked(False)
        self.redraw()

    def set_live(self, live: bool) -> None:
        if live:
            self.frozen = None
        elif self.frozen is None:  # Live switched off by hand: stay where the plots are now
            view = self.cpu_plot.getViewBox()
            if view is not None:
                (x0, x1), _ = view.viewRange()
                self.frozen = (float(x0), float(x1))
        self.redraw()

    def _on_collapse(self, collapsed: bool) -> None:
        self.set_collapsed(collapsed)
        self.collapsed_changed.emit(collapsed)

    def set_collapsed(self, collapsed: bool) -> None:
        """Fold the plots away; the header line with the latest readings stays."""
        if self.collapse_button.isChecked() != collapsed:
            self.collapse_button.setChecked(collapsed)
        self.collapse_button.setArrowType(Qt.ArrowType.RightArrow if collapsed else Qt.ArrowType.DownArrow)
        for w in (self.graphics, self.legend):
            w.setVisible(not collapsed)
        self.gpu_note.setVisible(not collapsed and bool(self.gpu_note.text()))
        margins = self.outer.contentsMargins()
        folded = self.head.sizeHint().height() + margins.top() + margins.bottom()
        self.setMaximumHeight(folded if collapsed else 16777215)
        self.collapsed = collapsed

    def _build_gpu_plots(self, trace: Trace) -> None:
        """GPU utilisation next to the CPU, then RAM, GPU memory, power and temperature (RAM alone after
        the CPU when there is no GPU, with the reason above the plots)."""
        self._gpu_built = True
        if trace.gpus:
            p = self._plot("util", "GPU utilisation %", (0, 100))
            for gi, _ in enumerate(trace.gpus):
                self.curves[f"gpu{gi}.util"] = p.plot(pen=pg.mkPen(GPU_COLOURS[gi % len(GPU_COLOURS)], width=2))
        self._build_ram_plot()
        if not trace.gpus:
            reason = trace.gpu_reason or "no GPU readings"
            if self.static is not None:
                text = f"No GPU plot: the recorded trace has no GPU readings ({reason})"
            elif self.simulated and "recorded" not in trace.label:
                text = (
                    f"No GPU plot: the simulated machine has no recorded monitor trace, and this machine "
                    f"has no GPU to show instead ({reason})"
                )
            else:
                text = f"No NVIDIA GPU plot: {reason}"
            self.gpu_note.setText(f"{text}. CPU and RAM are shown.")
            self.gpu_note.setObjectName("gpuNote")
            self.gpu_note.setStyleSheet(
                "color: #8a5300; background: #fff4e0; border: 1px solid #f3d9a4; border-radius: 4px; padding: 2px 8px;"
            )
            self.gpu_note.setVisible(not self.collapsed)
            return
        self.gpu_note.setVisible(False)
        names = ", ".join(f"GPU{g.index} {g.name}" for g in trace.gpus)
        self.gpu_note.setText(names)
        self.gpu_note.setObjectName("monitorInfo")
        specs = [
            ("mem_used_gib", "GPU memory GiB", None),
            ("power_w", "GPU power W", None),
            ("temp_c", "GPU temp °C", None),
        ]
        for field, title, yr in specs:
            p = self._plot(field, title, yr)
            if field == "mem_used_gib":
                top = max((g.memory_total_gib or 0) for g in trace.gpus)
                if top:
                    p.setYRange(0, top, padding=0.02)
            for gi, _ in enumerate(trace.gpus):
                colour = GPU_COLOURS[gi % len(GPU_COLOURS)]
                self.curves[f"gpu{gi}.{field}"] = p.plot(pen=pg.mkPen(colour, width=2))

    def _ensure_core_curves(self, n: int) -> None:
        while len(self.core_curves) < n:
            pen = pg.mkPen(QColor(26, 115, 232, 70), width=1)
            curve = self.cpu_plot.plot(pen=pen)
            curve.setZValue(-1)
            self.core_curves.append(curve)

    # -- drawing ---------------------------------------------------------------------------------------
    def redraw(self) -> None:
        """Timer slot: copy the buffers and update every curve (cheap; never waits on the sampler)."""
        try:
            self._redraw()
        except Exception:  # a drawing glitch must not become an error dialog every 200 ms
            logging.getLogger(__name__).exception("monitor redraw failed")
            self.timer.stop()

    def _redraw(self) -> None:
        m = self.monitor
        if self.static is not None:
            trace = self.static
            if not self._gpu_built:
                self._build_gpu_plots(trace)
                self.title.setText(f"Monitor trace recorded with the report — {trace.label}")
        else:
            if not m.opened:
                return
            trace = m.snapshot()
            if not self._gpu_built:
                self._build_gpu_plots(trace)
                self.title.setText(f"Live monitor — {trace.label}")
            if m.error and not len(trace):
                self.info.setText(html.escape(m.error))
                return
        self.redraws += 1
        if not len(trace):
            return
        t = trace.t
        self.curves["cpu"].setData(t, trace.cpu)
        self._ensure_core_curves(trace.cores.shape[1])
        for c, curve in enumerate(self.core_curves[: trace.cores.shape[1]]):
            curve.setData(t, trace.cores[:, c])
        if "ram" in self.curves:
            self.curves["ram"].setData(t, trace.ram)
        for gi in range(len(trace.gpus)):
            for k, field in enumerate(("util", "mem_used_gib", "power_w", "temp_c")):
                curve = self.curves.get(f"gpu{gi}.{field}")
                if curve is not None:
                    curve.setData(t, trace.gpu[:, gi, k], connect="finite")
        if trace.gpus:
            self._honest_y(trace)
        now = float(t[-1])
        if self.run_origin is None and trace.markers:
            self.run_origin = min(mk.start for mk in trace.markers)
        x0, x1 = self.frozen if self.frozen is not None else x_range(t, markers=trace.markers)
        self.cpu_plot.setXRange(x0, x1, padding=0)
        self._draw_markers(trace, now, x0, x1)
        parts = [f"CPU {trace.cpu[-1]:.0f} %", f"RAM {trace.ram[-1]:.0f} %"]
        for gi, g in enumerate(trace.gpus):
            u, mem, pw, tc = (float(x) for x in trace.gpu[-1, gi])
            swatch = f"<span style='color:{GPU_COLOURS[gi % len(GPU_COLOURS)]}'>■</span>&nbsp;"
            bits = [swatch + html.escape(f"GPU{g.index} {u:.0f} %" if not math.isnan(u) else f"GPU{g.index} –")]
            if not math.isnan(mem):
                bits.append(f"{mem:.1f}/{g.memory_total_gib or 0:.0f} GiB")
            if not math.isnan(tc):
                bits.append(f"{tc:.0f} °C")
            if not math.isnan(pw):
                bits.append(f"{pw:.0f} W")
            parts.append(" ".join(bits))
        running = next((mk.title for mk in reversed(trace.markers) if mk.end is None), None)
        if running and self.static is None:
            parts.append(f"running: {html.escape(str(running))}")
        prefix = f"{float(t[-1] - t[0]):.0f} s recorded; at the end: " if self.static is not None else ""
        text = prefix + " &nbsp;·&nbsp; ".join(parts)
        if text != self.info.text():
            self.info.setText(text)
            self.info.setToolTip(text)

    def _honest_y(self, trace: Trace) -> None:
        """Power from 0 W and temperature over a sane band: a 1-W wobble must not look like a spike."""
        import numpy as np  # start-up: numpy comes with pyqtgraph's first plot; not needed to show the window

        for field, k, floor, ceiling in (("power_w", 2, 0.0, 100.0), ("temp_c", 3, 20.0, 90.0)):
            plot = self.plots.get(field)
            column = trace.gpu[:, :, k]
            if plot is None or not np.isfinite(column).any():
                continue
            top = max(ceiling, float(np.nanmax(column)) * 1.1)
            bottom = min(floor, float(np.nanmin(column)) - 5) if field == "temp_c" else floor
            plot.setYRange(bottom, top, padding=0)

    def _draw_markers(self, trace: Trace, now: float, x0: float, x1: float) -> None:
        self.band_list = bands(trace.markers, now, self.tags)
        labelled = [self.plots[k] for k in LABELLED if k in self.plots]
        for band in self.band_list:
            key = (band.step, round(band.start, 3))
            colour = STEP_COLOURS[band.colour % len(STEP_COLOURS)]
            if key not in self.regions:
                items = []
                for p in self.plots.values():
                    region = pg.LinearRegionItem(
                        (band.start, band.end),
                        movable=False,
                        brush=_region_brush(colour),
                        pen=pg.mkPen(QColor(colour), width=1),
                    )
                    region.setZValue(-10)
                    p.addItem(region)
                    items.append(region)
                labels = []
                for p in labelled:
                    label = pg.TextItem(band.title, color=colour, anchor=(0, 0), fill=pg.mkBrush(255, 255, 255, 210))
                    label.setZValue(5)
                    p.addItem(label)
                    labels.append(label)
                self.regions[key] = (items, labels)
            items, _ = self.regions[key]
            view = self.cpu_plot.getViewBox()
            px = (x1 - x0) / float(view.width()) if view is not None and view.width() > 1 else 0.0
            end = max(band.end, band.start + MIN_BAND_PX * px)  # a 1-s step beside a 70-s sweep stays visible
            for region in items:
                region.setRegion((band.start, end))
                region.setToolTip(plain_tip(band.legend))
        # the longest label that fits inside each band: its title, else its step number, else none
        view = self.cpu_plot.getViewBox()
        width_px = float(view.width()) if view is not None else 0.0
        seconds_per_px = (x1 - x0) / width_px if width_px > 1 else 0.0
        texts = [self.regions[(b.step, round(b.start, 3))][1] for b in self.band_list]
        pairs = list(zip(self.band_list, texts, strict=True))
        title_px = [self._text_px(lbs[0], b.title) if lbs else 0.0 for b, lbs in pairs]
        tag_px = [self._text_px(lbs[0], b.tag) if lbs and b.tag else 0.0 for b, lbs in pairs]
        chosen = band_labels(self.band_list, seconds_per_px, title_px, tag_px, x0=x0, pad_px=4.0)
        self.label_shown = {}
        for band, lbs, kind in zip(self.band_list, texts, chosen, strict=True):
            for label in lbs:
                wanted = band.title if kind == "title" else band.tag if kind == "tag" else ""
                if label.textItem.toPlainText() != wanted and wanted:
                    label.setText(wanted)
                label.setVisible(bool(kind))
                label.setPos(max(band.start, x0), LABEL_TOP)
                label.setToolTip(plain_tip(band.legend))
            self.label_shown[band.title] = kind
        legend_html = "&nbsp;&nbsp;&nbsp; ".join(
            f"<span style='color:{STEP_COLOURS[b.colour % len(STEP_COLOURS)]}'>■</span>&nbsp;"
            + (f"<b>{html.escape(b.tag)}</b>&nbsp;" if b.tag else "")
            + html.escape(b.legend[len(b.tag) + 1 if b.tag else 0 :])
            for b in self.band_list
        )
        axis = "s since Run all" if self.run_origin is not None else "s since gpuassist started"
        text = (
            f"<span style='color:#5f6b7a'>Time axis: {axis}. Steps:</span>&nbsp;&nbsp; {legend_html}"
            if legend_html
            else "<span style='color:#5f6b7a'>Shaded bands mark the wizard steps on this time axis once they "
            "run.</span>"
        )
        if text != self.legend.text():  # a relayout every 200 ms would cost the UI thread for nothing
            self.legend.setText(text)

    @staticmethod
    def _text_px(label: Any, text: str) -> float:
        """Width in pixels of ``text`` in ``label``'s font (measured, so 200 % scaling is right too)."""

        return float(QFontMetricsF(label.textItem.font()).horizontalAdvance(text)) + 8.0  # TextItem's margins

    def stop(self) -> None:
        self.timer.stop()
