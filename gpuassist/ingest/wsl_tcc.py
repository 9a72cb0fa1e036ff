"""A GPU in the TCC driver model is invisible to WSL 2: WSL's GPU path needs the Windows driver in WDDM.

WSL 2 reaches the GPU through GPU paravirtualisation (dxgkrnl, /dev/dxg, /usr/lib/wsl/lib), which is part of the
Windows display driver model: NVIDIA's CUDA on WSL user guide requires a WDDM (2.9+) driver on the host, and a
Tesla/datacenter GPU switched to (or shipped in) TCC, the compute-only driver model, is not offered to WSL at all, so
nvidia-smi and CUDA inside WSL see no GPU. The driver model shows in nvidia-smi on Windows: the table's TCC/WDDM
column ("|   0  Tesla P4   TCC  | 00000000:3B:00.0 ..."), ``nvidia-smi -q``'s "Driver Model / Current : TCC", the
command that sets it (``nvidia-smi -dm 1`` / ``-dm TCC``), or the user's words ("the card works in TCC mode").
In a WSL text any of these is WSL's GPU-path problem (wsl_libcuda_problem); on native Windows TCC is a valid mode
for CUDA and claims nothing, as do WDDM, a denial ("not in TCC mode") or a question about it.
"""

from __future__ import annotations

import re

from gpuassist.ingest import prose
from gpuassist.ingest.errors import Match
from gpuassist.report.model import Report

# nvidia-smi on Windows: the table row's driver-model column, -q's Driver Model section, the command that sets TCC.
TCC_TABLE_ROW = re.compile(r"^\|\s+\d+\s+.+?\s+TCC\s+\|")
TCC_QUERY = re.compile(r"^\s*Current\s*:\s*TCC\s*$", re.IGNORECASE)
TCC_SET = re.compile(r"\bnvidia-smi(?:\.exe)?\b[^\n]{0,40}?(?:-dm|--driver-model)[ =](?:1|TCC)\b", re.IGNORECASE)
# The GPU stated to be in TCC (mode / driver model) in words.
TCC_IN_WORDS = re.compile(
    r"\bTCC(?: driver)?(?: mode| model)\b|\b(?:in|to|into|under|uses?|using) TCC\b", re.IGNORECASE
)
MAX_LINE = 2000
WEIGHT = 0.9


def tcc_under_wsl_match(lines: list[str], report: Report) -> Match | None:
    """wsl_libcuda_problem when a WSL text shows the GPU in the TCC driver model (nvidia-smi's table or -q, the
    command that set it, or the user's words), cited on the first line that shows it."""
    if report.facts.value("platform.wsl") is None:
        return None
    for no, raw in enumerate(lines, start=1):
        line = raw[:MAX_LINE]
        shown = TCC_TABLE_ROW.search(line) or TCC_QUERY.search(line) or TCC_SET.search(line)
        if shown or _tcc_stated(line):
            return Match("wsl_libcuda_problem", no, line.strip()[:500], True, WEIGHT)
    return None


def _tcc_stated(line: str) -> bool:
    """A sentence of ``line`` states the GPU in TCC: not asked, not denied in its clause (prose.negated)."""
    for sentence in prose.split(line):
        if prose.is_question(sentence):
            continue
        for m in TCC_IN_WORDS.finditer(sentence):
            if not prose.negated(prose.clause_before(sentence[: m.start()])):
                return True
    return False


# nvidia-smi's -dm/--driver-model (Windows only; 0 = WDDM, 1 = TCC) switches the model; it takes effect after a reboot.
TCC_FIX = (
    "Switch the GPU to the WDDM driver model on Windows, in a PowerShell run as Administrator (0 = WDDM, 1 = TCC), "
    "then reboot Windows:\n"
    "  nvidia-smi -i 0 -dm 0\n"
    "A GPU whose driver cannot run WDDM cannot be used from WSL 2: run CUDA on native Windows or native Linux instead."
)
TCC_CONFIRM = "the TCC/WDDM column of nvidia-smi in Windows shows WDDM, and nvidia-smi inside WSL lists the GPU"


def tcc_fix(report: Report, lines: list[str]) -> None:
    """When WSL's GPU path is read from the TCC driver model, its fix is switching the model, not reinstalling."""
    found = next((f for f in report.findings if f.id == "wsl_libcuda_problem"), None)
    if found is None or tcc_under_wsl_match(lines, report) is None:
        return
    found.fix = f"{TCC_FIX}\nTo confirm: {TCC_CONFIRM}"
