"""A batch scheduler's job read from a paste: the launch command or job script the text shows (``srun``,
``salloc``, ``sbatch``, ``#SBATCH``; PBS ``qsub``/``#PBS``; LSF ``bsub``), and whether it asked for GPUs, so the
scheduler rule (rules/visibility.py) can decide from a paste as it does from a live job's environment.

Slurm gives a job GPUs only when it asks (``--gres=gpu[:type]:N``, ``--gpus``/``-G``, ``--gpus-per-node``,
``--gpus-per-task``, ``--tres-per-*=gres/gpu``; https://slurm.schedmd.com/gres.html); PBS Pro with
``ngpus=N`` in ``-l select=``; LSF with ``-gpu``. A site may attach GPUs by partition without any of these, so a
job shown without a request only makes the missing request the likeliest reading, which the rule words as such.
"""

from __future__ import annotations

import re
from typing import Any

from gpuassist.ingest.lines import MAX_LINE, SHELL_PROMPT, note_source

# A launch command at the start of a line (after a shell prompt) or a job-script directive.
LAUNCH = re.compile(
    rf"^\s*(?:{SHELL_PROMPT}\s*)?(?P<cmd>srun|salloc|sbatch|qsub|bsub)\s+\S|^\s*#(?P<dir>SBATCH|PBS|BSUB)\s+-",
)
KIND = {"srun": "slurm", "salloc": "slurm", "sbatch": "slurm", "SBATCH": "slurm", "qsub": "pbs", "PBS": "pbs"}
KIND.update({"bsub": "lsf", "BSUB": "lsf"})
GPU_REQUEST = re.compile(
    r"--gres[= ]\S*gpu|--gpus(?:-per-\w+)?[= ]|(?:^|\s)-G\s*\d|--tres-per-\w+[= ]\S*gpu|ngpus=|"
    r"(?:^|\s)-gpu\b|--constraint[= ]\S*gpu|(?:^|\s)-l\s+\S*gpu",
    re.IGNORECASE,
)
# What makes a job about the GPU: CUDA, a GPU or NVIDIA named. torch alone is not enough: a CPU job imports it too.
GPU_TOPIC = re.compile(r"cuda|gpu|nvidia", re.IGNORECASE)
# The job's id is not in a launch line: the fix names the variable the job has it in.
JOB_VARIABLE = {"slurm": "$SLURM_JOB_ID", "pbs": "$PBS_JOBID", "lsf": "$LSB_JOBID"}
JOB_ID = re.compile(r"\b(?:SLURM_JOB_ID|SLURM_JOBID|PBS_JOBID|LSB_JOBID)\s*[=:]\s*(\S+)")


# A shell line continued on the next one (``srun \\`` then ``--gpus=2 ...``): options a launch spreads over lines.
CONTINUED = re.compile(r"\\\s*$")
MAX_CONTINUED = 30


def launch_command(lines: list[str], index: int) -> str:
    """The whole command that starts at ``lines[index]``, its backslash-continued lines joined."""
    parts = [lines[index][:MAX_LINE]]
    while CONTINUED.search(parts[-1]) and len(parts) < MAX_CONTINUED and index + len(parts) < len(lines):
        parts[-1] = CONTINUED.sub(" ", parts[-1])
        parts.append(lines[index + len(parts)][:MAX_LINE])
    return " ".join(parts)


def scheduler_facts(lines: list[str], sources: dict[str, tuple[int, str]]) -> dict[str, Any]:
    """``scheduler.kind``, ``scheduler.job_id`` (the pasted id, else the variable that holds it) and, when a launch line
    or directive asks for GPUs, ``scheduler.gpus`` (the request, as the rule only needs to know one was made)."""
    facts: dict[str, Any] = {}
    requests: list[str] = []
    for no, raw in enumerate(lines, start=1):
        line = raw[:MAX_LINE]
        launch = LAUNCH.match(line)
        if launch:
            kind = KIND[launch.group("cmd") or launch.group("dir")]
            if "scheduler.kind" not in facts:
                facts["scheduler.kind"] = kind
                facts["scheduler.job_id"] = JOB_VARIABLE[kind]
                note_source(sources, "scheduler.kind", no, line)
            command = launch_command(lines, no - 1)
            if GPU_REQUEST.search(command):
                requests.append(command.strip()[:200])
        job = JOB_ID.search(line)
        if job:
            facts.setdefault("scheduler.kind", "slurm" if "SLURM" in job.group(0) else job.group(0)[:3].lower())
            facts["scheduler.job_id"] = job.group(1)
            note_source(sources, "scheduler.job_id", no, line)
    if "scheduler.kind" not in facts or not any(GPU_TOPIC.search(line[:MAX_LINE]) for line in lines):
        return {}  # a job that is not about the GPU (the rule then has nothing to explain)
    if requests:
        facts["scheduler.gpus"] = requests
    return facts
