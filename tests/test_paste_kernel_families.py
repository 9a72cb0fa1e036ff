"""The NVIDIA kernel module's messages read as families (round 13): every message written here from the open
driver's source (open-gpu-kernel-modules 595.45.04: kernel-open/nvidia/nv.c, nv-pci.c, src/nvidia/.../kernel_gsp.c)
and the kernel's driver core, in the forms the kernel's readers print them (dmesg, dmesg -T, journalctl's syslog
and ISO prefixes), each beside a text of the same prefixes that must not be read as a fault. The texts are
written here, not taken from a thread."""

from __future__ import annotations

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.knowledge import catalogue
from gpuassist.knowledge.messages import rows

PREFIXES = [
    "[    4.512345] ",
    "[Tue Nov 24 10:01:02 2026] ",
    "Nov 24 10:01:02 host kernel: ",
    "2026-11-24T10:01:02+0000 host kernel: ",
    "",
]


def _claimed(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings if f.severity in (Severity.ERROR, Severity.WARNING)]


def _errors(text: str) -> set[str]:
    return {f.id for f in load_text(text).findings if f.severity is Severity.ERROR}


def _log(prefix: str, *lines: str) -> str:
    return "".join(prefix + line + "\n" for line in lines)


@pytest.mark.parametrize("prefix", PREFIXES)
def test_a_kernel_log_of_only_nvrm_lines_is_read_not_refused(prefix: str) -> None:
    """NVRM is the NVIDIA kernel module's own prefix: a log that never spells "NVIDIA" is still about the GPU."""
    text = _log(prefix, "NVRM: rm_init_rm() failed!", "NVRM: failed to initialize module.")
    assert _claimed(text)[0] == "nvidia_module_not_loaded"
    assert not _errors(text)  # why RM did not start is not in these lines


@pytest.mark.parametrize("prefix", PREFIXES)
def test_a_gpu_without_an_interrupt_is_the_probe_failing_not_an_unsupported_gpu(prefix: str) -> None:
    text = _log(
        prefix,
        "NVRM: Can't find an IRQ for your NVIDIA card!",
        "NVRM: Please check your BIOS settings.",
        "NVRM: [Plug & Play OS] should be set to NO",
        "NVRM: [Assign IRQ to VGA] should be set to YES ",
    )
    claimed = _claimed(text)
    assert claimed[0] == "nvidia_module_not_loaded"
    assert "driver_does_not_support_gpu" not in claimed and "no_nvidia_gpu" not in claimed
    assert not _errors(text)


@pytest.mark.parametrize(
    "line", ["NVRM: FATAL: Failed to re-allocate BAR1.", "NVRM: No address space to allocate resized BAR1."]
)
def test_a_resized_bar_without_address_space_is_a_possible_platform_fault(line: str) -> None:
    claimed = _claimed(_log("[    3.1] ", line))
    assert claimed[0] == "gpu_xid_fault"
    assert "no_nvidia_gpu" not in claimed


def test_no_pci_devices_found_is_no_gpu_the_driver_matches() -> None:
    claimed = _claimed(_log("[    4.5] ", "NVRM: No NVIDIA PCI devices found."))
    assert claimed[0] == "no_nvidia_gpu"
    assert "driver_library_mismatch" not in claimed


@pytest.mark.parametrize(
    "line",
    [
        "nvidia: probe of 0000:01:00.0 failed with error -1",  # drivers/base/dd.c before 6.x
        "nvidia 0000:01:00.0: probe with driver nvidia failed with error -1",  # 6.x
    ],
)
def test_the_driver_cores_probe_failure_is_a_guess(line: str) -> None:
    for prefix in PREFIXES:
        text = _log(prefix, line)
        assert set(_claimed(text)) >= {"driver_does_not_support_gpu", "nvidia_module_not_loaded"}, prefix
        assert not _errors(text), prefix


