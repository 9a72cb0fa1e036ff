"""A torch without CUDA described in a user's sentence: "the package installed Torch without the CUDA version", "pip
pulled in a non-CUDA torch", "the installed torch is CPU-only", "torch cpu version got installed", "my torch is not
CUDA-enabled", "the torch version installed doesn't support CUDA".

A sentence is read when it names torch, says the build lacks CUDA within a few words of that name, and is a
statement (not a wish, an instruction, a condition, a guess or a yes/no question). user_words.cpu_torch_in_words
reads some of the same with an installer's verb; this reader covers the forms it does not. Both stand for one cause:
a dependency (an app's requirements, openai-whisper, a plain ``pip install torch`` on Windows, where PyPI's wheel is
the CPU build: the PyTorch "Get Started" selector and the uv docs, "Using uv with PyTorch") installed a torch without
CUDA. Words are not a tool's output, so this stays a likely cause (a warning), and a text that asks for the CPU build
is not read."""

from __future__ import annotations

import re

from gpuassist.ingest import prose
from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.ingest.user_words import CPU_WANTED

TORCH = re.compile(r"(?<![\w-])(?:py)?torch(?![\w-])", re.IGNORECASE)
# The build said to lack CUDA, in the words users use: "CPU-only", "the CPU version/build/wheel/one", "non-CUDA",
# "without (the) CUDA (version/support)", "not CUDA-enabled", "doesn't support CUDA". Not "without the CUDA toolkit" or
# "driver" (pip's CUDA wheels need neither: they bring their own CUDA libraries), not "doesn't support CUDA 12.4" (a
# version question), not "no GPU" alone (that is the machine).
BUILD_WITHOUT_CUDA = re.compile(
    r"\bcpu[- ]?only\b(?=\s*(?:version|build|wheel|variant|package|edition|(?:py)?torch)\b)|"
    r"\b(?:is|was|are|were|be|being)\s+(?:a\s+|the\s+)?cpu[- ]?only\b|"
    r"\bcpu\s+(?:version|build|wheel|variant|one|package|edition|release)\b|"
    r"\bnon[- ]?(?:cuda|gpu)\b|"
    r"\b(?:without|w/o|missing|with\s+no|no|lacks?|lacking)\s+(?:the\s+|any\s+)?(?:cuda|gpu)[- ]?"
    r"(?:support|enabled|version|build|wheel)\b|"
    r"\b(?:not|isn't|wasn't|is\s+not|was\s+not)\s+(?:the\s+|a\s+)?(?:cuda|gpu)[- ]?"
    r"(?:enabled|version|build|compatible)\b|"
    r"\b(?:doesn't|does\s+not|didn't|did\s+not|can't|cannot)\s+(?:support|have|include|come\s+with)\s+(?:the\s+)?"
    r"(?:cuda|gpu)\b(?!\s*\d)",
    re.IGNORECASE,
)
# "without CUDA" alone says what the build lacks only where the sentence is about installing it ("the installer put
# torch on without CUDA"); "torch works without CUDA" is the machine or the run. Not "without the CUDA toolkit" or
# "driver", not "without CUDA 12".
BARE_WITHOUT = re.compile(
    r"\b(?:without|w/o|missing)\s+(?:the\s+|any\s+)?(?:cuda|gpu)\b"
    r"(?!\s*(?:tool\s*kit|drivers?|sdk|nvcc|cudnn|\d|installed|install\b))",
    re.IGNORECASE,
)
INSTALLING = re.compile(
    r"\b(?:install(?:s|ed|ing)?|pull(?:s|ed)?|download(?:s|ed)?|brings|brought|ships|shipped|came|comes|got)\b",
    re.IGNORECASE,
)
# What the user has: "torch is CPU-only", "I had the CPU build".
STATE = re.compile(r"\b(?:is|was|are|were|had|have|has|gets?|getting)\b", re.IGNORECASE)
# The CPU phrase denied ("not the CPU version", "instead of the CPU build"): the user says they have the CUDA one.
# (prose.negated, one word back at most, with "instead of" and "rather than").
SET_ASIDE = (r"instead\s+of", r"rather\s+than")
# A wish, an instruction, a condition or a guess is not a statement of what is installed.
NOT_A_STATEMENT = re.compile(
    r"\b(?:want|wants|wanted|need|needs|prefer|wish|would\s+like|how\s+(?:to|do|can)|if|whether|make\s+sure|ensure|"
    r"check|verify|should|maybe|perhaps|probably|possibly|might|may)\b",
    re.IGNORECASE,
)
# Narrower than prose.is_question on purpose: only a sentence that opens as a yes/no question is dropped, so that a
# statement with a question mark after it ("pip gave me torch 2.3.0+cpu, why?") is still read.
QUESTION = re.compile(r"^\W*(?:is|are|does|do|did|could|can)\b[^?]*\?\s*$", re.IGNORECASE)
NEAR = 40  # characters between the torch word and the CPU phrase, at most
BARE_NEAR = 12  # torch [version] without CUDA


def _says_cuda_less_torch(sentence: str) -> bool:
    if NOT_A_STATEMENT.search(sentence) or QUESTION.match(sentence):
        return False
    if not (INSTALLING.search(sentence) or STATE.search(sentence)):
        return (
            False  # "the CPU-only torch runs fine in our docs build" tells where a CPU torch is used, not what got in
        )
    torches = [m.span() for m in TORCH.finditer(sentence)]
    for m in BUILD_WITHOUT_CUDA.finditer(sentence):
        if prose.negated(sentence[: m.start()], extra=SET_ASIDE, words=1):
            continue
        if any(max(a - m.end(), m.start() - b, 0) <= NEAR for a, b in torches):
            return True
    if INSTALLING.search(sentence):
        # the bare form right after the name it qualifies: "installs torch without cuda", not "torch on a laptop
        # without GPU"
        for m in BARE_WITHOUT.finditer(sentence):
            if any(0 <= m.start() - b <= BARE_NEAR for _, b in torches):
                return True
    return False


def cuda_less_torch_in_words(lines: list[str]) -> Match | None:
    """The first line with a sentence that says the installed torch lacks CUDA, as a likely ``cpu_only_build``;
    None when there is none or the text asks for the CPU build."""
    cut = [line[:MAX_LINE] for line in lines]
    if any(CPU_WANTED.search(line) for line in cut):
        return None
    for no, line in enumerate(cut, start=1):
        if "torch" in line.lower() and any(
            _says_cuda_less_torch(s) for s in prose.split(line, semicolon=True) if TORCH.search(s)
        ):
            return Match("cpu_only_build", no, line.strip()[:500], False, 0.85)
    return None
