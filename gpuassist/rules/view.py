"""Derived views over the facts that several rules need (one place for "how many NVIDIA GPUs are there").

Each view combines the sources gpuassist may have (NVML, /sys, the probe, a pasted collect_env) and
returns the evidence it used, so a rule can cite exactly what it looked at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from gpuassist.facts import Facts, NotCollected, is_known
from gpuassist.findings import Evidence
from gpuassist.knowledge.wheels import capability_from_name, driver_max_cuda


def ev(facts: Facts, *keys: str) -> list[Evidence]:
    """Evidence entries for the given keys, as they are in the facts (NotCollected included)."""
    return [Evidence(k, facts.get(k)) for k in dict.fromkeys(keys) if k in facts]


def cuda_variant(build: object) -> str | None:
    """torch.version.cuda ("12.4", or "10.1.243" in old builds) → the wheel variant name ("cu124")."""
    parts = str(build or "").split(".")
    if len(parts) < 2 or not parts[0].isdigit() or not parts[1].isdigit():
        return None
    return f"cu{parts[0]}{parts[1]}"


def torch_imported(facts: Facts) -> bool:
    return facts.known("torch.version") and bool(facts.value("torch.version"))


def is_macos(facts: Facts) -> bool:
    return bool(facts.value("host.os") == "Darwin" or facts.value("python.platform") == "darwin")


def is_windows(facts: Facts) -> bool:
    return bool(facts.value("host.os") == "Windows" or facts.value("python.platform") == "win32")


def os_name(facts: Facts) -> str:
    if is_macos(facts):
        return "Darwin"
    if is_windows(facts):
        return "Windows"
    return str(facts.value("host.os") or "Linux")


def machine(facts: Facts) -> str:
    return str(facts.value("python.machine") or facts.value("host.machine") or "x86_64")


def python_executable(facts: Facts) -> str:
    return str(facts.value("python.executable") or facts.value("probe.python") or "python")


@dataclass
class Gpu:
    index: int
    name: str
    capability: str | None  # "8.9"
    source: str  # "nvml", "torch", "name"


@dataclass
class GpuView:
    """NVIDIA GPUs this machine has, as far as any source can tell."""

    count: int | None  # None: nobody could tell
    gpus: list[Gpu] = field(default_factory=list)
    evidence_keys: list[str] = field(default_factory=list)


def _cc_from_name(name: str) -> str | None:
    return capability_from_name(name)


def nvidia_gpus(facts: Facts) -> GpuView:
    keys: list[str] = []
    gpus: list[Gpu] = []
    count: int | None = None
    nvml_gpus = facts.value("nvml.gpus")
    if facts.value("nvml.status") == "ok" and isinstance(nvml_gpus, list):
        keys += ["nvml.status", "nvml.gpus"]
        count = len(nvml_gpus)
        for i, g in enumerate(nvml_gpus):
            name = str(g.get("name") or f"GPU {i}")
            cc = g.get("compute_capability") or _cc_from_name(name)
            gpus.append(Gpu(int(g.get("index", i)), name, cc, "nvml"))
    torch_devices = [d for d in facts.value("devices", []) or [] if str(d.get("device", "")).startswith("cuda")]
    if torch_devices and not facts.value("torch.hip_build"):
        keys.append("devices")
        if not gpus:
            for i, d in enumerate(torch_devices):
                gpus.append(Gpu(i, str(d.get("name")), d.get("capability"), "torch"))
        count = max(count or 0, len(torch_devices))
    pci = facts.value("pci.nvidia_gpu_count")
    if isinstance(pci, int):
        keys.append("pci.nvidia_gpu_count")
        count = max(count or 0, pci)
    reported = facts.value("reported.gpus")
    if isinstance(reported, list) and reported:
        keys.append("reported.gpus")
        if not gpus:
            for i, g in enumerate(reported):
                name = str(g.get("name"))
                gpus.append(Gpu(i, name, g.get("compute_capability") or _cc_from_name(name), "name"))
        count = max(count or 0, len(reported))
    if count is None and facts.value("cuda.available") is True:
        count = int(facts.value("cuda.device_count") or 1)
        keys.append("cuda.available")
    return GpuView(count, gpus, keys)


def capabilities(view: GpuView) -> list[str]:
    return sorted({g.capability for g in view.gpus if g.capability})


def driver_cuda(facts: Facts) -> tuple[int | None, list[str]]:
    """The highest CUDA version the driver supports (12040 = 12.4), and the facts that said so."""
    for key in ("driver.cuda_version", "cuda.driver_version"):
        v = facts.value(key)
        if isinstance(v, int) and v > 0:
            return v, [key]
    for text in facts.value("cuda.init_warnings", []) or []:
        m = re.search(r"too old ?\(found version (\d+)\)", str(text))
        if m:
            return int(m.group(1)), ["cuda.init_warnings"]
    version = facts.value("driver.version")
    if isinstance(version, str) and version:
        cuda = driver_max_cuda(version, os_name(facts))
        if cuda:
            return cuda, ["driver.version"]
    return None, []


def driver_present(facts: Facts) -> bool | None:
    """True: a loaded NVIDIA kernel driver was seen; False: looked and it is not loaded; None: unknown."""
    if facts.value("nvml.status") == "ok":
        return True
    proc = facts.get("driver.proc_version")
    if is_known(proc) and proc:
        return True
    modules = facts.value("kernel.modules")
    if isinstance(modules, list) and "nvidia" in modules:
        return True
    if is_known(proc) and proc is None and facts.known("driver.proc_version"):
        return False
    return None


def warnings_text(facts: Facts) -> list[str]:
    out = [str(w) for w in facts.value("cuda.init_warnings", []) or []]
    err = facts.value("cuda.init_error")
    if err:
        out.append(str(err))
    return out


def first_match(texts: list[str], pattern: str) -> re.Match[str] | None:
    for t in texts:
        m = re.search(pattern, t, re.IGNORECASE)
        if m:
            return m
    return None


def dev_nodes(facts: Facts, prefix: str = "/dev/nvidia") -> list[dict[str, Any]]:
    nodes = facts.value("dev.nodes", []) or []
    return [n for n in nodes if str(n.get("path", "")).startswith(prefix)]


def unknown(value: Any) -> bool:
    return isinstance(value, NotCollected)


COMPANIONS = ("torchvision", "torchaudio")
_PIP_LINE = re.compile(r"^\[pip\d?\]\s+(torchvision|torchaudio)\s*==\s*(\S+)", re.IGNORECASE)
_CONDA_LINE = re.compile(r"^\[conda\]\s+(torchvision|torchaudio)\s+(\S+)", re.IGNORECASE)
_LIST_LINE = re.compile(r"^(torchvision|torchaudio)(?:\s*==\s*|\s+)(\d\S*)", re.IGNORECASE)


def companions(facts: Facts) -> tuple[dict[str, str], list[str]]:
    """The installed torchvision/torchaudio ({name: version}) and the facts that said so: the probe's
    ``torch.companions``, conda's package list, or a paste's library list (collect_env's ``[pip3]`` and
    ``[conda]`` lines, ``pip list`` / ``pip freeze`` / ``conda list`` lines)."""
    found: dict[str, str] = {}
    keys: list[str] = []
    for d in facts.value("torch.companions", []) or []:
        if isinstance(d, dict) and str(d.get("name")) in COMPANIONS:
            found.setdefault(str(d["name"]), str(d.get("version")))
            keys.append("torch.companions")
    for p in facts.value("torch.conda_packages", []) or []:
        if isinstance(p, dict) and str(p.get("name")) in COMPANIONS:
            found.setdefault(str(p["name"]), str(p.get("version")))
            keys.append("torch.conda_packages")
    for line in facts.value("reported.libraries", []) or []:
        text = str(line).strip()
        m = _PIP_LINE.match(text) or _CONDA_LINE.match(text) or _LIST_LINE.match(text)
        if m:
            found.setdefault(m.group(1).lower(), m.group(2))
            keys.append("reported.libraries")
    return found, list(dict.fromkeys(keys))
