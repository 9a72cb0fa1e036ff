"""Machine state that decides whether a loaded driver can actually run CUDA (``driver.fabricmanager``,
``driver.cuda_compat_libs``, ``kernel.suspend_count``, ``host.uptime_seconds``).

- NVSwitch systems (HGX/DGX) refuse CUDA ("Error 802: system not yet initialized") until the
  ``nvidia-fabricmanager`` service runs; systemd is asked only when NVSwitches exist (short timeout).
- A CUDA forward-compatibility ``libcuda`` (``/usr/local/cuda*/compat``, shipped by many container images)
  fails with "Error 804" on GeForce GPUs when it is on the loader path.
- After suspend/resume the ``nvidia_uvm`` module can wedge ("CUDA unknown error", 999): the suspend count
  and uptime are the evidence that the machine slept.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpuassist.collect.base import HostContext, read
from gpuassist.facts import NotCollected

KEYS = ("driver.fabricmanager", "driver.cuda_compat_libs", "kernel.suspend_count", "host.uptime_seconds")

FABRIC_SERVICE = "nvidia-fabricmanager"
SYSTEMCTL_TIMEOUT = 3.0


def collect(ctx: HostContext, out: dict[str, Any], facts: Mapping[str, Any]) -> None:
    if not ctx.linux:
        for key in KEYS:
            out[key] = ctx.not_applicable()
        return
    out["driver.fabricmanager"] = fabricmanager_state(ctx, facts)
    out["driver.cuda_compat_libs"] = cuda_compat_libs(ctx)
    out["kernel.suspend_count"] = suspend_count(ctx)
    out["host.uptime_seconds"] = uptime_seconds(ctx)


def has_nvswitch(ctx: HostContext, facts: Mapping[str, Any]) -> bool:
    count = facts.get("pci.nvswitch_count")
    if isinstance(count, int) and count > 0:
        return True
    return any(n.startswith("nvidia-nvswitch") for n in ctx.fs.listdir("/dev"))


def fabricmanager_state(ctx: HostContext, facts: Mapping[str, Any]) -> str | NotCollected | None:
    """``systemctl is-active nvidia-fabricmanager`` (``active``, ``inactive``, ``failed``, ...), only
    when NVSwitches exist; ``None`` without NVSwitches (no fabric manager needed)."""
    if not has_nvswitch(ctx, facts):
        return None
    res = ctx.run(["systemctl", "is-active", FABRIC_SERVICE], timeout=SYSTEMCTL_TIMEOUT)
    if res.status != "ok":
        return NotCollected(f"systemctl: {res.status}")
    state = res.stdout.strip().splitlines()[0].strip() if res.stdout.strip() else ""
    # is-active prints the state and exits non-zero for anything but "active"; an unknown unit is "inactive".
    return state or ("active" if res.returncode == 0 else "unknown")


def cuda_compat_libs(ctx: HostContext) -> list[str]:
    """``/usr/local/cuda*/compat/libcuda.so*`` files (the cuda-compat package)."""
    found: list[str] = []
    for name in sorted(ctx.fs.listdir("/usr/local")):
        if not name.startswith("cuda"):
            continue
        compat = f"/usr/local/{name}/compat"
        found += [f"{compat}/{n}" for n in sorted(ctx.fs.listdir(compat)) if n.startswith("libcuda.so")]
    return found


def suspend_count(ctx: HostContext) -> int | NotCollected | None:
    """Successful suspends since boot (``/sys/power/suspend_stats/success``); ``None`` when absent."""
    text = read(ctx.fs, "/sys/power/suspend_stats/success", 64)
    if not isinstance(text, str):
        return text
    try:
        return int(text.strip())
    except ValueError:
        return NotCollected(f"unexpected content: {text.strip()[:40]!r}")


def uptime_seconds(ctx: HostContext) -> float | NotCollected | None:
    text = read(ctx.fs, "/proc/uptime", 256)
    if not isinstance(text, str):
        return text
    try:
        return float(text.split()[0])
    except (ValueError, IndexError):
        return NotCollected(f"unexpected content: {text.strip()[:40]!r}")
