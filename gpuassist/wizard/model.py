"""The wizard's vocabulary: a step, its result and its status — plain data, no Qt.

A step is one page of the wizard. Its ``run`` is an ordinary function ``run(context, on_event, cancel)``
returning a :class:`StepResult`; the GUI calls it on a worker thread, tests call it directly. New steps
(the runtime tests) plug in by providing such a function; nothing else needs to change.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from gpuassist.findings import OK_COLOUR, OK_ICON, Finding, Severity
from gpuassist.report.model import Report

SCRIPT_KEY = "script"  # StepContext.shared: the .py / .ipynb file the script step audits

# What each page lists under "What was found" (label, fact key): the facts its verdict rests on.
KEY_FACTS: dict[str, list[tuple[str, str]]] = {
    "environment": [("Python", "python.executable"), ("Python version", "python.version"),
                    ("Environment kind", "python.env_kind"), ("torch", "torch.version"),
                    ("torch imported from", "torch.file"), ("import torch took (s)", "torch.import_seconds"),
                    ("import error", "torch.import_error"), ("probe outcome", "probe.outcome")],
    "driver": [("NVIDIA GPUs on the PCI bus", "pci.nvidia_gpu_count"), ("Driver version", "driver.version"),
               ("Driver supports CUDA up to", "driver.cuda_version"), ("NVML", "nvml.status"),
               ("nvidia-smi", "smi.status"), ("Operating system", "host.distro"), ("Kernel", "host.kernel"),
               ("Container", "platform.container"), ("WSL", "platform.wsl")],
    "wheel": [("torch", "torch.version"), ("Built for CUDA", "torch.cuda_build"),
              ("GPU architectures in the build", "torch.arch_list"), ("cuDNN", "torch.cudnn_version"),
              ("torch.cuda.is_available()", "cuda.available"), ("CUDA devices", "cuda.device_count"),
              ("CUDA init error", "cuda.init_error"), ("Apple MPS available", "mps.available")],
    "placement": [("Devices tested", "placement.tested_devices"), ("CUDA available", "placement.cuda_available"),
                  ("Host→device copies", "placement.transfer"), ("Host memcpy (GB/s)", "bandwidth.host_memcpy_gbps"),
                  ("Outcome", "placement.outcome")],
    "dataloader": [("Best setting found", "sweep.dataloader_line"), ("Bottleneck", "sweep.bound"),
                   ("Speed-up over the default", "sweep.speedup_vs_default"),
                   ("Loading per batch (s)", "sweep.load_seconds_per_batch"),
                   ("Compute per batch (s)", "sweep.compute_seconds_per_batch"),
                   ("Settings tried (→ best)", "sweep.trials"), ("Outcome", "sweep.outcome")],
    "benchmark": [("Training step", "bench.results"), ("Batch-size scaling", "bench.scaling"),
                  ("Speed-ups", "bench.speedup"), ("Outcome", "bench.outcome")],
}

Event = dict[str, Any]
OnEvent = Callable[[Event], None]


class StepStatus(str, Enum):
    """Where a step stands. Finished statuses mirror the worst finding's severity (or ok)."""

    PENDING = "pending"
    RUNNING = "running"
    OK = "ok"
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"
    SKIPPED = "skipped"  # a step it depends on failed
    UNAVAILABLE = "unavailable"  # cannot run here / in this version (reason says why)
    CANCELLED = "cancelled"
    OFFERED = "offered"  # Run all left it out: the diagnosis already answered what it would measure

    @property
    def finished(self) -> bool:
        return self not in (StepStatus.PENDING, StepStatus.RUNNING, StepStatus.OFFERED)

    @property
    def failed(self) -> bool:
        """A dependent step cannot trust this one's outcome."""
        return self in (StepStatus.ERROR, StepStatus.SKIPPED, StepStatus.UNAVAILABLE, StepStatus.CANCELLED)

    @property
    def icon(self) -> str:
        if self.value in ("error", "warning", "info"):
            return Severity(self.value).icon
        return {"ok": OK_ICON, "pending": "–", "running": "…", "skipped": "⤼", "unavailable": "○",
                "cancelled": "■", "offered": "▷"}[self.value]

    @property
    def colour(self) -> str:
        """One colour per outcome everywhere (docs/architecture.md §7): severities come from findings.Severity."""
        if self.value in ("error", "warning", "info"):
            return Severity(self.value).colour
        return {"ok": OK_COLOUR, "running": "#1565c0"}.get(self.value, "#6b7280")

    @property
    def label(self) -> str:
        return {"pending": "not run yet", "running": "running", "ok": "passed", "info": "passed (notes)",
                "warning": "warning", "error": "problem found", "skipped": "skipped",
                "unavailable": "not available", "cancelled": "stopped",
                "offered": "not run (offered)"}[self.value]

    @classmethod
    def from_findings(cls, findings: list[Finding]) -> StepStatus:
        worst = min((f.severity for f in findings), key=lambda s: s.rank, default=None)
        return cls.OK if worst is None else cls(worst.value)


@dataclass
class StepResult:
    """What one run of a step produced. ``reason`` explains SKIPPED / UNAVAILABLE / CANCELLED / crashes.

    ``report`` is set by steps that ran the shared diagnosis (Environment, Driver, Wheel): the flow uses
    it to fill in the sibling steps of that one run. ``used_target``: the result depends on the target
    interpreter even though the step's does not always (the script step, when it ran the script), so it is
    stale once the target changes.
    """

    status: StepStatus
    findings: list[Finding] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)
    reason: str = ""
    report: Report | None = None
    seconds: float | None = None
    used_target: bool = False  # this result came from the target although the step's usually does not


@dataclass
class StepContext:
    """What steps run against. ``target`` None = the interpreter running gpuassist; ``scenario`` set =
    a simulated machine (replayed with its recorded timing times ``replay_speed``)."""

    target: str | None = None
    scenario: str | None = None
    replay_speed: float = 1.0
    diagnosis: Report | None = None
    shared: dict[str, Any] = field(default_factory=dict)

    @property
    def simulated(self) -> bool:
        return self.scenario is not None


StepFn = Callable[[StepContext, OnEvent, threading.Event], StepResult]


@dataclass(frozen=True)
class Step:
    """One wizard page. ``group``: steps filled in by one shared run (the diagnosis). ``uses_target``:
    changing the interpreter makes its result stale. ``available`` returns None or why it cannot run.
    ``optional``: Run all leaves it out while it is not available (the script audit before a script is
    chosen); asked for on its own, it says why it cannot run."""

    id: str
    title: str
    explanation: str
    run: StepFn
    depends_on: tuple[str, ...] = ()
    group: str | None = None
    uses_target: bool = True
    available: Callable[[StepContext], str | None] = field(default=lambda ctx: None)
    optional: bool = False
    measures_gpu: bool = False  # a benchmark of the GPU: Run all offers it instead when no GPU can be used
