"""The user's own NVIDIA GPU named in prose or a title, and what its compute capability decides.

People name their GPU the way they talk about it: "RTX 5090", but also "I have a 3060", "5090显卡" (a 5090 card), "my
4090 GPU". A bare four-digit number is a GeForce model only where the text says it is a GPU (a GPU word right after
it, or the speaker owning it), and only for the numbers GeForce uses (GTX 1050-1080, GTX 1650/1660, RTX 2050-2080,
RTX 3050-3090, RTX 4050-4090, RTX 5050-5090; NVIDIA's product pages); anything else is left unread. CJK text runs
the number into the next word, so only ASCII letters and digits bound it.

"no kernel image is available for execution on the device" fits a GPU newer than the build's arch list and one older
than it. A named GPU's capability (cuda_compat.json ``gpu_table``) rules one reading out when no build could have
produced it: a GPU above the highest floor of every published wheel (``wheel_builds``, every platform) was never
dropped from a build, and a GPU below sm_70 was never too new for one (every CUDA build of torch since 1.0, CUDA 9,
compiles sm_60/sm_61 and up to sm_70: pytorch/builder's TORCH_CUDA_ARCH_LIST per CUDA version). A GPU in between
leaves both readings open (an RTX 3090 is too new for a cu102 build; a V100 is dropped by cu130).
"""

from __future__ import annotations

import re
from functools import cache

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE, Sources, note_source
from gpuassist.knowledge.wheels import capability_from_name, wheel_builds

TOO_NEW = "gpu_arch_too_new_for_build"
DROPPED = "gpu_arch_dropped_from_build"
# Every CUDA build of torch since 1.0 carries sm_70 or newer at its top: a GPU below it was never too new for one.
NEVER_TOO_NEW_BELOW = (7, 0)

# The numbers GeForce models carry (Ti / SUPER variants share them).
GEFORCE_NUMBER = r"(?P<num>10[5-8]0|16[56]0|20[5-8]0|30[5-9]0|40[5-9]0|50[5-9]0)(?:\s?(?:ti|super))?"
BARE_NUMBER = re.compile(r"(?:10[5-8]|16[56]|20[5-8]|30[5-9]|40[5-9]|50[5-9])0")
# "5090显卡", "3060 GPU", "4090 graphics card", "2080 Ti card", "3090显存": the number called a GPU.
BARE_MODEL_THEN_GPU_WORD = re.compile(
    rf"(?<![0-9A-Za-z_.$€£¥-]){GEFORCE_NUMBER}(?![0-9A-Za-z_.%-])\s?"
    r"(?:显卡|显存|卡|gpus?\b|graphics(?: card)?\b|video card\b|card\b|グラフィックボード|그래픽)",
    re.IGNORECASE,
)
# The number ends there: no digit, letter or decimal part follows (a sentence's full stop may: "use my 5090.").
NUMBER_ENDS = r"(?![0-9A-Za-z_%-]|\.\w)"
# "I have a 3060", "my new 4090", "we are using a 3090", "on a 5080", "with a 2080 Ti": the speaker's GPU.
OWNED_BARE_MODEL = re.compile(
    r"\b(?:(?:i have|i've got|i got|i'?m using|i am using|i use|i own|we have|we'?re using|we are using|on|with)"
    rf"\s+(?:an?|the)|my(?: new)?|our(?: new)?)\s+{GEFORCE_NUMBER}{NUMBER_ENDS}(?!\s*(?:mb|gb|mhz|w|rpm|x)\b)",
    re.IGNORECASE,
)
# "nvidia 5090", "Nvidia GeForce 4090": the vendor's name right before the number makes it the GeForce model.
VENDOR_BARE_MODEL = re.compile(
    rf"\bnvidia\s+(?:geforce\s+)?{GEFORCE_NUMBER}{NUMBER_ENDS}(?!\s*(?:mb|gb|mhz|w|rpm|x|driver|series)\b)",
    re.IGNORECASE,
)


