"""Device placement test (host side): where tensors land, results vs the CPU, the mismatch error, copy
bandwidth and the cost of moving every batch.

The measured H2D bandwidth is judged against the link's theoretical rate
(:func:`gpuassist.knowledge.pcie.pcie_theoretical_gbps`, from NVML's generation x width).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from gpuassist.probe.events import OnEvent
from gpuassist.runtime.common import RuntimeResult, run_runtime


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
    return run_runtime(
        "placement", python, device=device, size=size, sizes=sizes, on_event=on_event, cancel=cancel, env=env
    )
