"""Audit a training script or notebook for what keeps PyTorch off the GPU, and point at the lines.

The static audit parses the code with :mod:`ast` and never runs it: a small value flow follows models,
loaders, batches, tensors and devices through the script (and into its own functions), and the checks
report what would break or idle a GPU, each with the code change that fixes it (issue #7, item 1).
Nothing here imports torch or Qt.
"""

from __future__ import annotations

from gpuassist.audit.model import SCHEMA, AuditFinding, AuditResult, CodeChange, FileAudit
from gpuassist.audit.render import render_json, render_text
from gpuassist.audit.source import AuditInputError, read_source
from gpuassist.audit.static import audit_paths, audit_source, audit_text

#: The catalogue ids the static audit can report.
AUDIT_IDS: tuple[str, ...] = (
    "tensors_on_different_devices",
    "workload_left_on_cpu",
    "dataloader_starvation",
    "host_device_sync_in_loop",
    "cuda_visible_devices_hides_gpus",
    "multi_gpu_unused",
    "amp_tf32_not_used",
    "cudnn_benchmark_off",
)

__all__ = [
    "AUDIT_IDS",
    "SCHEMA",
    "AuditFinding",
    "AuditInputError",
    "AuditResult",
    "CodeChange",
    "FileAudit",
    "audit_paths",
    "audit_source",
    "audit_text",
    "read_source",
    "render_json",
    "render_text",
]
