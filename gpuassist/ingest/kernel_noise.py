"""Kernel lines beside a GPU the user reports working: possibilities the text itself contradicts.

Many NVRM lines are printed on machines whose GPU works (open-gpu-kernel-modules: objClInitPcieChipset's "Chipset
Setup Function Error", nvAssertFailedNoLog / nvCheckOkFailedNoLog assertions, an RmInitAdapter retry at boot on a
hybrid laptop, a lone Xid 8/109 from the desktop's compositor). The message tables read such a line as a possible
fault (a warning) because, in a text about a GPU that cannot be used, it may be the cause. When the person says in
the same text that the GPU, CUDA or nvidia-smi works (or the text shows ``is_available()`` True) and nothing in it
fails, that possibility is contradicted: gpuassist keeps it as information and claims nothing. Verdicts (a double
bit ECC error, a GPU fallen off the bus, a GSP timeout: rows marked specific) stay errors: a GPU that works today
with such a fault is still failing hardware.
"""

from __future__ import annotations

import re

from gpuassist.findings import Severity
from gpuassist.ingest.cuda_working import cuda_shown_working
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.ingest.orchestration import CUDA_INIT_FAILED
from gpuassist.ingest.usage_words import cuda_shown_failing
from gpuassist.report.model import Report

# The user's present-tense statement that the GPU works: "things seem to work fine", "the GPU still works",
# "everything is working normally", "CUDA runs without problems", "nvidia-smi works ok".
SAYS_WORKS = re.compile(
    r"\b(?:everything|things|it|all|the (?:gpu|card|graphics card|driver)|(?:my )?gpu|cuda|nvidia-smi|training|"
    r"inference|pytorch|torch)\s+(?:still\s+|seems?\s+to\s+|appears?\s+to\s+|is\s+|are\s+)?"
    r"(?:works?|working|runs?|running)\s+(?:just\s+)?(?:fine|ok(?:ay)?|well|normally|correctly|properly|as expected|"
    r"without (?:any )?(?:problems?|issues?|errors?))\b|"
    r"\bno (?:visible |functional |other )?(?:problems?|issues?) so far\b",
    re.IGNORECASE,
)
# "works fine on Windows / on my other machine / before the update / until I resume": not the GPU of this text now.
WORKS_ELSEWHERE = re.compile(
    r"\b(?:on|under|in|with) (?:windows|another|my other|the other|a different|the old|the previous)\b|"
    r"\b(?:before|previously|used to|until|unless|sometimes|randomly|intermittent\w*|for a while|at first)\b",
    re.IGNORECASE,
)
# Anything in the text that fails: CUDA not starting, nvidia-smi failing, the user's "does not work", a hang.
FAILS = re.compile(
    r"NVIDIA-SMI has failed|No devices were found|Failed to initialize NVML|couldn't communicate with the NVIDIA|"
    r"\bTraceback\b|RuntimeError|CUDA error|not available|"
    r"(?:does ?n[o']t|did ?n[o']t|not|no longer|stopped|never|won't|can ?not|can't) "
    r"(?:work|detect|recogni[sz]|see|find|show|load|start|boot)|"
    r"\b(?:crash\w*|freez\w*|hang(?:s|ing)?|hung|black screen|lock(?:s|ed)? up|reboot loop|keeps rebooting)\b|"
    # in the user's or a program's words (kernel lines say "failed" of steps the driver retries)
    r"\bfail(?:s|ed|ing|ure)?\b|\bno (?:cuda |nvidia )?(?:gpus?|devices?)\b",
    re.IGNORECASE,
)
# The possibilities a kernel line alone raises (warnings); their verdict rows are left alone.
KERNEL_GUESSES = frozenset(
    {
        "gpu_xid_fault",
        "driver_does_not_support_gpu",
        "nvidia_module_not_loaded",
        "no_nvidia_driver",
        "no_nvidia_gpu",
        "uvm_wedged_after_suspend",
    }
)
KERNEL_LINE = re.compile(r"\bNVRM\b|\bXid\b|\bnvidia(?:-\w+)?:|\bnvidia \d{4}:", re.IGNORECASE)


def says_gpu_works(lines: list[str]) -> bool:
    """The text says (or shows) the GPU working now, and shows nothing failing."""
    cut = [line[:MAX_LINE] for line in lines]
    said = cuda_shown_working(cut) or any(SAYS_WORKS.search(line) and not WORKS_ELSEWHERE.search(line) for line in cut)
    if not said:
        return False
    return not any(
        (FAILS.search(line) and not KERNEL_LINE.search(line)) or CUDA_INIT_FAILED.search(line) for line in cut
    ) and not cuda_shown_failing(cut)


def kernel_guesses_yield_to_working_gpu(report: Report, lines: list[str]) -> None:
    """A possibility read only from a kernel line is not claimed when the text says the GPU works: it stays as
    information, saying why."""
    if not says_gpu_works(lines):
        return
    for f in report.findings:
        if f.id not in KERNEL_GUESSES or f.severity is not Severity.WARNING:
            continue
        cited = [str(e.value) for e in f.evidence if e.fact == "pasted.line"]
        if cited and all(KERNEL_LINE.search(value) for value in cited):
            f.severity = Severity.INFO
            f.explanation = (
                "Not claimed: the text says the GPU works, and this kernel message is also printed on machines whose "
                f"GPU works. {f.explanation}"
            )
