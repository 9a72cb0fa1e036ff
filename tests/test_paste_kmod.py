"""The driver and kernel side read from pasted texts: the NVIDIA module not running (another driver owning the GPU,
Secure Boot refusing the module, nvidia-settings and the X driver saying so, nvidia-installer's load errors), each
with a text that must NOT be read that way. The texts are written here, not taken from a thread."""

from __future__ import annotations

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text


def _first(text: str) -> tuple[str, Severity] | None:
    report = load_text(text)
    return (report.findings[0].id, report.findings[0].severity) if report.findings else None


def _errors(text: str) -> set[str]:
    return {f.id for f in load_text(text).findings if f.severity is Severity.ERROR}


def _claimed(text: str) -> set[str]:
    return {f.id for f in load_text(text).findings if f.severity in (Severity.ERROR, Severity.WARNING)}


# -- another in-tree driver owns the GPU (nv-pci.c check_for_bound_driver) -------------------------------------------


@pytest.mark.parametrize("driver", ["nouveau", "nova_core", "NovaCore", "simple-framebuffer"])
def test_gpu_bound_to_another_driver_is_the_module_not_getting_the_gpu(driver: str) -> None:
    text = (
        "$ sudo modprobe nvidia\n"
        "modprobe: ERROR: could not insert 'nvidia': No such device\n"
        "$ sudo dmesg | tail -3\n"
        f"[   88.120001] NVRM: GPU 0000:2b:00.0 is already bound to {driver}.\n"
        "[   88.120340] NVRM: The NVIDIA probe routine was not called for 1 device(s).\n"
        "[   88.120400] NVRM: No NVIDIA devices probed.\n"
    )
    assert _first(text) == ("nvidia_module_not_loaded", Severity.ERROR)
    assert "driver_does_not_support_gpu" not in _claimed(text)  # the probe failing is the consequence


def test_gpu_handed_to_vfio_is_not_read_as_a_module_fault() -> None:
    text = "[   12.1] NVRM: GPU 0000:65:00.0 is already bound to vfio-pci.\n"
    assert "nvidia_module_not_loaded" not in _errors(text)


def test_no_devices_probed_alone_stays_a_guess() -> None:
    text = "[    5.2] NVRM: No NVIDIA devices probed.\n[    5.2] nvidia: probe of 0000:01:00.0 failed with error -1\n"
    assert not _errors(text)


# -- nvidia-installer's load errors (nvidia-installer kernel.c) --------------------------------------------------------


def test_installer_load_error_with_key_text_is_secure_boot() -> None:
    text = (
        "ERROR: Unable to load the kernel module 'nvidia.ko'.  This happens most frequently when this kernel module\n"
        "was built against the wrong or improperly configured kernel sources\n"
        "ERROR: Installation has failed.\n"
        "-> Kernel module load error: Key was rejected by service\n"
    )
    assert _first(text) == ("nvidia_module_not_loaded", Severity.ERROR)


def test_installer_load_error_no_device_is_a_guess_between_two_causes() -> None:
    text = "ERROR: Unable to load the kernel module 'nvidia.ko'.\n-> Kernel module load error: No such device\n"
    claimed = _claimed(text)
    assert not _errors(text)
    assert {"nvidia_module_not_loaded", "driver_does_not_support_gpu"} <= claimed


def test_installer_untrusted_signature_message() -> None:
    text = (
        "ERROR: The kernel module failed to load. Secure boot is enabled on this system, so this is likely because\n"
        "it was not signed by a key that is trusted by the kernel. Please try installing the driver again\n"
    )
    assert _first(text) == ("nvidia_module_not_loaded", Severity.ERROR)


# -- nvidia-settings and the X driver ----------------------------------------------------------------------------------


