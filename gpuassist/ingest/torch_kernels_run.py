"""A "no kernel image" in a text that says torch's own GPU computations run: torch's build is not what failed.

CUDA's ``no kernel image is available for execution on the device`` (cudaErrorNoKernelImageForDevice, 209) is raised
by the binary whose fatbinary lacks the GPU's architecture. Every torch computation on the GPU (an add, a matmul, a
model's forward) launches torch's own kernels, so when the person says those run on the same GPU ("simple PyTorch
calculations do not produce this error", "other torch code runs fine on the GPU"), torch's arch list covers the GPU
and the failing kernels belong to something else in the process: a third-party CUDA extension built by its own
setup.py / CMake with its own arch list (TORCH_CUDA_ARCH_LIST for torch.utils.cpp_extension builds). The guesses the
message makes about torch's build (either arch direction, a second torch copy, a source build of torch without
CUDA) are then dropped; what the text states outright stays.

Only statements of computations count: ``torch.cuda.is_available()`` being True, or a tensor moved with ``.cuda()``,
launch no kernel and prove nothing about the arch list. A statement that torch's code fails too does not count.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.extension_kernels import TORCH_BUILD_GUESSES
from gpuassist.ingest.lines import MAX_LINE

# The message, also in a title's paraphrase or misspelling ("no kernel image is available for excecution").
NO_KERNEL_IMAGE = re.compile(r"no kernel image (?:is )?available", re.IGNORECASE)
# Torch's own work on the GPU, named as computations (not availability checks).
TORCH_WORK = re.compile(
    r"\b(?:simple|plain|basic|other|regular|normal|ordinary|standard|vanilla)?\s*(?:py)?torch(?:'s)?\s+(?:own\s+)?"
    r"(?:calculations?|computations?|operations?|ops|code|models?|training|tensor\s+(?:operations|ops|math)|"
    r"examples?|programs?|scripts?|matmuls?|kernels)\b",
    re.IGNORECASE,
)
# What the clause after it must say: the work runs, or does not hit the error.
RUNS = re.compile(
    r"^[^.!?;\n]{0,50}?\b(?:(?:do(?:es)?\s+not|don't|doesn't|never)\s+(?:produce|raise|throw|give|hit|trigger|show|"
    r"cause)\b[^.!?;\n]{0,25}?\b(?:error|problem|issue)s?\b|"
    r"(?:work|works|worked|run|runs|ran)\s+(?:(?:just\s+)?fine|well|correctly|ok(?:ay)?|normally|"
    r"without\s+(?:any\s+)?(?:errors?|issues?|problems?)|on\s+(?:the|my|this)\s+gpu))",
    re.IGNORECASE,
)
# A clause that says the work fails after all ("do not work", "fail", "same error").
FAILS = re.compile(
    r"\b(?:not\s+(?:work|run)|n't\s+(?:work|run)|fail\w*|crash\w*|same\s+error|also\s+(?:gives?|raises?))\b",
    re.IGNORECASE,
)


def torch_work_runs(lines: list[str]) -> int | None:
    """The 1-based line on which the text says torch's own GPU computations run, or None."""
    for no, raw in enumerate(lines, 1):
        line = raw[:MAX_LINE]
        for found in TORCH_WORK.finditer(line):
            rest = line[found.end() :]
            runs = RUNS.match(rest)
            if runs and not FAILS.search(rest[: runs.end()]):
                return no
    return None


def torch_kernels_run_matches(lines: list[str], matches: list[Match]) -> list[Match]:
    """Drop torch-build guesses from "no kernel image" when the text says torch's own computations run."""
    blamed = [
        m
        for m in matches
        if m.id in TORCH_BUILD_GUESSES and not m.specific and NO_KERNEL_IMAGE.search(lines[m.line_no - 1][:MAX_LINE])
    ]
    if not blamed or torch_work_runs(lines) is None:
        return matches
    dropped = {id(m) for m in blamed}
    return [m for m in matches if id(m) not in dropped]
