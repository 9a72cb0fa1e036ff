"""Round 6 (issue #14): "no kernel image" without the GPU's name: the driver branch shown and the build's arch list
decide which of "too new" and "dropped" it can still be (ingest/arch_readings.py). Synthetic texts."""

from __future__ import annotations

from gpuassist.ingest import load_text
from gpuassist.ingest.arch_readings import DROPPED, TOO_NEW

NO_KERNEL = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"


def _text(torch: str, driver: str | None) -> str:
    smi = f"| NVIDIA-SMI {driver}    Driver Version: {driver}    CUDA Version: 12.8 |\n" if driver else ""
    return f"torch {torch}\n{smi}{NO_KERNEL}"


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


def test_a_driver_that_cannot_run_kepler_leaves_only_too_new_for_an_old_build() -> None:
    # torch 2.3.1+cu121 carries sm_50..sm_90; driver 570 drives Blackwell (not in the build) and no Kepler.
    ids = _ids(_text("2.3.1+cu121", "570.86.16"))
    assert TOO_NEW in ids and DROPPED not in ids


def test_a_driver_too_old_for_blackwell_leaves_only_dropped_for_a_new_build() -> None:
    # torch 2.8.0+cu128 starts at sm_70; driver 535 drives Maxwell/Pascal (dropped there) but no Blackwell.
    ids = _ids(_text("2.8.0+cu128", "535.54.03"))
    assert DROPPED in ids and TOO_NEW not in ids


def test_without_a_driver_both_readings_stay_possible() -> None:
    ids = _ids(_text("2.3.1+cu121", None))
    assert TOO_NEW in ids and DROPPED in ids


def test_a_build_without_a_known_arch_list_is_not_judged() -> None:
    # A source build's arch list is its own: the tables say nothing about it.
    ids = _ids(_text("2.3.0a0+git1234567", "570.86.16"))
    assert TOO_NEW in ids and DROPPED in ids