def test_nvidia_settings_says_the_driver_is_not_loaded_after_a_kernel_update() -> None:
    text = (
        "After upgrading the kernel to 6.11 the screen is stuck at 1024x768.\n"
        "$ nvidia-settings\n\nERROR: NVIDIA driver is not loaded\n\n"
        "ERROR: Unable to load info from any available system\n"
    )
    assert _first(text) == ("nvidia_module_not_loaded", Severity.ERROR)
    assert not {"no_nvidia_gpu", "no_nvidia_driver"} & _claimed(text)


def test_nvidia_settings_without_the_driver_line_is_a_guess() -> None:
    text = "$ nvidia-settings -q all\nERROR: Unable to load info from any available system\n"
    assert not _errors(text)
    assert "nvidia_module_not_loaded" in _claimed(text)


def test_x_log_failing_to_load_the_kernel_module() -> None:
    text = (
        '[    21.902] (II) LoadModule: "nvidia"\n'
        "[    21.950] (EE) NVIDIA: Failed to load the NVIDIA kernel module. Please check your\n"
        "[    21.950] (EE) NVIDIA:     system's kernel log for additional error messages.\n"
        '[    21.951] (EE) Failed to load module "nvidia" (module-specific error, 0)\n'
    )
    assert _first(text) == ("nvidia_module_not_loaded", Severity.ERROR)


def test_healthy_x_log_is_not_a_module_fault() -> None:
    text = (
        '[    21.902] (II) LoadModule: "nvidia"\n'
        "[    21.950] (II) NVIDIA dlloader X Driver  550.54.14  Thu Feb 22 01:25:25 UTC 2024\n"
        "[    21.990] (II) NVIDIA(0): NVIDIA GPU NVIDIA GeForce RTX 3060 (GA106-A) at PCI:1:0:0 (GPU-0)\n"
    )
    assert "nvidia_module_not_loaded" not in _claimed(text)


def test_nvidia_smi_failure_quoted_without_its_prefix() -> None:
    text = 'Since the update `nvidia-smi` says "couldn\'t communicate with the NVIDIA driver" and torch sees no GPU.\n'
    assert _first(text) is not None
    assert _first(text) == ("nvidia_module_not_loaded", Severity.WARNING)


# -- Secure Boot refusing the module (mokutil, lockdown) ---------------------------------------------------------------


def test_mok_not_enrolled_is_the_verdict() -> None:
    text = (
        "$ mokutil --sb-state\nSecureBoot enabled\n"
        "$ mokutil --test-key /var/lib/shim-signed/mok/MOK.der\n/var/lib/shim-signed/mok/MOK.der is not enrolled\n"
        "$ nvidia-smi\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest\n"
    )
    assert _first(text) == ("nvidia_module_not_loaded", Severity.ERROR)
    assert "driver_does_not_support_gpu" not in _claimed(text)


def test_secure_boot_on_with_the_module_missing_from_lsmod() -> None:
    text = (
        "Fresh install of Ubuntu 24.04 on an RTX 4070 laptop, Secure Boot is enabled in the firmware.\n"
        "`lsmod | grep nvidia` returns nothing and torch.cuda.is_available() is False.\n"
        "[    0.000000] Kernel is locked down from EFI Secure Boot mode; see man kernel_lockdown.7\n"
    )
    assert _first(text) == ("nvidia_module_not_loaded", Severity.ERROR)


def test_secure_boot_on_with_a_working_driver_is_not_a_fault() -> None:
    text = (
        "$ mokutil --sb-state\nSecureBoot enabled\n$ nvidia-smi -L\n"
        "GPU 0: NVIDIA GeForce RTX 4090 (UUID: GPU-00000000-1111-2222-3333-444444444444)\n"
    )
    assert "nvidia_module_not_loaded" not in _claimed(text)


def test_secure_boot_disabled_is_not_the_reading() -> None:
    text = (
        "$ mokutil --sb-state\nSecureBoot disabled\n$ nvidia-smi\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest\n"
    )
    assert "nvidia_module_not_loaded" not in _errors(text)


