"""A CUDA kernel killed by the display watchdog (Windows TDR): the screen blanks and the program gets a CUDA error.

Windows resets a GPU that does not finish its work within TdrDelay (2 seconds by default): "Timeout Detection and
Recovery" (Microsoft, "Timeout detection and recovery (TDR)" and "TDR registry keys": the display flickers or goes
black while the driver is reset, then "Display driver <name> stopped responding and has successfully recovered").
A CUDA kernel running on the GPU that drives the display is such work: CUDA reports cudaErrorLaunchTimeout ("the
launch timed out and was terminated", CUDA Runtime API: "the device kernel took too long to execute ... only occurs
if timeouts are enabled"), and after the reset the context is lost, so later calls report a launch failure or an
unknown error (999). Linux with a display on the same GPU has the X watchdog for the same case (deviceQuery's
"Run time limit on kernels: Yes"). Its class is a kernel launch that failed (cuda_kernel_launch_failed): the fix
is a shorter kernel (smaller launches) or a longer TdrDelay, never a driver or wheel change.

Read only when the text shows both a CUDA failure and the display reset (the screen going black or flickering at the
failure, the driver's "stopped responding and has recovered", TDR named): a blank screen alone is no CUDA matter, and
a CUDA error alone says nothing about the watchdog. A GPU fault the text shows (Xid, fallen off the bus) is the
other reading of a blank screen and stops this one.
"""

from __future__ import annotations

import re

from gpuassist.ingest import prose
from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

# The failures a killed kernel surfaces as: the timeout itself (702, legacy 6), the lost context after it (launch
# failure 719 / legacy 4, unknown error 999 / legacy 30), by name, number or text. Initialisation errors (no device,
# insufficient driver) are not a kernel that ran. "unknown error" is any program's words (a game launcher, pip):
# read only as CUDA's, with CUDA named before it on the line ("CUDA error: unknown error", "cudaMemcpy ... unknown
# error").
CUDA_FAILED = re.compile(
    r"the launch timed out and was terminated|unspecified launch failure|\bcuda\w*\b.{0,80}\bunknown error\b|"
    r"\bCUDA_ERROR_(?:LAUNCH_TIMEOUT|LAUNCH_FAILED|UNKNOWN)\b|\bcudaError(?:LaunchTimeout|LaunchFailure|Unknown)\b|"
    r"\bCUDA (?:error|failure)\s*(?:code)?\s*[:=#]?\s*(?:999|702|719|30|6|4)(?!\d)",
    re.IGNORECASE,
)
# CUDA failing to initialise (torch's "CUDA initialization: CUDA unknown error", cuInit, cudaGetDeviceCount) ran no
# kernel for a watchdog to kill, whatever the screen did.
AT_INIT = re.compile(r"CUDA initiali[sz]ation|\bcuInit\b|cudaGetDeviceCount|is_available\(\)|_cuda_init", re.IGNORECASE)
# The display reset as users and Windows word it.
DISPLAY_RESET = re.compile(
    r"\b(?:screen|display|monitor)s?\s+(?:(?:goes|went|turns?|turned|going|turning|flashe?s?|flashed)\s+)?"
    r"(?:black|blank)\b|\b(?:screen|display)s?\s+(?:flickers?|flickered|flickering)\b|"
    r"\bblack screen\b|stopped responding and has (?:successfully )?recovered|"
    r"\bTDR\b|\bTdrDelay\b|Timeout Detection and Recovery",
    re.IGNORECASE,
)
# A blank screen at boot, login, after an install or update, or at suspend/resume is the driver setup's or power
# management's own story (a 999 after resume is the UVM module wedged), not a kernel killed mid-run.
AT_SETUP = re.compile(
    r"\b(?:boot\w*|login|log in|startup|start-up|install\w*|reboot\w*|grub|updat\w*|upgrad\w*|suspend\w*|"
    r"resum\w*|sleep\w*|hibernat\w*|wak(?:e|es|ing) up|woke up)\b",
    re.IGNORECASE,
)
GPU_FAULT_SHOWN = re.compile(r"\bXid\b|fallen off the bus|GPU is lost", re.IGNORECASE)
# A reset denied in its own clause, a few words before it: "no black screen", "the display doesn't go black"; not
# "it doesn't crash, but the screen goes black" (another clause).
NEGATION_REACH = 5


def _reset_denied(before: str) -> bool:
    return prose.negated(prose.clause_before(before, but=True), words=NEGATION_REACH)


def watchdog_killed_kernel(lines: list[str]) -> Match | None:
    """A CUDA failure and the display reset in the same text: the watchdog killed the kernel (a verdict citing the
    CUDA failure's line)."""
    head = [line[:MAX_LINE] for line in lines[:5000]]
    if any(GPU_FAULT_SHOWN.search(line) for line in head):
        return None
    failed = next(
        (no for no, line in enumerate(head, start=1) if CUDA_FAILED.search(line) and not AT_INIT.search(line)), None
    )
    if failed is None:
        return None
    for line in head:
        reset = DISPLAY_RESET.search(line)
        if reset is not None and not _reset_denied(line[: reset.start()]) and not AT_SETUP.search(line):
            return Match("cuda_kernel_launch_failed", failed, lines[failed - 1].strip()[:500], True, 0.8)
    return None
