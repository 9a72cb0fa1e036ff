"""Device placement test (host side): where tensors land, results vs the CPU, the mismatch error, copy
bandwidth and the cost of moving every batch.

The PCIe comparison needs no torch: :func:`pcie_theoretical_gbps` turns NVML's link generation x width
(host facts ``nvml.gpus``) into the per-direction rate the measured H2D bandwidth is judged against.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from gpuassist.runtime.common import OnEvent, RuntimeResult, run_runtime

# Usable GB/s per lane and direction after line encoding (8b/10b up to Gen2, 128b/130b from Gen3;
# Gen6 FLIT mode ~ 242/256).
PCIE_LANE_GBPS: dict[int, float] = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}


def pcie_theoretical_gbps(generation: Any, width: Any) -> float | None:
    """Theoretical one-direction PCIe payload rate in GB/s, or None when generation/width are unknown."""
    if not isinstance(generation, int) or not isinstance(width, int) or width <= 0:
        return None
    lane = PCIE_LANE_GBPS.get(generation)
    return round(lane * width, 3) if lane else None


def run_placement(
    python: str | None = None,
    *,
    device: str | Sequence[str] | None = None,
    size: str | None = None,
    sizes: Mapping[str, Any] | None = None,
    on_event: OnEvent | None = None,
    cancel: threading.Event | None = None,
    env: Mapping[str, str] | None = None,
) -> RuntimeResult:
    """Run the placement test in ``python``; facts ``placement.*`` and ``bandwidth.*``."""
    return run_runtime("placement", python, device=device, size=size, sizes=sizes, on_event=on_event,
                       cancel=cancel, env=env)
