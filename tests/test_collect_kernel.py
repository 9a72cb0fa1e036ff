"""kernel.*: loaded modules, module version, Secure Boot and the nouveau blacklist."""

from __future__ import annotations

import pytest

import hostdata
from gpuassist.collect import kernel
from gpuassist.facts import NotCollected

SB = "/sys/firmware/efi/efivars/" + kernel.SECURE_BOOT_VAR


@pytest.mark.parametrize(
    ("host", "modules", "version", "secure_boot", "blacklisted"),
    [
        (
            "workstation-rtx4090",
            ["nvidia", "nvidia_uvm", "nvidia_drm", "nvidia_modeset", "amdgpu"],
            "550.54.14",
            True,
            True,
        ),
        ("nouveau-no-driver", ["nouveau"], None, True, False),
        (
            "driver-mismatch",
            ["nvidia", "nvidia_uvm", "nvidia_drm", "nvidia_modeset"],
            "535.154.05",
            None,
            True,
        ),
        (
            "docker-no-gpu-runtime",
            ["nvidia", "nvidia_uvm", "nvidia_drm", "nvidia_modeset"],
            "550.54.14",
            None,
            False,
        ),
        ("wsl2", [], None, None, False),
        ("vm-no-gpu", [], None, None, False),
    ],
)
def test_recorded_hosts(
    host: str, modules: list[str], version: str | None, secure_boot: bool | None, blacklisted: bool
) -> None:
    facts = hostdata.run(kernel.collect, hostdata.ctx(host))
    assert facts["kernel.modules"] == modules
    assert facts["kernel.modules_source"] == "proc"
    assert facts["kernel.nvidia_module_version"] == version
    assert facts["kernel.secure_boot"] is secure_boot
    assert facts["kernel.nouveau_blacklisted"] is blacklisted
    assert bool(facts["kernel.nouveau_blacklisted_by"]) is blacklisted


def test_sysfs_fallback_when_proc_modules_is_missing() -> None:
    ctx = hostdata.dict_ctx(
        {
            "/sys/module/nvidia/version": "550.54.14\n",
            "/sys/module/nvidia_uvm/initstate": "live",
            "/sys/module/kernel/parameters/panic": "0",
        }
    )
    facts = hostdata.run(kernel.collect, ctx)
    assert facts["kernel.modules"] == ["nvidia", "nvidia_uvm"]
    assert facts["kernel.modules_source"] == "sysfs"
    assert facts["kernel.nvidia_module_version"] == "550.54.14"


def test_unreadable_proc_modules_without_sysfs_is_not_collected() -> None:
    facts = hostdata.run(kernel.collect, hostdata.dict_ctx({"/proc/modules": {"readable": False}}))
    assert facts["kernel.modules"] == NotCollected("cannot read /proc/modules")
    assert facts["kernel.modules_source"] is None


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ("\x06\x00\x00\x00\x01", True),
        ("\x06\x00\x00\x00\x00", False),
    ],
)
def test_secure_boot_variable(data: str, expected: bool) -> None:
    facts = hostdata.run(kernel.collect, hostdata.dict_ctx({SB: data}))
    assert facts["kernel.secure_boot"] is expected


def test_secure_boot_on_efi_without_efivars_is_not_collected() -> None:
    facts = hostdata.run(kernel.collect, hostdata.dict_ctx({"/sys/firmware/efi/runtime": ""}))
    assert isinstance(facts["kernel.secure_boot"], NotCollected)


def test_old_sysfs_efi_vars_interface() -> None:
    path = f"/sys/firmware/efi/vars/{kernel.SECURE_BOOT_VAR}/data"
    assert hostdata.run(kernel.collect, hostdata.dict_ctx({path: "\x01"}))["kernel.secure_boot"] is True


def test_blacklist_sources_and_comments() -> None:
    ctx = hostdata.dict_ctx(
        {
            "/etc/modprobe.d/old.conf": "# blacklist nouveau\n",  # commented out: does not count
            "/etc/modprobe.d/readme.txt": "blacklist nouveau\n",  # not a .conf: modprobe ignores it
            "/usr/lib/modprobe.d/nvidia-installer-disable-nouveau.conf": "blacklist nouveau\n",
            "/lib/modprobe.d/other.conf": "install nouveau /bin/false\n",
            "/proc/cmdline": "BOOT_IMAGE=/vmlinuz ro modprobe.blacklist=nouveau,pcspkr\n",
        }
    )
    facts = hostdata.run(kernel.collect, ctx)
    assert facts["kernel.nouveau_blacklisted"] is True
    assert facts["kernel.nouveau_blacklisted_by"] == [
        "/lib/modprobe.d/other.conf",
        "/usr/lib/modprobe.d/nvidia-installer-disable-nouveau.conf",
        "/proc/cmdline",
    ]


def test_not_applicable_on_darwin() -> None:
    facts = hostdata.run(kernel.collect, hostdata.ctx("workstation-rtx4090", os_name="Darwin"))
    assert facts == dict.fromkeys(kernel.KEYS, NotCollected("not applicable on Darwin"))
