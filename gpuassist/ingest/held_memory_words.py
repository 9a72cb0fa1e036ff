"""A user who found, in nvidia-smi or by looking, another process holding (nearly) all of the GPU's memory (round 18).

The evidence space: nvidia-smi's process table lists every process with a CUDA context and its "GPU Memory Usage";
people who look at it after an out-of-memory error report what they saw in words, in English or Chinese, naming the
process (often a service or daemon they did not start) and how much it takes: "nvidia-smi shows a process
VeCarRecoServer eating almost all the memory", "there is a process taking up all the GPU memory", "发现有个XX进程，
把所有显存基本全吃了", "有一个进程占满了显存". Such a process is not the job that ran out: its memory is why the job did
(gpu_memory_held_by_others, NVIDIA's nvidia-smi documentation: the memory a process uses is not available to others;
PyTorch's OOM message "Of the allocated memory ... this process has X memory in use" counts only its own).

Declined when the process is the user's own job ("my process", "我的进程", "the training process takes all memory",
"it's the jupyter kernel I'm running this in", "就是我自己的训练脚本": the job itself is too large; a run of theirs
they forgot, "my other run from an hour ago", is another process and still read), when the words deny it ("no
process", "there isn't a process", "没有进程", "没有发现有进程") or only suppose it ("if a process uses all the
memory", quoted docs), when the memory is the machine's RAM (htop, Task Manager, "RAM": not what nvidia-smi lists),
when the process was killed or stopped already, when it holds another GPU than the one that ran out, and, as a
verdict, without an out-of-memory error in the same text (a guess then).
"""

from __future__ import annotations

import re

from gpuassist.ingest import prose
from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

# A process the user came across rather than one they name as theirs: an indefinite one ("a process", "some
# process", "a process called X", "an unknown process") or, in Chinese, one found (有个/有一个/某个/发现) or named by
# its program ("VeCarRecoServer进程").
FOUND_PROCESS = re.compile(
    r"\b(?:a|an|some|one|unknown|strange|weird|mysterious|foreign)\s+(?:[\w.-]+\s+){0,2}?process(?:es)?\b|"
    r"\bprocess(?:es)?\s+(?:called|named)\b|"
    r"(?:有个|有一个|有一些|某个|发现)[^。\n，,]{0,30}?进程|[A-Za-z][\w.-]{2,60}\s?进程",
    re.IGNORECASE,
)
# A process that holds all, almost all or most of the memory.
HOLDS_ALL_EN = re.compile(
    r"\bprocess(?:es)?\b[^.\n]{0,60}?\b(?:eat(?:s|ing)?|ate|tak(?:es|ing)(?: up)?|took(?: up)?|occup(?:ies|ying|ied)|"
    r"us(?:es|ing)|hog(?:s|ging)?|consum(?:es|ing)|hold(?:s|ing)|fill(?:s|ing)|grab(?:s|bing)?)\s+"
    r"(?:up\s+)?(?:all|almost all|nearly all|most|the whole|the entire|basically all|practically all)\b"
    r"[^.\n]{0,20}?\b(?:memory|vram)\b",
    re.IGNORECASE,
)
HOLDS_ALL_ZH = re.compile(
    r"进程[^。\n]{0,30}?(?:所有|全部|全|几乎|基本|大部分|绝大部分)[^。\n]{0,12}?(?:显存|内存)[^。\n]{0,6}?"
    r"(?:吃了|吃掉|吃光|吃满|占满|占用了?|占了|占光|用完|用光)|"
    r"进程[^。\n]{0,20}?(?:把|将)?(?:显存|内存)(?:全|都|基本|几乎)?\S{0,4}?(?:占满|吃满|吃光|占光|用完)|"
    r"进程[^。\n]{0,10}?(?:占满|吃满|吃光|占光|用光|用完)了?[^。\n]{0,6}?(?:显存|内存)"
)
# The process is the user's own job, or no process is said to be there.
OWN_OR_DENIED = re.compile(
    r"\bmy\s+(?:\w+\s+)?process|\b(?:training|train|my|the python|this) process\b|\bno (?:other )?process|"
    r"\bnot? (?:any )?(?:other )?process|我的(?:训练)?进程|训练进程|没有(?:别的|其他)?进程|"
    # the process named as the job itself, after the fact: "it's the jupyter kernel I'm running this notebook in",
    # "that's just my own training script", "就是我自己的训练脚本" (not "my other run", "my earlier job": those are
    # other processes)
    r"\b(?:it'?s|that'?s|it is|that is|which is)\s+(?:just\s+|actually\s+|simply\s+)?(?:my|the)\s+(?:own\s+)?"
    r"(?:(?:jupyter|notebook|python|training|current)\s+)*(?:kernel|notebook|script|job|run|program|process)\b"
    r"(?!\s+(?:from|that|which)\s)|\bI'?m (?:currently )?running (?:this|it|now)\b|"
    r"就是我(?:自己)?的|(?<!不)是我自己的(?:训练)?(?:脚本|程序|进程|任务)|(?<!不是我)自己的(?:训练)?(?:脚本|程序|进程)",
    re.IGNORECASE,
)
# The process denied before it is named: "there isn't a process using all the memory", "I don't think a process is
# eating the VRAM", "没有发现有进程占满显存" (not "不是我自己的进程": who started it is no denial that it is there).
# In English prose.negated reads the clause before "process", a few words back at most; in Chinese:
DENIED_BEFORE_ZH = re.compile(r"(?:没有|没|并没有?|未)(?:发现|看到|找到|看见)?[^。\n，,]{0,10}?进程")
PROCESS_WORD = re.compile(r"\bprocess", re.IGNORECASE)
DENIAL_REACH = 4


