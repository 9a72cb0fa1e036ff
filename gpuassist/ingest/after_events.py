"""A GPU that worked and stopped after an event, told in the user's words rather than pasted as an error.

Two causes are recognised by when the failure began, and reporters often describe them instead of pasting a line:

- after the host suspended and resumed (or hibernated, or woke from sleep), CUDA stops working while nvidia-smi
  still answers: the nvidia_uvm module left broken by the sleep (uvm_wedged_after_suspend; NVIDIA's driver README,
  "Configuring Power Management Support": video memory and UVM state are not preserved across suspend unless
  NVreg_PreserveVideoMemoryAllocations and the nvidia-suspend services are set up; tensorflow/tensorflow#5777 and
  NVIDIA/nvidia-container-toolkit threads: `modprobe -r nvidia_uvm && modprobe nvidia_uvm` cures it). The reader
  needs the sleep, the GPU and its failure in one sentence: "after resuming the training" or "the laptop's wifi
  stops after suspend" are not it.
- a container or pod whose NVML fails with "Unknown Error" after it ran fine for a while: its device cgroup was
  rewritten under it (systemd daemon-reload, kubelet's CPU manager updating the container), the GPU devices gone
  (container_gpu_access_lost; NVIDIA/nvidia-docker#1730, NVIDIA/nvidia-container-toolkit#48). The reporter's
  paraphrase of NVML's message ("NVML initialize failed: Unknow", "nvml init fails with unknown error") is read in
  any order of its words; the verdict needs the text to say the access worked first or returns on a restart,
  otherwise it is a possibility.
"""

from __future__ import annotations

import re

from gpuassist.ingest import prose
from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

# The host's sleep, as people write it (not "suspend the job" or "resume the training").
SLEPT = re.compile(
    r"\b(?:after|since|from|when|once|upon|following)\b[^.!?\n]{0,40}?"
    r"(?<![.\w])(?:suspen(?:d|ded|sion|ding)|hibernat(?:e|ed|ion|ing)|sleep(?:ing)?|standby|stand-by)\b(?!\s*\()"
    r"(?!\s+(?:the\s+|my\s+|a\s+)?(?:job|training|process|run|task|container|pod|thread)s?\b)|"
    r"\b(?:resum(?:e|ed|es|ing)|wak(?:e|es|ing)|woke)\s+(?:up\s+)?from\s+"
    r"(?:a\s+|the\s+)?(?:suspen\w*|sleep|hibernat\w*|standby)\b",
    re.IGNORECASE,
)
# What else is suspended or sleeps: a job, a process, a VM, a script's sleep() - not the host's power state.
NOT_THE_HOST = re.compile(
    r"\b(?:jobs?|process(?:es)?|training|tasks?|slurm|scontrol|sigstop|kill\s+-stop|threads?|vms?|virtual machine|"
    r"time\.sleep|sleep\(|docker pause)\b",
    re.IGNORECASE,
)
GPU_WORD = re.compile(r"\b(?:gpus?|cuda|nvidia|graphics card)\b", re.IGNORECASE)
# The GPU no longer working: in words, or the work landing on the CPU.
STOPPED = re.compile(
    r"\b(?:stops?|stopped|ceases?|ceased)\s+(?:working|functioning)\b|\bno longer\s+(?:works?|working|used|detected|"
    r"available|recogni[sz]ed)\b|\b(?:is|was|isn'?t|wasn'?t)\s+(?:not\s+)?(?:working|detected|available)\s+any\s?more\b|"
    r"\b(?:doesn'?t|does not|won'?t|will not|can'?t|cannot)\s+(?:work|be used|be detected|find|see|use)\b|"
    r"\b(?:fails?|failed|breaks?|broke|broken|lost)\b|\b(?:runs?|running|falls? back)\s+(?:only\s+)?(?:on|to)\s+"
    r"(?:the\s+)?cpu\b|\b100\s?%\s+cpu\b|\bno (?:actual )?gpu (?:utili[sz]ation|usage)\b",
    re.IGNORECASE,
)
# The sleep itself denied ("sleep is disabled", "suspend is turned off", "the server never sleeps", "no suspend").
SLEEP_DENIED = re.compile(
    r"\b(?:sleep|suspend|hibernation|standby)(?:\s+mode)?\s+(?:is|was|are|has been|got)\s+(?:disabled|off|turned off|"
    r"not enabled|masked)\b|\b(?:disabled?|no|never|without|turned off|masked)\s+(?:the\s+)?(?:sleep|suspend|"
    r"hibernation|standby)\b|\bnever\s+(?:sleeps|suspends|hibernates)\b",
    re.IGNORECASE,
)
# The failure denied ("did not fail", "never stopped working", "still works"): the sentence reports the GPU fine.
FAILURE_DENIED = re.compile(
    r"\b(?:did\s*n[o']?t|does\s*n[o']?t|has\s*n[o']?t|have\s*n[o']?t|never|not)\s+(?:\w+\s+)?"
    r"(?:fail|stop|break|broke|lose|lost|fall)\w*|\bstill\s+(?:works?|working|runs?\s+on\s+(?:the\s+)?gpu)\b",
    re.IGNORECASE,
)


