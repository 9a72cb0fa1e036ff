"""Round 29 (issue #14): the GPU that fails to initialise after the host woke from sleep.

"RmInitAdapter failed" alone is a device that did not start (a fault guess); with a stated suspend/resume of the host
first it is the suspend/resume bucket (uvm_wedged_after_suspend), and the fault/module guesses from the same lines give
way. A job suspended, a denied sleep or no sleep at all changes nothing. Synthetic texts.
"""

from __future__ import annotations

import pytest

from gpuassist.ingest import UnreadableInput, load_text

INIT = (
    "```\n[  812.301] NVRM: RmInitAdapter failed! (0x25:0x65:1470)\n"
    "[  812.302] NVRM: rm_init_adapter failed for device bearing minor number 0\n```\n"
)


def _ids(text: str) -> list[str]:
    try:
        return [f.id for f in load_text(text).findings]
    except UnreadableInput:
        return []


@pytest.mark.parametrize(
    "said",
    [
        "The dGPU of my hybrid laptop is gone after resuming from suspend.",
        "Since the machine came back from hibernation the card cannot be used.",
    ],
)
def test_init_failure_after_the_host_slept_reads_the_resume(said: str) -> None:
    ids = _ids(said + "\n" + INIT)
    assert ids[:1] == ["uvm_wedged_after_suspend"]
    assert "gpu_xid_fault" not in ids


def test_init_failure_without_a_sleep_stays_a_device_fault_guess() -> None:
    ids = _ids("The card does not come up on this new server.\n" + INIT)
    assert "uvm_wedged_after_suspend" not in ids
    assert "gpu_xid_fault" in ids


@pytest.mark.parametrize(
    "said",
    [
        "Suspend is disabled on this workstation and the card still does not come up.",
        "After the slurm job was suspended the node shows this.",
        "Will the GPU come back after suspend?",
    ],
)
def test_a_denied_or_other_sleep_does_not_read_the_resume(said: str) -> None:
    assert "uvm_wedged_after_suspend" not in _ids(said + "\n" + INIT)