# A line that can name an NVIDIA GPU by its full model: a vendor, series or GPU word is on it ("L2 cache: 4 MiB" is no
# NVIDIA L2, "Cpu:11.46" no GPU at all).
NVIDIA_WORDS = re.compile(
    r"nvidia|geforce|quadro|tesla|titan|\b(?:rtx|gtx|gt|mx)\s?\d|\bgpus?\b|graphics|显卡|jetson|"
    r"\b[abhkmptv]\d{1,3}\b|\bg[bh]\d{2,3}\b|\bdgx\b|\bl\d{1,2}s?\b(?!\s*(?:cache|norm|loss|distance|regulari))",
    re.IGNORECASE,
)


def _series(number: str) -> str:
    return "GTX" if number.startswith(("10", "16")) else "RTX"


def named_nvidia_gpus(lines: list[str]) -> list[tuple[int, str, str, str]]:
    """Every NVIDIA GPU the text names with a capability the GPU table knows: (line number, line, name, capability).
    A full model name ("RTX 5090", "Tesla K80") counts wherever it is; a bare number only as a GPU (see above)."""
    out = []
    for no, raw in enumerate(lines, start=1):
        line = raw[:MAX_LINE]
        cc = capability_from_name(line) if NVIDIA_WORDS.search(line) else None
        if cc:
            out.append((no, line.strip()[:500], line.strip()[:80], cc))
            continue
        numbers = [
            m.group("num")
            for r in (BARE_MODEL_THEN_GPU_WORD, OWNED_BARE_MODEL, VENDOR_BARE_MODEL)
            for m in r.finditer(line)
        ]
        for number in dict.fromkeys(numbers):
            name = f"{_series(number)} {number}"
            cc = capability_from_name(name)
            if cc:
                out.append((no, line.strip()[:500], name, cc))
    return out


def bare_model_facts(lines: list[str], sources: Sources) -> dict[str, object]:
    """The one GeForce the user names by its bare number ("5090显卡", "I have a 3060") as the machine's GPU, so the
    rules that go by the GPU's capability decide; nothing when two different models are named. The caller lets
    every other statement of the GPU win."""
    named: dict[str, tuple[int, str, str]] = {}
    candidates = [(no, raw) for no, raw in enumerate(lines, start=1) if BARE_NUMBER.search(raw[:MAX_LINE])]
    for no, raw in candidates:  # a cheap gate first: most lines of a long log carry no GeForce number at all
        for _no, line, name, cc in named_nvidia_gpus([raw]):
            if not capability_from_name(line):  # a full model name is read by the other readers
                named.setdefault(name, (no, line, cc))
    if len(named) != 1:
        return {}
    ((name, (no, line, cc)),) = named.items()
    note_source(sources, "reported.gpus", no, line)
    return {"reported.gpus": [{"index": 0, "name": f"NVIDIA GeForce {name}", "compute_capability": cc}]}


def _cc(text: str) -> tuple[int, int]:
    major, _, minor = text.partition(".")
    return int(major), int(minor or 0)


@cache
def highest_build_floor() -> tuple[int, int]:
    """The highest oldest-architecture of any published wheel build on any platform (cuda_compat.json
    ``wheel_builds``): a GPU above it is in every build."""
    floors = []
    for build in wheel_builds():
        for arch in (build.linux_x86_64, build.windows, build.linux_aarch64):
            sms = [m.group(1) for a in arch or () if (m := re.fullmatch(r"sm_(\d+)a?", a))]
            if sms:
                low = min(sms, key=int)
                floors.append((int(low[:-1]), int(low[-1])))
    return max(floors)


def readings_the_gpu_rules_out(capabilities: list[str]) -> set[str]:
    """The arch readings no build could give for every named GPU (empty when the GPUs leave both open)."""
    if not capabilities:
        return set()
    caps = [_cc(c) for c in capabilities]
    out = set()
    if all(cc > highest_build_floor() for cc in caps):
        out.add(DROPPED)
    if all(cc < NEVER_TOO_NEW_BELOW for cc in caps):
        out.add(TOO_NEW)
    return out if len(out) < 2 else set()


def named_gpu_decides_arch(lines: list[str], matches: list[Match]) -> list[Match]:
    """Drop the arch guess (never a specific message's verdict) that the named GPU's capability rules out."""
    if not any(m.id in (TOO_NEW, DROPPED) and not m.specific for m in matches):
        return matches
    out = readings_the_gpu_rules_out([cc for _no, _line, _name, cc in named_nvidia_gpus(lines)])
    return [m for m in matches if m.specific or m.id not in out]
