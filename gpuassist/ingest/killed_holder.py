"""Out of memory after the user stopped the other process they blamed (round 20).

The evidence space: torch's out-of-memory message states the card's total, this process's reserved memory and what
is free (c10/cuda/CUDACachingAllocator.cpp); paste_causes reads memory neither reserved nor free as held by other
processes (gpu_memory_held_by_others, a verdict). People paste the first error, then tell what they did: "I killed
the other python process, but it still runs out of memory", "after stopping the other job the same error". The
pasted numbers then may predate the kill, and the process they describe is gone: the held memory is a possibility
to check (another holder, a zombie that kept its memory), no longer a verdict; the out-of-memory error itself stays
the text's error. held_memory_words declines its own reading in the same case (REMOVED), and user_words'
other_job_on_gpu ("the other python process that was using the GPU") is then a guess too.

Not read: a kill that did fix it ("killed it and now it works", even if "it comes back again" later), a holder
still seen after the kill ("I stopped it but it is still there in nvidia-smi": the memory is held, the verdict
stands), a question ("should I kill the process?"), a denial ("I did not kill anything").
"""

from __future__ import annotations

import re

from gpuassist.ingest import prose
from gpuassist.ingest.errors import Match
from gpuassist.ingest.held_memory_words import REMOVED

# The job fails as before: "still", "again", "the same error", "keeps running out", "仍然/还是".
STILL_FAILS = re.compile(
    r"\b(?:still|again|(?:the )?same (?:error|problem|issue|oom)|keeps? (?:running|getting|failing)|persists?)\b|"
    r"还是|仍然|依然",
    re.IGNORECASE,
)
NOT_DONE = re.compile(
    r"\b(?:did\s*n[o']?t|do\s*n[o']?t|never|not|should i|can i|how (?:do|can) i)\b[^.\n]{0,20}?"
    r"\b(?:kill|stop|close|terminat|end)",
    re.IGNORECASE,
)


# The failure itself named again ("the same error", "it still runs out of memory"): it outweighs the words below.
FAILS_AGAIN = re.compile(
    r"\b(?:(?:the )?same (?:error|problem|issue|oom)|out of memory|oom|keeps? (?:running|getting|failing)|"
    r"still (?:fails?|failing|crash\w*|errors?|gives?|gets?|throws?|runs? out))\b",
    re.IGNORECASE,
)
# The kill did help ("killed it and now it works", "that freed the memory"): the held memory was the cause.
KILL_HELPED = re.compile(
    r"\b(?:now (?:it |everything )?(?:works|runs)|works now|(?:fixed|solved) (?:it|the)|freed (?:the|up)|helped)\b",
    re.IGNORECASE,
)
# "still" about the holder, not the job: the process or its memory is still there ("it is still there in nvidia-smi",
# "still shows 22GB used"): the held memory is then seen, and the verdict stands.
HOLDER_STILL_THERE = re.compile(
    r"\bstill\s+(?:there|running|alive|listed|visible|present|holds?|holding|using|occup\w+|shows?|showing|in "
    r"nvidia-smi)\b",
    re.IGNORECASE,
)


def killed_still_fails(lines: list[str]) -> bool:
    """The user says they killed or stopped the process and the job fails as before."""
    for _no, sentence in prose.sentences(lines, semicolon=False):
        if prose.is_question(sentence) or not REMOVED.search(sentence) or NOT_DONE.search(sentence):
            continue
        if FAILS_AGAIN.search(sentence):
            return True
        if KILL_HELPED.search(sentence) or HOLDER_STILL_THERE.search(sentence):
            continue
        if STILL_FAILS.search(sentence):
            return True
    return False


def holder_killed(lines: list[str], raw: list[Match], matches: list[Match]) -> list[Match]:
    """The numbers' held-by-others verdict, when the user says they stopped the other process and the job still
    fails, becomes a guess beside the out-of-memory error (above)."""
    oom = next((m for m in raw if m.id == "cuda_out_of_memory"), None)
    held = [m for m in matches if m.id == "gpu_memory_held_by_others" and m.specific]
    if oom is None or not held or not killed_still_fails(lines):
        return matches
    rest = [m for m in matches if m not in held]
    guesses = [Match(m.id, m.line_no, m.line, False, 0.6) for m in held]
    return [*rest, *([] if any(m.id == oom.id for m in rest) else [oom]), *guesses]
