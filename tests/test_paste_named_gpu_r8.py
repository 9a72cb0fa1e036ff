"""A GPU named in prose or a title decides which "no kernel image" reading is possible (round 8).

Synthetic texts: the user's GPU named fully or as a bare GeForce number with a GPU word or an owner; counter-examples
where a number is not a GPU, or the GPU leaves both readings open."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text
from gpuassist.ingest.named_gpu import named_nvidia_gpus, readings_the_gpu_rules_out

NO_KERNEL = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
TOO_NEW = "gpu_arch_too_new_for_build"
DROPPED = "gpu_arch_dropped_from_build"


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


@pytest.mark.parametrize(
    ("prose", "name", "capability"),
    [
        ("我的5080显卡跑不起来", "RTX 5080", "12.0"),
        ("Title: 5070 Ti GPU fails on the first step", "RTX 5070", "12.0"),
        ("I have a 3060 and a Ryzen 9", "RTX 3060", "8.6"),
        ("we are using an RTX 5060 in the lab", None, "12.0"),
        ("my 1080 card stopped working after the upgrade", "GTX 1080", "6.1"),
        ("DGX Spark GB10", None, "12.1"),
        ("8x B200 node", None, "10.0"),
    ],
)
def test_the_gpu_is_read_from_prose(prose: str, name: str | None, capability: str) -> None:
    found = named_nvidia_gpus([prose])
    assert found and found[0][3] == capability, found
    if name:
        assert found[0][2] == name


@pytest.mark.parametrize(
    "prose",
    [
        "I have 3090 images in the dataset",  # a count, no GPU word, no article
        "the 2080 MB file is too large",
        "port 5090 is busy",
        "it costs $3060 per card",
        "with a 4090 W power supply",
    ],
)
def test_numbers_that_are_not_a_gpu_are_left_unread(prose: str) -> None:
    assert not named_nvidia_gpus([prose])


def test_a_blackwell_gpu_was_never_dropped_from_a_build() -> None:
    ids = _ids("5060显卡无法运行\n\n" + NO_KERNEL)
    assert ids[0] == TOO_NEW and DROPPED not in ids


def test_a_maxwell_gpu_was_never_too_new_for_a_build() -> None:
    ids = _ids("I'm using a GTX 960 on Ubuntu\n" + NO_KERNEL)
    assert ids[0] == DROPPED and TOO_NEW not in ids


def test_a_gpu_in_between_leaves_both_readings_open() -> None:
    # An RTX 3090 (8.6) is too new for a cu102 build and below the sm_90 floor of the aarch64 cu124 wheel: both stay.
    assert readings_the_gpu_rules_out(["8.6"]) == set()
    ids = _ids("I have a 3090\n" + NO_KERNEL)
    assert TOO_NEW in ids and DROPPED in ids
    # A V100 (7.0) can be either: cu130 dropped it, and it is not below sm_70.
    assert readings_the_gpu_rules_out(["7.0"]) == set()


def test_without_a_named_gpu_nothing_is_ruled_out() -> None:
    ids = _ids("training stopped\n" + NO_KERNEL)
    assert TOO_NEW in ids and DROPPED in ids


@pytest.mark.parametrize(
    "line",
    [
        "L2 cache:                                4 MiB (2 instances)",  # lscpu, not an NVIDIA L2
        '2024/11/14 22:28:01 DEBUG System stats data="{Stats:{Cpu:11.46 MaxCpu:0 Mem:7.44',
    ],
)
def test_a_full_model_name_needs_a_gpu_word_on_its_line(line: str) -> None:
    assert not named_nvidia_gpus([line])


def test_a_bare_geforce_number_is_the_machines_gpu_for_the_rules() -> None:
    report = load_text("5090显卡 with torch 2.5.1+cu124\n" + NO_KERNEL)
    assert report.facts.value("reported.gpus")[0]["compute_capability"] == "12.0"
    assert report.findings[0].id == TOO_NEW and report.findings[0].severity.value == "error"  # cu124 lacks sm_120


def test_two_different_bare_numbers_name_no_single_gpu() -> None:
    report = load_text("my 3060 card works, my 5090 card does not\n" + NO_KERNEL)
    assert not report.facts.known("reported.gpus")
