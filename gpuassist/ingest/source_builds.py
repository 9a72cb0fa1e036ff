"""A torch the user built from source, read from their own words, when the text shows it has no CUDA.

"Torch not compiled with CUDA enabled" from a wheel means the CPU wheel (``cpu_only_build``: reinstall from the
CUDA index). From a torch the user compiled it means the build did not find CUDA (``source_build_without_cuda``):
PyTorch's setup.py builds with CUDA unless ``USE_CUDA=0`` or no toolkit is found (pytorch/pytorch#84162, malfet;
#36644, ngimel: "the build was not able to locate your cuda compiler"; cmake/Dependencies.cmake's "Not compiling
with CUDA"). Reinstalling a wheel would replace the user's build rather than fix it, so the two fixes differ.

The words are the evidence space of PyTorch's own "from source" instructions (README "From Source":
``python setup.py develop`` / ``pip install -e .`` in a ``git clone`` of pytorch/pytorch) and of how users
report it: "built/compiled/installed (py)torch [1.4] from source", "compiled the pytorch source code", "a source
build of pytorch", "after building pytorch from source". Only torch built by the user counts: torchvision,
apex, mmcv or detectron2 built from source say nothing about torch's CUDA; an issue template's "(if compiling from
source)" field, a question ("should I build from source?") or a wish ("without rebuilding from source") is no
statement that it was done.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.rules.gpu_stacks import SOURCE_BUILD, nvidia_jetson_build

TORCH = r"(?:py)?torch(?:\s+v?\d{1,4}(?:\.\d{1,4}){1,3}(?:[a-z+][\w.+]{0,30})?)?"  # bounded: no rescans
# Done, in the past or perfect tense ("I built", "I have compiled", "after installing", "I am building").
DONE = (
    r"(?:\b(?:built|compiled|installed|rebuilt|recompiled)|\bafter\s+(?:re)?(?:building|compiling|installing)|"
    r"\bI(?:'ve|\s+have|\s+had)?\s+(?:re)?(?:build|compile)|\bI(?:'m|\s+am|\s+was)\s+(?:re)?(?:building|compiling))"
)
SOURCE_BUILT = re.compile(
    rf"{DONE}\s+(?:the\s+|my\s+)?{TORCH}\s+(?:from|with|using)\s+(?:the\s+)?(?:git\s+)?source\b|"
    rf"{DONE}\s+(?:the\s+)?{TORCH}\s+source(?:\s+code)?\b|"
    rf"\b(?:source[- ]built|self[- ]built|self[- ]compiled|a\s+source\s+build\s+of|my\s+own\s+build\s+of)\s+{TORCH}\b|"
    rf"\b{TORCH}\s+(?:that\s+I\s+)?(?:built|compiled)\s+from\s+source\b",
    re.IGNORECASE,
)
# A line that only asks or wishes: a question, a conditional, a negation just before the words.
NOT_DONE = re.compile(r"\b(?:if|whether|without|instead\s+of|need\s+to|have\s+to|should|how\s+(?:to|do|can))\b", re.I)
# The checkout itself: cloning pytorch/pytorch and running its setup.py (or an editable pip install of it).
CLONED = re.compile(r"git\s+clone\b[^\n]*github\.com[/:]pytorch/pytorch(?:\.git)?(?:\s|$)", re.IGNORECASE)
SETUP = re.compile(
    r"\bpython[\d.]*\s+setup\.py\s+(?:install|develop|bdist_wheel)\b|\bpip3?\s+install\s+(?:-v\s+)?(?:-e|--editable)\s+\.",
)
# PyTorch's setup.py reporting its configuration ("-- Not using CUDA" when USE_CUDA is off, "Building wheel
# torch-1.4.0a0+7903fb1"): the text is a build of torch from source. The issue template's "How you installed PyTorch
# (`conda`, `pip`, source): source" says the same.
SETUP_REPORT = re.compile(r"^\s*-- (?:Not using CUDA|Building version \d)|\bBuilding wheel torch-\d")
TEMPLATE_SOURCE = re.compile(
    r"How you installed (?:Py)?Torch\b[^:\n]{0,60}:\s*(?:built\s+|compiled\s+)?(?:from\s+)?source\b", re.IGNORECASE
)
# Builds aimed at another GPU stack: setup.py says "Not using CUDA" there by design.
OTHER_STACK = re.compile(
    r"\bUSE_ROCM\s*[=:]\s*(?:1|ON)\b|Detected (?:XPU|HIP|ROCm)\b|\brocm\d|\bUSE_XPU\s*[=:]\s*(?:1|ON)\b", re.IGNORECASE
)
# The build has no CUDA: torch's own messages and the CMake summary. An extension's "Not compiled with CUDA support"
# (torchvision, mmcv, detectron2 ops) is about that extension's build, not torch's.
NO_CUDA_BUILD = re.compile(
    r"\b(?:py)?torch\b[^\n]{0,20}?\bnot compiled with CUDA|Not compiling with CUDA|USE_CUDA\s*:\s*(?:OFF|0|FALSE)\b|"
    r"^\s*-- Not using CUDA\s*$|"
    r"torch\.version\.cuda\W{0,8}(?:is\s+|returns?\s+|->\s*|=+\s*)?None\b",
    re.IGNORECASE,
)


def _said_built(line: str) -> bool:
    m = SOURCE_BUILT.search(line)
    return m is not None and not NOT_DONE.search(line[max(0, m.start() - 40) : m.start()])


def source_build_version(version: object) -> bool:
    """torch's own version says it was built from a checkout ("1.4.0a0+7f73f1d", "2.3.0a0+git6ddf5cf": setup.py's
    "a0+" plus the commit), not NVIDIA's JetPack/NGC build of it (".nv23.06"), which has CUDA."""
    return isinstance(version, str) and SOURCE_BUILD.search(version) is not None and not nvidia_jetson_build(version)


def source_build_match(lines: list[str], torch_version: object = None) -> Match | None:
    """The user says they built torch from source (or show the checkout's build, or torch's version is a checkout's)
    and the text shows a torch without CUDA: the build, not a CPU wheel, is the cause. Cites the line that shows the
    missing CUDA."""
    cut = [line[:MAX_LINE] for line in lines]
    symptom = next((no for no, line in enumerate(cut, start=1) if NO_CUDA_BUILD.search(line)), None)
    if symptom is None or any(OTHER_STACK.search(line) for line in cut):
        return None
    built = (
        source_build_version(torch_version)
        or any(_said_built(line) or SETUP_REPORT.search(line) or TEMPLATE_SOURCE.search(line) for line in cut)
        or (any(CLONED.search(line) for line in cut) and any(SETUP.search(line) for line in cut))
    )
    if not built:
        return None
    return Match("source_build_without_cuda", symptom, cut[symptom - 1].strip()[:500], True, 0.9)


def source_build_first(matches: list[Match], built: Match | None) -> list[Match]:
    """With the source build shown, the CPU-wheel reading of the same message is dropped: its fix (the CUDA
    wheel index) would replace the user's build instead of fixing it."""
    if built is None:
        return matches
    return [*(m for m in matches if m.id != "cpu_only_build"), built]
