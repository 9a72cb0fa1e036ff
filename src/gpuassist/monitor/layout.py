"""Where things go on the monitor's time axis (Qt-free, so it is tested without a GUI).

* :func:`x_range` — the x axis follows the data: from the first sample to the last, never narrower than
  ``min_span`` (a 3-s run is not drawn as a smear across 60 s of nothing), scrolling after ``max_span``.
* :func:`bands` — one band per step that ran (a step still running ends "now"; a quick step keeps a thin
  visible width), with a stable colour per step.
* :func:`fitting_labels` — which bands are wide enough on screen to carry their title inside; the others
  are named in the legend row under the plots (and in their tooltip), never stacked on top of each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpuassist.monitor.sampler import Marker

MIN_SPAN_S = 10.0
MAX_SPAN_S = 300.0
MIN_BAND_S = 0.15
STEP_ORDER = ["environment", "placement", "dataloader", "benchmark", "driver", "wheel"]


@dataclass(frozen=True)
class Band:
    step: str
    title: str
    start: float
    end: float
    running: bool
    colour: int  # index into the view's palette

    @property
    def legend(self) -> str:
        took = self.end - self.start
        return f"{self.title} {self.start:.1f}–{self.end:.1f} s" + (" (running)" if self.running else
                                                                    f" ({took:.1f} s)")


def x_range(t: Sequence[float] | Any, *, min_span: float = MIN_SPAN_S, max_span: float = MAX_SPAN_S,
            markers: Sequence[Marker] = ()) -> tuple[float, float]:
    """(x0, x1) to show for sample times ``t`` (and markers, which may start before the first sample)."""
    starts = ([float(t[0])] if len(t) else []) + [m.start for m in markers]
    if not starts:
        return 0.0, min_span
    first = min(starts)
    last = max([float(t[-1]) if len(t) else first] + [m.end for m in markers if m.end is not None])
    if last - first > max_span:
        return last - max_span, last
    return first, max(last, first + min_span)


def bands(markers: Sequence[Marker], now: float) -> list[Band]:
    out: list[Band] = []
    for m in markers:
        end = m.end if m.end is not None else now
        end = max(end, m.start + MIN_BAND_S)
        colour = STEP_ORDER.index(m.step) if m.step in STEP_ORDER else len(STEP_ORDER) + len(out)
        out.append(Band(m.step, m.title, m.start, end, m.end is None, colour))
    return out


def fitting_labels(items: Sequence[Band], seconds_per_px: float, text_px: Sequence[float],
                   x0: float = float("-inf"), pad_px: float = 8.0) -> list[bool]:
    """For each band: True when its title (``text_px`` wide on screen) fits inside its visible width and
    does not run into the previous labelled band."""
    out = []
    free_from = float("-inf")
    for b, text_w in zip(items, text_px, strict=True):
        start = max(b.start, x0)
        width_px = (b.end - start) / seconds_per_px if seconds_per_px > 0 else 0.0
        need = text_w + pad_px
        fits = width_px >= need and start >= free_from
        if fits:
            free_from = start + need * seconds_per_px
        out.append(fits)
    return out
