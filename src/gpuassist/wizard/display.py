"""How a fact reads on a wizard page: numbers and tables in words, never raw JSON or "{}".

Qt-free, so the pages stay thin and the wording is tested without a GUI.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpuassist.facts import NotCollected, from_jsonable


def _cuda(value: Any) -> str:
    from gpuassist.knowledge.wheels import cuda_int_to_str

    return f"CUDA {cuda_int_to_str(value)}" if isinstance(value, int) and value > 0 else "unknown"


def _bench_rows(value: Any) -> str:
    rows = [r for r in value or [] if isinstance(r, dict)]
    if not rows:
        return "no measurement"
    return "\n".join(
        f"{r.get('device')} {r.get('variant', 'fp32')}, batch {r.get('batch_size')}: "
        f"{float(r.get('images_per_s') or 0):,.0f} images/s ({float(r.get('step_ms') or 0):.1f} ms per step, "
        f"±{float(r.get('spread_pct') or 0):.0f} %)"
        for r in rows
    )


def _speedups(value: Any) -> str:
    if not isinstance(value, dict) or not value:
        return "not measured: speed-ups are measured on accelerators (GPU vs CPU, AMP, channels_last)"
    return "\n".join(f"{name}: {float(x):.2f}×" if isinstance(x, (int, float)) else f"{name}: {x}"
                     for name, x in value.items())


def _trials(value: Any) -> str:
    rows = [r for r in value or [] if isinstance(r, dict)]
    if not rows:
        return "no trial ran"
    best = max(rows, key=lambda r: float(r.get("samples_per_s") or 0))
    out = []
    for r in rows:
        mark = "→ " if r is best else "  "
        prefetch = r.get("prefetch_factor")
        out.append(
            f"{mark}num_workers={r.get('num_workers')}, pin_memory={r.get('pin_memory')}, "
            f"persistent_workers={r.get('persistent_workers')}"
            + (f", prefetch_factor={prefetch}" if prefetch is not None else "")
            + f": {float(r.get('samples_per_s') or 0):,.0f} samples/s"
        )
    return "\n".join(out)


def _times(value: Any) -> str:
    return f"{float(value):.2f}×" if isinstance(value, (int, float)) else str(value)


def _devices(value: Any) -> str:
    return ", ".join(str(v) for v in value) if isinstance(value, list) and value else "none"


FORMATTERS: dict[str, Callable[[Any], str]] = {
    "driver.cuda_version": _cuda,
    "cuda.driver_version": _cuda,
    "bench.results": _bench_rows,
    "bench.scaling": _bench_rows,
    "bench.speedup": _speedups,
    "sweep.trials": _trials,
    "sweep.speedup_vs_default": _times,
    "placement.tested_devices": _devices,
}


def show(key: str, value: Any) -> str:
    """The text a page shows for one fact."""
    from gpuassist.report.render import format_value

    value = from_jsonable(value)
    if isinstance(value, NotCollected):
        return str(value)
    formatter = FORMATTERS.get(key)
    if formatter is not None:
        return formatter(value)
    if isinstance(value, list) and not value:
        return "none"
    if isinstance(value, dict) and not value:
        return "none"
    return format_value(value, 300)
