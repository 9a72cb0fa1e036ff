"""Say when the machine is newer than gpuassist's wheel, driver and GPU tables, instead of guessing silently.

The tables (knowledge/cuda_compat.json) were checked against the world on one date. A torch release, CUDA
variant, driver branch or GPU released after it is reported once, as information with that date: what the
other rules derive from the tables (the recommended build, a driver's CUDA version, a GPU's architecture)
may then be behind.
"""

from __future__ import annotations

from packaging.version import InvalidVersion, Version

from gpuassist.facts import Facts
from gpuassist.findings import Finding, Severity
from gpuassist.knowledge.wheels import (
    capability_from_name,
    cuda_int_to_str,
    driver_branch,
    newest_cuda,
    newest_driver_branch,
    newest_known_capability,
    newest_release,
    newest_variant_cuda,
    parse_torch_version,
    tables_as_of,
    variant_cuda,
)
from gpuassist.rules import view
from gpuassist.rules.make import finding
from gpuassist.rules.registry import rule


def _series(version: str) -> Version | None:
    try:
        return Version(".".join(Version(version).base_version.split(".")[:2]))
    except InvalidVersion:
        return None


def _newer_torch(facts: Facts) -> tuple[list[str], list[str]]:
    version = facts.value("torch.version")
    if not version:
        return [], []
    build = parse_torch_version(str(version))
    out = []
    series = _series(build.release)
    if series is not None and series > Version(newest_release()):
        out.append(f"torch {build.release} (the newest release they know is {newest_release()})")
    cuda = build.cuda
    if cuda is None:  # an untagged version ("2.16.0" from PyPI): torch.version.cuda says which CUDA
        variant = view.cuda_variant(facts.value("torch.cuda_build"))
        cuda = variant_cuda(variant) if variant else None
    if cuda and cuda > newest_variant_cuda():
        out.append(
            f"its CUDA {cuda_int_to_str(cuda)} build (the newest wheel variant they know is CUDA "
            f"{cuda_int_to_str(newest_variant_cuda())})"
        )
    return out, ["torch.version", "torch.cuda_build"] if out else []


def _newer_driver(facts: Facts) -> tuple[list[str], list[str]]:
    out, keys = [], []
    version = facts.value("driver.version")
    branch = driver_branch(version) if isinstance(version, str) and version else None
    if branch is not None and branch > newest_driver_branch():
        out.append(f"driver {version} (the newest branch they know is R{newest_driver_branch()})")
        keys.append("driver.version")
    for key in ("driver.cuda_version", "cuda.driver_version"):
        cuda = facts.value(key)
        if isinstance(cuda, int) and cuda > newest_cuda():
            out.append(
                f"a driver that supports CUDA {cuda_int_to_str(cuda)} (the newest CUDA they know is "
                f"{cuda_int_to_str(newest_cuda())})"
            )
            keys.append(key)
            break
    return out, keys


def _newer_gpus(facts: Facts) -> tuple[list[str], list[str]]:
    gpus = view.nvidia_gpus(facts)
    newest = newest_known_capability()
    out = []
    for gpu in gpus.gpus:
        if gpu.capability:
            major, minor = (int(x) for x in gpu.capability.split(".")[:2])
            if (major, minor) > newest:
                out.append(
                    f"{gpu.name} (compute capability {gpu.capability}; the newest they know is {newest[0]}.{newest[1]})"
                )
        elif capability_from_name(gpu.name) is None and not str(gpu.name).rstrip().endswith(("...", "…")):
            # (nvidia-smi's table cuts long names: "GeForce RTX 208..." is not a GPU newer than the tables)
            out.append(f"{gpu.name} (not in their GPU table, and nothing reported its compute capability)")
    return out, gpus.evidence_keys if out else []


@rule("knowledge_tables_outdated")
def knowledge_tables_outdated(facts: Facts) -> Finding | None:
    newer: list[str] = []
    keys: list[str] = []
    for part in (_newer_torch, _newer_driver, _newer_gpus):
        found, used = part(facts)
        newer += found
        keys += used
    if not newer:
        return None
    as_of = tables_as_of()
    return finding(
        "knowledge_tables_outdated",
        Severity.INFO,
        title=f"gpuassist's wheel, driver and GPU tables (checked {as_of}) are older than this machine",
        explanation=(
            f"gpuassist's tables were last checked against the released wheels, drivers and GPUs on {as_of}. "
            f"This machine has {'; '.join(newer)}. Findings that rest on what the machine itself reported still "
            "hold, but a recommended build or a driver's CUDA version taken from the tables may be behind."
        ),
        fix=(
            "Nothing here is broken by this. Update gpuassist for newer tables, and check what is newer than "
            f"{as_of} in the PyTorch install selector (https://pytorch.org/get-started/locally/) and NVIDIA's "
            "compute capability list (https://developer.nvidia.com/cuda-gpus)."
        ),
        evidence=view.ev(facts, *dict.fromkeys(keys)),
    )
