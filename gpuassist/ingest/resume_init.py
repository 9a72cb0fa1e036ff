"""The GPU that fails to initialise after the host woke from sleep: the resume's, not a hardware fault.

The NVIDIA kernel driver logs "NVRM: RmInitAdapter failed! (...)" / "rm_init_adapter failed for device bearing minor
number N" when it cannot bring a GPU up (open-gpu-kernel-modules src/nvidia/arch/nvalloc/unix/src/osinit.c,
kernel-open/nvidia/nv.c nv_start_device()), and the X driver says "Failed to initialize the NVIDIA GPU at PCI:b:d:f"
(Bumblebee's optirun relays it). Alone, the adapter failing to start is read as a fault of the device
(messages.json ``rm_init_adapter_failed``, gpu_xid_fault as a possibility). When the text says this began after the
host slept (suspend to RAM, hibernation, a wake from standby) the device was left unusable by the power transition:
an Optimus dGPU powered down by ACPI/bbswitch and not brought back, or video memory and driver state not preserved
across the sleep (NVIDIA driver README, "Configuring Power Management Support"); it comes back after a reload,
a PCI rescan or a reboot. That is the catalogue's suspend/resume bucket (uvm_wedged_after_suspend), and the fault
and module guesses read from the same init-failure lines give way to it. The sleep must be the host's and stated
(after_events.SLEPT, not a job suspended or ``time.sleep``, not "suspend is disabled", not a question); without it
nothing changes. Sources not re-read in round 29 (the search budget was spent); messages as the catalogue rows cite.
"""

from __future__ import annotations

import re

from gpuassist.ingest import prose
from gpuassist.ingest.after_events import NOT_THE_HOST, SLEEP_DENIED, SLEPT
from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

# The driver (or the X driver on top of it) failing to start the GPU.
INIT_FAILED = re.compile(
    r"RmInitAdapter failed|rm_init_adapter failed|Failed to initiali[sz]e the NVIDIA GPU at PCI", re.IGNORECASE
)
# The guesses an init failure alone gives: a device fault, the module not up.
GIVES_WAY = frozenset({"gpu_xid_fault", "nvidia_module_not_loaded", "no_nvidia_gpu"})


def _slept(lines: list[str]) -> bool:
    for _no, sentence in prose.sentences(lines):
        if NOT_THE_HOST.search(sentence) or prose.is_question(sentence) or SLEEP_DENIED.search(sentence):
            continue
        if SLEPT.search(sentence):
            return True
    return False


def init_failed_after_resume(lines: list[str], matches: list[Match]) -> list[Match]:
    """An adapter init failure in a text that says the host slept first: the suspend/resume bucket leads, and the
    fault/module guesses read from the init-failure lines are dropped."""
    if any(m.specific and m.id not in GIVES_WAY for m in matches):
        return matches
    cut = [line[:MAX_LINE] for line in lines[:5000]]
    failed = next(((no, line) for no, line in enumerate(cut, start=1) if INIT_FAILED.search(line)), None)
    if failed is None or not _slept(cut):
        return matches
    kept = [
        m
        for m in matches
        if not (m.id in GIVES_WAY and not m.specific and INIT_FAILED.search(m.line[:MAX_LINE]))
        and m.id != "uvm_wedged_after_suspend"
    ]
    return [Match("uvm_wedged_after_suspend", failed[0], failed[1].strip()[:500], False, 0.9), *kept]
