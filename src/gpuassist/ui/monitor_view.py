"""The live monitor strip: CPU (total + per core), RAM and per-GPU utilisation, memory, power, temperature
on one shared time axis, with a shaded, labelled region for each wizard step.

Drawn from :meth:`Monitor.snapshot` on a QTimer at a steady 5 Hz; the sampler thread never touches Qt.
With no GPU the strip says why instead of showing an empty GPU plot.
"""

from __future__ import annotations

import base64
import math
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from gpuassist.monitor import Monitor, Trace

REDRAW_MS = 200
WINDOW_S = (60.0, 300.0)  # shown time span grows from 60 s up to 300 s, then scrolls
STEP_COLOURS = ["#1a73e8", "#8e24aa", "#00897b", "#f4511e", "#6d4c41", "#3949ab", "#c0ca33"]
CPU_COLOUR = "#1a73e8"
GPU_COLOURS = ["#2e7d32", "#ef6c00", "#6a1b9a", "#00838f"]


def _region_brush(colour: str) -> QColor:
    c = QColor(colour)
    c.setAlpha(38)
    return c


class MonitorView(QWidget):
    """Bottom strip of the main window; always visible."""

    export_csv_requested = Signal()

    def __init__(self, monitor: Monitor, parent: QWidget | None = None, *, simulated: bool = False) -> None:
        super().__init__(parent)
        self.monitor = monitor
        self.simulated = simulated
        self.setObjectName("monitor")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        pg.setConfigOptions(antialias=False, background="w", foreground="#3c4043")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(10, 6, 10, 6)
        lay.setSpacing(4)
        head = QHBoxLayout()
        self.title = QLabel("Live monitor")
        self.title.setStyleSheet("font-weight: 600;")
        self.info = QLabel("starting…")
        self.info.setObjectName("monitorInfo")
        self.gpu_note = QLabel("")
        self.gpu_note.setObjectName("monitorInfo")
        self.csv_button = QPushButton("Export CSV…")
        self.csv_button.clicked.connect(self.export_csv_requested.emit)
        head.addWidget(self.title)
        head.addSpacing(12)
        head.addWidget(self.info, 1)
        head.addWidget(self.gpu_note)
        head.addSpacing(12)
        head.addWidget(self.csv_button)
        lay.addLayout(head)
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setMinimumHeight(150)
        self.graphics.ci.setContentsMargins(0, 0, 0, 0)
        self.graphics.ci.setSpacing(6)
        lay.addWidget(self.graphics, 1)

        self.plots: dict[str, pg.PlotItem] = {}
        self.curves: dict[str, Any] = {}
        self.core_curves: list[Any] = []
        self.regions: dict[tuple[str, float], tuple[list[Any], Any]] = {}
        self._gpu_built = False
        self.cpu_plot = self._plot("cpu", "CPU %", (0, 100))
        self.curves["cpu"] = self.cpu_plot.plot(pen=pg.mkPen(CPU_COLOUR, width=2), name="total")
        self.ram_plot = self._plot("ram", "RAM %", (0, 100))
        self.curves["ram"] = self.ram_plot.plot(pen=pg.mkPen("#00897b", width=2))
        self.redraws = 0
        self.timer = QTimer(self)
        self.timer.setInterval(REDRAW_MS)
        self.timer.timeout.connect(self.redraw)
        self.timer.start()

    # -- building --------------------------------------------------------------------------------------
    def _plot(self, key: str, title: str, yrange: tuple[float, float] | None) -> pg.PlotItem:
        p = self.graphics.addPlot(title=f"<span style='font-size:9pt'>{title}</span>")
        p.hideButtons()
        p.setMenuEnabled(False)
        p.setMouseEnabled(x=False, y=False)
        p.showGrid(x=False, y=True, alpha=0.15)
        p.getAxis("bottom").setStyle(tickLength=-4)
        p.getAxis("left").setWidth(34)
        if yrange is not None:
            p.setYRange(*yrange, padding=0.02)
        else:
            p.enableAutoRange(axis="y")
        if self.plots:
            p.setXLink(next(iter(self.plots.values())))
        self.plots[key] = p
        return p

    def _build_gpu_plots(self, trace: Trace) -> None:
        self._gpu_built = True
        if not trace.gpus:
            reason = trace.gpu_reason or "no GPU found"
            if self.simulated and "recorded" not in trace.label:
                text = f"No GPU plot: the scenario has no recorded trace; here: {reason}"
            else:
                text = f"No NVIDIA GPU plot: {reason}"
            self.gpu_note.setText(text)
            self.gpu_note.setStyleSheet("color: #b26a00;")
            return
        names = ", ".join(f"GPU{g.index} {g.name}" for g in trace.gpus)
        self.gpu_note.setText(names)
        specs = [("util", "GPU util %", (0, 100)), ("mem_used_gib", "GPU memory GiB", None),
                 ("power_w", "Power W", None), ("temp_c", "Temp °C", None)]
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
            import logging

            logging.getLogger(__name__).exception("monitor redraw failed")
            self.timer.stop()

    def _redraw(self) -> None:
        m = self.monitor
        if not m.opened:
            return
        trace = m.snapshot()
        if not self._gpu_built:
            self._build_gpu_plots(trace)
            self.title.setText(f"Live monitor — {trace.label}")
        if m.error and not len(trace):
            self.info.setText(m.error)
            return
        self.redraws += 1
        if not len(trace):
            return
        t = trace.t
        self.curves["cpu"].setData(t, trace.cpu)
        self._ensure_core_curves(trace.cores.shape[1])
        for c, curve in enumerate(self.core_curves[: trace.cores.shape[1]]):
            curve.setData(t, trace.cores[:, c])
        self.curves["ram"].setData(t, trace.ram)
        for gi in range(len(trace.gpus)):
            for k, field in enumerate(("util", "mem_used_gib", "power_w", "temp_c")):
                curve = self.curves.get(f"gpu{gi}.{field}")
                if curve is not None:
                    curve.setData(t, trace.gpu[:, gi, k], connect="finite")
        now = float(t[-1])
        span = min(max(now, WINDOW_S[0]), WINDOW_S[1])
        self.cpu_plot.setXRange(max(0.0, now - span), max(now, span), padding=0)
        self._draw_markers(trace, now)
        parts = [f"CPU {trace.cpu[-1]:.0f} %", f"RAM {trace.ram[-1]:.0f} %"]
        for gi, g in enumerate(trace.gpus):
            u, mem, pw, tc = (float(x) for x in trace.gpu[-1, gi])
            bits = [f"GPU{g.index} {u:.0f} %" if not math.isnan(u) else f"GPU{g.index} –"]
            if not math.isnan(mem):
                bits.append(f"{mem:.1f}/{g.memory_total_gib or 0:.0f} GiB")
            if not math.isnan(tc):
                bits.append(f"{tc:.0f} °C")
            if not math.isnan(pw):
                bits.append(f"{pw:.0f} W")
            parts.append(" ".join(bits))
        running = next((mk.title for mk in reversed(trace.markers) if mk.end is None), None)
        if running:
            parts.append(f"running: {running}")
        self.info.setText("   ·   ".join(parts))

    def _draw_markers(self, trace: Trace, now: float) -> None:
        order = {m.step: i for i, m in enumerate(trace.markers)}
        for mk in trace.markers:
            key = (mk.step, round(mk.start, 3))
            end = mk.end if mk.end is not None else now
            end = max(end, mk.start + 0.15)  # a quick step stays visible as a thin band
            if key not in self.regions:
                colour = STEP_COLOURS[order[mk.step] % len(STEP_COLOURS)]
                items = []
                for p in self.plots.values():
                    region = pg.LinearRegionItem((mk.start, end), movable=False, brush=_region_brush(colour),
                                                 pen=pg.mkPen(QColor(colour), width=1))
                    region.setZValue(-10)
                    p.addItem(region)
                    items.append(region)
                label = pg.TextItem(mk.title, color=colour, anchor=(0, 0))
                label.setZValue(5)
                self.cpu_plot.addItem(label)
                self.regions[key] = (items, label)
            items, label = self.regions[key]
            for region in items:
                region.setRegion((mk.start, end))
        # labels never overlap: a label that would collide with an earlier one drops to the next row
        view = self.cpu_plot.getViewBox()
        px = view.viewPixelSize()[0] if view is not None else 0.1
        row_px = label_height = 14.0
        if view is not None:
            label_height = row_px * view.viewPixelSize()[1]
        rows: list[float] = []  # where each row is free again (x, data units)
        for (_step, start), (_items, label) in sorted(self.regions.items(), key=lambda kv: kv[0][1]):
            width = (len(label.textItem.toPlainText()) * 7.0 + 8) * px
            row = next((i for i, free in enumerate(rows) if start >= free), len(rows))
            if row >= 4:
                label.setVisible(False)
                continue
            if row == len(rows):
                rows.append(0.0)
            rows[row] = start + width
            label.setVisible(True)
            label.setPos(start, 100 - row * label_height)

    # -- export ----------------------------------------------------------------------------------------
    def plot_png(self, width: int = 1400) -> bytes:
        """The whole strip as a PNG (for the HTML report), through pyqtgraph's ImageExporter."""
        from pyqtgraph.exporters import ImageExporter

        self._redraw()
        exporter = ImageExporter(self.graphics.ci)
        exporter.parameters()["width"] = width
        image = exporter.export(toBytes=True)
        if not isinstance(image, QImage):
            return b""
        data = QByteArray()
        buf = QBuffer(data)
        buf.open(QIODevice.OpenModeFlag.WriteOnly)
        image.save(buf, "PNG")  # type: ignore[call-overload]  # the stubs want bytes; PySide6 wants str
        buf.close()
        return bytes(data.data())

    def plots_for_report(self) -> list[dict[str, str]]:
        png = self.plot_png()
        if not png:
            return []
        title = "Live monitor: CPU, RAM" + (" and GPU" if len(self.plots) > 2 else "") + \
                f" during the run ({self.monitor.label}); shaded bands are the wizard steps"
        return [{"title": title, "png_base64": base64.b64encode(png).decode("ascii")}]

    def stop(self) -> None:
        self.timer.stop()


