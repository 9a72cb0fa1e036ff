"""A Mac said in prose without the word "Mac": the Apple-silicon chip by its own name ("for those of us on an M1",
"my M2 Max", "running on M3 Pro"), the MPS device PyTorch has only on macOS answering True
(``torch.backends.mps.is_available()`` -> True), or what only that device prints (its backend's errors, a tensor
on ``mps:0``).

PyTorch's ``mps`` device is the Metal Performance Shaders backend, built only into the macOS wheels (PyTorch docs,
"MPS backend": "mps device enables high-performance training on GPU for MacOS devices with Metal programming
framework"); Apple's chips are named M1-M4 with the Pro/Max/Ultra variants (Apple's Mac technical specifications).
NVIDIA's own "MPS" (the Multi-Process Service: ``nvidia-cuda-mps-control``, the MPS daemon/server,
``CUDA_MPS_PIPE_DIRECTORY``) is a Linux CUDA feature and says nothing about a Mac, so those words rule the device
reading out. A chip named only as a bare "M1" could be anything; it counts after a word that makes it the user's
machine ("on an M1", "my M2", "using M3 Pro")."""

from __future__ import annotations

import re

from gpuassist.ingest.lines import MAX_LINE, repl_answer

# "on an M1", "for those of us on an M1", "my M2 Max", "using an M3 Pro", "have an M1 Ultra", "M1 user(s)"; not an
# "M2 SSD"/"M.2 slot" (the drive form factor) or NVIDIA's Tesla M4/M40 (no article right before the chip's name).
APPLE_CHIP_SAID = re.compile(
    r"(?:\b(?:on|using|with|have|got|own|my|an?)\s+(?:an?\s+|my\s+|the\s+)?m[1-5](?:\s+(?:pro|max|ultra|air))?|"
    r"\bm[1-5](?:\s+(?:pro|max|ultra))?(?=\s+(?:users?|owners?|machines?|laptops?|computers?|chips?)\b))"
    r"(?![\w.-])(?!\s+(?:ssds?|nvme|drives?|slots?|disks?|sata)\b)",
    re.IGNORECASE,
)
# The MPS backend answering True: ``torch.backends.mps.is_available()`` is True only on a Mac (on Linux and Windows it
# is False), printed inline or on the REPL's next line. Code that merely names "mps" as a fallback
# (``"cuda" if ... else "mps"``) is copied everywhere and says nothing about the machine, so it is not read.
MPS_TRUE = re.compile(
    r"\bmps\.is_(?:available|built)\(\)\)?[`'\"]?\s*(?:#\s*)?(?:->|=+|:|returns?|returned|is|prints?|printed|gives?)?"
    r"\s*[`'\"]?True\b|\bMPS(?: backend)? available\s*[:=]\s*True\b"
)
# What only a Mac's torch prints: its MPS backend's own errors and hints (aten's MPS fallback: "The operator 'aten::X'
# is not currently implemented for the MPS device ... PYTORCH_ENABLE_MPS_FALLBACK=1"; "... in MPS backend"; the MPS
# allocator's "MPS backend out of memory ... PYTORCH_MPS_HIGH_WATERMARK_RATIO"; Metal's MPSNDArray asserts) and a
# tensor's repr on that device (``device='mps:0'``).
MPS_OUTPUT = re.compile(
    r"is not currently implemented for the MPS device|\bin (?:the )?MPS backend\b|MPS backend out of memory|"
    r"PYTORCH_ENABLE_MPS_FALLBACK|PYTORCH_MPS_HIGH_WATERMARK_RATIO|\bMPSNDArray|\bdevice='mps:\d+'",
)
# The MPS device shown working, not only named: the MPS allocator's out-of-memory error with its numbers ("MPS backend
# out of memory (MPS allocated: 17.23 GB, ..."), which it raises only after allocating on the device, and a tensor's
# repr on that device (``tensor([1., 2.], device='mps:0')``: output, not the ``torch.tensor(..., device='mps:0')``
# that makes one). A question ("will I get MPS backend out of memory?") has neither.
MPS_WORKING = re.compile(
    r"MPS backend out of memory \(MPS allocated: [\d.]+ ?[KMGT]i?B|"
    r"^\s*(?:Out\[\d+\]:\s*|[\w.\[\]]+\s*[:=]\s*)?(?:tensor|Parameter containing:)\b.*\bdevice='mps:\d+'"
)
# A program's start-up log naming the torch device it chose as ``mps``: ComfyUI's model_management logs
# "Device: {device.type}" for a non-CUDA device ("Device: mps") and "Set vram state to: SHARED", a state it sets only
# when ``cpu_state == CPUState.MPS``; other tools log "Using device: mps". Only a log line (the key then a bare value),
# never code that assigns the string (``device = "mps"``, ``torch.device("mps")``): torch picks ``mps`` at run time
# only where the MPS backend is available, which is macOS.
MPS_DEVICE_LOGGED = re.compile(
    r"(?<![\w.\"'$])(?:using\s+|selected\s+|torch\s+|running\s+on\s+)?device\s*[:=]\s*mps(?::\d+)?\b(?![\w'\"(:.])"
    r"|\bSet vram state to:\s*SHARED\b",
    re.IGNORECASE,
)
MPS_CHECK = re.compile(r"\bmps\.is_(?:available|built)\(\)")
NVIDIA_MPS = re.compile(
    r"nvidia-cuda-mps|\bmps[\s_-]*(?:daemon|server|control|pipe)\b|multi-?process service|CUDA_MPS_", re.IGNORECASE
)


def apple_said(lines: list[str]) -> tuple[int, str] | None:
    """The first line (1-based number, text) that names an Apple-silicon Mac in the ways above; None when none does
    or the text is about NVIDIA's Multi-Process Service."""
    cut = [line[:MAX_LINE] for line in lines]
    nvidia_mps = any(NVIDIA_MPS.search(line) for line in cut)
    for no, line in enumerate(cut, start=1):
        if APPLE_CHIP_SAID.search(line):
            return no, line
        if nvidia_mps or ("mps" not in line.lower() and "vram state" not in line.lower()):
            continue
        if (
            MPS_TRUE.search(line)
            or MPS_OUTPUT.search(line)
            or MPS_DEVICE_LOGGED.search(line)
            or (MPS_CHECK.search(line) and no < len(cut) and repl_answer(cut[no]) is True)
        ):
            return no, line
    return None


def chip_said(line: str) -> bool:
    """Whether the line names the Apple-silicon chip itself (not only the MPS device)."""
    return APPLE_CHIP_SAID.search(line[:MAX_LINE]) is not None
