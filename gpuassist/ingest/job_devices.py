"""A scheduler job that asked for GPUs but has no GPU device nodes: the allocation never reached the job.

Slurm hands a job its GPUs through GRES: gres.conf names the device files of each GPU (File=/dev/nvidia[0-7]), the
job's step gets CUDA_VISIBLE_DEVICES, and with cgroup.conf's ConstrainDevices=yes only the allocated /dev/nvidiaN
nodes are visible to it (https://slurm.schedmd.com/gres.html, cgroup.conf). Container plugins (pyxis/enroot, the
Singularity/Apptainer wrappers) then create the container's device nodes from that allocation. A job launched with a
GPU request (--gres=gpu..., --gpus...) whose own output shows no /dev/nvidiaN node ("ls: cannot access
'/dev/nvidia0': No such file or directory") therefore did not get the GPU it asked for from the scheduler's side (its
GRES or cgroup setup): the driver, the module and the hardware readings of "no CUDA-capable device" are its
consequences there. Without the request, user_words.slurm_step_without_gpu reads the missing request instead.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.ingest.user_words import SLURM_GPU_REQUEST

# A Slurm launch anywhere a prompt may put it ("$ srun", "➜  ~ srun", "user@node:~$ sbatch") or a job directive.
SLURM_LAUNCH = re.compile(r"(?:^|[\s$#%>:])(?:srun|salloc|sbatch)\s+-|^\s*#SBATCH\s+-")
# ls / stat on the GPU device nodes failing: "ls: cannot access '/dev/nvidia0': No such file or directory".
DEVICE_NODE_MISSING = re.compile(
    r"(?:cannot access|cannot stat|stat failed:?)\s*['\"`]?/dev/nvidia\d+['\"`]?:\s*No such file|"
    r"^\s*(?:ls:\s*)?['\"`]?/dev/nvidia(?:\d+|\*)['\"`]?:\s*No such file",
    re.IGNORECASE,
)
# Readings that the missing allocation explains, when they are only guesses.
ALLOCATION_CONSEQUENCES = (
    "no_nvidia_gpu",
    "no_nvidia_driver",
    "nvidia_module_not_loaded",
    "docker_no_gpu_runtime",
    "cuda_visible_devices_hides_gpus",
)


def requested_gpus_not_in_job(lines: list[str]) -> Match | None:
    """A Slurm launch that asks for GPUs, and the GPU device nodes missing in the job's output: the scheduler's
    allocation did not reach the job (scheduler_no_gpu_allocated)."""
    asked = any(SLURM_LAUNCH.search(line[:MAX_LINE]) and SLURM_GPU_REQUEST.search(line[:MAX_LINE]) for line in lines)
    if not asked:
        return None
    missing = next(
        ((no, line) for no, line in enumerate(lines, start=1) if DEVICE_NODE_MISSING.search(line[:MAX_LINE])), None
    )
    if missing is None:
        return None
    return Match("scheduler_no_gpu_allocated", missing[0], missing[1].strip()[:500], True, 0.85)


def allocation_explains(matches: list[Match]) -> list[Match]:
    """Where the job's missing allocation is shown, the hardware, driver and container guesses give way to it."""
    if not any(m.id == "scheduler_no_gpu_allocated" and m.specific for m in matches):
        return matches
    return [m for m in matches if not (m.id in ALLOCATION_CONSEQUENCES and not m.specific)]
