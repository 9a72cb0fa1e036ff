"""Render facts in the layout of ``python -m torch.utils.collect_env``: maintainers ask for it by name.

Missing facts print as "Could not collect", exactly like collect_env, so the section can be pasted into
a PyTorch issue as-is (and read back by ``gpuassist diagnose --from``).
"""

from __future__ import annotations

from typing import Any

from gpuassist.facts import Facts

COULD_NOT = "Could not collect"


def _v(facts: Facts, key: str, default: str = COULD_NOT) -> Any:
    v = facts.value(key)
    return default if v is None or v == "" else v


def _gpus(facts: Facts) -> str:
    gpus = facts.value("nvml.gpus") or []
    if gpus:
        return "\n".join(f"GPU {g.get('index', i)}: {g.get('name')}" for i, g in enumerate(gpus))
    devices = [d for d in facts.value("devices", []) or [] if str(d.get("device", "")).startswith("cuda")]
    if devices:
        return "\n".join(f"GPU {i}: {d.get('name')}" for i, d in enumerate(devices))
    if facts.value("torch.cuda_build") is None and facts.known("torch.cuda_build"):
        return "No CUDA"
    return COULD_NOT


def _libraries(facts: Facts) -> list[str]:
    lines = []
    for d in facts.value("torch.dists", []) or []:
        installer = str(d.get("installer") or "pip").strip().lower()
        tag = "conda" if installer == "conda" else "pip3"
        lines.append(f"[{tag}] torch=={d.get('version')}")
    if facts.value("torch.conda_build"):
        lines.append(f"[conda] pytorch {facts.value('torch.conda_build')}")
    return lines or ["[pip3] Could not collect", "[conda] Could not collect"]


def collect_env_text(facts: Facts) -> str:
    cuda_build = facts.value("torch.cuda_build")
    hip = facts.value("torch.hip_build")
    arch = facts.value("python.machine") or facts.value("host.machine") or ""
    distro = facts.value("host.distro")
    lines = [
        f"PyTorch version: {_v(facts, 'torch.version', 'N/A')}",
        f"Is debug build: {_v(facts, 'torch.debug', COULD_NOT)}",
        f"CUDA used to build PyTorch: {cuda_build or ('None' if facts.known('torch.cuda_build') else COULD_NOT)}",
        f"ROCM used to build PyTorch: {hip if hip else 'N/A'}",
        "",
        f"OS: {distro + (f' ({arch})' if arch else '') if distro else COULD_NOT}",
        f"Python version: {_v(facts, 'python.version')} ({_v(facts, 'python.implementation', '')}) (64-bit runtime)",
        f"Python platform: {_v(facts, 'python.platform')}-{_v(facts, 'host.kernel', '')}-{arch}",
        f"Is CUDA available: {_v(facts, 'cuda.available')}",
        "CUDA runtime version: (not used by prebuilt wheels; they ship their own CUDA)",
        f"CUDA_MODULE_LOADING set to: {(facts.value('env') or {}).get('CUDA_MODULE_LOADING', 'N/A')}",
        f"GPU models and configuration: {_gpus(facts)}",
        f"Nvidia driver version: {_v(facts, 'driver.version')}",
        f"cuDNN version: {_v(facts, 'torch.cudnn_version')}",
        f"Is XPU available: {_v(facts, 'xpu.available', 'False')}",
        f"HIP runtime version: {hip if hip else 'N/A'}",
        "",
        "CPU:",
        f"Model name: {_v(facts, 'host.cpu_model')}",
        f"CPU(s): {_v(facts, 'host.cpu_count')}",
        "",
        "Versions of relevant libraries:",
        *_libraries(facts),
    ]
    return "\n".join(str(line) for line in lines)
