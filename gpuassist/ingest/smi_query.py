"""``nvidia-smi -q`` (``-d TEMPERATURE,PERFORMANCE,POWER``) read for a GPU held back by heat or power.

The fields and what they mean (nvidia-smi(1), "Clocks Event Reasons" / "Clocks Throttle Reasons" before driver
535, and NVML's nvmlClocksEventReasons and nvmlTemperatureThresholds_t):
- Clocks Event Reasons: ``Idle`` (nothing runs: low clocks are expected), ``Applications Clocks Setting`` and
  ``Display Clock Setting`` (set by the user or the display), ``Sync Boost`` (held to a group's clock),
  ``SW Power Cap`` (the board's power limit is reached: expected under full load), and the slowdowns that mean the
  hardware protects itself: ``HW Slowdown`` (thermal or power-brake, reported by the board), ``HW Thermal
  Slowdown``, ``HW Power Brake Slowdown`` (the external power supply asserted the brake) and ``SW Thermal
  Slowdown`` (the driver cuts clocks to keep under the max operating temperature). Any of those four Active is
  thermal/power throttling.
- Temperature: ``GPU Current Temp`` against ``GPU Max Operating Temp`` (NVML_TEMPERATURE_THRESHOLD_GPU_MAX: the
  GPU can be throttled below base clock from here), ``GPU Slowdown Temp`` (..._SLOWDOWN: hardware slowdown
  begins) and ``GPU Shutdown Temp``; ``GPU T.Limit Temp`` (newer drivers) is the margin left to that limit;
  ``Memory Current Temp`` against ``Memory Max Operating Temp`` likewise. A GPU at (or within a few degrees of)
  the limit is being held back by heat.
``SW Power Cap`` alone, ``Idle``, and temperatures well below the limits are healthy and make no claim.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

GPU_BLOCK = re.compile(r"^\s*GPU [0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d\s*$")
FIELD = re.compile(r"^\s*(?P<name>[A-Za-z][\w .()/-]*?)\s*:\s*(?P<value>.*?)\s*$")
SLOWDOWNS = ("HW Slowdown", "HW Thermal Slowdown", "HW Power Brake Slowdown", "SW Thermal Slowdown")
TEMPERATURE = re.compile(r"^(-?\d+(?:\.\d+)?)\s*C$")
# The current temperature against its limits (degrees C of margin that count as at the limit).
LIMIT_MARGIN = 2.0
LIMITS = {
    "GPU Current Temp": ("GPU Max Operating Temp", "GPU Slowdown Temp"),
    "Memory Current Temp": ("Memory Max Operating Temp",),
}
T_LIMIT = "GPU T.Limit Temp"
WEIGHT = 0.9


def _blocks(lines: list[str]) -> list[dict[str, tuple[int, str, str]]]:
    """Each GPU's fields: name -> (line number, line, value); a paste without GPU headers is one block."""
    blocks: list[dict[str, tuple[int, str, str]]] = [{}]
    for no, raw in enumerate(lines, start=1):
        line = raw[:MAX_LINE]
        if GPU_BLOCK.match(line):
            blocks.append({})
            continue
        field = FIELD.match(line)
        if field:
            blocks[-1].setdefault(field.group("name"), (no, line.strip()[:500], field.group("value")))
    return [b for b in blocks if b]


def _degrees(block: dict[str, tuple[int, str, str]], name: str) -> float | None:
    if name not in block:
        return None
    found = TEMPERATURE.match(block[name][2])
    return float(found.group(1)) if found else None


def _held_back(block: dict[str, tuple[int, str, str]]) -> tuple[int, str] | None:
    for name in SLOWDOWNS:
        if name in block and block[name][2].lower() == "active":
            return block[name][0], block[name][1]
    for current, limits in LIMITS.items():
        now = _degrees(block, current)
        if now is None:
            continue
        for limit in limits:
            cap = _degrees(block, limit)
            if cap is not None and now >= cap - LIMIT_MARGIN:
                return block[current][0], f"{block[current][1]} ({limit}: {cap:g} C)"
    margin = _degrees(block, T_LIMIT)
    if margin is not None and margin <= LIMIT_MARGIN:
        return block[T_LIMIT][0], block[T_LIMIT][1]
    return None


def throttling_match(lines: list[str]) -> Match | None:
    """A GPU of an ``nvidia-smi -q`` listing reporting a hardware/thermal slowdown, or running at its temperature
    limit: thermal_power_throttling (a verdict: the values show it)."""
    for block in _blocks(lines):
        found = _held_back(block)
        if found is not None:
            return Match("thermal_power_throttling", found[0], found[1], True, WEIGHT)
    return None
