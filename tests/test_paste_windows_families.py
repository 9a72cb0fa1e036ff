"""Windows message families (round 13): Device Manager's problem codes for the GPU (Microsoft, "Device Manager
error messages", Cfg.h CM_PROB_*) and the driver's nvcuda.dll not loading, each beside a text of the same form that
must not be read that way. The texts are written here, not taken from a thread."""

from __future__ import annotations

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import UnreadableInput, load_text
from gpuassist.ingest.windows_device_status import PROBLEM_CODES, device_manager_matches


def _claimed(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings if f.severity in (Severity.ERROR, Severity.WARNING)]


def _errors(text: str) -> set[str]:
    return {f.id for f in load_text(text).findings if f.severity is Severity.ERROR}


def test_code_28_on_the_gpu_is_no_driver_installed() -> None:
    text = "3D Video Controller\nThe drivers for this device are not installed. (Code 28)\n"
    assert _errors(text) == {"no_nvidia_driver"}


@pytest.mark.parametrize("code", [31, 39, 52])
def test_a_driver_windows_cannot_load_is_a_guess_at_the_driver(code: int) -> None:
    text = f"NVIDIA GeForce GTX 1650\nThis device is not working properly. (Code {code})\n"
    assert _claimed(text)[0] == "no_nvidia_driver"
    assert not _errors(text)


def test_code_in_device_manager_words_without_parentheses() -> None:
    text = "In Device Manager my RTX 3060 shows code 31 and torch.cuda.is_available() is False\n"
    assert "no_nvidia_driver" in _claimed(text)


def test_another_devices_code_28_is_not_the_gpus() -> None:
    text = (
        "Bluetooth Peripheral Device\nThe drivers for this device are not installed. (Code 28)\n\n\n\n\n"
        ">>> import torch; torch.cuda.is_available()\nFalse\n"
    )
    assert "no_nvidia_driver" not in _errors(text)


@pytest.mark.parametrize(
    "text",
    [
        "NVIDIA GeForce RTX 3060\nThis device is disabled. (Code 22)\n",  # the user's choice: no catalogue cause
        "NVIDIA GeForce RTX 3060\nThis device is working properly.\n>>> torch.cuda.is_available()\nTrue\n",
        "Could not load the NVIDIA GPU module: exit code 1\n",  # an exit code is not Device Manager's
    ],
)
def test_no_device_manager_fault_claims_nothing_from_the_code(text: str) -> None:
    assert not {m.id for m in device_manager_matches(text.splitlines()) if m.specific}
    assert not _errors(text)


def test_every_problem_code_names_its_cfg_h_value() -> None:
    assert all(p.name.startswith("CM_PROB_") for p in PROBLEM_CODES.values())
    assert all(0 < w <= 1 for p in PROBLEM_CODES.values() for _, w in p.ids)
    assert all(p.specific == any(w >= 0.8 for _, w in p.ids) for p in PROBLEM_CODES.values())


@pytest.mark.parametrize(
    "line",
    [
        "Could not load library nvcuda.dll. Error code 126",
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'nvcuda.dll'",
    ],
)
def test_nvcuda_not_loading_is_the_display_driver_missing(line: str) -> None:
    assert _claimed(line + "\n")[0] == "no_nvidia_driver"


def test_a_disabled_devices_code_alone_without_the_gpu_is_refused() -> None:
    with pytest.raises(UnreadableInput):
        load_text("This device is disabled. (Code 22)\n")


def test_code_43_on_the_gpu_puts_the_stopped_device_before_a_guess_at_the_build() -> None:
    text = (
        'Device Manager says: "Windows has stopped this device because it has reported problems. (Code 43)" '
        "for my NVIDIA GeForce RTX 3060\n>>> torch.cuda.is_available()\nFalse\n"
    )
    assert _claimed(text)[0] == "gpu_xid_fault"
    assert not _errors(text)