def _denied_before(line: str) -> bool:
    return DENIED_BEFORE_ZH.search(line) is not None or any(
        prose.negated(prose.clause_before(line[: m.start()], but=True), words=DENIAL_REACH)
        for m in PROCESS_WORD.finditer(line)
    )


# Only supposed, not seen: a condition ("if a process uses all the memory", quoted docs), in English or Chinese.
SUPPOSED = re.compile(
    r"\b(?:if|whenever|suppose|supposing|in case)\b[^.\n]{0,20}?\bprocess|(?:如果|假如|假设|若)[^。\n]{0,20}?进程", re.I
)
# The process is gone: the user killed or stopped it (if the job still fails, it was not the cause).
REMOVED = re.compile(
    r"\b(?:killed|stopped|closed|terminated|ended)\b[^.\n]{0,30}?\bprocess|(?:杀掉|杀死|kill掉|结束)了?[^。\n]{0,10}?进程[^。\n]{0,30}?(?:还是|仍然|依然)",
    re.IGNORECASE,
)
# A GPU named by its index ("GPU 1", "cuda:1"): the held memory's GPU, compared with the one that ran out.
GPU_INDEX = re.compile(r"\bGPU\s*#?(\d+)\b|\bcuda:(\d+)\b", re.IGNORECASE)
# The machine's memory, not the GPU's: the tools that show RAM and the word itself.
HOST_MEMORY = re.compile(r"\bhtop\b|\bTask Manager\b|\bActivity Monitor\b|\bRAM\b|\bRSS\b|\bswap\b", re.I)


def found_process_holding_memory(lines: list[str], matches: list[Match]) -> Match | None:
    """The user says they found a process holding (nearly) all the GPU memory (above): with an out-of-memory error
    a verdict, else a guess."""
    if any(m.id == "gpu_memory_held_by_others" and m.specific for m in matches):
        return None
    for no, raw in enumerate(lines[:5000], start=1):
        line = raw[:MAX_LINE]
        if "进程" not in line and "process" not in line.lower():
            continue
        held = HOLDS_ALL_EN.search(line) or HOLDS_ALL_ZH.search(line)
        if held is None or not FOUND_PROCESS.search(line) or OWN_OR_DENIED.search(line):
            continue
        if SUPPOSED.search(line) or _denied_before(line) or HOST_MEMORY.search(line) or REMOVED.search(line):
            continue
        if _on_another_gpu(line, matches):
            continue
        oom = any(m.id == "cuda_out_of_memory" for m in matches)
        return Match("gpu_memory_held_by_others", no, line.strip()[:500], oom, 0.85 if oom else 0.5)
    return None


def _first_gpu_index(line: str) -> str | None:
    found = GPU_INDEX.search(line)
    return (found[1] or found[2]) if found else None


def _on_another_gpu(line: str, matches: list[Match]) -> bool:
    """The process holds the memory of another GPU than the one that ran out ("on GPU 1 a process takes all the
    memory" beside "GPU 0 has a total capacity ..."): the same words about another device."""
    held_on = _first_gpu_index(line)
    ran_out_on = next(
        (_first_gpu_index(m.line) for m in matches if m.id == "cuda_out_of_memory" and _first_gpu_index(m.line)), None
    )
    return held_on is not None and ran_out_on is not None and held_on != ran_out_on