def test_the_probe_failure_beside_its_reason_yields_to_the_reason() -> None:
    text = _log(
        "[Tue Nov 24 10:01:02 2026] ",
        "NVRM: GPU 0000:01:00.0 is already bound to nouveau.",
        "nvidia: probe of 0000:01:00.0 failed with error -1",
        "NVRM: The NVIDIA probe routine was not called for 1 device(s).",
    )
    assert _claimed(text)[0] == "nvidia_module_not_loaded"
    assert _errors(text) == {"nvidia_module_not_loaded"}


def test_systemd_failing_to_insert_the_core_module_with_enodev_is_the_driver_refusing_the_gpu() -> None:
    text = "Nov 24 10:01:02 host systemd-modules-load[300]: Failed to insert module 'nvidia': No such device\n"
    assert _claimed(text)[:2] == ["driver_does_not_support_gpu", "nvidia_module_not_loaded"]
    assert not _errors(text)


@pytest.mark.parametrize("prefix", PREFIXES)
def test_an_unresponsive_gsp_is_a_gpu_fault(prefix: str) -> None:
    text = _log(prefix, "NVRM: GPU0 =============== GSP-RM unresponsive ==================")
    assert _errors(text) == {"gpu_xid_fault"}


def test_gsp_that_cannot_boot_is_a_possible_fault_and_missing_firmware_an_incomplete_install() -> None:
    boot = _log("[   10.1] ", "NVRM: _kgspBootGspRm: unexpected WPR2 already up, cannot proceed with booting GSP")
    assert _claimed(boot)[0] == "gpu_xid_fault"
    firmware = _log("[   10.1] ", "NVRM: kgspInitRm_IMPL: need firmware to initialize GSP")
    assert _claimed(firmware)[0] == "driver_library_mismatch"
    assert not _errors(boot) and not _errors(firmware)


# -- decoys: the same prefixes, a driver that loads -----------------------------------------------------------------


@pytest.mark.parametrize("prefix", PREFIXES)
def test_a_healthy_boot_log_with_every_nvidia_prefix_claims_nothing(prefix: str) -> None:
    text = _log(
        prefix,
        "nvidia: loading out-of-tree module taints kernel.",
        "nvidia: module license 'NVIDIA' taints kernel.",
        "nvidia: module verification failed: signature and/or required key missing - tainting kernel",
        "nvidia-nvlink: Nvlink Core is being initialized, major device number 511",
        "nvidia 0000:01:00.0: vgaarb: VGA decodes changed: olddecodes=io+mem,decodes=none:owns=none",
        "NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  570.133.07  Release Build",
        "nvidia-modeset: Loading NVIDIA UNIX Open Kernel Mode Setting Driver for x86_64  570.133.07",
        "[drm] [nvidia-drm] [GPU ID 0x00000100] Loading driver",
        "[drm] Initialized nvidia-drm 0.0.0 20160202 for 0000:01:00.0 on minor 1",
        "nvidia-uvm: Loaded the UVM driver, major device number 509.",
    )
    assert not _claimed(text)


@pytest.mark.parametrize(
    "text",
    [
        "Nov 24 10:01:02 host systemd-modules-load[300]: Failed to insert module 'nvidia_peermem': Invalid argument\n"
        "Nov 24 10:01:02 host kernel: nvidia_peermem: Unknown symbol ib_register_peer_memory_client (err -2)\n",
        "modprobe: ERROR: could not insert 'nvidia_peermem': Invalid argument\n",
        "[   12.0] nvidia_peermem: Unknown symbol ib_unregister_peer_memory_client (err -2)\n",
    ],
)
def test_nvidia_peermem_without_mlnx_ofed_is_not_the_driver_missing(text: str) -> None:
    """nvidia-peermem (GPUDirect RDMA) links against the peer-memory API only MLNX_OFED's ib_core exports
    (kernel-open/nvidia-peermem/nvidia-peermem.c calls ib_register_peer_memory_client): without it the module
    does not load, and CUDA works all the same."""
    assert "nvidia_module_not_loaded" not in _claimed(text)


