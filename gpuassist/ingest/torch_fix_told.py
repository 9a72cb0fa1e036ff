"""The reporter fixed it by installing another torch build in the same container: the container reached the GPU.

A container that was not given the GPU (no ``--gpus``, no NVIDIA runtime) sees no driver whatever torch it runs: the
NVIDIA Container Toolkit mounts libcuda and the device nodes only into a container started with the GPU requested
("Driver capabilities", "Specialized configurations with Docker"). So when the text says the fix was a torch install
command (``pip install torch==1.6.0+cu101 ...``, ``conda install pytorch ... cudatoolkit=...``) and it worked
("I was able to fix the issue through this", "this fixed it", "which solved it"), the runtime was not the cause, and
the guess that the words "in the docker image" plus "CUDA not available" make (container_readings.container_run_match,
a guess, never a verdict) goes. A verdict of the runtime (a shown ``docker run`` without the GPU and its failure) is
left alone, as is a fix that is denied ("did not fix it", "wasn't able to fix") or asked about.
"""

from __future__ import annotations

import re

from gpuassist.ingest import prose
from gpuassist.ingest.errors import Match

RUNTIME = "docker_no_gpu_runtime"
# A torch install command: pip/pip3/uv pip/conda/mamba install naming torch or pytorch.
TORCH_INSTALL = re.compile(
    r"\b(?:pip3?|python3?\s+-m\s+pip|uv\s+pip|conda|mamba|micromamba)\s+install\b[^\n`]*?\b(?:py)?torch\b",
    re.IGNORECASE,
)
# The fix said to have worked (the negated forms do not match: "wasn't able to fix", "did not fix").
FIX_WORKED = re.compile(
    r"\b(?:was|were|am|been)\s+able\s+to\s+(?:fix|solve|resolve)\b|"
    r"\b(?:this|that|which|it)\s+(?:fixed|fixes|solved|solves|resolved|resolves)\b|"
    r"\b(?:fixed|solved|resolved)\s+(?:it|this|the\s+(?:issue|problem|error))\b",
    re.IGNORECASE,
)


def _fix_by_torch_install(lines: list[str]) -> bool:
    """A sentence says a fix worked, and a torch install command is in it or in the sentence before it."""
    said = prose.sentences(lines)
    for index, (_, sentence) in enumerate(said):
        worked = FIX_WORKED.search(sentence)
        if worked is None or prose.is_question(sentence):
            continue
        if prose.negated(prose.clause_before(sentence[: worked.start()]) + worked.group(0)):
            continue  # "it never fixed it", "nothing I tried, not even this, solved it"
        near = sentence if index == 0 else said[index - 1][1] + " " + sentence
        if TORCH_INSTALL.search(near):
            return True
    return False


def torch_fix_rules_out_runtime(lines: list[str], matches: list[Match]) -> list[Match]:
    """Drop the container-runtime guess when the reporter's working fix was another torch build in the container."""
    if not any(m.id == RUNTIME and not m.specific for m in matches) or not _fix_by_torch_install(lines):
        return matches
    return [m for m in matches if not (m.id == RUNTIME and not m.specific)]
