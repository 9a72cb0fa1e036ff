"""Environment variables that hide GPUs from CUDA."""

from __future__ import annotations

import re

from gpuassist.facts import Facts
from gpuassist.findings import Finding, Severity
from gpuassist.rules import view
from gpuassist.rules.make import finding
from gpuassist.rules.registry import rule


def visible_devices(facts: Facts) -> str | None:
    """CUDA_VISIBLE_DEVICES as the target process saw it (probe), else as the host has it."""
    v = facts.get("cuda.visible_devices")
    if facts.known("cuda.visible_devices"):
        return None if v is None else str(v)
    env = facts.value("env") or {}
    return env.get("CUDA_VISIBLE_DEVICES") if isinstance(env, dict) else None


def parse_visible(value: str, gpu_count: int, uuids: list[str]) -> tuple[int, str | None]:
    """How many GPUs CUDA will expose for this value, and why entries were dropped.

    CUDA semantics: entries are indices or (prefixes of) GPU-/MIG- UUIDs; parsing stops at the first
    invalid entry, so `0,7,1` on a 2-GPU box exposes only GPU 0."""
    if value.strip() == "":
        return 0, "it is set to an empty string, which hides every GPU"
    seen = 0
    for raw in value.split(","):
        entry = raw.strip()
        if re.fullmatch(r"-?\d+", entry):
            idx = int(entry)
            if idx < 0:
                return seen, f"entry {entry!r} is negative; CUDA stops at it" if seen else f"{entry!r} hides every GPU"
            if idx >= gpu_count:
                return seen, f"entry {entry!r} is not a GPU index on this machine (it has {gpu_count})"
            seen += 1
        elif entry.startswith(("GPU-", "MIG-")):
            # NVML lists GPU- UUIDs only: a MIG- entry can only be checked against MIG UUIDs, if any were read.
            known = [u for u in uuids if u.startswith(entry[:4])]
            if known and not any(u.startswith(entry) or entry.startswith(u) for u in known):
                return seen, f"UUID {entry!r} matches no GPU"
            seen += 1
        else:
            return seen, f"entry {entry!r} is neither an index nor a GPU UUID"
    return seen, None


@rule("cuda_visible_devices_hides_gpus")
def cuda_visible_devices_hides_gpus(facts: Facts) -> Finding | None:
    value = visible_devices(facts)
    if value is None:
        return None
    gpus = view.nvidia_gpus(facts)
    if not gpus.count:
        return None
    uuids = [str(g.get("uuid")) for g in facts.value("nvml.gpus", []) or [] if g.get("uuid")]
    exposed, why = parse_visible(value, gpus.count, uuids)
    if why is None:
        return None
    severity = Severity.ERROR if exposed == 0 else Severity.WARNING
    shown = repr(value)
    return finding(
        "cuda_visible_devices_hides_gpus",
        severity,
        title=f"CUDA_VISIBLE_DEVICES={shown} hides {'every' if exposed == 0 else 'some'} GPU from CUDA",
        explanation=(
            f"This machine has {gpus.count} NVIDIA GPU(s), but CUDA_VISIBLE_DEVICES={shown}: {why}. CUDA then "
            f"exposes {exposed} device(s), so torch.cuda.is_available() "
            f"{'is False' if exposed == 0 else 'sees fewer GPUs'} while nvidia-smi still lists them all."
        ),
        fix=(
            "Unset it or list valid GPUs, before Python starts:\n"
            "  unset CUDA_VISIBLE_DEVICES        # or: export CUDA_VISIBLE_DEVICES=0,1\n"
            "Look for where it is set: your shell profile, the job script, the IDE run configuration, or "
            "the notebook (os.environ[...] only works before the first CUDA call, ideally before import torch)."
        ),
        evidence=view.ev(facts, "cuda.visible_devices", "env", *gpus.evidence_keys, "cuda.device_count"),
        explains=["cpu_only_build"],
    )
