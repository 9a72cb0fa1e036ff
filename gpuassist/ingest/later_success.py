"""A kernel-module build failure that the same text shows over: a later successful build or a later healthy check.

DKMS and akmods print their failure as it happens ("Error! Bad return status for module build on kernel: ...",
"Consult /var/lib/dkms/nvidia/<version>/build/make.log", akmods' "Building and installing nvidia-kmod [FAILED]" and
"Building rpms failed; see /var/cache/akmods/..."; dell/dkms dkms.in, rpmfusion akmods). A person who fixed it
(installed the headers, a newer driver branch, rebooted) often pastes the old failure first and then what shows it
fixed. That later evidence is:

- the same step succeeding: DKMS's "DKMS: build completed." / "DKMS: install completed." (dkms 2.x) and
  "Building module(s)... done." / "Installing /lib/modules/<kernel>/updates/dkms/nvidia.ko" (dkms 3.x), akmods'
  "Building and installing nvidia-kmod [  OK  ]", or the user's "it built fine", "the module compiled successfully";
- a healthy check after it: nvidia-smi's table or header (the driver answered, so nvidia.ko is loaded) or
  torch.cuda.is_available() True (ingest/cuda_working.py).

Decided by ORDER: a failure followed by a success is over, a success followed by a failure (the next kernel's build
failing, "still", "again", is_available() False after it) is current. A text that shows no later success keeps
the failure as this machine's fault.
"""

from __future__ import annotations

import re

from gpuassist.ingest.cuda_working import cuda_shown_working, smi_answered
from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.ingest.usage_words import cuda_shown_failing

# The build of a kernel module failing, as DKMS and akmods print it (any module: only the matches on these lines are
# dropped, and those are read only for NVIDIA's module by messages.json's kmod rows).
BUILD_FAILED = re.compile(
    r"Bad return status for module build|/var/lib/dkms/\S+/build/make\.log|/var/cache/akmods/\S+\.failed\.log|"
    r"Building and installing \S+\s*\[\s*FAILED\s*\]|Building rpms failed|Autoinstall on \S+ failed|"
    r"Build of \S+\.ko failed",
    re.IGNORECASE,
)
# The same step succeeding: DKMS's and akmods' own lines, or the user saying the build worked.
BUILD_OK = re.compile(
    r"DKMS:\s*(?:build|install)\s+completed|Building module(?:\(s\))?:?[ .]*done\.|"
    r"Installing /lib/modules/\S+/nvidia\S*\.ko|Building and installing \S*nvidia\S*\s*\[\s*OK\s*\]|"
    r"\b(?:it|module|modules|driver|dkms|akmods|nvidia(?:\.ko)?|kmod\S*|build)\s+(?:then\s+|now\s+)?"
    r"(?:built|compiled|installed|succeeded|completed|worked)\s+(?:fine|ok(?:ay)?|successfully|without\s+errors?)\b|"
    r"\b(?:build|compile|compilation|dkms\s+install)\s+(?:now\s+)?(?:succeeded|succeeds|completed|worked|went\s+fine)\b",
    re.IGNORECASE,
)
# Said after the success, it says the fault is current: still failing, back again, not fixed.
STILL_FAILING = re.compile(
    r"\b(?:still|again)\b[^.!?\n]{0,40}\b(?:fails?|failing|failed|error|broken|False|not\s+work)|"
    r"\b(?:didn'?t|did\s+not|doesn'?t|does\s+not)\s+(?:fix|help|work)\b|\bnot\s+(?:fixed|solved)\b",
    re.IGNORECASE,
)


def _success_at(lines: list[str]) -> int | None:
    """The index of the last line that shows the build succeeding or the GPU working (a REPL answer on the next
    line counts for its call), if any."""
    last = None
    for no, line in enumerate(lines):
        if BUILD_OK.search(line) or smi_answered(line) or cuda_shown_working(lines[no : no + 2]):
            last = no
    return last


def build_failure_fixed_later(lines: list[str], matches: list[Match]) -> list[Match]:
    """Drop the matches on module-build failure lines that a later success or healthy check shows over."""
    cut = [line[:MAX_LINE] for line in lines]
    failed_at = [no for no, line in enumerate(cut) if BUILD_FAILED.search(line)]
    if not failed_at:
        return matches
    ok_at = _success_at(cut)
    if ok_at is None or ok_at <= failed_at[-1]:
        return matches  # no success, or a failure after the last one: current
    after = cut[failed_at[-1] + 1 :]
    if cuda_shown_failing(after) or any(STILL_FAILING.search(line) for line in after):
        return matches
    over = {no + 1 for no in failed_at}
    return [m for m in matches if m.line_no not in over]
