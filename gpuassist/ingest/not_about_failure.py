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

A third form (round 26, told_not_shown): a message only told, never shown: quoted from docs, an answer, a changelog,
a PR or another issue by someone whose run is fine, or said to be over ("I used to get X", "the X error is gone
after ...", "Edit: solved by ..., X went away", "之前一直报 X … 已经解决了"). "still", "again", "back", "didn't fix it",
the user's own words ("I got X", "same error as #123") and the message on a line of its own keep it: a thread's
"solved" note beside the error as pasted names the confirmed cause, as the corpus labels such threads.
"""

from __future__ import annotations

import re

from gpuassist.ingest import errors, prose
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
    r"note|be clearer|be more)\b|"
    # "it would be nice if torch printed ...": about what a tool or its docs should say, not the politeness idiom ("it
    # would be great if someone could help", "it would be nice to know what this means")
    r"\bit would be (?:nice|great|helpful|good) if (?:torch|pytorch|it|the\s+(?:error|message|docs?|documentation|"
    r"library|warning|installer|readme)|(?:this|that)\s+(?:error|message|warning))\s+(?:\w+\s+){0,2}?(?:printed|said|"
    r"showed|told|explained|mentioned|warned|raised|gave|documented|included|pointed)\b|"
    r"\b(?:print|show|give|raise|emit|add)\s+(?:a\s+|an\s+)?(?:clearer|better|more (?:helpful|explicit|specific))\s+"
    r"(?:error\s+)?(?:message|error|hint|warning)\b",
    re.IGNORECASE,
)
# The person reports the message as theirs ("I get", "I keep getting", "it shows"): then it is a report after all.
REPORTED = re.compile(
    r"\b(?:I|we)\s+(?:still\s+|also\s+|keep\s+)?(?:get|got|getting|see|saw|hit|have|had|run into|ran into)\b|"
    # (not the wish itself: "it would be nice if torch printed ...")
    r"(?<!\bif\s)\b(?:it|this|torch|pytorch)\s+(?:shows|showed|says|said|prints|printed|gives|gave|throws|threw|raises|"
    r"raised)\b|"
    # the user's own call ("model.cuda() gives X")
    r"\)\s+(?:gives|gave|throws|threw|raises|raised|fails\s+with|failed\s+with)\b",
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


# --- messages told, not shown (round 26) -------------------------------------------------------------------------
# A message the user quotes from somewhere else (docs, an answer, a changelog, another issue) or says is over ("I used
# to get X", "the X error is gone after ...", "Edit: solved by ..., X went away") is not this machine's current
# fault. Told means: every line of the text that carries the message carries it inside such a sentence; a message
# printed on a line of its own (a traceback, a log, "For the record, the error was:" then the paste) is shown, and
# a thread's "solved" note beside a shown error keeps it (the corpus labels such threads by the confirmed cause).

# The message comes from another text, named in the sentence before it.
FROM_ELSEWHERE = re.compile(
    r"\b(?:docs?|documentation|faq|release\s+notes|changelog|stack\s?overflow|answers?|guide|tutorial|blog|article|"
    r"readme|forum|(?:another|other|that|this|an\s+old|a\s+similar)\s+(?:issue|thread|post|question)|"
    r"(?:linked\s+)?(?:pr|pull\s+request)|"
    r"issue\s+#?\d+|#\d{2,})\b",
    re.IGNORECASE,
)
# The user's own, now: "I get X which the docs say ...", "I'm seeing X as well".
OWN_NOW = re.compile(
    r"\b(?:i|we)\s+(?:also\s+|now\s+|keep\s+|then\s+|just\s+)?(?:get|got|getting|am getting|'m getting|see|saw|"
    r"am seeing|'m seeing|hit|have|had|ran into|run into|encounter(?:ed)?)\b|\b(?:and|then)\s+(?:got|get|hit|saw)\b|"
    r"\b(?:my|our)\s+(?:error|traceback|log|output)\b|\bsame\s+(?:error|issue|problem)\b|\b(?:me too|same here)\b|"
    # the user's own call or program raising it ("model.cuda() raises X", "my script fails with X"), or it appearing
    # after what they did ("Following the answer I reinstalled, and now X appears")
    r"\)\s+(?:raises|raised|throws|threw|(?:fails|failed|crashes|crashed|errors?\s+out)\s+with)\b|"
    r"\b(?:my|our)\s+(?:code|script|model|training|run|job|notebook|program)\s+(?:now\s+|still\s+)?"
    r"(?:raises|raised|throws|threw|fails|failed|crashes|crashed)\b|\band\s+now\b",
    re.IGNORECASE,
)
# The message's own clause says it is over.
SAYS_OVER = re.compile(
    r"\b(?:used\s+to\s+(?:get|see|have|hit|fail|crash|throw|raise|print|show)|previously\s+(?:got|had|saw)|(?:is|was|are|were)\s+gone|went\s+away|"
    r"disappeared|(?:got|get)\s+rid\s+of|no\s+longer\s+(?:get|see|appears?|happens?|shows?)|"
    # "X is fixed", a changelog's "Fixed X ...", "Edit: solved by ...": not "I fixed the path and get X"
    r"(?:is|was|got|been|now)\s+(?:fixed|solved|resolved)\b(?!\s*\?))|"
    r"^\W*(?:(?:edit|update)\W+)?(?:fixed|solved|resolved)\b(?!\s*\?)"
    # in Chinese: "之前一直报 X" (before I kept getting X), "X 已经解决了" (X is solved), "不再出现" (no longer appears)
    r"|(?:之前|以前|原来)\S{0,4}(?:报|出现|遇到)|已经?解决|解决了|不再(?:出现|报)|没有再(?:出现|报)",
    re.IGNORECASE | re.MULTILINE,
)
# A later clause of the sentence says the fault it names is over: "I got X yesterday, but reinstalling fixed it".
OVER_AFTER = re.compile(
    r"\b(?:fixed|solved|resolved|cured|got\s+rid\s+of)\s+(?:it|this|that|the\s+(?:error|issue|problem|crash))\b|"
    r"\b(?:it|this|that|the\s+(?:error|issue|problem))(?:\s+|'s\s+)(?:went\s+away|is\s+gone|gone|disappeared|"
    r"no\s+longer\s+(?:happens|appears|shows))\b|"
    r"\b(?:it|this|that|everything)\s+(?:now\s+)?works?\s+(?:fine\s+)?now\b|"
    # a reboot or restart told as the fix (round 29): "after a reboot everything works", "since restarting, it works"
    r"\b(?:after|since)\s+(?:a\s+|the\s+)?(?:reboot(?:ing)?|restart(?:ing)?)\b(?:\s+\w+){0,3}?\s+"
    r"(?:everything|it|all|torch|cuda)\s+(?:now\s+)?(?:works?|is\s+(?:fine|working))\b|"
    # a fix named with the message worked: "the fix in the linked PR for X worked for me"
    r"\b(?:fix|workaround|solution|patch)\b.*\b(?:worked|helped|did\s+the\s+trick)\b|"
    r"已经?解决|解决了|不再(?:出现|报)|没有再(?:出现|报)",
    re.IGNORECASE,
)
# ... or that it is still there, or back: a current fault whatever else the sentence says.
STILL_THERE = re.compile(
    r"\b(?:still|again|back|persists?|keeps?\s+(?:coming|showing|happening)|remains?|same\s+error|"
    r"not\s+(?:fixed|solved|resolved|gone)|(?:didn'?t|did\s+not|doesn'?t|does\s+not|won'?t)\s+"
    r"(?:fix|help|solve|work|go\s+away|change))\b|\bno\s+(?:fix|workaround|solution)\b|\bnothing\s+(?:worked|helped)\b|"
    r"还是|仍然|依然|又出现",
    re.IGNORECASE,
)
# The run is healthy: the user says so, or torch says CUDA is available. Not "works fine on the CPU" (the CUDA run is
# what fails: "training works fine on CPU but .cuda() fails with ...").
RUNS_FINE = re.compile(
    r"\b(?:runs?|running|works?|working|trains?|training)\s+(?:just\s+)?(?:fine|well|ok(?:ay)?|perfectly|normally)\b"
    r"(?!\s+(?:on|with|using)\s+(?:the\s+|my\s+)?cpu\b)|"
    r"is_available\(\)\W{0,12}(?:returns?\s+|is\s+|->\s*)?True\b",
    re.IGNORECASE,
)
CLAUSE_END = re.compile(r"[,;，；]|\bbut\b|现在", re.IGNORECASE)


def _clauses(sentence: str) -> list[str]:
    return [c for c in CLAUSE_END.split(sentence) if c and c.strip()]


def _told(sentence: str, fid: str, *, healthy: bool) -> bool | None:
    """How ``sentence`` carries the message of ``fid``: True told (quoted from elsewhere on a healthy machine, or
    said to be over), False shown or current, None not at all."""
    if not any(m.id == fid for m in errors.match_lines([sentence])):
        return None
    if (prose.is_question(sentence) and not FROM_ELSEWHERE.search(sentence)) or STILL_THERE.search(sentence):
        return False
    clauses = _clauses(sentence)
    for at, clause in enumerate(clauses):
        if any(m.id == fid for m in errors.match_lines([clause])):
            if SAYS_OVER.search(clause) or any(OVER_AFTER.search(later) for later in clauses[at:]):
                return True
            break
    return healthy and FROM_ELSEWHERE.search(sentence) is not None and not OWN_NOW.search(sentence)


def _only_told(lines: list[str], fid: str, *, healthy: bool) -> bool:
    """Some sentence of ``lines`` carries the message of ``fid``, and every one that does only tells it."""
    said = [
        v
        for line in lines
        for sentence in prose.split(line)
        if sentence.strip() and (v := _told(sentence, fid, healthy=healthy)) is not None
    ]
    return bool(said) and all(said)


def told_not_shown(lines: list[str], matches: list[Match]) -> list[Match]:
    """Drop the readings of messages that every line carrying them only tells (above). Run on the first matches, with
    quoted_in_a_question, before any fact is read from them, and again after the inferences (steps.told_not_shown),
    which may read the same message again."""
    cut = [line[:MAX_LINE] for line in lines[: prose.MAX_LINES]]
    text = "\n".join(cut)
    if not matches or not (FROM_ELSEWHERE.search(text) or SAYS_OVER.search(text) or OVER_AFTER.search(text)):
        return matches
    healthy = RUNS_FINE.search(text) is not None and not cuda_shown_failing(cut)
    ids_by_line: list[set[str]] = []
    kept = []
    for m in matches:
        # the cited line first: most matches are shown there, and the whole text is read only for a told one
        if not _only_told([m.line], m.id, healthy=healthy):
            kept.append(m)
            continue
        ids_by_line = ids_by_line or [{x.id for x in errors.match_lines([line])} for line in cut]
        carrying = [line for line, ids in zip(cut, ids_by_line, strict=True) if m.id in ids]
        if not _only_told(carrying, m.id, healthy=healthy):
            kept.append(m)
    return kept
