"""Texts that show a driver state or quote a message but say, in the same text, that nothing is failing.

Two forms the round-17 review found claimed (round 18):

- nouveau driving the card (``lspci -k``'s "Kernel driver in use: nouveau", ``driver=nouveau``, nouveau's probe
  line). The catalogue reads it as a weak hint that NVIDIA's driver is missing or not loaded, which is right in a
  text about CUDA not working: CUDA needs NVIDIA's module and nouveau holds the card instead. A person who says they
  do not use CUDA at all ("I don't use CUDA, just gaming"), or that everything works, has no CUDA failure for it to
  explain: nouveau is a supported driver for display and games (the kernel's drivers/gpu/drm/nouveau).
- a message quoted inside a question ("What does 'Driver/library version mismatch' mean?") by someone who says in
  the same text that everything works: asking what a message means is not reporting that it was printed.
- a message quoted in a request about messages or docs ("Feature request: print a clearer message than 'Torch not
  compiled with CUDA enabled'", "the FAQ should mention that ... means"): asking for a better text is not reporting
  the error (round 26).

Both decline only when the text says so and shows no failure anywhere else (no traceback, no tool failing, no
is_available() False, no complaint in the user's words); a message printed on its own line, or asked about by
someone whose CUDA fails, is still read.
"""

from __future__ import annotations

import re

from gpuassist.ingest import prose
from gpuassist.ingest.errors import Match
from gpuassist.ingest.kernel_noise import FAILS, SAYS_WORKS, WORKS_ELSEWHERE
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.ingest.orchestration import CUDA_INIT_FAILED
from gpuassist.ingest.system_causes import says_gpu_unused
from gpuassist.ingest.unavailable_said import says_unavailable
from gpuassist.ingest.usage_words import cuda_shown_failing

# nouveau bound to the card, as lspci -k, a uevent/sysfs listing or nouveau's probe line print it.
NOUVEAU_BOUND = re.compile(
    r"Kernel driver in use:\s*nouveau\b|\bdriver=nouveau\b|\bnouveau [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d:",
    re.IGNORECASE,
)
# The person does not use CUDA or GPU compute on this machine.
NO_COMPUTE = re.compile(
    r"\b(?:do\s*n[o']?t|don't|not|never|no need to)\s+(?:even\s+)?(?:use|using|need|run|running)\s+"
    r"(?:any\s+)?(?:cuda|pytorch|torch|gpu\s+compute|compute|machine\s+learning|ml|ai)\b|"
    r"\b(?:just|only)\s+(?:for\s+|use\s+it\s+for\s+)?(?:gaming|games|the\s+desktop|display)\b|\bgaming\s+only\b",
    re.IGNORECASE,
)


def _says_no_failure(lines: list[str], *, skip_questions: bool) -> bool:
    """Nothing in the text fails: no failure word outside the asked questions, no CUDA init error, torch not False."""
    cut = [line[:MAX_LINE] for line in lines]
    if cuda_shown_failing(cut):
        return False
    for line in cut:
        kept = " ".join(s for s in prose.split(line) if not (skip_questions and prose.is_question(s)))
        if FAILS.search(kept) or CUDA_INIT_FAILED.search(kept):
            return False
    return True


# "everything works (here)", "it all works", "torch works": the short forms kernel_noise's SAYS_WORKS leaves out.
WORKS_HERE = re.compile(
    r"\b(?:everything|it\s+all|all|things|the\s+gpu|cuda|torch|pytorch|training)\s+(?:still\s+|else\s+)?works?\b"
    r"(?!\s+(?:with|when|if|only|for|on|under|in|after|until|unless|sometimes)\b)",
    re.IGNORECASE,
)
# A question about what a message means (not "how do I fix X?", which reports X).
ASKS_MEANING = re.compile(
    r"\bwhat\s+(?:does|do|is|'s)\b|\bwhat'?s\b|\bmeaning\s+of\b|\bshould\s+i\s+(?:worry|care)\b|"
    r"\bis\s+(?:this|that|it)\s+(?:bad|a\s+problem|normal|harmless|something\s+to\s+worry)\b",
    re.IGNORECASE,
)


