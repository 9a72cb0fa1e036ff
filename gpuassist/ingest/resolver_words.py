"""pip's "no matching distribution" told in the person's words after a torch install command: no wheel fits.

pip's resolver answers a requirement no index file fits with two lines (pip's resolvelib factory,
``_report_single_requirement_conflict``; the legacy finder before it): ``Could not find a version that satisfies
the requirement <req> (from versions: ...)`` and ``No matching distribution found for <req>``. The catalogue reads the
verbatim lines; people who retell it in prose drop the requirement ("pip returns 'no matching distribution found'",
"pip says it could not find a version that satisfies the requirement"). With a torch install command in the same text
and nothing installed, the retold answer is about torch: no wheel on that index fits this Python / OS / CPU
(no_wheel_for_platform, the same weight as the verbatim line's guess, not a proof: which of Python, OS or index lacks
the wheel is for the confirm step). A retelling that names another package ("... found for detectron2") is not
read: that package, not torch, has no wheel. pip's source was not re-read this round (search budget spent); the two
message forms are the ones already in the catalogue (knowledge/catalogue.json no_wheel_for_platform patterns).
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.install_intent import INSTALL, INSTALLED
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.ingest.paste_causes import NO_TORCH_DIST

# The retold answer, with the requirement left out or naming torch itself.
RETOLD = re.compile(
    r"\b(?:no matching distributions?(?:\s+(?:was\s+|is\s+)?found)?|"
    r"could(?: not|n't) find (?:a|any) version that satisfies the requirement)",
    re.IGNORECASE,
)
# The requirement a retelling names after it ("... found for detectron2", "... the requirement mmcv==1.7").
NAMED_AFTER = re.compile(
    r"^\s+(?:for\s+)?[`'\"]?(?P<name>[a-z][\w.-]*)(?:\[[^\]]*\])?(?:\s*[=<>!~]=|[`'\"]?\s|$)", re.IGNORECASE
)
TORCH_NAME = re.compile(r"^(?:py)?torch$", re.IGNORECASE)
# Words that follow the answer in prose and are not a requirement's name.
NOT_A_NAME = re.compile(r"^(?:for|and|but|when|with|on|in|at|from|error|even|again|so|then|i|it)$", re.IGNORECASE)


PINNED_AFTER = re.compile(r"^\s*[\w.-]+\s*[=<>!~]=")


def _named(rest: str) -> str | None:
    """The requirement named right after a retold answer ("for detectron2", "mmcv==1.7"), or None."""
    named = NAMED_AFTER.match(rest)
    if named is None:
        return None
    if rest.lstrip().lower().startswith("for") or (
        not NOT_A_NAME.match(named.group("name")) and PINNED_AFTER.match(rest)
    ):
        return named.group("name")
    return None


def _about_torch(line: str) -> bool:
    """A retold answer on this line that names torch or no requirement at all."""
    for told in RETOLD.finditer(line):
        name = _named(line[told.end() :])
        if name is None or TORCH_NAME.match(name):
            return True
    return False


# A torch install command: the installer's verb and torch as a requirement on the same line.
TORCH_REQUIREMENT = re.compile(r"(?<![\w/.-])torch(?![\w-])(?:\s*[=<>!~]=?|\s|$)", re.IGNORECASE)
WEIGHT = 0.6


def retold_resolver_failure(lines: list[str]) -> Match | None:
    """no_wheel_for_platform when a torch install command is followed by pip's answer retold in prose."""
    cut = [line[:MAX_LINE] for line in lines]
    command = next(
        (
            no
            for no, line in enumerate(cut, 1)
            if (verb := INSTALL.search(line)) and TORCH_REQUIREMENT.search(line[verb.end() :])
        ),
        None,
    )
    # pip's verbatim lines are the catalogue's to read (the same guess, cited once)
    if command is None or any(INSTALLED.search(line) or NO_TORCH_DIST.search(line) for line in cut):
        return None
    for no, line in enumerate(cut[command - 1 :], command):
        if _about_torch(line):
            return Match("no_wheel_for_platform", no, line.strip()[:500], False, WEIGHT)
    return None
