"""pci.*: display controllers, their bound driver and NVSwitches from a recorded /sys/bus/pci."""

from __future__ import annotations

import pytest

import hostdata
from gpuassist.collect import pci
from gpuassist.facts import NotCollected


def _devices(host: str) -> dict[str, dict[str, object]]:
    facts = hostdata.run(pci.collect, hostdata.ctx(host))
    return {d["slot"]: d for d in facts["pci.display_devices"]}


def test_workstation_lists_both_gpus_with_drivers_and_names() -> None:
    facts = hostdata.run(pci.collect, hostdata.ctx("workstation-rtx4090"))
    assert facts["pci.nvidia_gpu_count"] == 1
    assert facts["pci.nvswitch_count"] == 0
    by_slot = {d["slot"]: d for d in facts["pci.display_devices"]}
    assert set(by_slot) == {"0000:01:00.0", "0000:0e:00.0"}  # the HDMI audio function is not a display
    assert by_slot["0000:01:00.0"] == {
        "slot": "0000:01:00.0",
        "vendor_id": "0x10de",
        "vendor": "NVIDIA",
        "device_id": "0x2684",
        "class_id": "0x030000",
        "class": "VGA compatible controller",
        "driver": "nvidia",
        "name": "AD102 [GeForce RTX 4090]",
    }
    assert by_slot["0000:0e:00.0"]["vendor"] == "AMD"
    assert by_slot["0000:0e:00.0"]["driver"] == "amdgpu"


@pytest.mark.parametrize(
    ("host", "nvidia", "driver"),
    [
        ("nouveau-no-driver", 1, "nouveau"),
        ("driver-mismatch", 1, "nvidia"),
        ("docker-no-gpu-runtime", 1, "nvidia"),  # a container sees the host's bus
        ("wsl2", 0, None),
        ("vm-no-gpu", 0, None),
    ],
)
def test_nvidia_count_and_bound_driver(host: str, nvidia: int, driver: str | None) -> None:
    facts = hostdata.run(pci.collect, hostdata.ctx(host))
    assert facts["pci.nvidia_gpu_count"] == nvidia
    nv = [d for d in facts["pci.display_devices"] if d["vendor"] == "NVIDIA"]
    assert [d["driver"] for d in nv] == ([driver] if nvidia else [])


def test_vm_has_no_display_device_at_all() -> None:
    assert hostdata.run(pci.collect, hostdata.ctx("vm-no-gpu"))["pci.display_devices"] == []


def test_wsl2_shows_the_microsoft_render_adapter_not_an_nvidia_gpu() -> None:
    (dev,) = _devices("wsl2").values()
    assert (dev["vendor"], dev["class"], dev["driver"]) == ("Microsoft", "3D controller", None)


def _sys_dev(slot: str, vendor: str, device: str, cls: str, driver: str | None = None) -> dict[str, object]:
    base = f"/sys/bus/pci/devices/{slot}"
    files: dict[str, object] = {f"{base}/vendor": vendor, f"{base}/device": device, f"{base}/class": cls}
    if driver:
        files[f"{base}/driver"] = {"link": f"/sys/bus/pci/drivers/{driver}"}
    return files


def test_hgx_counts_3d_controllers_and_nvswitches() -> None:
    files: dict[str, object] = {}
    for i in range(8):
        files |= _sys_dev(f"0000:{0x18 + i:02x}:00.0", "0x10de", "0x2330", "0x030200", "nvidia")
    for i in range(4):
        files |= _sys_dev(f"0000:{0x05 + i:02x}:00.0", "0x10de", "0x22a3", "0x068000", "nvidia-nvswitch")
    files |= _sys_dev("0000:03:00.0", "0x1a03", "0x2000", "0x030000", "ast")
    facts = hostdata.run(pci.collect, hostdata.dict_ctx(files))
    assert facts["pci.nvidia_gpu_count"] == 8
    assert facts["pci.nvswitch_count"] == 4
    assert {d["class"] for d in facts["pci.display_devices"]} == {
        "3D controller",
        "VGA compatible controller",
    }
    assert all(d["name"] is None for d in facts["pci.display_devices"])  # no pci.ids installed


def test_vfio_passthrough_and_garbage_entries() -> None:
    files = _sys_dev("0000:01:00.0", "0x10DE", "0x2204", "0x030000", "vfio-pci")
    files |= _sys_dev("0000:02:00.0", "garbage", "0x0000", "0x030000")
    files["/sys/bus/pci/devices/0000:03:00.0/vendor"] = {"readable": False}
    facts = hostdata.run(pci.collect, hostdata.dict_ctx(files))
    assert [(d["vendor_id"], d["driver"]) for d in facts["pci.display_devices"]] == [("0x10de", "vfio-pci")]


def test_no_pci_bus_in_sysfs_is_not_collected() -> None:
    facts = hostdata.run(pci.collect, hostdata.dict_ctx({"/proc/cpuinfo": ""}))
    assert facts == dict.fromkeys(pci.KEYS, NotCollected("/sys/bus/pci/devices does not exist"))


@pytest.mark.parametrize("os_name", ["Darwin", "Windows"])
def test_not_applicable_off_linux(os_name: str) -> None:
    facts = hostdata.run(pci.collect, hostdata.ctx("workstation-rtx4090", os_name=os_name))
    assert facts == dict.fromkeys(pci.KEYS, NotCollected(f"not applicable on {os_name}"))
