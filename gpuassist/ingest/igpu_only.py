"""A machine whose only graphics are integrated (or otherwise not NVIDIA), read from the forms people state it in.

On such a machine every CUDA message is a consequence, not a cause: the CUDA runtime finds no driver library
(libcuda / nvcuda.dll) and reports cudaErrorInsufficientDriver ("CUDA driver version is insufficient for CUDA
runtime version", CUDA Runtime API, enum cudaError: also returned when no driver is installed), torch says "Found no
NVIDIA driver on your system" (torch/cuda/__init__.py, _check_driver), cuInit returns CUDA_ERROR_NO_DEVICE, and
`nvidia-smi` is not there. Updating a driver fixes none of it: there is no NVIDIA GPU.

The forms, beside the dxdiag/neofetch "Graphics:" lists and the "My PC is Intel Iris Xe" sentences read elsewhere:
- sentences that call the adapter integrated or name an Intel/AMD GPU in passing: "I'm using an integrated Intel GPU
  (iris xe graphics)", "my laptop only has Intel integrated graphics", "I only have an integrated GPU", "no
  dedicated graphics card";
- Windows' own listings: Task Manager's Performance tab ("GPU 0" followed by the adapter's name), `wmic path
  win32_VideoController get name` and PowerShell's `Get-CimInstance Win32_VideoController` (a "Name" header, then one
  adapter per line).
Nothing fires when the text names an NVIDIA GPU anywhere (a hybrid laptop's dGPU beside its iGPU), or when it only
denies an NVIDIA card's presence in passing.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.ingest.other_machine import said_of_another_machine
from gpuassist.ingest.user_words import NVIDIA_DENIED

# nouveau's probe line names the chip it drives (linux drivers/gpu/drm/nouveau/nvkm/engine/device/base.c:
# nvdev_info(device, "NVIDIA %s (%08x)", chip name, boot0): "nouveau 0000:01:00.0: NVIDIA GM204 (124020a1)"): an
# NVIDIA GPU is there, whichever driver holds it.
NOUVEAU_PROBE = r"\bnouveau\s+[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d:\s+NVIDIA\s+\w+"
# An NVIDIA GPU named by model or vendor string (not the bare word: torch's "Found no NVIDIA driver ... Please check
# that you have an NVIDIA GPU" names the vendor on every machine), or nvidia-smi's table (a driver that sees a GPU).
NVIDIA_GPU = re.compile(
    r"\b(?:geforce|quadro|tesla|titan|[rg]tx(?:\s?\d{3,4}\w*)?|jetson|tegra)\b|"
    r"\bnvidia\s+(?:corporation|[ahlptvk]\d{1,3}|a\d{4}|rtx|gtx)\b|\bNVIDIA-SMI\s+\d|\b10de:|" + NOUVEAU_PROBE,
    re.IGNORECASE,
)
_MARK = r"(?:\s*(?:\(R\)|®|\(TM\)|™))?"
# An Intel or AMD graphics adapter by name: the marketing names of Intel's iGPUs and AMD's APU graphics.
ADAPTER_NAME = (
    rf"Intel{_MARK}\s*(?:(?:Iris|UHD|HD){_MARK}\s*(?:Xe|Plus|Pro)?{_MARK}\s*Graphics\s*\w*|Arc{_MARK}\s*\w+)|"
    rf"AMD{_MARK}\s*Radeon{_MARK}\s*(?:\w+\s+)?Graphics|AMD{_MARK}\s*Radeon{_MARK}\s*(?:Vega|RX|R\d)\s*\w*|"
    r"Microsoft Basic Display Adapter"
)
# A sentence that calls the machine's graphics integrated, or says it has no dedicated GPU.
INTEGRATED_SENTENCE = re.compile(
    r"\b(?:integrated|onboard|on-board|built-in)\s+(?:intel|amd|radeon)?\s*(?:gpu|graphics|video|card)\b|"
    r"\b(?:intel|amd)\s+(?:integrated|onboard|built-in)\s+(?:gpu|graphics)\b|"
    r"\b(?:intel|amd)\s+(?:gpu|igpu|apu)\b|\biGPU\b|\biris\s*xe\b|"
    r"\b(?:no|without(?: an?| any)?|(?:don'?t|doesn'?t|do not|does not) have(?: an?| any)?)\s+"
    r"(?:dedicated|discrete|separate)\s+(?:gpu|graphics(?: card)?|video card)\b",
    re.IGNORECASE,
)
_NO_DEDICATED = re.compile(
    r"\b(?:no|without(?: an?| any)?|(?:don'?t|doesn'?t|do not|does not) have(?: an?| any)?)\s+"
    r"(?:dedicated|discrete|separate)\b",
    re.IGNORECASE,
)
# A second GPU beside the integrated one ("the integrated GPU is used instead of the dedicated one", "dGPU").
HYBRID_WORDS = re.compile(r"\b(?:dedicated|discrete|dgpu|instead of|rather than|switch(?:ed|es)? to)\b", re.IGNORECASE)
# The sentence is about the user's own machine ("I'm using", "my laptop", "I only have", "os is win 11").
OWN_MACHINE = re.compile(
    r"\b(?:i|we)(?:'m|\s+am|'ve|\s+have|\s+only|\s+use|\s+got|\s+own)\b|\bmy\s+\w+|\bour\s+\w+|"
    r"\b(?:pc|computer|laptop|notebook|machine)\s+(?:with|has|only)\b|\bonly\s+(?:an?\s+)?(?:integrated|intel|amd)\b",
    re.IGNORECASE,
)
# Task Manager's Performance tab ("GPU 0" on its own line, the adapter on the next) and the Win32_VideoController
# listings of wmic / PowerShell ("Name" header, then one adapter per line).
TASK_MANAGER_GPU = re.compile(r"^\s*GPU\s*\d\s*$", re.IGNORECASE)
VIDEO_CONTROLLER_HEADER = re.compile(
    r"^\s*(?:Name|Caption|Description)\s*(?:DriverVersion\s*)?$|Win32_VideoController", re.IGNORECASE
)
ADAPTER_LINE = re.compile(rf"^\s*(?:Name\s*:\s*)?(?:{ADAPTER_NAME})", re.IGNORECASE)


def _names_nvidia(lines: list[str]) -> bool:
    return any(NVIDIA_GPU.search(NVIDIA_DENIED.sub(" ", line[:MAX_LINE])) for line in lines)


def _listed_adapter(lines: list[str]) -> tuple[int, str] | None:
    """The first adapter a Task Manager or Win32_VideoController listing shows, when every adapter it lists is
    Intel/AMD: the line after "GPU N", or the lines after a "Name" header (or a Win32_VideoController command)."""
    for no, line in enumerate(lines):
        if not (TASK_MANAGER_GPU.match(line[:MAX_LINE]) or VIDEO_CONTROLLER_HEADER.search(line[:MAX_LINE])):
            continue
        listed = [(no + 1 + k, nxt) for k, nxt in enumerate(lines[no + 1 : no + 4]) if nxt.strip()]
        if listed and ADAPTER_LINE.match(listed[0][1][:MAX_LINE]):
            return listed[0]
    return None


def integrated_only_match(lines: list[str]) -> Match | None:
    """The text shows that the machine's only graphics are Intel/AMD (integrated, or no dedicated GPU) and names no
    NVIDIA GPU: no_nvidia_gpu, a verdict that explains the CUDA driver/runtime messages beside it."""
    if _names_nvidia(lines):
        return None
    listed = _listed_adapter(lines)
    if listed is not None:
        return Match("no_nvidia_gpu", listed[0], listed[1].strip()[:500], True, 0.9)
    for no, line in enumerate(lines, start=1):
        text = line[:MAX_LINE]
        if (
            INTEGRATED_SENTENCE.search(text)
            and OWN_MACHINE.search(text)
            and not said_of_another_machine(text)
            and not HYBRID_WORDS.search(_NO_DEDICATED.sub(" ", text))
        ):
            return Match("no_nvidia_gpu", no, text.strip()[:500], True, 0.9)
    return None
