"""A CUDA illegal memory access told in words, without CUDA's own error line (round 20).

The evidence space: CUDA's runtime and driver API name the fault in their error enums (messages.json, family
``cuda_error``: ``cudaErrorIllegalAddress`` / ``CUDA_ERROR_ILLEGAL_ADDRESS``, "an illegal memory access was
encountered", legacy ``cuda runtime error (77)``; ``cudaErrorMisalignedAddress``, "misaligned address"). torch prints
them as ``CUDA error: <message>``, which the message table already reads. People who report the fault in an issue's
prose shorten it to the noun phrase ("does not work on batch size 25 (illegal memory access)", "I get an illegal
address on the second call", "cuDNN gives illegal memory access with benchmark on"). The phrases read here are taken
from those table rows (the message without its article and "was encountered", and the driver API name in words), so
a new row is read in prose too.

Not read:
- "illegal instruction": the same table lists CUDA's ``cudaErrorIllegalInstruction``, but in prose it is nearly always
  the CPU's SIGILL ("Illegal instruction (core dumped)": numpy/OpenBLAS on a Jetson, a wheel for a newer CPU), a
  different problem; "invalid program counter" is never written in prose;
- questions ("is this an illegal memory access?"), a fault already fixed ("upgrading cuDNN fixed the illegal memory
  access"), denials ("no illegal memory access", "without any illegal memory
  access", "not an illegal address") and suppositions or explanations of what could happen ("if the index is out of
  range you may get an illegal memory access", "this can cause illegal memory access");
- a text that names no CUDA work at all (no ``.cuda()``, ``cuda``, GPU, cuDNN or kernel): the words may be about
  another program's memory.
With another cause's error verdict in the same text the words are only a guess beside it.
"""

from __future__ import annotations

import re

from gpuassist.ingest import prose
from gpuassist.ingest.errors import Match
from gpuassist.knowledge import messages

FINDING_ID = "cuda_illegal_memory_access"
# Phrases that in prose name another fault (the CPU's SIGILL) or that nobody writes in words.
_NOT_IN_PROSE = ("illegal instruction", "invalid program counter", "invalid pc")


def _phrases() -> list[str]:
    """The noun phrases of the message rows that name the fault outright, as people write them."""
    out: set[str] = set()
    for row in messages.families()["cuda_error"].rows:
        if row.specific != FINDING_ID:
            continue
        words = re.sub(r"^(?:an?|the)\s+", "", row.message.strip().lower())
        out.add(re.sub(r"\s+was encountered$", "", words))
        driver = str(row.fields.get("driver_name") or "")
        if driver.startswith("CUDA_ERROR_"):
            out.add(driver.removeprefix("CUDA_ERROR_").replace("_", " ").lower())
    return sorted((p for p in out if p and p not in _NOT_IN_PROSE), key=len, reverse=True)


def _phrase_regex() -> re.Pattern[str]:
    words = "|".join(r"[\s-]+".join(re.escape(w) for w in p.split()) for p in _phrases())
    return re.compile(rf"\b(?:{words})(?:es)?\b|非法(?:内存|显存|地址)访问", re.IGNORECASE)


