"""A DataLoader stated to run with no worker processes, in a text about slow or idle GPU training.

torch.utils.data.DataLoader defaults to ``num_workers=0``: every batch is loaded and transformed in the training
process, between steps, while the GPU waits (torch/utils/data/dataloader.py; PyTorch Performance Tuning Guide,
"Enable async data loading and augmentation": "default setting for DataLoader is num_workers=0, which means that the
data loading is synchronous and done in the main process. As a result the main training process has to wait for
the data to be available to continue the execution"). On Windows, workers are spawned processes that re-import the
script, so projects often force 0 there (the guide's "multiprocessing on Windows" notes; the catalogue's
dataloader_starvation). Lightning's own warning ("does not have many workers which may be a bottleneck") is the
catalogue's pattern; this reads the same fact in the user's words or the quoted command/code: ``num_workers=0``,
``num_workers: 0``, "set num_workers to 0", ``--workers 0``, "0 workers", num_workers that "cannot" be raised on
Windows, together with the symptom (training slow, a bottleneck, the GPU idle or its load low). The fact alone is
no cause (most small runs are fine with 0), nor when the text shows 0 as the fix of a crash (worker killed, shared
memory, a broken pipe), an error traceback, or the work itself on the CPU.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

# No worker processes: the argument, a config key, a CLI flag, or in words.
WORKERS_ZERO = re.compile(
    r"\bnum[_ ]workers\b['\"]?\s*(?:=|:|is|was|of)?\s*(?:set\s+)?(?:to\s+|as\s+|at\s+)?['\"]?0\b(?!\.\d)|"
    r"\b(?:set|setting|use|using|with|keep|kept)\s+(?:the\s+)?num[_ ]workers\s*(?:to|=|as|at)?\s*0\b(?!\.\d)|"
    r"(?:^|\s)--(?:num[_-])?workers[= ]0\b|\bworkers\s*=\s*0\b|"
    # Chinese: "num_workers设置为0", "num_workers 设成 0", "把num_workers设为0".
    r"\bnum[_ ]workers\s*(?:设置为|设置成|设为|设成|改为|改成|为|是)\s*0\b|"
    r"\b(?:0|zero|no)\s+(?:data\s*loader\s+|dataloader\s+)?workers?\b(?!\s*(?:is|are)\s+(?:fine|enough))|"
    r"\bnum[_ ]workers\b[^.\n]{0,40}?\b(?:can ?not|can'?t|could ?n[o']t|does ?n[o']t work|not work\w*|must be 0|"
    r"has to be 0)\b[^.\n]{0,40}?\bwindows\b|"
    r"\bwindows\b[^.\n]{0,60}?\bnum[_ ]workers\b[^.\n]{0,30}?\b(?:0|zero)\b",
    re.IGNORECASE,
)
# The symptom: the run slow, a bottleneck, the GPU idle or lightly loaded, waiting on batches.
SLOW = re.compile(
    r"\bbottleneck\w*|\bslow(?:er|ly|s)?\b|\btakes? (?:a |so |very )?long\b|\bspeed (?:it |this |things )?up\b|"
    r"\bgpu\b[^.\n]{0,30}?\b(?:idle|waits?|waiting|underutili[sz]ed|starv\w*)|"
    r"\b(?:gpu[- ]?util\w*|gpu (?:usage|load|utili[sz]ation)|(?:utili[sz]ation|usage|load) of (?:the |my )?gpus?)"
    r"\b[^.\n]{0,30}?\b(?:low|\d%|0|zero|drops?)\b|\blow\s+gpu[- ]?(?:util\w*|usage|load)\b|"
    r"训练(?:速度)?(?:很|非常|太)?慢|gpu\s*利用率\S{0,6}?(?:低|0)",
    re.IGNORECASE,
)
GPU_WORD = re.compile(r"\bgpus?\b|\bcuda\b|\bnvidia\b|\bgeforce\b|\brtx\b|\bgtx\b|显卡", re.IGNORECASE)
# Zero workers as the fix of a crash, or an error the text is about: then 0 is the workaround, not the cause.
CRASH_OR_FIX = re.compile(
    r"Traceback \(most recent call last\)|\w+Error:|DataLoader worker \(pid|killed by signal|shared memory|"
    r"\bshm\b|BrokenPipe|\b(?:fixed|solved|resolved|works? now|workaround|worked around)\b",
    re.IGNORECASE,
)
# The work itself on the CPU: then the GPU idles for another reason.
WORK_ON_CPU = re.compile(
    r"device\(type='cpu'\)|device=['\"]cpu['\"]|\b(?:model|training|inference) (?:runs?|is|are) on (?:the )?cpu\b",
    re.IGNORECASE,
)


def workers_zero_starves(lines: list[str]) -> Match | None:
    """No DataLoader workers, stated beside slow or idle GPU training (module docstring): the GPU waits for data."""
    cut = [line[:MAX_LINE] for line in lines]
    text = "\n".join(cut)
    if CRASH_OR_FIX.search(text) or WORK_ON_CPU.search(text) or not GPU_WORD.search(text) or not SLOW.search(text):
        return None
    for no, line in enumerate(cut, start=1):
        if WORKERS_ZERO.search(line):
            return Match("dataloader_starvation", no, lines[no - 1].strip()[:500], False, 0.7)
    return None