def stopped_after_sleep_match(lines: list[str], matches: list[Match]) -> Match | None:
    """The user says the GPU stopped working after the host slept: the nvidia_uvm module broken by the sleep, when
    no pasted message names another cause."""
    if any(m.specific for m in matches):
        return None
    for no, sentence in prose.sentences(lines):
        # A question ("will the GPU stop working after suspend?"), a denied failure or a denied sleep states nothing
        # happened.
        if (
            NOT_THE_HOST.search(sentence)
            or prose.is_question(sentence)
            or FAILURE_DENIED.search(sentence)
            or SLEEP_DENIED.search(sentence)
        ):
            continue
        if SLEPT.search(sentence) and GPU_WORD.search(sentence) and STOPPED.search(sentence):
            return Match("uvm_wedged_after_suspend", no, sentence.strip()[:500], False, 0.8)
    return None


# NVML's "Failed to initialize NVML: Unknown Error" in the reporter's words: NVML, its initialisation failing, and
# "unknown" (often cut: "Unknow") on one line, in any order.
NVML_INIT_FAILED = re.compile(
    r"\bnvml\b[^\n]{0,40}?\binit\w*\b[^\n]{0,20}?\bfail\w*|\bfail\w*\b[^\n]{0,20}?\binit\w*\b[^\n]{0,20}?\bnvml\b",
    re.IGNORECASE,
)
UNKNOWN = re.compile(r"\bunknow", re.IGNORECASE)
IN_CONTAINER = re.compile(r"\b(?:pods?|containers?|k8s|kubernetes|kubelet|docker|containerd|podman)\b", re.IGNORECASE)
# "no docker involved", "not in a container", "outside the container": a container named only to say it is not one.
NOT_IN_CONTAINER = re.compile(
    r"\b(?:no|not|without|outside(?:\s+of)?|never)\s+(?:in\s+|inside\s+|using\s+)?(?:an?\s+|the\s+|any\s+)?"
    r"(?:pods?|containers?|k8s|kubernetes|docker|containerd|podman)\b",
    re.IGNORECASE,
)
# It worked first: "after (a) few days", "after N hours", "restart(ing) the pod/container ... works/goes well again".
WORKED_FIRST = re.compile(
    r"\bafter (?:a\s+)?(?:few|couple(?: of)?|some|several|many|\d+)\s+(?:hours?|days?|weeks?|minutes?)\b|"
    r"\brestart(?:ing|ed)?\s+(?:the\s+)?(?:pod|container)s?\b[^.\n]{0,60}?\b(?:works?|working|fine|well|again|fixe?s)\b|"
    r"\b(?:works?|worked|working)\s+(?:again\s+)?after\s+restart(?:ing)?\s+(?:the\s+)?(?:pod|container)\b",
    re.IGNORECASE,
)


def nvml_unknown_in_words_match(lines: list[str], matches: list[Match]) -> Match | None:
    """NVML's init failure with "Unknown" told in words inside a container: the container lost its GPU devices (a
    verdict when the text says it worked first or comes back on a restart)."""
    if any(m.id == "container_gpu_access_lost" for m in matches):
        return None
    cut = [line[:MAX_LINE] for line in lines[:5000]]
    said = next(
        ((no, line) for no, line in enumerate(cut, start=1) if NVML_INIT_FAILED.search(line) and UNKNOWN.search(line)),
        None,
    )
    if said is None or not any(IN_CONTAINER.search(NOT_IN_CONTAINER.sub(" ", line)) for line in cut):
        return None
    later = any(WORKED_FIRST.search(line) for line in cut)
    return Match("container_gpu_access_lost", said[0], said[1].strip()[:500], later, 0.9 if later else 0.7)