FAULT_WORDS = _phrase_regex()
# Right before the phrase: a denial ("no illegal memory access", "not an illegal address", "without any ...").
# Beside prose.negated's words, two words before the phrase at most: a fault set aside or already gone ("instead of
# an illegal memory access", "upgrading cuDNN fixed the illegal memory access").
SET_ASIDE = (
    r"instead of",
    r"rather than",
    r"free of",
    r"fix(?:ed|es)?",
    r"solv(?:ed|es)?",
    r"resolv(?:ed|es)?",
    r"got rid of",
    r"gets rid of",
)
DENIAL_REACH = 2
DENIED = re.compile(
    # a changelog's or a reply's fix of a fault ("Fixed a bug causing an illegal memory access in ..."), and a
    # fault set apart from the user's ("this is not related to the illegal memory access in #1234")
    r"\b(?:fix(?:ed|es)?|solv(?:ed|es)?|resolv(?:ed|es)?)\s+(?:an?\s+|the\s+)?(?:\w+\s+){0,2}"
    r"(?:caus\w+|leading to|that (?:caused|led to|triggered))\s+(?:\w+\s+){0,2}$|"
    r"\b(?:(?:not|n't)\s+related|unrelated)\s+to\s+(?:\w+\s+){0,2}$|"
    r"(?:没有|不是|无)\S{0,4}$",
    re.IGNORECASE,
)
# In the phrase's own clause (after the last comma, bracket or colon): a condition, a possibility, an explanation.
SUPPOSED = re.compile(
    r"\b(?:if|whether|unless|in case|could|may|might|would|should|avoid\w*|prevent\w*|"
    r"can (?:cause|lead|result|trigger|produce|give|happen)|"
    # a tool described ("compute-sanitizer is the tool to find an illegal memory access")
    r"(?:tool|way|option|flag|utility)s?\s+(?:\w+\s+)?(?:to|for)\s+(?:find|debug|catch|locate|detect|track)\w*)\b|"
    r"如果|可能|避免",
    re.IGNORECASE,
)
# In the phrase's own clause before it: a fault of the past ("Previously I had an illegal memory access but ...").
# ("once"/"earlier today"/"since last week" still place it in the present: "once training starts I get ...").
PAST = re.compile(r"\b(?:previously|used to|in the past)\b", re.IGNORECASE)
# After the phrase in the same sentence: the fault is gone ("... but updating the driver solved it").
GONE_AFTER = re.compile(
    r"\b(?<!not )(?:solved|fixed|resolved|cured)\s+(?:it|this|that|the (?:problem|issue|error|crash))\b|"
    r"\b(?<!not )(?<!never )(?:went away|disappeared|is gone|was gone|no longer (?:happens|occurs|appears))\b",
    re.IGNORECASE,
)
# The CPU's own faults: SIGSEGV/SIGBUS (a C program's "Bus error: misaligned address", a segfault in a .so), which a
# sentence without any GPU or torch word names for another program's memory.
CPU_FAULT = re.compile(
    r"\b(?:bus error|sigbus|sigsegv|segmentation fault|segfault|access violation|core dumped|valgrind)\b", re.I
)


def _not_reported(sentence: str, start: int, end: int) -> bool:
    """The words before the phrase deny it or place it in the past, its clause only supposes it, the words after
    it say it is gone, or it is the CPU's fault in a sentence about no GPU work."""
    before = sentence[:start]
    clause = prose.clause_before(before, brackets=True)
    return bool(
        prose.negated(before, extra=SET_ASIDE, words=DENIAL_REACH)
        or DENIED.search(before)
        or SUPPOSED.search(clause)
        or PAST.search(clause)
        or GONE_AFTER.search(sentence[end:])
        or (CPU_FAULT.search(sentence) and not CUDA_WORK.search(sentence) and not TORCH_WORK.search(sentence))
    )


# The text is about CUDA work: a tensor moved to the GPU, CUDA, cuDNN, the GPU, a kernel.
TORCH_WORK = re.compile(r"\b(?:torch|pytorch|model|training|inference|tensors?)\b", re.IGNORECASE)
CUDA_WORK = re.compile(r"\.cuda\(|\bcuda\b|\bcudnn\b|\bgpus?\b|\bkernels?\b|device\s*=\s*['\"]cuda", re.IGNORECASE)


def illegal_access_in_words(lines: list[str], matches: list[Match]) -> Match | None:
    """The user reports an illegal memory access in words (above): a verdict in a text about CUDA work, a guess
    beside another cause's error verdict."""
    if any(m.id == FINDING_ID for m in matches):
        return None
    for no, sentence in prose.sentences(lines):
        found = FAULT_WORDS.search(sentence)
        if found is None or prose.is_question(sentence) or _not_reported(sentence, found.start(), found.end()):
            continue
        if not any(CUDA_WORK.search(line) for line in lines[: prose.MAX_LINES]):
            return None
        other_verdict = any(m.specific for m in matches)
        return Match(FINDING_ID, no, sentence.strip()[:500], not other_verdict, 0.5 if other_verdict else 0.8)
    return None


def told_matches(lines: list[str], matches: list[Match]) -> list[Match]:
    """The reading above as matches to add to the error lines' own (read beside them, before any inference)."""
    told = illegal_access_in_words(lines, matches)
    return [told] if told else []
