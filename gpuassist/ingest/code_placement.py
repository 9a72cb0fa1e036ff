"""Training code shown with nothing that puts the work on the GPU, while the text says the GPU stays unused.

torch runs every tensor and module on the CPU unless the code moves it (``.cuda()``, ``.to(device)``, a
``device=`` argument, ``torch.set_default_device``) or a framework does (Lightning's or HF's Trainer, accelerate,
a pipeline with a device, ``device_map``). A text that shows the training loop itself (a forward call, the
backward pass, the optimizer step, a loop over a loader) and none of those, with the GPU said to idle (0 %
utilisation, "not using the GPU"), shows the program leaving its work on the CPU (workload_left_on_cpu). A
likely cause only: a snippet may leave out the line that moves the model. With CUDA failing in the text, the CPU
is the consequence and this is not read.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.ingest.system_causes import says_gpu_unused
from gpuassist.ingest.usage_words import CUDA_BROKEN_WORDS, cuda_shown_failing

# The parts of a training or inference loop: any two of them make the text show the loop.
LOOP_PARTS: tuple[re.Pattern[str], ...] = (
    re.compile(r"\.backward\(\s*\)"),
    re.compile(r"\boptimi[sz]er\w*\.step\(\s*\)"),
    re.compile(r"^\s*for\s+[\w\s,()]{1,60}\s+in\s+(?:enumerate\(\s*)?\w*(?:loader|batches|dataset)\w*", re.IGNORECASE),
    re.compile(r"\b(?:model|net|network)\s*\(\s*\w"),
    re.compile(r"\b(?:model|net|network)\s*=\s*[\w.]+\("),
)
# Anything that places the work on a device, or hands placement to a framework that does it.
PLACEMENT = re.compile(
    r"\.cuda\(|\.to\(|\bdevice\s*=|device_map|set_default_device|set_default_tensor_type|\baccelerator\b|"
    r"\bAccelerator\(|\bTrainer\(|\bpipeline\(|\bfabric\b|\bDataParallel\(|DistributedDataParallel\(",
    re.IGNORECASE,
)
# A utilisation of zero in the user's words or a monitor's ("0% GPU utilization", "GPU usage: 0%").
UTIL_ZERO = re.compile(
    r"(?<![\d.])0\s*%\s*(?:of\s+)?(?:the\s+)?(?:gpu\s+)?(?:utili[sz]ation|usage|load|util)\b|"
    r"\bgpu[- ]?(?:util\w*|usage|load)\D{0,15}(?<![\d.])0\s*%",
    re.IGNORECASE,
)


def loop_without_placement(lines: list[str]) -> Match | None:
    """The loop shown, no placement anywhere in the text, the GPU said unused, CUDA not shown failing: the program
    leaves the work on the CPU (a likely cause)."""
    cut = [line[:MAX_LINE] for line in lines[:5000]]
    parts = [next((no for no, line in enumerate(cut, start=1) if rx.search(line)), None) for rx in LOOP_PARTS]
    shown = [no for no in parts if no is not None]
    if len(shown) < 2 or any(PLACEMENT.search(line) for line in cut):
        return None
    if not (says_gpu_unused(lines) or any(UTIL_ZERO.search(line) for line in cut)):
        return None
    if cuda_shown_failing(lines) or CUDA_BROKEN_WORDS.search("\n".join(cut)):
        return None
    first = min(shown)
    return Match("workload_left_on_cpu", first, lines[first - 1].strip()[:500], False, 0.8)
