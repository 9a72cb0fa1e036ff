"""Round 29 (issue #14): the NVIDIA kernel module that does not build on this kernel (modpost, nvidia-installer).

The kernel's modpost refuses the proprietary nvidia.ko when it uses a symbol this kernel exports GPL-only, or one it
no longer exports (scripts/mod/modpost.c); the nvidia-installer reports the failed build as the step "Checking to
see whether the nvidia kernel module was successfully built" (kernel.c check_file()) or, in the 1.0 series, "Unable
to build the NVIDIA kernel module". Each means no nvidia.ko for that kernel. Another module's modpost error is not
about NVIDIA. Synthetic texts.
"""

from __future__ import annotations

import pytest

from gpuassist.ingest import UnreadableInput, load_text


def _ids(text: str) -> list[str]:
    try:
        return [f.id for f in load_text(text).findings]
    except UnreadableInput:
        return []


@pytest.mark.parametrize(
    "line",
    [
        "ERROR: modpost: GPL-incompatible module nvidia.ko uses GPL-only symbol 'rcu_read_lock_strict'",
        "FATAL: modpost: GPL-incompatible module nvidia-uvm.ko uses GPL-only symbol 'radix_tree_preloads'",
        'ERROR: modpost: "follow_pfn" [/var/lib/dkms/nvidia/470.223.02/build/nvidia.ko] undefined!',
    ],
)
def test_modpost_refusing_the_nvidia_module_reads_the_module_not_built(line: str) -> None:
    text = (
        "dkms build of the driver for kernel 6.7.2 fails:\n"
        "  MODPOST /var/lib/dkms/nvidia/470.223.02/build/Module.symvers\n" + line + "\n"
        "make[2]: *** [scripts/Makefile.modpost:145: Module.symvers] Error 1\n"
    )
    assert _ids(text)[:1] == ["nvidia_module_not_loaded"]


def test_the_installer_check_step_failing_reads_the_module_not_built() -> None:
    text = (
        "Running the .run installer for 535.104.05 on 6.2.0-39:\n"
        'ERROR: An error occurred while performing the step: "Checking to see whether the nvidia kernel module '
        'was successfully built". See /var/log/nvidia-installer.log for details.\n'
    )
    assert _ids(text)[:1] == ["nvidia_module_not_loaded"]


@pytest.mark.parametrize(
    "line",
    [
        "ERROR: modpost: GPL-incompatible module zfs.ko uses GPL-only symbol '__rcu_read_lock'",
        'ERROR: modpost: "kvm_read_guest" [/var/lib/dkms/vboxhost/7.0.18/build/vboxdrv.ko] undefined!',
    ],
)
def test_another_modules_modpost_error_is_not_blamed_on_nvidia(line: str) -> None:
    text = "dkms install fails after the kernel update to 6.7.2:\n" + line + "\n"
    assert "nvidia_module_not_loaded" not in _ids(text)


def test_the_installer_interface_wording_is_not_read_as_the_check_step() -> None:
    assert "nvidia_module_not_loaded" not in _ids("The NVIDIA kernel module was built without problems.\n")