def test_secure_boot_beside_a_legacy_gpu_message_leaves_the_kernel_reason_first() -> None:
    text = (
        "$ mokutil --sb-state\nSecureBoot enabled\n$ nvidia-smi\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest\n"
        "[    4.20] NVRM: The NVIDIA Quadro K2000 GPU installed in this system is\n"
        "[    4.20] NVRM:  supported through the NVIDIA 470.xx Legacy drivers. Please\n"
    )
    assert _first(text) == ("driver_does_not_support_gpu", Severity.ERROR)
    assert "nvidia_module_not_loaded" not in _errors(text)


def test_lsmod_empty_alone_is_a_guess() -> None:
    text = "torch says CUDA is not available; lsmod | grep nvidia shows nothing on this box.\n"
    assert _first(text) == ("nvidia_module_not_loaded", Severity.WARNING)


def test_kernel_refusing_an_unsigned_module() -> None:
    text = "[   14.5] Loading of unsigned module is rejected\n$ nvidia-smi\nNo devices were found\n"
    assert _first(text) is not None and _first(text)[0] == "nvidia_module_not_loaded"  # type: ignore[index]


# -- the driver branch cannot drive the GPU named (knowledge/driver_branches.json) -------------------------------------


@pytest.mark.parametrize(
    ("gpu", "installed"),
    [
        ("GeForce GT 710", "sudo apt install nvidia-driver-535"),  # Kepler: 470 was its last branch
        ("GeForce GTX 1050 Ti", "installed NVIDIA-Linux-x86_64-595.58.03.run"),  # Pascal: 580 was its last
        (
            "Tesla K80",
            "[    3.1] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024",
        ),
        ("GeForce RTX 4070", "sudo dnf install nvidia-driver-470"),  # Ada needs 520 or newer
    ],
)
def test_a_branch_outside_the_gpus_range_is_the_cause(gpu: str, installed: str) -> None:
    text = (
        f"My card is a {gpu}.\n{installed}\nAfter a reboot:\n$ nvidia-smi\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest\n"
    )
    assert _first(text) == ("driver_does_not_support_gpu", Severity.ERROR)
    assert "nvidia_module_not_loaded" not in _errors(text)


def test_open_modules_on_a_gpu_without_gsp() -> None:
    text = (
        "sudo apt install nvidia-open\nGPU: NVIDIA GeForce GTX 1080\n"
        "torch.cuda.is_available() returns False and nvidia-smi says No devices were found\n"
    )
    assert _first(text) == ("driver_does_not_support_gpu", Severity.ERROR)


@pytest.mark.parametrize(
    "text",
    [
        # the branch supports the GPU: the reading stays the module's
        "My card is a GeForce GTX 1050 Ti.\nsudo apt install nvidia-driver-535\n$ nvidia-smi\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest\n",
        # Windows numbers R580 releases 581.xx: still the Pascal branch
        "GTX 1060 6GB, driver 581.57 installed, torch.cuda.is_available() is False\n",
        # nvidia-smi answered: whatever the versions, the driver drives the GPU it lists
        "GeForce GT 710 with nvidia-driver-535\n"
        "| NVIDIA-SMI 535.129.03   Driver Version: 535.129.03   CUDA Version: 12.2 |\n"
        "torch.cuda.is_available() is False\n",
        # a Kepler GPU on its own last branch, working
        "Quadro K2000 here, nvidia-driver-470 installed, everything works and CUDA is fine\n",
        # two generations named: which is this machine's cannot be told
        "GTX 1080 at home, RTX 4090 at work; nvidia-driver-595 installed; torch.cuda.is_available() False\n",
        # a Jetson is driven by L4T, not these branches
        "Jetson Orin Nano, nvidia-driver-540 in the image, torch.cuda.is_available() is False\n",
    ],
)
def test_a_branch_that_fits_or_cannot_be_judged_is_not_blamed(text: str) -> None:
    assert "driver_does_not_support_gpu" not in _errors(text)


