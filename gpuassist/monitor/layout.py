"""Where things go on the monitor's time axis (Qt-free, so it is tested without a GUI).

* :func:`x_range` — the x axis follows the data: from the first sample to the last, never narrower than
  ``min_span`` (a 3-s run is not drawn as a smear across 60 s of nothing), scrolling after ``max_span``.
* :func:`bands` — one band per step that ran (a step still running ends "now"; a quick step keeps a thin
  visible width), with a stable colour per step.
* :func:`band_labels` — what each band carries on screen: its title when that fits inside it, else its
  short tag (the wizard step's number, as in the step list) when that fits, else nothing; every band is
  named in full, tag first, in the legend row under the plots (and in its tooltip). Labels never overlap:
  a 1-s step next to a 30-s one reads "4" and "DataLoader sweep", not two titles on top of each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpuassist.monitor.sampler import Marker

MIN_SPAN_S = 10.0
MAX_SPAN_S = 300.0
MIN_BAND_S = 0.15
STEP_ORDER = ["environment", "placement", "dataloader", "benchmark", "driver", "wheel", "script"]


@dataclass(frozen=True)
class Band:
    step: str
    title: str
    start: float
    end: float
    running: bool
    colour: int  # index into the view's palette
    tag: str = ""  # short name drawn in a narrow band: the step's number in the wizard

    @property
    def legend(self) -> str:
        took = self.end - self.start
        return f"{self.tag + ' ' if self.tag else ''}{self.title} {self.start:.1f}–{self.end:.1f} s" + (
            " (running)" if self.running else f" ({took:.1f} s)"
        )


def x_range(
    t: Sequence[float] | Any,
    *,
    min_span: float = MIN_SPAN_S,
    max_span: float = MAX_SPAN_S,
    markers: Sequence[Marker] = (),
) -> tuple[float, float]:
    """(x0, x1) to show for sample times ``t`` (and markers, which may start before the first sample)."""
    starts = ([float(t[0])] if len(t) else []) + [m.start for m in markers]
    if not starts:
        return 0.0, min_span
    first = min(starts)
    last = max([float(t[-1]) if len(t) else first] + [m.end for m in markers if m.end is not None])
    if last - first > max_span:
        return last - max_span, last
    return first, max(last, first + min_span)


def bands(markers: Sequence[Marker], now: float, tags: dict[str, str] | None = None) -> list[Band]:
    """One band per marker; ``tags``: step id → short tag (e.g. its number in the wizard)."""
    out: list[Band] = []
    for m in markers:
        end = m.end if m.end is not None else now
        end = max(end, m.start + MIN_BAND_S)
        colour = STEP_ORDER.index(m.step) if m.step in STEP_ORDER else len(STEP_ORDER) + len(out)
        out.append(Band(m.step, m.title, m.start, end, m.end is None, colour, (tags or {}).get(m.step, "")))
    return out


def band_labels(
    items: Sequence[Band],
    seconds_per_px: float,
    title_px: Sequence[float],
    tag_px: Sequence[float],
    x0: float = float("-inf"),
    pad_px: float = 8.0,
) -> list[str]:
    """For each band: ``"title"``, ``"tag"`` or ``""`` — the longest label that fits inside its visible width
    and does not run into the label before it (widths in pixels on screen)."""
    out = []
    free_from = float("-inf")
    for b, title_w, tag_w in zip(items, title_px, tag_px, strict=True):
        start = max(b.start, x0)
        width_px = (b.end - start) / seconds_per_px if seconds_per_px > 0 else 0.0
        chosen = ""
        if start >= free_from:
            for kind, w in (("title", title_w), ("tag", tag_w if b.tag else float("inf"))):
                if width_px >= w + pad_px:
                    chosen = kind
                    free_from = start + (w + pad_px) * seconds_per_px
                    break
        out.append(chosen)
    return out
