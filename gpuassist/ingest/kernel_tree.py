"""A kernel module build stopped by an unconfigured kernel tree, when the module is not NVIDIA's.

Every out-of-tree module build compiles include/linux/kconfig.h, which includes generated/autoconf.h; the kernel's
top Makefile refuses with "Kernel configuration is invalid ... include/generated/autoconf.h or include/config/auto.conf
are missing" first. Both mean the headers/build tree of the target kernel are absent or incomplete (messages.json,
kmod row ``kernel_tree_unconfigured``): for the NVIDIA module, no nvidia.ko for that kernel. DKMS builds many other
modules (VirtualBox, ZFS, Wi-Fi drivers); a text that names one of them and never NVIDIA is about that module.
"""

from __future__ import annotations

import re

from gpuassist.ingest.dkms_words import NVIDIA, OTHER_MODULE
from gpuassist.ingest.errors import Match

UNCONFIGURED = re.compile(
    r"generated/autoconf\.h|Kernel configuration is invalid|include/config/auto\.conf", re.IGNORECASE
)
LINE = 2000


def other_module_build(lines: list[str], matches: list[Match]) -> list[Match]:
    """Drop nvidia_module_not_loaded read from an unconfigured kernel tree when the text names another DKMS module
    and never NVIDIA."""
    if not any(m.id == "nvidia_module_not_loaded" and UNCONFIGURED.search(m.line[:LINE]) for m in matches):
        return matches
    if any(NVIDIA.search(line[:LINE]) for line in lines) or not any(OTHER_MODULE.search(line[:LINE]) for line in lines):
        return matches
    return [m for m in matches if not (m.id == "nvidia_module_not_loaded" and UNCONFIGURED.search(m.line[:LINE]))]
