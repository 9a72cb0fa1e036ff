"""Round 28 (issue #14): an NVIDIA driver install the package manager aborted, on a machine shown without a driver.

dnf/apt/zypper/pacman install all or nothing; a driver installer wrapping them says the drivers could not be installed.
With no driver shown (no nvidia-smi answer, no driver package, not an upgrade, not an image build) that reads as
no_nvidia_driver, a guess. Synthetic texts, with counter-examples that must not fire.
"""

from __future__ import annotations

from gpuassist.ingest import UnreadableInput, load_text


def _ids(text: str) -> list[str]:
    try:
        return [f.id for f in load_text(text).findings]
    except UnreadableInput:
        return []


APT_ABORT = (
    "Fresh Ubuntu 22.04 box with an RTX A4000, trying to get CUDA going:\n"
    "$ sudo apt-get install -y nvidia-driver-550\n"
    "Reading package lists... Done\n"
    "Building dependency tree... Done\n"
    "E: Unable to locate package nvidia-driver-550\n"
)
DNF_ABORT = (
    "$ sudo dnf install akmod-nvidia xorg-x11-drv-nvidia-cuda kernel-devel-$(uname -r)\n"
    "No match for argument: kernel-devel-6.2.9-300.fc38.x86_64\n"
    "Error: Unable to find a match: kernel-devel-6.2.9-300.fc38.x86_64\n"
)


def test_an_aborted_driver_install_reads_as_no_driver() -> None:
    for text in (APT_ABORT, DNF_ABORT):
        assert _ids(text)[0] == "no_nvidia_driver", text


def test_a_driver_shown_answering_is_not_no_driver() -> None:
    text = DNF_ABORT + (
        "$ nvidia-smi\n| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
    )
    assert "no_nvidia_driver" not in _ids(text)


def test_an_image_build_or_an_upgrade_is_not_the_hosts_driver_missing() -> None:
    image = "Step 4/9 : RUN apt-get install -y nvidia-driver-550\nE: Unable to locate package nvidia-driver-550\n"
    upgrade = "Trying to upgrade the driver:\n" + DNF_ABORT
    for text in (image, upgrade):
        assert "no_nvidia_driver" not in _ids(text), text


def test_an_install_that_went_through_claims_nothing() -> None:
    text = "$ sudo apt-get install -y nvidia-driver-550\nSetting up nvidia-driver-550 (550.54.15-0ubuntu1) ...\n"
    assert "no_nvidia_driver" not in _ids(text)