def test_the_finding_says_which_branch_the_gpu_needs() -> None:
    text = "GeForce GT 710\nnvidia-driver-550 installed\nNVIDIA-SMI has failed because it couldn't communicate\n"
    finding = load_text(text).findings[0]
    assert finding.id == "driver_does_not_support_gpu"
    assert any("470.xx" in e.value for e in finding.evidence)


# -- Fabric Manager (NVSwitch systems only) ----------------------------------------------------------------------------


def test_fabric_manager_older_than_the_driver() -> None:
    text = (
        "Mar 03 10:01:02 node7 systemd[1]: Starting NVIDIA fabric manager service...\n"
        "Mar 03 10:01:02 node7 nv-fabricmanager[2211]: fabric manager NVIDIA GPU driver interface version 570.86.10 "
        "doesn't match with driver version 570.124.06. Please update with the matching NVIDIA driver package.\n"
        "RuntimeError: CUDA error: system not yet initialized\n"
    )
    assert _first(text) == ("fabric_manager_missing", Severity.ERROR)


def test_fabric_manager_failing_without_nvswitches_is_not_a_cause() -> None:
    text = (
        "Two RTX 6000 Ada cards with an NVLink bridge; torch.cuda.is_available() is False after a reboot.\n"
        "Jun 02 09:00:01 ws systemd[1]: Starting NVIDIA fabric manager service...\n"
        "Jun 02 09:00:01 ws nv-fabricmanager[901]: request to query NVSwitch device information from NVSwitch driver "
        "failed with error:WARNING Nothing to do [NV_WARN_NOTHING_TO_DO]\n"
        "Jun 02 09:00:01 ws systemd[1]: nvidia-fabricmanager.service: Control process exited, code=exited, "
        "status=1/FAILURE\n"
    )
    assert "fabric_manager_missing" not in _claimed(text)


def test_fabric_manager_without_nvswitch_but_802_still_reads_802() -> None:
    text = (
        "nv-fabricmanager[901]: request to query NVSwitch device information from NVSwitch driver failed with "
        "error:WARNING Nothing to do [NV_WARN_NOTHING_TO_DO]\n"
        "RuntimeError: Unexpected error from cudaGetDeviceCount(). Error 802: system not yet initialized\n"
    )
    assert _first(text) == ("fabric_manager_missing", Severity.ERROR)


# -- DKMS built the module for another kernel (dkms status vs the running kernel) --------------------------------------


def test_dkms_built_only_for_the_previous_kernel() -> None:
    text = (
        "$ nvidia-smi\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest\n"
        "$ dkms status\n"
        "nvidia/550.120, 6.8.0-40-generic, x86_64: installed\n"
        "$ uname -r\n"
        "6.8.0-45-generic\n"
    )
    first = load_text(text).findings[0]
    assert (first.id, first.severity) == ("nvidia_module_not_loaded", Severity.ERROR)
    assert any("6.8.0-45-generic" in str(e.value) for e in first.evidence)


def test_dkms_source_added_but_never_built() -> None:
    text = "torch.cuda.is_available() returns False\n$ sudo dkms status\nnvidia, 535.183.01: added\n"
    assert _first(text) == ("nvidia_module_not_loaded", Severity.ERROR)


@pytest.mark.parametrize(
    "text",
    [
        # installed for the kernel that runs: DKMS is not the problem
        "torch.cuda.is_available() returns False\n$ dkms status\nnvidia/550.120, 6.8.0-45-generic, x86_64: installed\n"
        "$ uname -a\nLinux box 6.8.0-45-generic #45-Ubuntu SMP PREEMPT_DYNAMIC x86_64 GNU/Linux\n",
        # installed for some kernel and the running one is not stated: cannot tell
        "torch.cuda.is_available() returns False\n$ dkms status\nnvidia/550.120, 6.8.0-45-generic, x86_64: installed\n",
        # healthy: nothing is unreachable
        "$ dkms status\nnvidia/550.120, 6.8.0-40-generic, x86_64: installed\n$ uname -r\n6.8.0-45-generic\n",
    ],
)
def test_dkms_status_that_does_not_show_the_cause(text: str) -> None:
    assert "nvidia_module_not_loaded" not in _errors(text)


