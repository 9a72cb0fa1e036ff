"""GPU device nodes under ``/dev`` (``dev.nodes``), with their permissions.

CUDA opens ``/dev/nvidiactl``, ``/dev/nvidia-uvm`` and ``/dev/nvidiaN``; ROCm opens ``/dev/kfd`` and
``/dev/dri/renderD*``; WSL2 talks to ``/dev/dxg``. Whether they exist and whether *this user* may open
them explains containers started without a GPU runtime and users missing from the ``render`` group.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from gpuassist.collect.base import HostContext

KEYS = ("dev.nodes",)


def collect(ctx: HostContext, out: dict[str, Any]) -> None:
    if not ctx.linux:
        out["dev.nodes"] = ctx.not_applicable()
        return
    fs = ctx.fs
    paths: list[str] = []
    for name in fs.listdir("/dev"):
        if name == "nvidia-caps":
            paths += [f"/dev/nvidia-caps/{n}" for n in fs.listdir("/dev/nvidia-caps")]
        elif name.startswith("nvidia") or name in ("kfd", "dxg"):
            paths.append(f"/dev/{name}")
    paths += [f"/dev/dri/{n}" for n in fs.listdir("/dev/dri") if n.startswith("renderD")]
    nodes = []
    for path in paths:
        info = fs.info(path)
        if info is not None and info.kind != "dir":
            nodes.append(asdict(info))
    out["dev.nodes"] = nodes
