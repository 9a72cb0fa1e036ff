"""Batch schedulers (``scheduler.*``): a job only sees the GPUs it was allocated.

On a cluster "torch sees no GPU" is often "the job asked for none" (``--gres=gpu:1`` missing), so the
scheduler and the GPUs it handed out are evidence next to ``CUDA_VISIBLE_DEVICES``.
"""

from __future__ import annotations

from typing import Any

from gpuassist.collect.base import HostContext

KEYS = ("scheduler.kind", "scheduler.job_id", "scheduler.gpus")


def collect(ctx: HostContext, out: dict[str, Any]) -> None:
    env = ctx.env
    kind: str | None = None
    job: str | None = None
    gpus: list[str] | None = None
    if env.get("SLURM_JOB_ID"):
        kind, job = "slurm", env["SLURM_JOB_ID"]
        # The step's allocation is the narrower one when both exist.
        raw = env.get("SLURM_STEP_GPUS") or env.get("SLURM_JOB_GPUS")
        gpus = _split(raw) if raw is not None else None
    elif env.get("PBS_JOBID"):
        kind, job = "pbs", env["PBS_JOBID"]
        gpufile = env.get("PBS_GPUFILE")
        if gpufile:
            text = ctx.fs.read_text(gpufile)  # one line per GPU: "node01-gpu0"
            gpus = [line.strip() for line in text.splitlines() if line.strip()] if text is not None else None
    elif env.get("LSB_JOBID"):
        kind, job = "lsf", env["LSB_JOBID"]
    elif env.get("JOB_ID") and (env.get("SGE_ROOT") or env.get("SGE_TASK_ID") or env.get("SGE_CELL")):
        kind, job = "sge", env["JOB_ID"]  # JOB_ID alone is too common a name to mean SGE
    out["scheduler.kind"] = kind
    out["scheduler.job_id"] = job
    out["scheduler.gpus"] = gpus


def _split(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]
