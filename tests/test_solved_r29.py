"""Round 29 (issue #14): a fault the paste itself shows fixed is not this machine's current fault.

- ingest/later_success.py: a DKMS/akmods module-build failure followed by a later successful build or a healthy
  check (nvidia-smi answering, is_available() True) is over; a success followed by a failure is current.
- ingest/not_about_failure.py OVER_AFTER: a reboot told as the fix in the message's sentence ("after a reboot
  everything works") makes the message told, not shown; "still", "comes back" and a reboot needed every time keep it.
Every text here is synthetic.
"""

from __future__ import annotations

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text


def _claims(text: str) -> set[str]:
    return {f.id for f in load_text(text).findings if f.severity in (Severity.ERROR, Severity.WARNING)}


DKMS_FAIL = (
    "Building module:\ncleaning build area...\n"
    "Error! Bad return status for module build on kernel: 6.8.0-45-generic (x86_64)\n"
    "Consult /var/lib/dkms/nvidia/550.107.02/build/make.log for more information.\n"
)
AKMODS_FAIL = (
    "Building and installing nvidia-kmod                         [FAILED]\n"
    "Building rpms failed; see /var/cache/akmods/nvidia/560.35.03-1-for-6.11.3-200.fc40.x86_64.failed.log "
    "for details\n"
)


@pytest.mark.parametrize(
    "text",
    [
        DKMS_FAIL + "sudo apt install linux-headers-$(uname -r)\nsudo dkms install nvidia/550.107.02\n"
        "DKMS: install completed.\n",
        DKMS_FAIL + "Installed the headers, the module compiled successfully after that.\n",
        DKMS_FAIL + "$ nvidia-smi\n| NVIDIA-SMI 550.107.02   Driver Version: 550.107.02   CUDA Version: 12.4 |\n",
        AKMODS_FAIL + "after a kernel update to 6.11.4:\nBuilding and installing nvidia-kmod   [  OK  ]\n",
        AKMODS_FAIL + ">>> torch.cuda.is_available()\nTrue\n",
    ],
)
def test_build_failure_shown_fixed_later_claims_nothing(text: str) -> None:
    assert "nvidia_module_not_loaded" not in _claims(text)


@pytest.mark.parametrize(
    "text",
    [
        # the failure after the success: the next kernel's build fails now
        "| NVIDIA-SMI 550.107.02   Driver Version: 550.107.02   CUDA Version: 12.4 |\nthen I upgraded the kernel:\n"
        + DKMS_FAIL,
        # no success anywhere
        DKMS_FAIL + "and now nvidia-smi can't talk to the driver\n",
        # a success then "still" failing
        DKMS_FAIL + "DKMS: install completed.\nbut torch.cuda.is_available() returns False\n",
        AKMODS_FAIL + "Building and installing nvidia-kmod   [  OK  ]\nafter reboot it still fails with no GPU\n",
    ],
)
def test_build_failure_still_current_is_claimed(text: str) -> None:
    assert "nvidia_module_not_loaded" in _claims(text)


BUSY = "RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable"


def test_busy_told_as_fixed_by_reboot_claims_nothing() -> None:
    assert _claims(f"Yesterday I got {BUSY}, but after the reboot it works.\n") == set()


@pytest.mark.parametrize(
    "text",
    [
        f"{BUSY}\nafter a reboot everything works for a day, then it comes back\n",
        f"I got {BUSY}, after a reboot it still fails.\n",
        f"I got {BUSY}, I need a reboot to make it work every time.\n",
    ],
)
def test_busy_not_fixed_is_still_read(text: str) -> None:
    assert _claims(text) != set()


# ingest/uvm_node_words.py: /dev/nvidia-uvm said missing after a sleep, in words.
@pytest.mark.parametrize(
    "text",
    [
        "After resuming from suspend /dev/nvidia-uvm is missing and torch.cuda.is_available() is False.\n",
        "Since waking the laptop from sleep the nvidia-uvm device node is gone; a reboot brings it back.\n",
    ],
)
def test_uvm_node_gone_after_sleep_is_the_suspend(text: str) -> None:
    assert "uvm_wedged_after_suspend" in _claims(text)


@pytest.mark.parametrize(
    "text",
    [
        "Is /dev/nvidia-uvm missing after suspend?\n",
        "After resume from suspend /dev/nvidia-uvm is there and torch.cuda.is_available() is True.\n",
        "After the training job was suspended by slurm, /dev/nvidia-uvm-tools is missing in the container.\n",
    ],
)
def test_uvm_node_words_decline(text: str) -> None:
    assert "uvm_wedged_after_suspend" not in _claims(text)
