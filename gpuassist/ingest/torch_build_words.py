"""The CUDA a torch build was made with, stated in words (round 20).

The evidence space: PyTorch publishes one build per CUDA release, tagged ``+cuXYZ`` (the wheel's local version,
``torch.version.cuda`` inside it; pytorch.org's "Previous versions" page and the wheel index names such as
``cu102``/``cu118``); collect_env prints it as "CUDA used to build PyTorch". People who write about the build in
prose name it the same way in words: "pip brings a torch with CUDA version 10.2", "my pytorch is built with CUDA
11.1", "torch compiled for cuda 10.2", "the cu102 build of torch", "torch (cu113)". That fact is what the existing
architecture rules need beside a named GPU (wheel.py: a toolkit cannot target a GPU newer than itself), so it is
read here as ``torch.cuda_build``; a tool's own output (collect_env, ``torch.version.cuda``, a ``+cuXYZ`` version)
wins over it.

Declined: a question, a denial, a wish or a condition in the build's own clause ("not a torch with cuda 10.2",
"I need a torch built with CUDA 11", "if torch is built with CUDA 10.2"), a past setup ("previously", "my old
setup"), an instruction ("the README says to install ..."), another person's or machine's build ("my colleague's
machine has ..."), a release dated ("... was released in 2019"), a sentence that says it works, and a text that names
two different builds (one replaced by the other, or compared): which one runs is then not told.
"""

from __future__ import annotations

import re

from gpuassist.ingest import prose
from gpuassist.ingest.lines import Sources, note_source

_CUDA_WORDS = r"(?:cuda|cu)\s*(?:toolkit\s*)?(?:version\s*)?(?:v(?:ersion)?\s*)?"
# torch, then within a few words "with / built with / compiled with / for" CUDA X.Y, or a cuXYZ tag next to torch.
BUILD_IN_WORDS = re.compile(
    r"(?<![\w.])(?:py)?torch(?:vision)?(?![\w-])(?:[^\n.;]|\.(?=\d)){0,25}?\b(?:(?:built|compiled|made|packaged)\s+)?"
    r"(?:with|for|against|on)\s+(?:the\s+)?(?:"
    + _CUDA_WORDS
    + r"(?P<dotted>\d{1,2}\.\d)(?!\d|\.\d)|cu(?P<tag3>\d{3})\b)|"
    r"(?<![\w.])(?:py)?torch(?![\w-])\s*[(\[]?\s*(?:\d+\.\d+(?:\.\d+)?\s*)?[(\[,]?\s*cu(?P<tag>\d{3})\b|"
    r"\bcu(?P<tag2>\d{3})\s+(?:build|wheel|version|variant)\s+of\s+(?:py)?torch\b",
    re.IGNORECASE,
)
# In the build's clause before it: a denial, a wish or a condition.
NOT_STATED = re.compile(
    r"\b(?:not|no|never|without|instead of|rather than|need|needs|want|wants|should|must|if|whether|unless|"
    r"looking for|how (?:do|can|to))\b",
    re.IGNORECASE,
)
# Anywhere in the sentence before it: a build of another time, person or machine, or an instruction.
ELSEWHERE = re.compile(
    r"\b(?:used to|previously|(?:old|previous|former|earlier) (?:setup|environment|env)|"
    # an instruction, not the installed build ("the README says to install torch 1.7 with cuda 10.2")
    r"says? to|tells? (?:you|me|us) to|told (?:me|us) to|recommend\w*|suggest\w*|instructions?|"
    # another person's or machine's build ("my colleague's machine has torch with cuda 10.2")
    r"colleague\W?s?|friend\W?s?|"
    r"(?:other|another|second|old|previous) (?:machine|computer|pc|server|laptop|box|node))\b",
    re.IGNORECASE,
)
# The sentence dates a release, a reference, not the user's build ("torchvision with cuda 10.2 was released in 2019").
RELEASE = re.compile(r"\b(?:released|release notes?|changelog)\b", re.IGNORECASE)
# The same sentence says the build works: the stated build is not the problem the text is about.
WORKS = re.compile(r"\b(?:works?|working|worked|runs? fine|no (?:problem|issue)s?|fine)\b", re.IGNORECASE)


def _cuda(found: re.Match[str]) -> str:
    if found["dotted"]:
        return found["dotted"]
    tag = found["tag"] or found["tag2"] or found["tag3"]
    return f"{int(tag[:-1])}.{tag[-1]}"


def stated_build_facts(lines: list[str], sources: Sources) -> dict[str, object]:
    """``torch.cuda_build`` as the user states it in words (above); nothing when it is not stated as a fact or two
    different builds are named."""
    builds: dict[str, tuple[int, str]] = {}
    for no, sentence in prose.sentences(lines):
        if "torch" not in sentence.lower() or prose.is_question(sentence) or WORKS.search(sentence):
            continue
        if RELEASE.search(sentence):
            continue
        for found in BUILD_IN_WORDS.finditer(sentence):
            before = sentence[: found.start()]
            # a denial or wish in an earlier clause ("sm_80 is not compatible ...; my torch is compiled for cuda
            # 10.2") does not reach the build's own clause
            if NOT_STATED.search(prose.clause_before(before, but=True)) or ELSEWHERE.search(before):
                continue
            builds.setdefault(_cuda(found), (no, sentence))
    if len(builds) != 1:
        return {}
    ((cuda, (no, sentence)),) = builds.items()
    note_source(sources, "torch.cuda_build", no, sentence)
    return {"torch.cuda_build": cuda}
