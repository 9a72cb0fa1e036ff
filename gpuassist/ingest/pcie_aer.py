"""A GPU lost from the PCIe bus by an uncorrectable (fatal) PCIe error, read from the kernel's AER messages.

The kernel's PCIe Advanced Error Reporting (drivers/pci/pcie/aer.c, err.c; Linux 4.x to 6.x) prints, per error:
- the Root Port's summary, "<port>: AER: [Multiple ]<severity> error received: <BDF>" (older kernels) or
  "... error message received from <BDF>" (5.x on), severity "Uncorrected|Uncorrectable (Fatal)",
  "... (Non-Fatal)" or "Corrected|Correctable";
- per device, "PCIe Bus Error: severity=<severity>, type=<layer>, (<agent>)" and "device [<vendor>:<device>] error
  status/mask=...";
- recovery (err.c): "<driver> <BDF>: AER: can't recover (no error_detected callback)" for a driver without AER
  handlers, then the port's "device recovery failed" or "device recovery successful".
The GPU's own recovery failing (its driver "can't recover" and the port's "device recovery failed") leaves it off the
bus: every CUDA call hangs or fails until a reset, a hardware/PCIe fault of the same class as "GPU has fallen off the
bus" (gpu_xid_fault), shown. A fatal error tied to the GPU with no recovery outcome printed is the same fault as a
possible cause (the weight of messages.json's pcie_uncorrected_error_on_gpu row, which reads the GPU's own
"nvidia <BDF>: AER: ..." line; this reader adds the port's summary naming the GPU and NVIDIA's vendor id in the
error detail). Corrected errors (AER noise on healthy machines), errors on other devices, and a recovery that
succeeded claim nothing.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match

# A fatal uncorrectable error: the port's summary or a device's "PCIe Bus Error" line.
FATAL = re.compile(r"\bUncorrect(?:ed|able) \(Fatal\)", re.IGNORECASE)
# A line the NVIDIA driver's device printed (dev_printk prefixes the driver name and the PCI address).
NVIDIA_DEVICE_LINE = re.compile(r"\bnvidia (?P<bdf>[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]): ", re.IGNORECASE)
# The error detail line of a device whose PCI vendor is NVIDIA (10de).
NVIDIA_VENDOR_DETAIL = re.compile(r"\bdevice \[10de:[0-9a-f]{4}\] error status/mask=", re.IGNORECASE)
# The GPU's own driver could not take part in recovery, and the port's recovery failed.
NVIDIA_CANT_RECOVER = re.compile(r"\bnvidia [0-9a-f:.]+: (?:AER: )?can'?t recover\b", re.IGNORECASE)
RECOVERY_FAILED = re.compile(r"\bAER: device recovery failed\b|\bdevice recovery failed\b", re.IGNORECASE)
RECOVERY_SUCCEEDED = re.compile(r"\bdevice recovery successful\b", re.IGNORECASE)
# The port's summary naming the device that sent the error: its address, or (4.x kernels) its requester id
# "id=BBDF" (bus << 8 | device << 3 | function), domain 0000.
RECEIVED_FROM = re.compile(
    r"error (?:message )?received(?::| from) "
    r"(?:(?P<bdf>[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])|id=(?P<id>[0-9a-f]{4}))",
    re.IGNORECASE,
)

MAX_LINE = 2000
WEIGHT = 0.85
POSSIBLE_WEIGHT = 0.6


def _sender(received: re.Match[str]) -> str:
    """The address of the device a port's summary names, from its address or its requester id."""
    if received.group("bdf"):
        return received.group("bdf").lower()
    rid = int(received.group("id"), 16)
    return f"0000:{rid >> 8:02x}:{(rid >> 3) & 0x1F:02x}.{rid & 0x7}"


def aer_lost_gpu_match(lines: list[str]) -> Match | None:
    """gpu_xid_fault, shown, when the GPU's recovery from a PCIe error failed; possible when the kernel log shows a
    fatal PCIe error tied to the NVIDIA GPU (its driver's AER lines, NVIDIA's vendor id in the error detail, or the
    port's summary naming its address) and no successful recovery; cited on the first line that shows it."""
    clipped = [line[:MAX_LINE] for line in lines]
    gpus = {m.group("bdf").lower() for line in clipped if (m := NVIDIA_DEVICE_LINE.search(line))}
    failed = any(RECOVERY_FAILED.search(line) for line in clipped)
    if not failed and any(RECOVERY_SUCCEEDED.search(line) for line in clipped):
        return None
    for no, line in enumerate(clipped, start=1):
        if NVIDIA_CANT_RECOVER.search(line) and failed:
            return Match("gpu_xid_fault", no, line.strip()[:500], True, WEIGHT)
        if not FATAL.search(line):
            continue
        received = RECEIVED_FROM.search(line)
        tied = (
            (NVIDIA_DEVICE_LINE.search(line) is not None)
            or (received is not None and _sender(received) in gpus)
            or any(NVIDIA_VENDOR_DETAIL.search(after) for after in clipped[no : no + 3])
        )
        if tied:
            return Match("gpu_xid_fault", no, line.strip()[:500], failed, WEIGHT if failed else POSSIBLE_WEIGHT)
    return None