def test_systemd_modules_load_cannot_find_the_module() -> None:
    text = "Apr 02 08:00:01 host systemd-modules-load[412]: Failed to find module 'nvidia-drm'\n"
    assert _first(text) == ("nvidia_module_not_loaded", Severity.ERROR)


# -- lspci ---------------------------------------------------------------------------------------------------------


def test_lspci_rev_ff_is_a_gpu_gone_from_the_bus() -> None:
    text = (
        "RuntimeError: No CUDA GPUs are available\n$ lspci | grep -i nvidia\n"
        "41:00.0 3D controller: NVIDIA Corporation GA100 [A100 PCIe 40GB] (rev ff)\n"
    )
    assert _first(text) == ("gpu_xid_fault", Severity.ERROR)


def test_lspci_with_a_normal_revision_is_not_a_fault() -> None:
    text = "$ lspci | grep -i nvidia\n41:00.0 3D controller: NVIDIA Corporation GA100 [A100 PCIe 40GB] (rev a1)\n"
    assert "gpu_xid_fault" not in _claimed(text)


def test_lspci_showing_no_nvidia_device() -> None:
    text = (
        "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed\n"
        "`lspci | grep -i nvidia` returns nothing on this laptop.\n"
    )
    assert _first(text) == ("no_nvidia_gpu", Severity.ERROR)
    assert "no_nvidia_driver" not in _claimed(text)


def test_lspci_grep_vga_empty_is_not_read_as_no_gpu() -> None:
    text = "RuntimeError: No CUDA GPUs are available\nlspci | grep VGA shows nothing useful, see below\n"
    assert "no_nvidia_gpu" not in _errors(text)


def test_a_branch_that_drives_the_named_gpu_rules_out_the_unsupported_guess() -> None:
    smi = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest\n"
    named = f"GeForce GTX 1660 SUPER, tried nvidia-driver-535 and nvidia-driver-550\n$ nvidia-smi\n{smi}"
    assert "driver_does_not_support_gpu" not in _claimed(named)
    assert _first(named) == ("nvidia_module_not_loaded", Severity.WARNING)
    unnamed = f"tried nvidia-driver-535 and nvidia-driver-550\n$ nvidia-smi\n{smi}"
    assert "driver_does_not_support_gpu" in _claimed(unnamed)  # no GPU named: the guess stands


# -- the kernel changed under the driver ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "context",
    [
        "This started after the kernel was updated to 6.11.",
        "After upgrading the kernel nothing works.",
        "I booted into a newer kernel yesterday.",
        "Turned out linux-headers-$(uname -r) was not installed.",
        "Sometimes automatic updates to the kernel happen first.",
        "昨天更新了内核，之后就不行了。",
    ],
)
def test_smi_failing_after_a_kernel_change_is_the_module_not_built(context: str) -> None:
    text = (
        f"{context}\n$ nvidia-smi\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest\n"
    )
    assert _first(text) == ("nvidia_module_not_loaded", Severity.ERROR)
    assert "driver_does_not_support_gpu" not in _claimed(text)


def test_kernel_words_without_a_failure_sign_do_not_blame_the_module() -> None:
    text = "After upgrading the kernel, PyTorch training is slower: 40 it/s instead of 55 it/s on the RTX 3090 GPU.\n"
    assert "nvidia_module_not_loaded" not in _claimed(text)


def test_kernel_update_beside_an_api_mismatch_leaves_the_mismatch() -> None:
    text = (
        "After the kernel update:\n"
        "NVRM: API mismatch: the client 'nvidia-smi' (pid 4321) has the version 550.54.14, but this kernel module "
        "has the version 550.67.  Please make sure that this kernel module and all NVIDIA driver components have "
        "the same version.\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest\n"
    )
    assert _first(text) == ("driver_library_mismatch", Severity.ERROR)
    assert "nvidia_module_not_loaded" not in _errors(text)


