"""PCIe link rates: what a link of a given generation and width can carry, to judge measured bandwidth.

Knowledge, not measurement: the rules (a degraded link) and the placement step's page (measured vs
possible) both read it, so it lives below both (docs/architecture.md §1).
"""

from __future__ import annotations

from typing import Any

# Usable GB/s per lane and direction after line encoding (8b/10b up to Gen2, 128b/130b from Gen3;
# Gen6 FLIT mode ~ 242/256).
PCIE_LANE_GBPS: dict[int, float] = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}


def pcie_theoretical_gbps(generation: Any, width: Any) -> float | None:
    """Theoretical one-direction PCIe payload rate in GB/s, or None when generation/width are unknown."""
    if not isinstance(generation, int) or not isinstance(width, int) or width <= 0:
        return None
    lane = PCIE_LANE_GBPS.get(generation)
    return round(lane * width, 3) if lane else None
