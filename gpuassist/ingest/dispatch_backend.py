"""torch's dispatcher refusing an operator for the CUDA backend, read on a Mac.

When no kernel is registered for an operator under the dispatch key its arguments select, the dispatcher
(pytorch/pytorch aten/src/ATen/core/dispatch/OperatorEntry.cpp, OperatorEntry::reportError, torch 1.5 to 2.x) raises
``NotImplementedError: Could not run '<op>' with arguments from the '<key>' backend. This could be because the
operator doesn't exist for this backend, or was omitted during the selective/custom build process ... '<op>' is only
available for these backends: [<keys>].`` (torch < 1.8 printed it as ``RuntimeError``; its older wording
``Could not run '<op>' with arguments from the '<key>' backend. '<op>' is only available for these backends``).

With the key ``CUDA`` the build that runs has no CUDA kernel for the operator. What that means depends on the
machine: on a Mac there is no CUDA at all, so a CUDA-only call (``pin_memory()``, whose default device is CUDA;
``.cuda()`` on code written for Linux) is the Mac's missing CUDA, and the Apple GPU is reached through MPS
(macos_no_cuda_use_mps). The Mac is shown by the text (host.os from its paths and words) or by the backends list
itself naming ``MPS``: MPS kernels are compiled only into macOS builds (aten/src/ATen/native/mps). Elsewhere the same
message also follows operators that have no CUDA kernel in a CUDA build (quantized ops) and extensions built without
CUDA (``torchvision::nms``), so off a Mac it claims nothing.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match

MAX_LINE = 4000
# The dispatcher's refusal for the CUDA key (not SparseCUDA / QuantizedCUDA / AutogradCUDA: other keys of a CUDA
# build, whose refusal says the op lacks that layout, not that CUDA is absent).
NO_CUDA_KERNEL = re.compile(r"Could not run '[\w:.]+' with arguments from the 'CUDA' backend")
# The list of keys that do have a kernel, where an MPS kernel is registered (macOS builds only).
MPS_REGISTERED = re.compile(r"is only available for these backends:\s*\[[^\]]*\bMPS\b")


def mac_cuda_kernel_missing(lines: list[str], matches: list[Match], *, mac: bool, rosetta: bool) -> list[Match]:
    """On a Mac, the dispatcher's 'no CUDA kernel' is CUDA's absence there: the answer is MPS. Adds that reading
    unless another one already names the Mac; off a Mac (and under Rosetta, whose own rule explains) adds nothing."""
    if rosetta or any(m.id == "macos_no_cuda_use_mps" for m in matches):
        return matches
    for no, line in enumerate(lines, start=1):
        head = line[:MAX_LINE]
        if NO_CUDA_KERNEL.search(head) and (mac or MPS_REGISTERED.search(head)):
            return [*matches, Match("macos_no_cuda_use_mps", no, line.strip()[:500], True, 0.85)]
    return matches
