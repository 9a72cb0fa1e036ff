"""The one set of signs that a pasted text shows CUDA (or the driver) working, for every reader that asks.

The signs, each printed only when the thing works:

- ``torch.cuda.is_available()`` answering True: on its line ("is_available() returns True", "... -> True",
  "`torch.cuda.is_available()` it shows `true`", "是 True"), or alone on the next line (a REPL's ``True``, a
  notebook's ``Out[3]: True``);
- a form's or a framework's field: Lightning's "GPU available: True", "cuda_available: True", "CUDA available = True";
- ``torch.cuda.device_count()`` answering 1 or more (inline, or alone on the next line);
- nvidia-smi's table or header ("NVIDIA-SMI 535.104.05", "Driver Version: 535.104.05"): the driver answered
  (see SMI_ANSWERED; it says the driver works, not that this Python's CUDA does).

Beside them, NVIDIA_GPU_MODEL: an NVIDIA GPU named by its model (get_device_name's answer, nvidia-smi's name column).
It says an NVIDIA GPU is there, not that CUDA works; the readers that rule out "no NVIDIA GPU" share it.

Where readers deliberately differ, the difference is named here: ``available_true_on_line`` is the same-line form
for a reader that weighs the words around the answer (the user's own check set against an app that fails,
user_words.works_in_own_check_not_app), where a bare ``True`` on the next line says nothing about that sentence.
interpreters.py reads the answer (True or False) per interpreter, to compare two: it keeps its own ANSWER pattern,
which accepts words ("got", "get") that only make sense beside an interpreter it names.
"""

from __future__ import annotations

import re

from gpuassist.ingest.lines import MAX_LINE, repl_answer

# is_available() (with or without its parentheses: a sentence often drops them) answering True on the same line.
# The answer may follow a short subject ("`torch.cuda.is_available()` it shows `true`", "...())\"` prints True").
# Never code's comparison ("assert torch.cuda.is_available() == True", "if ... == True:"): it asks, not answers.
IS_AVAILABLE_TRUE = re.compile(
    r"is_available(?:\(\))?\)?[`'\"]{0,2}\s*(?:(?:and\s+)?(?:it|this|that|which|then)\s+)?"
    r"(?:returns?|returned|is|gives|gave|prints?|printed|shows?|showed|outputs?|says|said|=(?!=)|->|:|是|为|返回)\s*"
    r"[`'\"]?True\b",
    re.IGNORECASE,
)
# A field that states it: Lightning's "GPU available: True", "cuda_available: True", "CUDA available = True".
AVAILABLE_FIELD_TRUE = re.compile(
    r"\bGPU available: True\b|\bcuda(?:\.is)?[_ ]available[^\w=]{0,4}[:=](?!=)\s*True\b", re.IGNORECASE
)
DEVICE_COUNT_INLINE = re.compile(r"device_count\(\)\)?\s*(?:returns?|is|=(?!=)|->|:)\s*[1-9]", re.IGNORECASE)
# The answer alone on the line after the call (a REPL, a notebook cell's Out[n]): lines.repl_answer, and for
# device_count() a count.
COUNT_ANSWER = re.compile(r"^\s*(?:Out\[\d+\]:\s*)?[1-9]\d?\s*$")
# nvidia-smi's table or header: the driver answered (the nvidia kernel module runs, a driver is installed).
SMI_ANSWERED = re.compile(r"NVIDIA-SMI\s+\d+\.\d+|Driver Version:\s*\d+\.\d+")


# An NVIDIA GPU by its model: what torch.cuda.get_device_name() prints ("NVIDIA GeForce RTX 3090"), nvidia-smi's
# name column, a "Using device: cuda:0 (NVIDIA A100 ...)" line. It says an NVIDIA GPU is there (so "no NVIDIA GPU" is
# ruled out), not that CUDA works. The union of the readers' former patterns: a family with a number (any case), an
# NVIDIA data-centre name (A100, H100, L4, T4, V100, A6000), and a family name alone in its own capitals.
NVIDIA_GPU_MODEL = re.compile(
    r"\b(?:NVIDIA\s+)?(?:GeForce|Quadro|Tesla|TITAN|RTX|GTX)\s?[\w-]*\d{2,4}\w*|\bNVIDIA\s+(?:[AHLTVK]\d{1,3}|A\d{4})\b|"
    r"\b(?-i:GeForce|Quadro|TITAN)\b|\b(?-i:Tesla) [KMPTV]\d+\b",
    re.IGNORECASE,
)


def available_true_on_line(line: str) -> bool:
    """is_available() answered True on this line (the call and its answer together)."""
    return IS_AVAILABLE_TRUE.search(line[:MAX_LINE]) is not None


def cuda_shown_working(lines: list[str]) -> bool:
    """The text shows CUDA working for this Python: is_available() answered True, a device count above zero."""
    cut = [line[:MAX_LINE] for line in lines]
    for no, line in enumerate(cut):
        if IS_AVAILABLE_TRUE.search(line) or AVAILABLE_FIELD_TRUE.search(line) or DEVICE_COUNT_INLINE.search(line):
            return True
        after = cut[no + 1] if no + 1 < len(cut) else ""
        if "is_available" in line and repl_answer(after) is True:
            return True
        if "device_count" in line and COUNT_ANSWER.match(after):
            return True
    return False


def smi_answered(line: str) -> bool:
    """nvidia-smi's table or header is on this line: the driver answered."""
    return SMI_ANSWERED.search(line[:MAX_LINE]) is not None
