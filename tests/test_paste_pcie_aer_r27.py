"""Round 27 (issue #14): a fatal PCIe AER error tied to the NVIDIA GPU (its driver's AER lines, NVIDIA's vendor id
10de in the error detail, the port's summary naming the GPU's address) or the GPU's recovery failing takes the GPU
off the bus: gpu_xid_fault. Corrected AER noise, fatal errors on other devices and a recovery that succeeded claim
nothing. Synthetic kernel logs in the kernel's formats (drivers/pci/pcie/aer.c, err.c; older and newer wording)."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text
from gpuassist.ingest.pcie_aer import aer_lost_gpu_match

# Newer kernels' wording ("Uncorrectable", "error message received from"), the GPU's own address sending the error.
FATAL_FROM_GPU = (
    "training froze, dmesg:\n"
    "[ 9121.402113] nvidia 0000:41:00.0: AER: probe ok\n"
    "[ 9121.402187] pcieport 0000:40:01.1: AER: Uncorrectable (Fatal) error message received from 0000:41:00.0\n"
    "[ 9121.402201] pcieport 0000:40:01.1: AER: found no error details for 0000:41:00.0\n"
)
# Older wording; the detail line carries NVIDIA's vendor id.
FATAL_VENDOR_DETAIL = (
    "the GPU job died overnight, journal:\n"
    "Oct 02 11:02:01 node7 kernel: pcieport 0000:80:02.0: AER: Uncorrected (Fatal) error received: 0000:81:00.0\n"
    "Oct 02 11:02:01 node7 kernel: pcieport 0000:80:02.0: PCIe Bus Error: severity=Uncorrected (Fatal), "
    "type=Transaction Layer, (Receiver ID)\n"
    "Oct 02 11:02:01 node7 kernel: pcieport 0000:81:00.0:   device [10de:2230] error status/mask=00040000/00000000\n"
)
# The port's own fatal error, the GPU's driver unable to join recovery, and recovery failing.
GPU_RECOVERY_FAILED = (
    "[ 55.10] pcieport 0000:00:01.0: AER: Uncorrected (Fatal) error received: 0000:00:01.0\n"
    "[ 55.11] nvidia 0000:01:00.0: AER: can't recover (no error_detected callback)\n"
    "[ 56.20] pcieport 0000:00:01.0: AER: device recovery failed\n"
)


@pytest.mark.parametrize("text", [FATAL_FROM_GPU, FATAL_VENDOR_DETAIL, GPU_RECOVERY_FAILED])
def test_fatal_pcie_error_on_gpu_is_hardware_fault(text: str) -> None:
    ids = [f.id for f in load_text(text).findings]
    assert ids and ids[0] == "gpu_xid_fault"


# 4.x kernels name the sender by requester id: id=0100 is 0000:01:00.0, the GPU.
FATAL_BY_REQUESTER_ID = (
    "[ 77.0] nvidia 0000:01:00.0: irq 130 for MSI/MSI-X\n"
    "[ 88.0] pcieport 0000:00:01.0: AER: Uncorrected (Fatal) error received: id=0100\n"
)


def test_requester_id_names_the_gpu() -> None:
    found = aer_lost_gpu_match(FATAL_BY_REQUESTER_ID.splitlines())
    assert found is not None and found.line_no == 2 and not found.specific
    other = FATAL_BY_REQUESTER_ID.replace("id=0100", "id=0300")
    assert aer_lost_gpu_match(other.splitlines()) is None


# Counter-examples: corrected errors on the GPU's port (common, harmless), a fatal error on an NVMe drive, and a fatal
# error the kernel recovered from.
CORRECTED_NOISE = (
    "[  12.0] pcieport 0000:00:01.0: AER: Corrected error received: 0000:01:00.0\n"
    "[  12.0] nvidia 0000:01:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)\n"
    "[  12.0] nvidia 0000:01:00.0:   device [10de:2684] error status/mask=00000001/0000e000\n"
    "[  12.0] nvidia 0000:01:00.0:    [ 0] RxErr\n"
    "torch.cuda.is_available() is True and training runs fine\n"
)
FATAL_ON_NVME = (
    "my GPU training crashed when the disk failed:\n"
    "[ 300.1] pcieport 0000:00:1d.0: AER: Uncorrected (Fatal) error received: 0000:3d:00.0\n"
    "[ 300.1] nvme 0000:3d:00.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Inaccessible, "
    "(Unregistered Agent ID)\n"
    "[ 300.1] nvme 0000:3d:00.0:   device [144d:a808] error status/mask=00000020/00000000\n"
)
FATAL_RECOVERED = (
    "[ 300.1] pcieport 0000:40:01.1: AER: Uncorrected (Fatal) error received: 0000:41:00.0\n"
    "[ 300.1] nvidia 0000:41:00.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, "
    "(Receiver ID)\n"
    "[ 301.0] pcieport 0000:40:01.1: AER: device recovery successful\n"
)


@pytest.mark.parametrize("text", [CORRECTED_NOISE, FATAL_ON_NVME])
def test_no_lost_gpu_without_a_fatal_error_on_it(text: str) -> None:
    assert aer_lost_gpu_match(text.splitlines()) is None
    assert "gpu_xid_fault" not in [f.id for f in load_text(text).findings]


def test_a_recovered_fatal_error_is_at_most_a_possible_fault() -> None:
    """This reader declines; the GPU's own uncorrected line stays messages.json's possible fault (a warning)."""
    assert aer_lost_gpu_match(FATAL_RECOVERED.splitlines()) is None
    faults = [f for f in load_text(FATAL_RECOVERED).findings if f.id == "gpu_xid_fault"]
    assert all(f.severity.value != "error" for f in faults)
