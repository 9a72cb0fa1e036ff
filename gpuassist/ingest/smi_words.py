"""The user says nvidia-smi works: the driver is installed and its kernel module loaded, whatever CUDA says.

nvidia-smi answers through NVML (libnvidia-ml, installed with the driver) and the nvidia module's /dev/nvidiactl, so a
working nvidia-smi rules out "no driver" and "module not loaded" on that machine. In a container the NVIDIA runtime
mounts nvidia-smi/NVML for the ``utility`` capability and libcuda for ``compute`` (libnvidia-container
docs, "Driver capabilities"; NVIDIA_DRIVER_CAPABILITIES), so nvidia-smi working there while torch reports "Found no
NVIDIA driver" is the container's setup, not the host's driver. Reporters say it in words ("I have good nvidia-smi
in the container", "nvidia-smi works fine", "nvidia-smi shows my GPU"); the tool's table is read elsewhere
(orchestration.working_smi_rules_out_module). Only the generic guesses go (a message that names a cause stays), and
nothing is dropped when nvidia-smi also fails in the text, the statement is negated or a question, or it is about
another machine or another time.
"""

from __future__ import annotations

import re

from gpuassist.ingest import prose
from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

SMI = r"[`'\"]?nvidia-smi(?:\.exe)?[`'\"]?"
SMI_SAID_WORKING = re.compile(
    rf"\b(?:good|working|fine|normal)\s+(?:output\s+(?:of|from)\s+)?{SMI}|"
    rf"{SMI}\s+(?:command\s+)?(?:still\s+|also\s+)?(?:works?|working|runs?\s+(?:fine|ok|well|normally|correctly)|"
    rf"(?:is|looks|seems)\s+(?:fine|ok(?:ay)?|good|normal|correct)|"
    rf"(?:shows|lists|detects|sees|displays)\s+(?:my|the|both|all|\d+)\s+(?:\w+\s+){{0,3}}(?:gpus?|cards?))\b",
    re.IGNORECASE,
)
# A denial, a condition, or an instruction ("make sure nvidia-smi works", "check that nvidia-smi shows your GPU": a
# guide's or template's step, not this machine's state).
NEGATED = re.compile(
    r"\b(?:not|n't|never|no longer|neither|nor|if|whether|fails?|failed|unless|make sure|ensure|verify|check|should|"
    r"must)\b|\bn[o']t\b|\?",
    re.IGNORECASE,
)
ELSEWHERE = re.compile(
    r"\b(?:on|under|in|with)\s+(?:windows|another|my other|the other|a different|the old|the previous)\b|"
    # another computer of the user's: "nvidia-smi works on my laptop but the server ..."
    r"\b(?:on|with)\s+(?:my|a|the)\s+(?:laptop|desktop|home|personal|work|local|old)\s*(?:pc|machine|computer|box)?\b|"
    r"\b(?:before|previously|used to|until|yesterday|last week)\b",
    re.IGNORECASE,
)
SMI_FAILED = re.compile(
    r"NVIDIA-SMI has failed|Failed to initialize NVML|No devices were found|couldn't communicate with the NVIDIA|"
    r"nvidia-smi\W{0,3}(?:command )?not found",
    re.IGNORECASE,
)
DRIVER_GUESSES = frozenset({"no_nvidia_driver", "nvidia_module_not_loaded"})
# "nvidia-smi works fine, but torch fails": the failure is another clause's; the statement is judged in its own.
CLAUSE = re.compile(r",|\b(?:but|while|whereas|however|though|although|yet)\b", re.IGNORECASE)


def smi_said_working(lines: list[str]) -> bool:
    """A sentence of the text states, unnegated and about this machine now, that nvidia-smi works."""
    cut = [line[:MAX_LINE] for line in lines]
    if any(SMI_FAILED.search(line) for line in cut):
        return False
    # '?' does not end a sentence here: "Is nvidia-smi fine? It shows my GPU." stays one sentence, dropped whole as a
    # question (the answer may be the asker's hope); ';' does, like a clause.
    for _, sentence in prose.sentences(cut, semicolon=True, question_mark=False):
        if prose.is_question(sentence) or ELSEWHERE.search(sentence):
            continue
        for clause in CLAUSE.split(sentence):
            if SMI_SAID_WORKING.search(clause) and not NEGATED.search(clause):
                return True
    return False


def smi_working_rules_out_driver(lines: list[str], matches: list[Match]) -> list[Match]:
    """Drop the generic "no driver" / "module not loaded" guesses when the user says nvidia-smi works."""
    if not any(m.id in DRIVER_GUESSES and not m.specific for m in matches) or not smi_said_working(lines):
        return matches
    return [m for m in matches if m.specific or m.id not in DRIVER_GUESSES]