def test_mok_enrolment_skipped_in_words() -> None:
    text = (
        "Installed the driver, rebooted, and I never saw the Enroll MOK screen.\n$ nvidia-smi\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest\n"
    )
    assert _first(text) == ("nvidia_module_not_loaded", Severity.ERROR)


def test_mok_words_with_a_working_gpu_are_not_a_fault() -> None:
    text = (
        "I enrolled the MOK and skipped nothing; nvidia-smi shows the RTX 3080 and torch.cuda.is_available() is True\n"
    )
    assert "nvidia_module_not_loaded" not in _claimed(text)


# -- nouveau holding the GPU while NVIDIA's tools are installed -------------------------------------------------------


@pytest.mark.parametrize(
    "held",
    [
        "nouveau              2351104  4",  # lsmod
        "\tKernel driver in use: nouveau",  # lspci -k
        "[    2.318] nouveau 0000:01:00.0: NVIDIA TU106 (166000a1)",  # nouveau's probe
    ],
)
def test_nouveau_holding_the_gpu_with_the_driver_installed(held: str) -> None:
    text = (
        f"{held}\n$ nvidia-smi\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest\n"
    )
    assert _first(text) == ("nvidia_module_not_loaded", Severity.ERROR)
    assert "driver_does_not_support_gpu" not in _claimed(text)


def test_nouveau_without_nvidia_tools_is_no_driver() -> None:
    text = "\tKernel driver in use: nouveau\n$ nvidia-smi\nbash: nvidia-smi: command not found\n"
    assert "nvidia_module_not_loaded" not in _errors(text)


def test_nouveau_mentioned_in_a_blacklist_with_a_working_driver() -> None:
    text = (
        "blacklist nouveau\noptions nouveau modeset=0\n$ nvidia-smi -L\nGPU 0: NVIDIA GeForce RTX 3060 (UUID: GPU-1)\n"
    )
    assert "nvidia_module_not_loaded" not in _claimed(text)


# -- the package manager lists no NVIDIA package ---------------------------------------------------------------------


def test_no_driver_package_is_a_guess_of_no_driver() -> None:
    text = "torch.cuda.is_available() is False on my GTX 1080 box; `dpkg -l | grep nvidia` shows nothing.\n"
    assert _first(text) == ("no_nvidia_driver", Severity.WARNING)


def test_package_list_with_the_driver_is_not_read_as_none() -> None:
    text = (
        "torch.cuda.is_available() is False\n$ dpkg -l | grep nvidia\nii  nvidia-driver-550  550.120-0ubuntu1  amd64\n"
    )
    assert "no_nvidia_driver" not in _claimed(text)


# -- nvidia_uvm broken by suspend/resume: the initialization error form ------------------------------------------------


@pytest.mark.parametrize(
    "error",
    [
        "RuntimeError: CUDA error: initialization error",
        "RuntimeError: CUDA driver initialization failed, you might not have a CUDA gpu.",
    ],
)
def test_initialization_error_after_resume(error: str) -> None:
    text = f"Every time the laptop wakes up from suspend, torch fails:\n{error}\nA reboot fixes it.\n"
    assert _first(text) == ("uvm_wedged_after_suspend", Severity.ERROR)


def test_initialization_error_without_a_sleep_is_a_guess() -> None:
    text = "RuntimeError: CUDA driver initialization failed, you might not have a CUDA gpu.\n"
    assert not _errors(text)
    assert "uvm_wedged_after_suspend" in _claimed(text)


def test_resuming_training_is_not_a_suspend() -> None:
    text = "After resuming training from the checkpoint:\nRuntimeError: CUDA error: initialization error\n"
    assert "uvm_wedged_after_suspend" not in _errors(text)


