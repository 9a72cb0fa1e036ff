"""Whether a text shows PyTorch's own C++ log lines: then it is about PyTorch even if it never names it.

Issue #14 item 1 refuses (exit 2) only text with nothing about Python, PyTorch, CUDA, NVIDIA or a GPU. A user who
pastes only torch's warning ("[W NNPACK.cpp:80] Could not initialize NNPACK! Reason: Unsupported hardware.") is
asking about PyTorch; the text is read (and, with no error in it, answered with no claim), not refused.

The form is c10's own logger when torch is built without glog (c10/util/Logging.cpp, MessageLogger): "[" + the
severity letter (CAFFE2_SEVERITY_PREFIX: F, E, W, I, V) + the source file's base name ":" line "] ". torch 2.4 and
later put the month-day and the time (to the nanosecond) between the letter and the file ("[W1023 10:26:13.145574447
NNPACK.cpp:61]"); distributed runs prefix the rank ("[rank0]:[W1125 ...]"). The file is one of torch's C++ sources
(.cpp/.cc/.cu/.h), so a bracketed tag of another tool ("[W] build.log:3") is not this form.
"""

from __future__ import annotations

import re

MAX_SCAN = 2_000_000

TORCH_LOG_LINE = re.compile(
    r"\[[FEWIV](?:\d{4}[ \t]+\d\d:\d\d:\d\d(?:\.\d+)?)?[ \t]+[A-Za-z_][\w-]*\.(?:cpp|cc|cu|cuh|h|hpp):\d+\][ \t]"
)


def shows_torch_log(text: str) -> bool:
    """Whether the text holds a line of PyTorch's C++ logger (see the module doc)."""
    return TORCH_LOG_LINE.search(text[:MAX_SCAN]) is not None
