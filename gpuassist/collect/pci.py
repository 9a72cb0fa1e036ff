"""PCI display controllers and NVSwitches from ``/sys/bus/pci/devices`` (``pci.*``).

sysfs lists a GPU whether or not any driver is installed, so this is the only way to prove "there is an
NVIDIA card but no driver" (``no_nvidia_driver``) versus "there is no NVIDIA card" (``no_nvidia_gpu``).
It is also what ``lspci`` reads, without the cost of running it. The bound driver is the name the
device's ``driver`` symlink points to (``nvidia``, ``nouveau``, ``vfio-pci``).
"""

from __future__ import annotations

import re
from typing import Any

from gpuassist.collect.base import HostContext
from gpuassist.collect.io import FileSystem
from gpuassist.facts import NotCollected

KEYS = ("pci.display_devices", "pci.nvidia_gpu_count", "pci.nvswitch_count")

PCI_DEVICES = "/sys/bus/pci/devices"
NVIDIA = "0x10de"
VENDORS = {
    "0x10de": "NVIDIA",
    "0x1002": "AMD",
    "0x1022": "AMD",
    "0x8086": "Intel",
    "0x1414": "Microsoft",
    "0x1af4": "Red Hat (virtio)",
    "0x1234": "QEMU",
    "0x15ad": "VMware",
    "0x80ee": "VirtualBox",
    "0x1a03": "ASPEED",
    "0x102b": "Matrox",
    "0x1013": "Cirrus Logic",
    "0x5143": "Qualcomm",
}
DISPLAY_CLASSES = {
    "0x0300": "VGA compatible controller",
    "0x0301": "XGA compatible controller",
    "0x0302": "3D controller",
    "0x0380": "Display controller",
}
NVSWITCH_CLASS = "0x0680"  # "bridge: other" from NVIDIA = NVSwitch on HGX/DGX boards
_BLOCK_END = re.compile(r"\n(?![\t#])")  # the next line that is neither a device nor a comment
PCI_IDS_FILES = ("/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids", "/usr/share/pci.ids")


def collect(ctx: HostContext, out: dict[str, Any]) -> None:
    if not ctx.linux:
        for key in KEYS:
            out[key] = ctx.not_applicable()
        return
    fs = ctx.fs
    if not fs.exists(PCI_DEVICES):
        # No PCI bus in sysfs (some containers hide /sys, some ARM boards have none): cannot look.
        reason = NotCollected(f"{PCI_DEVICES} does not exist")
        for key in KEYS:
            out[key] = reason
        return
    displays: list[dict[str, Any]] = []
    nvswitches = 0
    for slot in fs.listdir(PCI_DEVICES):
        base = f"{PCI_DEVICES}/{slot}"
        vendor_id = _hex(fs.read_text(f"{base}/vendor"))
        class_id = _hex(fs.read_text(f"{base}/class"))
        if vendor_id is None or class_id is None:
            continue
        if vendor_id == NVIDIA and class_id.startswith(NVSWITCH_CLASS):
            nvswitches += 1
        if not class_id.startswith("0x03"):  # base class 0x03: display controller
            continue
        displays.append(
            {
                "slot": slot,
                "vendor_id": vendor_id,
                "vendor": VENDORS.get(vendor_id, "other"),
                "device_id": _hex(fs.read_text(f"{base}/device")),
                "class_id": class_id,
                "class": DISPLAY_CLASSES.get(class_id[:6], "Display controller"),
                "driver": bound_driver(fs, base),
            }
        )
    if displays:
        names = device_names(fs, [(d["vendor_id"], d["device_id"]) for d in displays])
        for d in displays:
            d["name"] = names.get((d["vendor_id"], d["device_id"]))
    out["pci.display_devices"] = displays
    out["pci.nvidia_gpu_count"] = sum(1 for d in displays if d["vendor_id"] == NVIDIA)
    out["pci.nvswitch_count"] = nvswitches


def bound_driver(fs: FileSystem, device_dir: str) -> str | None:
    link = f"{device_dir}/driver"
    if not fs.exists(link):
        return None
    name = fs.realpath(link).rstrip("/").rsplit("/", 1)[-1]
    return name or None


def _hex(text: str | None) -> str | None:
    """sysfs ids look like ``0x10de``; normalise case, reject garbage."""
    if not text:
        return None
    value = text.strip().lower()
    if not value.startswith("0x"):
        return None
    try:
        int(value, 16)
    except ValueError:
        return None
    return value


def device_names(fs: FileSystem, ids: list[tuple[str, str | None]]) -> dict[tuple[str, str | None], str]:
    """Marketing names from the pci.ids database (``AD102 [GeForce RTX 4090]``), when it is installed.

    Only read when there is a display device, and only the vendor blocks needed (found with ``str.find``,
    not by parsing the 1.3 MB file): the names let a finding say "RTX 4090 without a driver" where NVML
    cannot answer.
    """
    found: dict[tuple[str, str | None], str] = {}
    for path in PCI_IDS_FILES:
        text = fs.read_text(path, limit=8 << 20)
        if not text:
            continue
        for vendor_id, device_id in ids:
            if device_id is None:
                continue
            start = text.find(f"\n{vendor_id[2:]}  ")
            if start < 0:
                continue
            body = text.find("\n", start + 1)
            end = _BLOCK_END.search(text, body + 1) if body >= 0 else None
            for line in text[body : end.start() if end else len(text)].splitlines():
                if line[:1] == "\t" and line[1:5] == device_id[2:] and line[1:2] != "\t":
                    found[(vendor_id, device_id)] = line[5:].strip()
                    break
        break
    return found
