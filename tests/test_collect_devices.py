"""dev.nodes: the device files CUDA, ROCm and WSL open, with their permissions."""

from __future__ import annotations

import hostdata
from gpuassist.collect import devices
from gpuassist.facts import NotCollected


def _paths(host: str) -> list[str]:
    return [n["path"] for n in hostdata.run(devices.collect, hostdata.ctx(host))["dev.nodes"]]


def test_workstation_nodes() -> None:
    assert sorted(_paths("workstation-rtx4090")) == sorted(
        [
            "/dev/nvidia-caps/nvidia-cap1",
            "/dev/nvidia-caps/nvidia-cap2",
            "/dev/nvidia-modeset",
            "/dev/nvidia-uvm",
            "/dev/nvidia-uvm-tools",
            "/dev/nvidia0",
            "/dev/nvidiactl",
            "/dev/dri/renderD128",
            "/dev/dri/renderD129",
        ]
    )


def test_container_without_gpu_runtime_and_wsl() -> None:
    assert _paths("docker-no-gpu-runtime") == []
    assert _paths("wsl2") == ["/dev/dxg"]
    assert _paths("nouveau-no-driver") == ["/dev/dri/renderD128", "/dev/dri/renderD129"]


def test_permissions_are_reported() -> None:
    ctx = hostdata.dict_ctx(
        {
            "/dev/nvidia0": {"mode": "crw-rw----", "readable": False, "writable": False},
            "/dev/nvidiactl": {"mode": "crw-rw-rw-"},
            "/dev/kfd": {"mode": "crw-rw----", "readable": False, "writable": False},
            "/dev/null": {"mode": "crw-rw-rw-"},
        }
    )
    nodes = {n["path"]: n for n in hostdata.run(devices.collect, ctx)["dev.nodes"]}
    assert set(nodes) == {"/dev/nvidia0", "/dev/nvidiactl", "/dev/kfd"}
    assert nodes["/dev/nvidia0"] == {
        "path": "/dev/nvidia0",
        "kind": "char",
        "mode": "crw-rw----",
        "readable": False,
        "writable": False,
    }
    assert nodes["/dev/nvidiactl"]["writable"] is True


def test_not_applicable_on_windows() -> None:
    facts = hostdata.run(devices.collect, hostdata.ctx("workstation-rtx4090", os_name="Windows"))
    assert facts == {"dev.nodes": NotCollected("not applicable on Windows")}
