"""driver.fabricmanager, driver.cuda_compat_libs, kernel.suspend_count, host.uptime_seconds."""

from __future__ import annotations

from typing import Any

import hostdata
from gpuassist.collect import state
from gpuassist.facts import NotCollected

ACTIVE = {"systemctl is-active nvidia-fabricmanager": {"returncode": 0, "stdout": "active\n"}}
INACTIVE = {"systemctl is-active nvidia-fabricmanager": {"returncode": 3, "stdout": "inactive\n"}}


def collect(
    files: dict[str, object],
    commands: dict[str, Any] | None = None,
    facts: dict[str, Any] | None = None,
    os_name: str = "Linux",
) -> tuple[dict[str, Any], Any]:
    ctx = hostdata.dict_ctx(files, commands=commands or {}, os_name=os_name)
    out: dict[str, Any] = {}
    state.collect(ctx, out, facts or {})
    return out, ctx.run


def test_fabric_manager_is_asked_only_when_nvswitches_exist() -> None:
    out, run = collect({}, ACTIVE, {"pci.nvswitch_count": 0})
    assert out["driver.fabricmanager"] is None
    assert run.calls == []
    out, run = collect({}, INACTIVE, {"pci.nvswitch_count": 4})
    assert out["driver.fabricmanager"] == "inactive"
    assert run.calls == [["systemctl", "is-active", "nvidia-fabricmanager"]]
    switch_node = {"/dev/nvidia-nvswitch0": {"mode": "crw-rw-rw-"}}
    out, _ = collect(switch_node, ACTIVE, {"pci.nvswitch_count": NotCollected("x")})
    assert out["driver.fabricmanager"] == "active"


def test_fabric_manager_without_systemctl() -> None:
    out, _ = collect({}, {}, {"pci.nvswitch_count": 2})
    assert isinstance(out["driver.fabricmanager"], NotCollected)
    timeout = {"systemctl is-active nvidia-fabricmanager": {"status": "timeout", "returncode": None}}
    out, _ = collect({}, timeout, {"pci.nvswitch_count": 2})
    assert out["driver.fabricmanager"] == NotCollected("systemctl: timeout")


def test_cuda_compat_libs() -> None:
    out, _ = collect(
        {
            "/usr/local/cuda-12.6/compat/libcuda.so.1": {
                "link": "/usr/local/cuda-12.6/compat/libcuda.so.560.35.05",
                "mode": "lrwxrwxrwx",
            },
            "/usr/local/cuda-12.6/compat/libcuda.so.560.35.05": "",
            "/usr/local/cuda-12.6/compat/libnvidia-nvvm.so.4": "",
            "/usr/local/cuda-12.6/lib64/libcudart.so.12": "",
            "/usr/local/bin/x": "",
        }
    )
    assert out["driver.cuda_compat_libs"] == [
        "/usr/local/cuda-12.6/compat/libcuda.so.1",
        "/usr/local/cuda-12.6/compat/libcuda.so.560.35.05",
    ]
    out, _ = collect({})
    assert out["driver.cuda_compat_libs"] == []


def test_suspend_count_and_uptime() -> None:
    out, _ = collect({"/sys/power/suspend_stats/success": "3\n", "/proc/uptime": "412233.51 6512238.04\n"})
    assert out["kernel.suspend_count"] == 3 and out["host.uptime_seconds"] == 412233.51
    out, _ = collect({})
    assert out["kernel.suspend_count"] is None and out["host.uptime_seconds"] is None
    out, _ = collect({"/sys/power/suspend_stats/success": "n/a\n"})
    assert isinstance(out["kernel.suspend_count"], NotCollected)


def test_not_applicable_off_linux() -> None:
    out, run = collect({}, ACTIVE, {"pci.nvswitch_count": 4}, os_name="Darwin")
    assert all(out[k] == NotCollected("not applicable on Darwin") for k in state.KEYS)
    assert run.calls == []