def test_nvidia_smi_no_devices_quoted_in_prose_is_read() -> None:
    text = 'torch.cuda.is_available() is False and nvidia-smi says "No devices were found" on the new box\n'
    assert "driver_does_not_support_gpu" in _claimed(text)
    assert not _errors(text)  # a generic line: possibilities only


@pytest.mark.parametrize(
    "words",
    [
        "my nvidia driver can't load because of secure boot",
        "after a BIOS update I enabled the Secure Boot again",
        "I enrolled the keys, but after rebooting the enrollment window doesn't show up",
    ],
)
def test_secure_boot_in_the_users_words(words: str) -> None:
    text = (
        f"{words}.\n$ nvidia-smi\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest\n"
    )
    assert _first(text) == ("nvidia_module_not_loaded", Severity.ERROR)


def test_secure_boot_said_off_is_not_the_reading() -> None:
    text = (
        "Secure Boot is already disabled in the BIOS.\n$ nvidia-smi\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest\n"
    )
    assert "nvidia_module_not_loaded" not in _errors(text)


def test_a_branch_named_as_a_series_in_prose() -> None:
    text = (
        "Kepler card (GeForce GTX 760) on Linux Mint with the 535.xx series drivers: torch.cuda.is_available() is "
        "False and nvidia-smi has failed.\n"
    )
    assert _first(text) == ("driver_does_not_support_gpu", Severity.ERROR)


def test_version_magic_is_a_module_built_for_another_kernel() -> None:
    text = (
        "[    6.120000] nvidia: version magic '6.8.0-40-generic SMP preempt mod_unload modversions ' should be "
        "'6.8.0-45-generic SMP preempt mod_unload modversions '\n"
    )
    assert _first(text) == ("nvidia_module_not_loaded", Severity.ERROR)


def test_a_tainting_but_loading_module_is_not_a_fault() -> None:
    text = (
        "[    5.01] nvidia: loading out-of-tree module taints kernel.\n"
        "[    5.01] nvidia: module license 'NVIDIA' taints kernel.\n"
        "[    5.02] nvidia: module verification failed: signature and/or required key missing - tainting kernel\n"
        "[    5.30] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.120  Fri Sep 13 10:10:01 UTC 2024\n"
    )
    assert "nvidia_module_not_loaded" not in _claimed(text)


# -- a cloud machine type without an NVIDIA GPU ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "machine",
    ["an AWS c5.2xlarge", "EC2 t3.medium", "Azure Standard_D4s_v3", "a GCP e2-standard-8 VM", "inf2.xlarge"],
)
def test_a_cloud_machine_type_without_a_gpu(machine: str) -> None:
    text = f"Running on {machine}.\n>>> import torch\n>>> torch.cuda.is_available()\nFalse\n"
    assert _first(text) == ("no_nvidia_gpu", Severity.ERROR)


@pytest.mark.parametrize(
    "text",
    [
        # a GPU family: the GPU is there, something else is wrong
        "Running on a g5.xlarge.\n>>> torch.cuda.is_available()\nFalse\n",
        "Running on Standard_NC6s_v3.\n>>> torch.cuda.is_available()\nFalse\n",
        # a CPU instance named beside the GPU node that fails
        "The web front end runs on a t3.medium, training on an A100 node where torch.cuda.is_available() is False\n",
        # CUDA works: no claim
        "Benchmarked on c5.2xlarge (CPU) and p3.2xlarge; torch 2.3 runs fine on both.\n",
    ],
)
def test_gpu_instances_or_gpus_named_are_not_read_as_no_gpu(text: str) -> None:
    assert "no_nvidia_gpu" not in _errors(text)


def test_nvidia_smi_table_with_err_fields_is_a_possible_gpu_fault() -> None:
    text = (
        "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |\n"
        "|   0  NVIDIA A100-SXM4-80GB          On  |   00000000:07:00.0 Off |                  ERR! |\n"
        "| ERR!  ERR!  ERR!    ERR! / ERR! |      0MiB / 81559MiB |    ERR!      Default |\n"
        "RuntimeError: No CUDA GPUs are available\n"
    )
    assert "gpu_xid_fault" in _claimed(text)


