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
Otherwise it is dropped and nothing is claimed (round 18).
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.ingest.orchestration import CUDA_INIT_FAILED
from gpuassist.ingest.usage_words import cuda_shown_failing

WSL_KERNEL_NAME = re.compile(r"microsoft-standard-WSL2", re.IGNORECASE)
# What the other WSL readings of the catalogue name on the same line: the driver library path or WSL's own error.
WSL_PATH_SAID = re.compile(r"libcuda|/usr/lib/wsl|no adapters were found|libnvidia-ml|\bdxg\b.{0,40}not found", re.I)


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
    if cuda_shown_failing(cut) or any(CUDA_INIT_FAILED.search(line) for line in cut):
        return matches
    return []