def _says_works(lines: list[str]) -> bool:
    """The person says the GPU (or everything) works now, not elsewhere or before."""
    return any(
        (SAYS_WORKS.search(line[:MAX_LINE]) or WORKS_HERE.search(line[:MAX_LINE]))
        and not WORKS_ELSEWHERE.search(line[:MAX_LINE])
        for line in lines
    )


def nouveau_without_compute(lines: list[str], matches: list[Match], *, unavailable_said: bool) -> list[Match]:
    """Drop the guesses read only from nouveau holding the card when the person uses no CUDA (or says it works).
    Only the words that CUDA does not work count against it: "I don't use CUDA" is itself read as the GPU unused."""
    if unavailable_said or not matches or any(m.specific or not NOUVEAU_BOUND.search(m.line) for m in matches):
        return matches
    text = "\n".join(line[:MAX_LINE] for line in lines)
    if not (NO_COMPUTE.search(text) or _says_works(lines)):
        return matches
    return [] if _says_no_failure(lines, skip_questions=True) else matches


# A request about the project's messages or docs, not a report: a feature request, what the docs/FAQ/README/error
# message should say, "it would be nice if ... printed".
REQUEST = re.compile(
    r"\bfeature request\b|\b(?:docs?|documentation|readme|faq|wiki|tutorial|guide|error message|message)\s+"
    r"(?:should|could|would|needs? to|ought to)\s+(?:\w+\s+){0,2}?(?:mention|explain|say|state|document|tell|warn|"
    r"note|be clearer|be more)\b|\bit would be (?:nice|great|helpful|good)\b|"
    r"\b(?:print|show|give|raise|emit|add)\s+(?:a\s+|an\s+)?(?:clearer|better|more (?:helpful|explicit|specific))\s+"
    r"(?:error\s+)?(?:message|error|hint|warning)\b",
    re.IGNORECASE,
)
# The person reports the message as theirs ("I get", "I keep getting", "it shows"): then it is a report after all.
REPORTED = re.compile(
    r"\b(?:I|we)\s+(?:still\s+|also\s+|keep\s+)?(?:get|got|getting|see|saw|hit|have|had|run into|ran into)\b|"
    r"\b(?:it|this|torch|pytorch)\s+(?:shows|showed|says|said|prints|printed|gives|gave|throws|threw|raises|raised)\b",
    re.IGNORECASE,
)


def quoted_in_a_request(lines: list[str], matches: list[Match]) -> list[Match]:
    """Drop the readings of messages quoted only in a request about messages or docs, when nothing else in the text
    fails and the person does not say they got the message."""
    if not matches:
        return matches
    cut = [line[:MAX_LINE] for line in lines]
    if says_unavailable(cut) or says_gpu_unused(cut) or cuda_shown_failing(cut):
        return matches
    for m in matches:
        if not any(REQUEST.search(s) for s in prose.split(m.line)):
            return matches
    for line in cut:
        for sentence in prose.split(line):
            if REPORTED.search(sentence):
                return matches
            if not REQUEST.search(sentence) and (FAILS.search(sentence) or CUDA_INIT_FAILED.search(sentence)):
                return matches
    return []


def quoted_in_a_question(lines: list[str], matches: list[Match]) -> list[Match]:
    """Drop the readings of messages that appear only inside the person's questions about what they mean, when they
    say it works ("how do I fix X?" reports X and is kept). Run on
    the first matches, before any fact is read from them (a quoted torch warning becomes cuda.init_warnings)."""
    cut = [line[:MAX_LINE] for line in lines]
    if not matches or not _says_works(cut) or says_unavailable(cut) or says_gpu_unused(cut):
        return matches
    for m in matches:
        asked = [s for s in prose.split(m.line) if prose.is_question(s) and ASKS_MEANING.search(s)]
        stated = [s for s in prose.split(m.line) if not prose.is_question(s)]
        if not asked or any(FAILS.search(s) for s in stated):
            return matches
    return [] if _says_no_failure(lines, skip_questions=True) else matches
