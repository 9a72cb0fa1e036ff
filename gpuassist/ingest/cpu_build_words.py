"""A torch without CUDA described by what it lacks: "the package installed Torch without the CUDA version", "pip
pulled in a non-CUDA torch", "torch was installed without GPU support", "the torch it installs is not the CUDA
build".

user_words.cpu_torch_in_words reads the same fact said with the word "CPU" ("installed the CPU version of torch");
these are the negative forms, which never say "CPU". Both stand for the same cause: a dependency (an app's
requirements, openai-whisper, a plain ``pip install torch`` on Windows, where PyPI's wheel is the CPU build: the
PyTorch "Get Started" selector and the uv docs, "Using uv with PyTorch") installed a torch without CUDA. Words are
not a tool's output, so this stays a likely cause (a warning), and a text that asks for the CPU build or runs without
a GPU on purpose is not read."""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.ingest.user_words import CPU_WANTED

_TORCH = r"(?<![\w-])(?:py)?torch(?![\w-])"
_INSTALLER = r"\b(?:install(?:s|ed)?|pull(?:s|ed)?(?:\s+in)?|download(?:s|ed)?|brings|brought|ships|shipped|came|comes)"
# Not "without the CUDA toolkit/driver": pip's CUDA wheels need neither (they bring their own CUDA libraries), so a
# user who installed torch without the toolkit says nothing about the build.
_LACKING = (
    r"\b(?:without|w/o|with\s+no|lacking|missing)\s+(?:the\s+|any\s+)?(?:cuda|gpu)\b"
    r"(?!\s*(?:tool\s*kit|drivers?|sdk|nvcc|cudnn|installed|install|on\b|in\b))"
)
CUDA_LESS_TORCH = re.compile(
    # "installed Torch without the CUDA version", "pulled in torch 2.4 without CUDA support"
    rf"{_INSTALLER}\s+(?:in\s+)?(?:the\s+|a\s+)?{_TORCH}(?:\s+v?\d+(?:\.\d+)+)?[^.\n]{{0,30}}?{_LACKING}|"
    # "torch was installed without GPU support", "torch got installed w/o cuda"
    rf"{_TORCH}[^.\n]{{0,30}}?\b(?:was|were|is|got|gets|been)\s+(?:installed|downloaded)\s+{_LACKING}|"
    # "installed a non-CUDA torch", "a non-GPU build of torch was installed"
    rf"{_INSTALLER}\s+(?:the\s+|a\s+)?non[- ]?(?:cuda|gpu)\s+(?:(?:version|build|wheel)\s+of\s+)?{_TORCH}|"
    rf"\bnon[- ]?(?:cuda|gpu)\s+(?:version|build|wheel)\s+of\s+{_TORCH}[^.\n]{{0,20}}?\b(?:was|is|got|gets)\s+"
    r"(?:installed|downloaded|pulled)|"
    # "the torch it installed is not the CUDA version"
    rf"{_TORCH}[^.\n]{{0,40}}?{_INSTALLER}\b[^.\n]{{0,20}}?\b(?:is|was)\s+not\s+(?:the\s+|a\s+)?(?:cuda|gpu)"
    r"(?:[- ]enabled)?\s+(?:version|build|wheel)\b",
    re.IGNORECASE,
)
WORDS = ("torch",)


def cuda_less_torch_in_words(lines: list[str]) -> Match | None:
    """The first line that says the installed torch lacks CUDA, as a likely ``cpu_only_build``; None when there is
    none or the text asks for the CPU build."""
    cut = [line[:MAX_LINE] for line in lines]
    if any(CPU_WANTED.search(line) for line in cut):
        return None
    for no, line in enumerate(cut, start=1):
        if "torch" in line.lower() and CUDA_LESS_TORCH.search(line):
            return Match("cpu_only_build", no, line.strip()[:500], False, 0.85)
    return None