def test_a_healthy_table_has_no_fault() -> None:
    text = (
        "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |\n"
        "| N/A   34C    P0     62W / 400W |      0MiB / 81559MiB |      0%      Default |\n"
    )
    assert "gpu_xid_fault" not in _claimed(text)


def test_the_cuda_toolkit_runfile_names_the_driver_it_installs() -> None:
    text = (
        "GPU: Tesla K40m\nsudo sh cuda_12.2.0_535.54.03_linux.run --silent\n$ nvidia-smi\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest\n"
    )
    assert _first(text) == ("driver_does_not_support_gpu", Severity.ERROR)


def test_launch_failure_after_resume_is_the_uvm_module() -> None:
    text = (
        "The script works after a reboot, but if I suspend the laptop and run it again:\n"
        "RuntimeError: CUDA error: unspecified launch failure\n"
    )
    assert _first(text) == ("uvm_wedged_after_suspend", Severity.ERROR)


def test_launch_failure_without_a_sleep_is_not_the_uvm_module() -> None:
    text = "RuntimeError: CUDA error: unspecified launch failure\nCUDA kernel errors might be asynchronously reported\n"
    assert "uvm_wedged_after_suspend" not in _errors(text)


def test_the_users_words_that_the_branch_refuses_the_gpu_are_checked_against_the_table() -> None:
    assert _first("The NVIDIA GT 710 is not supported by the 535.xx series drivers.\n") == (
        "driver_does_not_support_gpu",
        Severity.ERROR,
    )
    # the table says 535 drives a GTX 1660: the user's guess is not a verdict
    assert "driver_does_not_support_gpu" not in _errors(
        "My GTX 1660 is not supported by the 535.xx series drivers, I think.\n"
    )


@pytest.mark.parametrize(
    "words",
    [
        "running `nvidia-smi` tells me it could not connect to the Nvidia driver",
        "after a reboot `nvidia-smi` reports that the nvidia driver is not running",
    ],
)
def test_nvidia_smi_failing_in_the_users_words(words: str) -> None:
    assert _first(f"{words}.\n") == ("nvidia_module_not_loaded", Severity.WARNING)


def test_nvidia_smi_not_working_after_a_kernel_update_in_words() -> None:
    text = "After the kernel update nvidia-smi stopped working and torch.cuda.is_available() is False.\n"
    assert _first(text) == ("nvidia_module_not_loaded", Severity.ERROR)
    alone = "nvidia-smi doesn't work on this server, torch.cuda.is_available() is False.\n"
    assert _first(alone) is not None and _first(alone)[1] is Severity.WARNING  # type: ignore[index]


# -- a hybrid-graphics laptop in its integrated mode -----------------------------------------------------------------


@pytest.mark.parametrize(
    "mode",
    [
        "$ prime-select query\nintel",
        "I ran sudo prime-select intel to save battery last week",
        "$ envycontrol --query\nCurrent graphics mode is: integrated",
        "sudo system76-power graphics integrated",
    ],
)
def test_integrated_graphics_mode_unloads_the_module(mode: str) -> None:
    text = f"{mode}\n>>> torch.cuda.is_available()\nFalse\n"
    assert _first(text) == ("nvidia_module_not_loaded", Severity.ERROR)


def test_hybrid_mode_on_the_nvidia_gpu_is_not_a_fault() -> None:
    text = "$ prime-select query\nnvidia\n>>> torch.cuda.is_available()\nFalse\n"
    assert "nvidia_module_not_loaded" not in _errors(text)


def test_integrated_mode_with_cuda_working_is_not_a_fault() -> None:
    text = "$ prime-select query\nintel\nPyTorch runs on the CPU here on purpose; the GPU is for gaming.\n"
    assert "nvidia_module_not_loaded" not in _claimed(text)
