"""Round 20 (issue #14): module-init-tools' modprobe wording ('FATAL: Error inserting nvidia (<path>): <errno>'), the
older form of kmod's "could not insert 'nvidia': <errno>". The core module's 'No such device' is nvidia_init_module()
taking no GPU: the text cannot tell whether there is none, the branch dropped it, or nouveau holds it, so all three
are named as possibilities and a missing driver or a library mismatch is ruled out (the module file exists and
loaded). A companion module's 'No such device' is the core module not up. Synthetic texts and counter-examples."""

from __future__ import annotations

from gpuassist.findings import Severity
from gpuassist.ingest import load_text

CORE_NO_DEVICE = (
    "$ sudo modprobe nvidia\n"
    "FATAL: Error inserting nvidia (/lib/modules/2.6.32-696.el6.x86_64/extra/nvidia.ko): No such device\n"
)
UVM_NO_DEVICE = (
    "$ sudo modprobe nvidia-uvm\n"
    "FATAL: Error inserting nvidia_uvm (/lib/modules/3.13.0-24-generic/updates/dkms/nvidia_uvm.ko): No such device\n"
)


def test_core_module_no_device_names_every_reading_and_claims_none() -> None:
    findings = load_text(CORE_NO_DEVICE).findings
    ids = [f.id for f in findings]
    assert {"no_nvidia_gpu", "driver_does_not_support_gpu", "nvidia_module_not_loaded"} <= set(ids)
    assert all(f.severity == Severity.WARNING for f in findings)
    assert not {"no_nvidia_driver", "driver_library_mismatch", "cpu_only_build"} & set(ids)


def test_companion_module_no_device_is_the_core_module_not_up() -> None:
    ids = [f.id for f in load_text(UVM_NO_DEVICE).findings]
    assert ids and ids[0] == "nvidia_module_not_loaded"
    assert "no_nvidia_gpu" not in ids


def test_other_modules_and_healthy_loads_claim_nothing() -> None:
    # another driver's module: not NVIDIA's
    other = load_text(
        "Setting up passthrough of my NVIDIA GPU to a VM:\n"
        "FATAL: Error inserting kvm_intel (/lib/modules/2.6.32-5-amd64/kernel/arch/x86/kvm/kvm-intel.ko): "
        "Operation not supported\n"
    )
    assert not {f.id for f in other.findings} & {"no_nvidia_gpu", "driver_does_not_support_gpu"}
    # nvidia_peermem needs MLNX_OFED's symbols; CUDA is unaffected (message-families.md, round 13)
    peermem = load_text(
        "FATAL: Error inserting nvidia_peermem (/lib/modules/5.4.0/updates/dkms/nvidia-peermem.ko): No such device\n"
    )
    assert not {f.id for f in peermem.findings} & {"no_nvidia_gpu", "driver_does_not_support_gpu"}


def test_old_wording_of_other_errnos_reads_like_kmods() -> None:
    # the same errno texts kmod prints after "could not insert 'nvidia':" (Secure Boot key, module for another kernel)
    for errno_text in ("Required key not available", "Unknown symbol in module, or unknown parameter (see dmesg)"):
        module = "/lib/modules/4.4.0-21-generic/updates/dkms/nvidia.ko"
        text = f"modprobe: FATAL: Error inserting nvidia ({module}): {errno_text}\n"
        ids = [f.id for f in load_text(text).findings]
        assert ids and ids[0] == "nvidia_module_not_loaded", errno_text
