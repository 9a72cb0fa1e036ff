"""DataLoader sweep (host side). The search itself runs in the target interpreter (see
``runtime_script.run_adaptive``): racing num_workers along 1, 0, 2, 4, ... then refining flags only
around the best, which is how it stays within 10 % of the full grid's best for about a third of its time
(``benchmarks/dataloader_sweep.py`` measures both in one run with ``mode="both"``)."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from gpuassist.probe.events import OnEvent
from gpuassist.runtime.common import RuntimeResult, run_runtime

MODES = ("adaptive", "grid", "both")


def run_sweep(
    python: str | None = None,
    *,
    device: str | Sequence[str] | None = None,
    size: str | None = None,
    sizes: Mapping[str, Any] | None = None,
    mode: str = "adaptive",
    on_event: OnEvent | None = None,
    cancel: threading.Event | None = None,
    env: Mapping[str, str] | None = None,
) -> RuntimeResult:
    """Run the DataLoader sweep in ``python``; facts ``sweep.*``. ``mode``: adaptive, grid or both."""
    if mode not in MODES:
        raise ValueError(f"unknown sweep mode {mode!r}")
    return run_runtime(
        "sweep", python, device=device, size=size, sizes=sizes, mode=mode, on_event=on_event, cancel=cancel, env=env
    )
