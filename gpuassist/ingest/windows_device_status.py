"""Windows Device Manager's status of the GPU, read from its own problem codes.

When Device Manager marks a device it shows a message ending in "(Code N)"; the codes are Windows' CM_PROB_* values
(Cfg.h), listed with their messages in Microsoft's "Device Manager error messages"
(https://learn.microsoft.com/windows-hardware/drivers/install/device-manager-error-messages). For the GPU each code
says where the stack stopped: no driver installed for it (Code 28, FAILED_INSTALL), a driver Windows could not load
(31 FAILED_ADD, 37 FAILED_DRIVER_ENTRY, 39 DRIVER_FAILED_LOAD, 48 DRIVER_BLOCKED, 52 UNSIGNED_DRIVER, 18 REINSTALL),
the device failing to start or being stopped by its driver after it started (10 FAILED_START, 43 FAILED_POST_START:
a fault of the GPU or its driver, the catalogue's gpu_xid_fault), no resources for it (12 NORMAL_CONFLICT, the BAR
space), or the device absent (24 DEVICE_NOT_THERE, 45 PHANTOM). A device the user disabled (22 DISABLED, 29
HARDWARE_DISABLED) is recognised and blames nothing in the catalogue.

Only a code shown as Device Manager shows it ("(Code 28)", or "Code 28" beside the words Device Manager) and only
for the GPU (the line or the few lines around it name an NVIDIA GPU, a display adapter or the "3D Video Controller"
Windows names a GPU without its driver): "(Code 28)" of a Bluetooth adapter is not the GPU's, and a program's "exit
code 28" or "cudaGetDeviceCount returned error code 10" (the CUDA runtime's own enum) is not Device Manager's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE


@dataclass(frozen=True)
class ProblemCode:
    name: str  # the CM_PROB_* name in Cfg.h
    ids: tuple[tuple[str, float], ...]  # what the code means for the GPU, with weights
    specific: bool = False


# Microsoft "Device Manager error messages" (Cfg.h CM_PROB_*), as they bear on a GPU that CUDA cannot use.
PROBLEM_CODES: dict[int, ProblemCode] = {
    10: ProblemCode("CM_PROB_FAILED_START", (("gpu_xid_fault", 0.4), ("no_nvidia_driver", 0.4))),
    12: ProblemCode("CM_PROB_NORMAL_CONFLICT", (("gpu_xid_fault", 0.5),)),
    18: ProblemCode("CM_PROB_REINSTALL", (("no_nvidia_driver", 0.7),)),
    22: ProblemCode("CM_PROB_DISABLED", ()),
    24: ProblemCode("CM_PROB_DEVICE_NOT_THERE", (("no_nvidia_gpu", 0.4), ("no_nvidia_driver", 0.4))),
    28: ProblemCode("CM_PROB_FAILED_INSTALL", (("no_nvidia_driver", 0.9),), specific=True),
    29: ProblemCode("CM_PROB_HARDWARE_DISABLED", ()),
    31: ProblemCode("CM_PROB_FAILED_ADD", (("no_nvidia_driver", 0.7),)),
    37: ProblemCode("CM_PROB_FAILED_DRIVER_ENTRY", (("no_nvidia_driver", 0.7),)),
    39: ProblemCode("CM_PROB_DRIVER_FAILED_LOAD", (("no_nvidia_driver", 0.7),)),
    43: ProblemCode("CM_PROB_FAILED_POST_START", (("gpu_xid_fault", 0.7), ("no_nvidia_driver", 0.3))),
    45: ProblemCode("CM_PROB_PHANTOM", (("no_nvidia_gpu", 0.5),)),
    48: ProblemCode("CM_PROB_DRIVER_BLOCKED", (("no_nvidia_driver", 0.7),)),
    52: ProblemCode("CM_PROB_UNSIGNED_DRIVER", (("no_nvidia_driver", 0.7),)),
}
PAREN_CODE = re.compile(r"\((?:error\s+)?code\s*(\d{1,2})\)", re.IGNORECASE)
BARE_CODE = re.compile(r"\b(?:error\s+)?code\s*(\d{1,2})\b", re.IGNORECASE)
DEVICE_MANAGER = re.compile(r"\bdevice\s*manager\b|\bdevmgmt\b|\bGeräte-Manager\b", re.IGNORECASE)
# The GPU as Device Manager lists it: by its name, as a display adapter, or (without a driver) a 3D Video Controller.
THE_GPU = re.compile(
    r"\bnvidia\b|\bgeforce\b|\bquadro\b|\btesla\b|\b[GR]TX\s?\d{3,4}|\bRTX\s?A\d{3,4}|\bdisplay adapters?\b|"
    r"\b3D (?:Video )?Controller\b|\bVideo Controller\b|\bgraphics card\b|\bGPU\b",
    re.IGNORECASE,
)
# Another device's own line: its code is that device's, even where a GPU is named beside it (an NVIDIA GPU's audio
# function, "NVIDIA High Definition Audio", is not the GPU either).
OTHER_DEVICE = re.compile(
    r"\bbluetooth\b|\baudio\b|\bsound\b|\bwi-?fi\b|\bwireless\b|\bethernet\b|\bnetwork (?:adapter|controller)\b|"
    r"\bUSB\b|\bcamera\b|\bwebcam\b|\bprinter\b|\bkeyboard\b|\bmouse\b|\btouchpad\b|\bSM ?Bus\b|"
    r"\bBase System Device\b|\bbiometric\b|\bfingerprint\b|\bcard reader\b",
    re.IGNORECASE,
)
NEAR = 3  # lines either side that may name the device whose status this is


# A program's own number called a code: an exit or return status, a CUDA call's error code ("cudaGetDeviceCount returned
# error code 10" is the CUDA runtime's enum, not Device Manager's).
PROGRAM_CODE_BEFORE = re.compile(r"\b(?:exit(?:ed)?|return(?:s|ed)?|status|HRESULT|errno)\b[\w\s]{0,20}$", re.I)


def _code(line: str, device_manager: bool) -> int | None:
    """Device Manager's "(Code N)"; a bare "code N" only near the words Device Manager and not a program's status."""
    found = PAREN_CODE.search(line)
    if found is None and device_manager:
        found = next(
            (hit for hit in BARE_CODE.finditer(line) if not PROGRAM_CODE_BEFORE.search(line[: hit.start()])), None
        )
    return int(found.group(1)) if found else None


def device_manager_matches(lines: list[str]) -> list[Match]:
    """The readings of the GPU's Device Manager problem code, one match per catalogue id it can mean."""
    head = [line[:MAX_LINE] for line in lines[:5000]]
    out: list[Match] = []
    for no, line in enumerate(head, start=1):
        near = head[max(0, no - 1 - NEAR) : no + NEAR]
        code = _code(line, any(DEVICE_MANAGER.search(x) for x in near))
        problem = PROBLEM_CODES.get(code) if code is not None else None
        if problem is None:
            continue
        if OTHER_DEVICE.search(line):
            continue
        if not any(THE_GPU.search(x) for x in near):
            continue
        out += [Match(fid, no, line.strip()[:500], problem.specific, weight) for fid, weight in problem.ids]
    return out
