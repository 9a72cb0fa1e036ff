"""A lone "invalid device ordinal" says the index asked for is beyond the GPUs the process sees (round 10).

cudaErrorInvalidDevice ("invalid device ordinal", CUDA_ERROR_INVALID_DEVICE; CUDA Runtime API, cudaSetDevice:
"device ... is not a valid device") and torch's ``AssertionError: Invalid device id`` (torch/cuda/__init__.py)
come from an index >= the visible count. Two things make that happen: CUDA_VISIBLE_DEVICES hiding the GPU, or the
program asking for more GPUs than the machine has (a hard-coded ``cuda:1``, ``--gpus 0,1``, a config's GPU list,
tests written for several GPUs) on a one-GPU machine. The message table keeps CUDA_VISIBLE_DEVICES as the possible
cause; when the text never mentions the variable, the warning says both and leads with the program's index, which
the corpus' held-out threads showed as the commoner cause (program_devices.py reads the index when it is shown).
"""

from __future__ import annotations

import re

from gpuassist.findings import Severity
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.report.model import Report

ORDINAL = re.compile(
    r"invalid device ordinal|\bCUDA_ERROR_INVALID_DEVICE\b|\bcudaErrorInvalidDevice\b|Invalid device id\b",
    re.IGNORECASE,
)
VARIABLE = re.compile(r"CUDA_VISIBLE_DEVICES", re.IGNORECASE)

TITLE = "Possible cause: the program asks for a GPU index this process does not see"
EXPLANATION = (
    "The pasted message is generic: CUDA was asked for a GPU number that does not exist for this process (an index "
    "equal to or above the number of GPUs it sees). Usually the program or its configuration names more GPUs than "
    "the machine has (a hard-coded `cuda:1`, `--gpus 0,1`, a config listing several GPUs, `device_ids=[0, 1]`) on "
    "a machine with one GPU; otherwise CUDA_VISIBLE_DEVICES hides the GPU it names. The text shows neither."
)
FIX = (
    'Use an index below the GPU count the process sees: `python -c "import torch; '
    "print(torch.cuda.device_count())\"`; on a one-GPU machine ask for `cuda:0` (or the program's `--gpu 0` / its "
    'config\'s GPU list of one) and check `echo "[$CUDA_VISIBLE_DEVICES]"` in the shell that starts it.'
)


def ordinal_without_variable(report: Report, lines: list[str]) -> None:
    """Reword the CUDA_VISIBLE_DEVICES possibility that a lone device-ordinal error produced, when the text never
    mentions the variable: the program's own index is as likely, and the fix names both."""
    cut = [line[:MAX_LINE] for line in lines]
    if any(VARIABLE.search(line) for line in cut) or not any(ORDINAL.search(line) for line in cut):
        return
    for f in report.findings:
        if f.id == "cuda_visible_devices_hides_gpus" and f.severity is Severity.WARNING:
            f.title = TITLE
            f.explanation = EXPLANATION
            f.fix = FIX
            f.structured_actions = None
