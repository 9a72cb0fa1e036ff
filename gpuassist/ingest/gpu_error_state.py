"""A GPU in an error state explains CUDA's "busy or unavailable".

CUDA reports cudaErrorDevicesUnavailable ("CUDA-capable device(s) is/are busy or unavailable") when no device of the
process can take a context. The message table reads it as the compute mode first (an Exclusive_Process GPU held by
another process, or Prohibited: the commonest cause), but the driver refuses the context for the same reason when the
GPU has fallen into a state that only a reset clears: the kernel log's NV_ERR_RESET_REQUIRED (0x62), an Xid, "GPU has
fallen off the bus", nvidia-smi -q's "Reset Required: Yes" (all read as a specific gpu_xid_fault by the message
table). Where the text shows that state, the compute-mode reading of the CUDA line is its consequence and gives way;
a compute mode the text shows on its own (nvidia-smi's "Exclusive_Process"/"Prohibited" column) stays.

The compute-mode reading is also ruled out where the text shows the compute mode itself and every GPU listed is in
"Default" (nvidia-smi's table "Compute M." column, `nvidia-smi -q`'s "Compute Mode", `--query-gpu=compute_mode`):
Default lets any number of processes share the GPU (nvidia-smi(1), "Compute mode"), so the message has another
cause there, and naming the compute mode would send the user to change a setting that is already right.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.report.model import Report

BUSY_OR_UNAVAILABLE = re.compile(r"busy or unavailable|CUDA_ERROR_DEVICE_UNAVAILABLE|cudaErrorDevicesUnavailable", re.I)


# The compute mode as nvidia-smi shows it: the last field of a table row's third column ("|  0%  Default |",
# "| 0%   E. Process |"), -q's "Compute Mode : Default", a --query-gpu CSV value.
TABLE_COMPUTE_MODE = re.compile(
    r"\|\s*[\d.]+\s*MiB\s*/\s*[\d.]+\s*MiB\s*\|\s*(?:\d+%|N/A)\s+(Default|E\.\s*Process|E\.\s*Thread|Prohibited)\s*\|"
)
QUERIED_COMPUTE_MODE = re.compile(
    r"\bCompute Mode\s*:\s*(Default|Exclusive_Process|Exclusive_Thread|Prohibited)\b|"
    r"^\s*\d+\s*,\s*(Default|Exclusive_Process|Exclusive_Thread|Prohibited)\s*$",
    re.IGNORECASE,
)


def _compute_modes(lines: list[str]) -> list[str]:
    modes = []
    for line in lines:
        text = line[:MAX_LINE]
        shown = TABLE_COMPUTE_MODE.search(text) or QUERIED_COMPUTE_MODE.search(text)
        if shown is not None:
            modes.append(next(g for g in shown.groups() if g))
    return modes


def default_mode_rules_out_compute_mode(lines: list[str], matches: list[Match]) -> list[Match]:
    """Every GPU the text lists is in the Default compute mode: "busy or unavailable" is not the compute mode."""
    if not any(m.id == "compute_mode_exclusive_or_prohibited" for m in matches):
        return matches
    modes = _compute_modes(lines)
    if not modes or any(mode.lower() != "default" for mode in modes):
        return matches
    return [
        m
        for m in matches
        if not (m.id == "compute_mode_exclusive_or_prohibited" and BUSY_OR_UNAVAILABLE.search(m.line))
    ]


def error_state_explains_unavailable(matches: list[Match]) -> list[Match]:
    """Drop the compute-mode reading drawn from the "busy or unavailable" message where the text shows the GPU in a
    fault state (a specific gpu_xid_fault): that state is why the GPU refuses a context."""
    if not any(m.id == "gpu_xid_fault" and m.specific for m in matches):
        return matches
    return [
        m
        for m in matches
        if not (m.id == "compute_mode_exclusive_or_prohibited" and BUSY_OR_UNAVAILABLE.search(m.line))
    ]


# Where a kernel failure is named in a line (the same line may tell the busy message that followed it).
KERNEL_FAILURE = re.compile(
    r"unspecified launch failure|launch timed out|cudaErrorLaunch(?:Failure|Timeout)|"
    r"CUDA_ERROR_LAUNCH_(?:FAILED|TIMEOUT)",
    re.IGNORECASE,
)


def _failure_before_busy(failure: Match, busy: Match) -> bool:
    if failure.line_no != busy.line_no:
        return failure.line_no < busy.line_no
    named = KERNEL_FAILURE.search(failure.line[:MAX_LINE])
    said = BUSY_OR_UNAVAILABLE.search(busy.line[:MAX_LINE])
    return named is not None and said is not None and named.start() < said.start()


def crash_explains_unavailable(matches: list[Match]) -> list[Match]:
    """A kernel that crashed (a specific cuda_kernel_launch_failed: cudaErrorLaunchFailure, "unspecified launch
    failure", or the watchdog's launch timeout) before the text's "busy or unavailable": the runtime documents that
    such an exception "leaves the process in an inconsistent state" (CUDA Runtime API, cudaErrorLaunchFailure), and a
    GPU left that way refuses the next run's context until it is reset or the machine rebooted. The busy message told
    after the crash is its consequence, not the compute mode, so the compute-mode reading drawn from it goes. A busy
    message shown before any crash, or alone, keeps its reading (round 27)."""
    failures = [m for m in matches if m.id == "cuda_kernel_launch_failed" and m.specific]
    if not failures:
        return matches
    return [
        m
        for m in matches
        if not (
            m.id == "compute_mode_exclusive_or_prohibited"
            and BUSY_OR_UNAVAILABLE.search(m.line)
            and any(_failure_before_busy(f, m) for f in failures)
        )
    ]


def drop_busy_only_verdict(report: Report) -> None:
    """The compute-mode rule's finding goes where it rests on the busy message alone: no GPU the text shows (nvml.gpus)
    is in a mode other than Default."""
    gpus = report.facts.value("nvml.gpus")
    shown = [g for g in gpus if isinstance(g, dict)] if isinstance(gpus, list) else []
    if any(g.get("compute_mode") not in (None, "default") for g in shown):
        return
    report.findings[:] = [f for f in report.findings if f.id != "compute_mode_exclusive_or_prohibited"]


# nvidia-smi's TCC driver model: its table's "TCC/WDDM" column (a row's "... TCC |" or "... WDDM |") and -q's
# "Driver Model / Current : TCC". Only a GPU in TCC can leave the Default compute mode on Windows.
TCC_SHOWN = re.compile(r"\bTCC\s*\|(?!\s*Bus-Id)|\bCurrent\s*:\s*TCC\b|\bTCC mode\b|-dm\s+1\b", re.IGNORECASE)


def wddm_rules_out_compute_mode(lines: list[str], matches: list[Match], *, windows_gpu: bool) -> list[Match]:
    """On a Windows host (native or WSL2, whose GPU is the host's WDDM device) the compute mode can only be Default:
    NVML's nvmlDeviceSetComputeMode says "Under windows compute mode may only be set to DEFAULT when running in WDDM",
    and WSL2 reaches the GPU through the WDDM driver (CUDA on WSL User Guide). There "busy or unavailable" has one of
    the runtime's other causes (cudaErrorDevicesUnavailable: long-running kernels filling the GPU, memory taken by
    work already running, or the platform's own fault), so the compute-mode reading drawn from the message goes,
    unless the text shows the GPU in the TCC driver model, where exclusive modes can be set."""
    if not windows_gpu or not any(m.id == "compute_mode_exclusive_or_prohibited" for m in matches):
        return matches
    if any(TCC_SHOWN.search(line[:MAX_LINE]) for line in lines):
        return matches
    return [
        m
        for m in matches
        if not (m.id == "compute_mode_exclusive_or_prohibited" and BUSY_OR_UNAVAILABLE.search(m.line))
    ]
