"""Where this Linux really runs (``platform.*``): WSL, a container, a Jetson, or macOS under Rosetta.

Each changes what "no GPU" means: WSL2 GPUs are not on the PCI bus and are reached through
``/usr/lib/wsl/lib/libcuda.so``; a container only sees the GPU when started with the NVIDIA runtime;
Jetson needs NVIDIA's own wheels; an x86_64 Python under Rosetta on Apple silicon cannot use MPS well.
"""

from __future__ import annotations

from typing import Any

from gpuassist.collect.base import HostContext, first_line, read
from gpuassist.facts import NotCollected

KEYS = ("platform.wsl", "platform.wsl_libcuda", "platform.container", "platform.jetson", "platform.rosetta")

WSL_LIB = "/usr/lib/wsl/lib"
# (marker in /proc/1/cgroup, container kind); kubernetes first: its pods also run on docker/containerd.
_CGROUP_MARKERS = (
    ("kubepods", "kubernetes"),
    ("libpod", "podman"),
    ("docker", "docker"),
    ("containerd", "containerd"),
    ("lxc", "lxc"),
)
_SYSTEMD_CONTAINER = {"docker": "docker", "podman": "podman", "lxc": "lxc", "lxc-libvirt": "lxc"}


def collect(ctx: HostContext, out: dict[str, Any]) -> None:
    if ctx.linux:
        out["platform.wsl"] = wsl_kind(ctx)
        out["platform.wsl_libcuda"] = [f"{WSL_LIB}/{n}" for n in ctx.fs.listdir(WSL_LIB) if n.startswith("libcuda.so")]
        out["platform.container"] = container_kind(ctx)
        jetson = read(ctx.fs, "/etc/nv_tegra_release")
        out["platform.jetson"] = first_line(jetson) if isinstance(jetson, str) else jetson
    else:
        for key in ("platform.wsl_libcuda", "platform.container", "platform.jetson"):
            out[key] = ctx.not_applicable()
        out["platform.wsl"] = None  # Windows itself is not WSL; the Linux side reports that
    out["platform.rosetta"] = rosetta(ctx) if ctx.os_name == "Darwin" else None


def wsl_kind(ctx: HostContext) -> str | None:
    """``wsl2`` / ``wsl1`` from the kernel release (``5.15.146.1-microsoft-standard-WSL2`` vs
    ``4.4.0-19041-Microsoft``), falling back to ``/proc/version``."""
    release = (ctx.fs.read_text("/proc/sys/kernel/osrelease") or "").strip()
    if "microsoft" not in release.lower():
        release = ctx.fs.read_text("/proc/version", limit=4096) or ""
    text = release.lower()
    if "microsoft" not in text:
        return None
    if "wsl2" in text or "microsoft-standard" in text or ctx.fs.exists("/dev/dxg"):
        return "wsl2"
    return "wsl1"


def container_kind(ctx: HostContext) -> str | None:
    """Kubernetes, podman, docker, containerd or lxc, from the markers each runtime leaves."""
    if ctx.env.get("KUBERNETES_SERVICE_HOST"):
        return "kubernetes"
    if ctx.fs.exists("/run/.containerenv"):
        return "podman"
    if ctx.fs.exists("/.dockerenv"):
        return "docker"
    cgroup = ctx.fs.read_text("/proc/1/cgroup", limit=65536) or ""
    for marker, kind in _CGROUP_MARKERS:
        if marker in cgroup:
            return kind
    systemd = (ctx.fs.read_text("/run/systemd/container", limit=256) or "").strip()
    if systemd:
        return _SYSTEMD_CONTAINER.get(systemd, systemd)
    return None


def rosetta(ctx: HostContext) -> bool | NotCollected:
    """True when this process runs translated. Intel Macs lack the sysctl: that is "not translated"."""
    res = ctx.run(["sysctl", "-n", "sysctl.proc_translated"], timeout=2.0)
    if res.status != "ok":
        return NotCollected(f"sysctl: {res.status}")
    if res.returncode != 0:
        return False
    return res.stdout.strip() == "1"