def test_the_core_module_failing_on_a_symbol_is_still_the_module_not_loaded() -> None:
    text = "[   10.1] nvidia: Unknown symbol drm_gem_prime_export (err -2)\n"
    assert _errors(text) == {"nvidia_module_not_loaded"}


def test_what_a_row_rules_out_is_a_catalogue_id_it_does_not_also_mean() -> None:
    for row in rows():
        ruled_out = row.fields.get("rules_out", [])
        for fid in ruled_out:
            assert fid in catalogue(), (row.key, fid)
            assert fid not in row.ids, (row.key, fid)


def test_an_uncorrected_pcie_error_on_the_nvidia_device_is_a_possible_fault_and_a_corrected_one_nothing() -> None:
    fatal = (
        "[ 500.1] pcieport 0000:00:01.0: AER: Uncorrected (Fatal) error received: 0000:01:00.0\n"
        "[ 500.1] nvidia 0000:01:00.0: AER: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, "
        "(Receiver ID)\n"
    )
    assert _claimed(fatal)[0] == "gpu_xid_fault"
    assert not _errors(fatal)
    corrected = (
        "[ 500.1] pcieport 0000:00:01.0: AER: Corrected error received: 0000:01:00.0\n"
        "[ 500.1] nvidia 0000:01:00.0: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)\n"
    )
    assert not _claimed(corrected)


@pytest.mark.parametrize(
    "text",
    [
        "[    3.1] nvidia: unknown parameter 'NVreg_DynamicPowerManagement' ignored\n",
        "[    3.1] nvidia_uvm: module uses symbols nvUvmInterfaceDeRegisterUvmOps from proprietary module nvidia, "
        "inheriting taint.\n",
        "[    4.1] nvidia-gpu 0000:01:00.3: i2c timeout error e0000000\n"  # the USB-C controller's i2c, not CUDA's GPU
        "[    4.1] ucsi_ccg: probe of 0-0008 failed with error -110\n",
        "[    3.0] nvidia 0000:01:00.0: enabling device (0000 -> 0003)\n",
        "[    3.0] PKCS#7 signature not signed with a trusted key\n"
        "[    3.4] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024\n",
    ],
)
def test_kernel_lines_of_a_driver_that_loads_claim_nothing(text: str) -> None:
    assert not _claimed(text)


@pytest.mark.parametrize("prefix", PREFIXES)
def test_a_suspend_the_driver_could_not_prepare_is_the_gpu_wedged_after_suspend(prefix: str) -> None:
    text = _log(
        prefix,
        "NVRM: GPU 0000:01:00.0: PreserveVideoMemoryAllocations module parameter is set. System Power Management "
        "attempted without driver procfs suspend interface. Please refer to the 'Configuring Power Management "
        "Support' section in the driver README.",
        "PM: pci_pm_suspend(): nv_pmops_suspend+0x0/0x30 [nvidia] returns -5",
    )
    assert _claimed(text)[0] == "uvm_wedged_after_suspend"
    assert not _errors(text)


def test_a_fabric_manager_line_that_never_spells_nvidia_is_read_not_refused() -> None:
    """nv-fabricmanager on a machine without NVSwitch exits with this; CUDA does not need it (ingest/fabric.py)."""
    text = (
        "Nov 24 10:01:02 host nv-fabricmanager[1234]: request to query NVSwitch device information from NVSwitch "
        "driver failed with error:WARNING Nothing to do [NV_WARN_NOTHING_TO_DO]\n"
    )
    assert "fabric_manager_missing" not in _claimed(text)


def test_the_usb_c_controllers_probe_failure_is_not_the_gpus() -> None:
    """i2c-nvidia-gpu drives the USB-C controller of Turing cards ("nvidia-gpu"); its probe failing leaves CUDA be."""
    text = "[    4.1] nvidia-gpu: probe of 0000:01:00.3 failed with error -110\n"
    assert not _claimed(text)
