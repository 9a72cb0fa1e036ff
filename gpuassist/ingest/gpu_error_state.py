"""A GPU in an error state explains CUDA's "busy or unavailable".

CUDA reports cudaErrorDevicesUnavailable ("CUDA-capable device(s) is/are busy or unavailable") when no device of the
process can take a context. The message table reads it as the compute mode first (an Exclusive_Process GPU held by
another process, or Prohibited: the commonest cause), but the driver refuses the context for the same reason when the
GPU has fallen into a state that only a reset clears: the kernel log's NV_ERR_RESET_REQUIRED (0x62), an Xid, "GPU has
fallen off the bus", nvidia-smi -q's "Reset Required: Yes" (all read as a specific gpu_xid_fault by the message
table). Where the text shows that state, the compute-mode reading of the CUDA line is its consequence and gives way;
a compute mode the text shows on its own (nvidia-smi's "Exclusive_Process"/"Prohibited" column) stays.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match

BUSY_OR_UNAVAILABLE = re.compile(r"busy or unavailable|CUDA_ERROR_DEVICE_UNAVAILABLE|cudaErrorDevicesUnavailable", re.I)


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
