"""A shared cluster read from a text's words and quoted commands: where nvidia-smi missing is not a driver verdict,
and where a job script quoted in prose explains CUDA finding no GPU.

On a cluster the NVIDIA driver (and nvidia-smi, which the driver installs: NVIDIA Linux driver README, "Installed
components") exists only on the nodes that have GPUs; users reach those nodes only through the scheduler (Slurm gives
a job GPUs only when it asks: ``--gres=gpu[:type]:N``, ``--gpus``/``-G``, ``--gpus-per-node``/``-task``,
``--tres-per-*=gres/gpu``, https://slurm.schedmd.com/sbatch.html and gres.html; PBS Pro with ``ngpus=`` in
``-l select``; LSF with ``-gpu``), and many sites add the CUDA tools with ``module load``. So "nvidia-smi: command
not found" typed on a cluster's login node is what a node without a GPU prints, not a missing driver: installing a
driver there is the wrong advice, and the reading is the job not running on a GPU node (a possibility the text
cannot settle). On a personal machine (no cluster in the text) the missing binary keeps its driver reading.

Job scripts are often quoted inside sentences (```#SBATCH --gres=gpu:1``` in a guide, "I submit with `sbatch
--gpus=1 job.sh`"), which the line-start readers (scheduler_facts, user_words.slurm_step_without_gpu) do not see.
A quoted job without a GPU request beside CUDA finding no GPU makes the allocation the likeliest reading (Slurm
hides every GPU a job did not request). A job that did ask has many other causes, so there the allocation is read
only where the text says the request form is not honoured (some sites give batch jobs GPUs only through ``--gpus``,
or only in a GPU partition): two request forms set against each other ("``--gres=gpu:1`` only works on interactive
nodes, use ``--gpus=1``"), or the request's own line saying it does not work.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

# The text places the work on a shared cluster: the word, its nodes, a scheduler's command or directive, environment
# modules.
CLUSTER = re.compile(
    r"\b(?:cluster|HPC|supercomputer|login node|head node|compute node|GPU nodes?|slurm|sbatch|srun|salloc|qsub|"
    r"bsub|module load|lmod)\b|#(?:SBATCH|PBS|BSUB)\b",
    re.IGNORECASE,
)
# Where nvidia-smi missing has its own readings: a container or a Kubernetes pod (the container rules read those).
CONTAINER_WORDS = re.compile(
    r"\b(?:kubernetes|k8s|kubectl|pod|docker|podman|containers?|singularity|apptainer|enroot|image)\b", re.IGNORECASE
)
# nvidia-smi absent (the shell's, which's, Python's and Windows' words for it) or said not to work.
SMI_MISSING = re.compile(
    r"nvidia-smi: (?:command )?not found|command not found: nvidia-smi\b|which: no nvidia-smi in|"
    r"No such file or directory: '?nvidia-smi\b|"
    r"\bnvidia-smi[`'\"]?\s+(?:is\s+)?(?:not working|doesn'?t work|does not work|is not (?:found|available|installed)|"
    r"isn'?t (?:found|available|installed))\b",
    re.IGNORECASE,
)
# The text puts the command on a GPU node (or in a job that asked for a GPU): a node with a GPU and no nvidia-smi is
# missing its driver (or the site's module), so the driver readings stay there.
ON_GPU_NODE = re.compile(
    r"\b(?:on|from|in|at) (?:the |a |an |our |my |one |each )?(?:GPU|compute) nodes?\b|--gres[= ]\S*gpu|--gpus\b|"
    r"\bngpus=",
    re.IGNORECASE,
)
# The driver readings a missing nvidia-smi carries on its own.
DRIVER_READINGS = frozenset({"no_nvidia_driver", "nvidia_module_not_loaded", "driver_library_mismatch"})


def _first(pattern: re.Pattern[str], lines: list[str]) -> tuple[int, str] | None:
    for no, line in enumerate(lines[:5000], start=1):
        if pattern.search(line[:MAX_LINE]):
            return no, line.strip()[:500]
    return None


def smi_missing_on_cluster(lines: list[str], matches: list[Match]) -> list[Match]:
    """nvidia-smi missing (or said not to work) in a text about a cluster, with no container in it and nothing placing
    the command on a GPU node: the driver guesses drawn from that line go (a login node has no driver to find), and
    the job not running on a GPU node is the possibility left. Specific driver messages (the module's own refusal, a
    version mismatch) stay."""
    smi = _first(SMI_MISSING, lines)
    if smi is None:
        return matches
    cluster = _first(CLUSTER, lines)
    if cluster is None or _first(CONTAINER_WORDS, lines) is not None or _first(ON_GPU_NODE, lines) is not None:
        return matches
    kept = [m for m in matches if not (m.id in DRIVER_READINGS and not m.specific)]
    if any(m.specific for m in kept):
        return kept  # the text names its cause: a GPU node with a broken driver says so
    return [*kept, Match("scheduler_no_gpu_allocated", cluster[0], cluster[1], False, 0.6)]


# A scheduler's job quoted anywhere in a line: a directive or a launch command with its options, at the line's start
# or inside a sentence (after a space, backtick, quote or bracket).
QUOTED_JOB = re.compile(r"(?:^|[\s`'\"(])(?:#(?:SBATCH|PBS|BSUB)|srun|sbatch|salloc|qsub|bsub)\s+-")
# Any way of asking a scheduler for a GPU (Slurm, PBS Pro, LSF).
GPU_REQUEST = re.compile(
    r"--gres[= ]\S*gpu|--gpus\b|--gpus-per-\w+|(?<!\S)-G\s*\d|--tres-per-\w+[= ]\S*gpu|\bngpus=|(?<!\S)-gpu\b",
    re.IGNORECASE,
)
# CUDA (or the user) saying the job found no GPU: torch's "No CUDA GPUs are available" also in words, "no GPU was
# found/detected/visible", is_available() False.
NO_GPU_IN_JOB = re.compile(
    r"\bno (?:CUDA )?GPUs? (?:are|is|were|was) (?:available|found|detected|visible)\b|"
    r"\bno CUDA-capable device\b|is_available\(\)\s*(?:returns?|returned|is|==?|->|gives|gave)?\s*[`'\"]?False\b|"
    r"\b(?:could not|couldn'?t|can'?t|cannot|does not|doesn'?t|did not|didn'?t)\s+(?:find|see|detect|get)\s+"
    r"(?:a |any |the )?GPUs?\b",
    re.IGNORECASE,
)


def quoted_job_without_gpu(lines: list[str], *, unavailable: bool) -> Match | None:
    """A scheduler job quoted in the text (a directive or launch, also inside a sentence) and CUDA finding no GPU:
    the job's allocation is the likeliest reading (scheduler_no_gpu_allocated, a possibility): no GPU request, or a
    request in a form the site does not honour."""
    job = _first(QUOTED_JOB, lines)
    if job is None:
        return None
    if not unavailable and _first(NO_GPU_IN_JOB, lines) is None:
        return None
    requests = [
        (no, line[:MAX_LINE])
        for no, line in enumerate(lines[:5000], start=1)
        if QUOTED_JOB.search(line[:MAX_LINE]) and _asks(line[:MAX_LINE])
    ]
    if not requests:
        return Match("scheduler_no_gpu_allocated", job[0], job[1], False, 0.7)
    # A job that asked for a GPU and sees none has many causes; the allocation is the reading only where the text
    # says the request form is not honoured: two request forms set against each other, or the request's own line
    # saying it does not work (or works only somewhere else).
    forms = {form for _, line in requests for form in _forms(line)}
    disowned = next(((no, line) for no, line in requests if REQUEST_DISOWNED.search(line)), None)
    if len(forms) < 2 and disowned is None:
        return None
    no, line = disowned or requests[0]
    return Match("scheduler_no_gpu_allocated", no, line.strip()[:500], False, 0.6)


# The user's words that a request is NOT in the job: "sbatch -p gpu without --gres=gpu:1", "I forgot --gpus",
# "no --gres line", "didn't pass --gpus=1": the option is named only as what is missing (read right before it).
REQUEST_DENIED = re.compile(
    r"\b(?:without|no|forgot(?: to (?:add|use|pass|set|give|request))?|forgetting|missing|omitted|"
    r"(?:didn'?t|did not|don'?t|do not|never) (?:add|use|pass|set|give|request|specify))\s+"
    r"(?:(?:the|a|any) )?[`'\"]?$",
    re.IGNORECASE,
)


def _asks(line: str) -> bool:
    """The line asks the scheduler for a GPU: a request form the words right before it do not name as missing."""
    return any(
        REQUEST_DENIED.search(line[max(0, m.start() - 60) : m.start()]) is None for m in GPU_REQUEST.finditer(line)
    )


# The request's line says the form is not honoured: "only works for interactive jobs", "is ignored", "doesn't give
# a GPU", "use --gpus instead".
REQUEST_DISOWNED = re.compile(
    r"\bonly works?\b|\b(?:is|are|gets?) ignored\b|\b(?:doesn'?t|does not|don'?t|do not|no longer)\s+"
    r"(?:work|give|allocate|assign|get)\b|\binstead\b|\bdeprecated\b|\bnot (?:honou?red|supported)\b",
    re.IGNORECASE,
)
_FORM = re.compile(r"--gres|--gpus-per-\w+|--gpus|-G\b|--tres-per-\w+|ngpus|-gpu", re.IGNORECASE)


def _forms(line: str) -> set[str]:
    """The request options a line uses (--gres, --gpus, --gpus-per-node, ngpus, ...), lower-cased."""
    return {
        found.group(0).lower()
        for request in GPU_REQUEST.finditer(line)
        if (found := _FORM.search(request.group(0))) is not None
    }
