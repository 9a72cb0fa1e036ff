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
- Power Readings: ``SW Power Cap`` Active with the enforced (``Enforced Power Limit``, ``Current Power Limit``
  in newer drivers) limit well below the board's ``Default Power Limit`` is a lowered power limit (nvidia-smi -pl,
  a platform or laptop limit) holding the clocks down.
The same reasons come from ``--query-gpu`` as CSV columns (``clocks_throttle_reasons.hw_slowdown``, renamed
``clocks_event_reasons.*``: Active / Not Active) or as the ``.active`` bitmask (nvmlClocksEventReasons: 0x8 HW
slowdown, 0x20 SW thermal, 0x40 HW thermal, 0x80 HW power brake; 0x1 idle and 0x4 SW power cap are not slowdowns).
``SW Power Cap`` at the default limit, ``Idle``, and temperatures well below the limits are healthy and make no
claim.
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
# Degrees between the GPU's slowdown point and a max operating temperature that only a platform would set.
PLATFORM_GAP = 20.0
ENFORCED_LIMITS = ("Enforced Power Limit", "Current Power Limit")
POWER = re.compile(r"^(\d+(?:\.\d+)?)\s*W$")
# An enforced limit this far under the board's default is a lowered limit, not the board's own.
LOWERED_LIMIT = 0.8
# --query-gpu CSV: the reason columns (either generation's name) and the bitmask column.
CSV_REASON = re.compile(r"^clocks_(?:throttle|event)_reasons\.(\w+)$")
CSV_SLOWDOWNS = ("hw_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown", "sw_thermal_slowdown")
SLOWDOWN_BITS = 0x8 | 0x20 | 0x40 | 0x80


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
                return block[current][0], f"{block[current][1]} ({limit}: {cap:g} C{_platform_limit(block, cap)})"
    margin = _degrees(block, T_LIMIT)
    if margin is not None and margin <= LIMIT_MARGIN:
        return block[T_LIMIT][0], block[T_LIMIT][1]
    return _power_capped(block)


def _watts(block: dict[str, tuple[int, str, str]], name: str) -> float | None:
    found = POWER.match(block[name][2]) if name in block else None
    return float(found.group(1)) if found else None


def _power_capped(block: dict[str, tuple[int, str, str]]) -> tuple[int, str] | None:
    """SW Power Cap active under a limit lowered well below the board's default."""
    if block.get("SW Power Cap", (0, "", ""))[2].lower() != "active":
        return None
    default = _watts(block, "Default Power Limit")
    for name in ENFORCED_LIMITS:
        enforced = _watts(block, name)
        if enforced is not None and default and enforced < default * LOWERED_LIMIT:
            return block[name][0], f"{block[name][1]} (Default Power Limit: {default:g} W; SW Power Cap: Active)"
    return None


def _csv_match(lines: list[str]) -> tuple[int, str] | None:
    """A --query-gpu CSV whose reason columns or bitmask show a slowdown."""
    header: list[str] = []
    for no, raw in enumerate(lines, start=1):
        cells = [c.strip() for c in raw[:MAX_LINE].split(",")]
        names = [c.split(" ")[0] for c in cells]
        if any(CSV_REASON.match(n) for n in names):
            header = names
            continue
        if not header or len(cells) != len(header):
            continue
        for name, value in zip(header, cells, strict=True):
            reason = CSV_REASON.match(name)
            if reason is None:
                continue
            if reason.group(1) in CSV_SLOWDOWNS and value.lower() == "active":
                return no, f"{raw.strip()[:400]} ({name}: Active)"
            bitmask = reason.group(1) == "active" and re.fullmatch(r"0x[0-9A-Fa-f]+", value)
            if bitmask and int(value, 16) & SLOWDOWN_BITS:
                return no, f"{raw.strip()[:400]} ({name}: {value})"
    return None


def _platform_limit(block: dict[str, tuple[int, str, str]], cap: float) -> str:
    """A max operating temperature far under the GPU's own slowdown point is set by the platform (a laptop's
    firmware or thermal policy), which is where it is raised."""
    slowdown = _degrees(block, "GPU Slowdown Temp")
    if slowdown is None or slowdown - cap < PLATFORM_GAP:
        return ""
    return f", far below the GPU's own slowdown at {slowdown:g} C: a limit the laptop/platform sets"


def throttling_match(lines: list[str]) -> Match | None:
    """A GPU of an ``nvidia-smi -q`` listing reporting a hardware/thermal slowdown, or running at its temperature
    limit: thermal_power_throttling (a verdict: the values show it)."""
    for block in _blocks(lines):
        found = _held_back(block)
        if found is not None:
            return Match("thermal_power_throttling", found[0], found[1], True, WEIGHT)
    listed = _csv_match(lines)
    if listed is not None:
        return Match("thermal_power_throttling", listed[0], listed[1], True, WEIGHT)
    return None
