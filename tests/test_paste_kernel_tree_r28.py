"""Round 28 (issue #14): a kernel module build stopped by an unconfigured kernel tree (generated/autoconf.h missing).

kconfig.h's include of generated/autoconf.h, and the kernel Makefile's "Kernel configuration is invalid", mean the
target kernel's headers are absent or incomplete: the module is not built for it. For NVIDIA's module that is the
module not loaded (a possibility); a text about another DKMS module only is not about the GPU. Synthetic texts.
"""

from __future__ import annotations

import pytest

from gpuassist.ingest import UnreadableInput, load_text


def _ids(text: str) -> list[str]:
    try:
        return [f.id for f in load_text(text).findings]
    except UnreadableInput:
        return []


def test_nvidia_dkms_build_with_missing_autoconf_reads_the_module_not_built() -> None:
    text = (
        "After the kernel update to 6.9.1 dkms fails for nvidia 550.78:\n"
        "  CC [M]  /var/lib/dkms/nvidia/550.78/build/nvidia/nv.o\n"
        "./include/linux/kconfig.h:5:10: fatal error: generated/autoconf.h: No such file or directory\n"
        "compilation terminated.\n"
    )
    assert _ids(text)[0] == "nvidia_module_not_loaded"


@pytest.mark.parametrize(
    "line",
    [
        "include/linux/kconfig.h:5:10: fatal error: generated/autoconf.h: No such file or directory",
        "***  ERROR: Kernel configuration is invalid.\n***         include/generated/autoconf.h or "
        "include/config/auto.conf are missing.",
    ],
)
def test_both_forms_of_the_unconfigured_tree_are_read(line: str) -> None:
    assert "nvidia_module_not_loaded" in _ids("Module build for the new kernel failed:\n" + line + "\n")


def test_another_modules_build_is_not_blamed_on_nvidia() -> None:
    text = (
        "Building vboxdrv for 6.9.1 with dkms install virtualbox/7.0.18:\n"
        "./include/linux/kconfig.h:5:10: fatal error: generated/autoconf.h: No such file or directory\n"
    )
    assert "nvidia_module_not_loaded" not in _ids(text)
