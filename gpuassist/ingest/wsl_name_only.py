"""WSL 2's kernel name is where a text was written, not what went wrong there.

The catalogue reads the WSL 2 kernel name (``...-microsoft-standard-WSL2`` from ``uname -r``, a ``WSL Kernel`` table
row, a dmesg banner) as a weak hint of WSL's GPU path (wsl_libcuda_problem): in a text about CUDA failing inside
WSL 2 that path is the likeliest cause. On its own it proves nothing: a healthy WSL 2 machine prints the same name.
And WSL 2's own paravirtual GPU driver, dxgkrnl (microsoft/WSL2-Linux-Kernel drivers/hv/dxgkrnl/ioctl.c), logs
"dxgk: dxgkio_<name>: Ioctl failed: <errno>" for every ioctl that returns an error to its user-space caller;
dxcore probes features and adapter-info types at every start, and the host answers the ones it does not support
with EINVAL/ENOENT (microsoft/WSL#40715: twenty such lines at every boot on a machine whose GPU works). Those lines
are the driver answering queries, not CUDA failing.

So the kernel-name hint is kept only when the text shows a GPU or CUDA failure: another cause read from a message,
the user's words that CUDA or the GPU does not work, torch's ``is_available()`` False, or CUDA's init failing.
Otherwise it is dropped and nothing is claimed (round 18). The user's words are read with kernel_noise's failure
words too ("I can't get PyTorch to see my GPU", "CUDA is not detected"), outside their questions and outside
the lines about dxgkrnl (its own or the person's), whose "Ioctl failed" is the probe answer above (round 18 review).
"""

from __future__ import annotations

import re

from gpuassist.ingest import prose
from gpuassist.ingest.errors import Match
from gpuassist.ingest.kernel_noise import FAILS
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.ingest.orchestration import CUDA_INIT_FAILED
from gpuassist.ingest.usage_words import cuda_shown_failing

WSL_KERNEL_NAME = re.compile(r"microsoft-standard-WSL2", re.IGNORECASE)
# What the other WSL readings of the catalogue name on the same line: the driver library path or WSL's own error.
WSL_PATH_SAID = re.compile(r"libcuda|/usr/lib/wsl|no adapters were found|libnvidia-ml|\bdxg\b.{0,40}not found", re.I)
# dxgkrnl's own log lines ("dxgk: dxgkio_query_adapter_info: Ioctl failed: -22") and the person's words about them
# ("dxgkio_query_adapter_info fails 20 times at boot"): its answers to probes, whoever retells them.
DXGK_LINE = re.compile(r"\bdxg(?:k\w*|io_\w+)?\b", re.IGNORECASE)
# The forms kernel_noise's FAILS leaves out: "isn't detected", "can't get PyTorch to see my GPU".
NOT_SEEN = re.compile(
    r"\b(?:is|are|was|were)\s*n[o']?t\s+(?:being\s+)?(?:detected|found|recogni[sz]ed|seen|working|used)\b|"
    r"\b(?:can\s?n[o']?t|can't|couldn't|could not)\s+get\s+[\w.-]+\s+to\s+(?:see|detect|find|use|recogni[sz]e)\b",
    re.IGNORECASE,
)


def _failure_in_words(lines: list[str]) -> bool:
    """A failure stated outside dxgkrnl's lines and outside the person's questions ("CUDA is not detected")."""
    for line in lines:
        if DXGK_LINE.search(line):
            continue
        if any(FAILS.search(s) or NOT_SEEN.search(s) for s in prose.split(line) if not prose.is_question(s)):
            return True
    return False


def _name_only(match: Match) -> bool:
    """The match is the kernel-name hint: weak, and its line names WSL 2's kernel and no part of WSL's GPU path."""
    return (
        match.id == "wsl_libcuda_problem"
        and not match.specific
        and WSL_KERNEL_NAME.search(match.line) is not None
        and WSL_PATH_SAID.search(match.line) is None
    )


def kernel_name_needs_a_failure(lines: list[str], matches: list[Match], *, complains: bool) -> list[Match]:
    """Drop the WSL 2 kernel-name hint when it is the only reading and nothing in the text fails."""
    hints = [m for m in matches if _name_only(m)]
    if not hints or len(hints) != len(matches) or complains:
        return matches
    cut = [line[:MAX_LINE] for line in lines]
    if cuda_shown_failing(cut) or any(CUDA_INIT_FAILED.search(line) for line in cut) or _failure_in_words(cut):
        return matches
    return []
