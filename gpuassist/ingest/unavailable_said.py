"""Whether a pasted text says that CUDA does not work (`is_available()` False, "CUDA not available", a launcher's
own message), in English or the user's language: many readers only blame a cause when the text complains."""

from __future__ import annotations

import re

from gpuassist.ingest import prose, user_words

# The text says CUDA does not work ("is_available() returns False", "CPU-only version", "CUDA not available").
UNAVAILABLE = re.compile(
    r"is_available(?:\(\))?\)?\s*(?:returns?|returned|is|=+|->|:|gives|#\s*(?:returns?\s*)?)?\s*(?:i get\s+)?false|"
    r"is_available\b[^\n]{0,24}?\b(?:returns?|returned|gives|gave|shows?|showed|prints?|printed)\s+"
    r"(?:me\s+)?[`'\"]?false|"
    r"\b(?:returns?|returned|gives|prints?)\s+[`'\"]?false[`'\"]?\W{0,4}(?:torch\.)?(?:cuda\.)?is_available|"
    r"CUDA (?:is )?(?:not\s+|un)available|CPU[- ]only (?:version|build|wheel)|"
    r"no CUDA GPUs are available|no CUDA-capable device|"
    # AUTOMATIC1111's launcher (modules/launch_utils.py) when torch.cuda.is_available() is False
    r"Torch is not able to use GPU|"
    # YOLOv5 / Ultralytics' select_device refusing the first GPU: no CUDA device at all (utils/torch_utils.py).
    r"Invalid CUDA '(?:--device |device=)(?:0|cuda)' requested|"
    r"is_available(?:\(\))?\s*(?:就是|都是|还是|仍然是|一直是|是|为|返回|显示|输出)\s*false",
    re.IGNORECASE,
)

# torch counting no device, stated ("device_count() returns 0", "device_count() -> 0"), not asked about.
DEVICE_COUNT_ZERO = re.compile(
    r"\bdevice_count\(\)\)?[`'\"]?\s*(?:returns?|returned|is|was|gives|gave|prints?|printed|shows?|showed|=+|->|\u2192|:)"
    r"\s*[`'\"]?0(?![\d.])"
)
# ... and said to be what the user expects there ("returns 0, which is expected", "as expected", "of course"): a CI
# runner or a laptop without a GPU, not a complaint.
ZERO_EXPECTED = re.compile(
    r"\b(?:as\s+expected|(?:which|that|this|it)\s+is\s+(?:expected|fine|correct|normal|intended)|of\s+course)\b",
    re.IGNORECASE,
)


def says_unavailable(lines: list[str]) -> bool:
    """The text says CUDA does not work, also across a line break ("is_available()\\n i get false")."""
    text = "\n".join(line[:2000] for line in lines[:5000])
    if UNAVAILABLE.search(re.sub(r"\s*\n\s*", " ", text)) is not None or user_words.says_gpu_not_detected(text):
        return True
    return any(
        DEVICE_COUNT_ZERO.search(sentence) and not prose.is_question(sentence) and not ZERO_EXPECTED.search(sentence)
        for _, sentence in prose.sentences([line for line in lines if "device_count" in line])
    )
