"""kernel.xid_events: NVIDIA Xid lines in the kernel log (dmesg), counted per Xid and GPU (issue 18)."""

from __future__ import annotations

from pathlib import Path

import hostdata
from gpuassist.collect import xid
from gpuassist.facts import NotCollected

DMESG = (Path(__file__).parent / "data" / "kernel" / "dmesg-xid.txt").read_text()  # Xid 48/63 (ECC), 79


def run(commands: dict, gpus: int = 2, os_name: str = "Linux") -> object:
    out: dict = {}
    xid.collect(hostdata.dict_ctx({}, commands=commands, os_name=os_name), out, {"pci.nvidia_gpu_count": gpus})
    return out["kernel.xid_events"]


def test_xids_are_counted_per_code_and_gpu() -> None:
    events = run({"dmesg --kernel --notime": {"stdout": DMESG}})
    assert events == [
        {
            "xid": 48,
            "pci": "0000:3b:00",
            "count": 2,
            "last": "pid='<unknown>', name=<unknown>, An uncorrectable "
            "double bit error (DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 1.",
        },
        {
            "xid": 63,
            "pci": "0000:3b:00",
            "count": 1,
            "last": "pid='<unknown>', name=<unknown>, Row Remapper: New "
            "row marked for remapping, reset gpu to activate.",
        },
        {"xid": 79, "pci": "0000:86:00", "count": 2, "last": "pid=2411, name=python, GPU has fallen off the bus."},
    ]


def test_quiet_log_unreadable_log_and_no_gpu_are_told_apart() -> None:
    assert run({"dmesg --kernel --notime": {"stdout": "NVRM: loading NVIDIA UNIX x86_64 Kernel Module\n"}}) == []
    denied = run(
        {
            "dmesg --kernel --notime": {
                "returncode": 1,
                "stderr": "dmesg: read kernel buffer failed: Operation not permitted",
            }
        }
    )
    assert isinstance(denied, NotCollected) and "Operation not permitted" in str(denied)
    assert isinstance(run({}), NotCollected)  # no dmesg
    assert isinstance(run({"dmesg --kernel --notime": {"status": "timeout"}}), NotCollected)
    assert run({"dmesg --kernel --notime": {"stdout": DMESG}}, gpus=0) is None  # never asked without a GPU
    assert isinstance(run({}, os_name="Darwin"), NotCollected)
