"""nouveau's own failure messages on an NVIDIA GPU: the open-source driver, not NVIDIA's module, drives the card.

nouveau binds only NVIDIA devices, and its messages are prefixed with the device it drives ("nouveau 0000:01:00.0:",
dev_printk) and the nvkm subdevice ("gr:", "secboot:", "fifo:"). Its failures while it owns the card say that the
proprietary nvidia module is not the one driving the GPU, the thing CUDA needs. Sources: Linux
drivers/gpu/drm/nouveau/nvkm/core/subdev.c (nvkm_error "init failed, %d", "preinit failed, %d", "one-time init failed,
%d", "fini failed, %d"), nvkm/engine/device/base.c ("unknown chipset (%08x)"), nvkm/subdev/secboot (4.x: "error during
falcon reset: %d"), nvkm/engine/fifo ("SCHED_ERROR", "fault"), and the driver core's probe failure
(drivers/base/dd.c: "probe of %s failed with error %d", newer "probe with driver nouveau failed with error %d").
Not any nouveau line with "failed" in it: dispnv50/disp.c's "DRM: failed to create encoder %d/%d/%d: %d" is an
NV_WARN that sets ret = 0 and goes on (common on working Optimus laptops), and the firmware loader's "Direct firmware
load for nouveau/... failed with error -2" falls back; both are printed by a nouveau that drives the card fine.

Declines: NVIDIA's module shown loaded (NVRM's load line, an nvidia-smi table), nvidia-smi missing altogether (no
driver installed: user_words.nouveau_without_driver), or another kernel cause already read.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

_DEV = r"\bnouveau\s+[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d:\s+"
NOUVEAU_FAILS = re.compile(
    _DEV + r"(?:[\w-]+(?:\(\w+\))?:\s+)*(?:"
    r"(?:pre|one-time |)init failed\b|fini failed\b|unknown chipset\b|error during falcon reset\b|"
    r"SCHED_ERROR\b|probe with driver nouveau failed\b)"
    r"|\bnouveau: probe of [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d failed with error",
    re.IGNORECASE,
)
# NVIDIA's module is loaded or its tools answer: nouveau's complaint is then from before, or from another card.
NVIDIA_RUNS = re.compile(
    r"NVRM: loading NVIDIA UNIX|\|\s*NVIDIA-SMI\s+\d|\bnvidia-modeset: Loading NVIDIA Kernel Mode Setting|"
    r"\[drm\] Initialized nvidia-drm\b",
    re.IGNORECASE,
)
SMI_MISSING = re.compile(r"nvidia-smi\W{0,3}(?:command )?not found|No such file or directory:?\W*nvidia-smi", re.I)
OTHER_CAUSES = ("driver_does_not_support_gpu", "driver_library_mismatch", "gpu_xid_fault", "no_nvidia_driver")


def nouveau_failing_match(lines: list[str], matches: list[Match]) -> Match | None:
    """nouveau drives the NVIDIA GPU and fails on it: the nvidia module is not the one loaded for the card."""
    if any(m.id in OTHER_CAUSES and m.specific for m in matches):
        return None
    if any(m.id == "nvidia_module_not_loaded" for m in matches):
        return None
    found = None
    for i, line in enumerate(lines[:5000], start=1):
        head = line[:MAX_LINE]
        if NVIDIA_RUNS.search(head) or SMI_MISSING.search(head):
            return None
        if found is None and NOUVEAU_FAILS.search(head):
            found = (i, line.strip()[:500])
    if found is None:
        return None
    return Match("nvidia_module_not_loaded", found[0], found[1], True, 0.8)
