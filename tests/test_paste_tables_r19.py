"""Round 19 (issue #14): GPU names as people type them are found in the GPU table in every spacing and case, and a
note about gpuassist's own tables never leads a finding about the user's machine or error. Synthetic texts and
counter-examples."""

from __future__ import annotations

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.knowledge.wheels import capability_from_name
from gpuassist.rules import order_findings
from gpuassist.rules.make import finding


@pytest.mark.parametrize(
    ("name", "capability"),
    [
        ("nvidia RTX 2080Ti", "7.5"),
        ("2080Ti", "7.5"),
        ("2080-Ti", "7.5"),
        ("GeForce RTX 3090ti", "8.6"),
        ("RTX3060", "8.6"),
        ("RTX-3070", "8.6"),
        ("GTX1080", "6.1"),
        ("gtx1080_ti", "6.1"),
        ("rtx 4090 laptop", "8.9"),
        ("nvidia 4090 laptop gpu", "8.9"),
        ("4070SUPER", "8.9"),
        ("GTX 750Ti", "5.0"),
        ("A100-SXM4-40GB", "8.0"),
        ("Tesla V100-SXM2-16GB", "7.0"),
    ],
)
def test_typed_gpu_names_find_their_table_row(name: str, capability: str) -> None:
    assert capability_from_name(name) == capability


@pytest.mark.parametrize(
    "name",
    [
        "RTX 5000",  # Quadro RTX 5000 (7.5) or RTX 5000 Ada (8.9): no guess beats a wrong one
        "1080p",  # a resolution, not a GTX 1080
        "2070 mAh",
        "12345",
        "RTX 2090",  # no such GeForce
    ],
)
def test_names_the_table_cannot_tell_stay_unknown(name: str) -> None:
    assert capability_from_name(name) is None


ILLEGAL_ACCESS = (
    "It runs for some steps, then:\n"
    "RuntimeError: CUDA error: an illegal memory access was encountered\n"
    "Setup: CUDA 11.8, pytorch 2.0, my GPU is a 3080ti, driver 525\n"
)


def test_typed_gpu_name_is_not_reported_as_newer_than_the_tables() -> None:
    report = load_text(ILLEGAL_ACCESS)
    assert report.findings[0].id == "cuda_illegal_memory_access"
    assert "knowledge_tables_outdated" not in {f.id for f in report.findings}


def test_tables_note_follows_every_finding_about_the_user_of_its_severity() -> None:
    tables = finding("knowledge_tables_outdated", Severity.INFO, explanation="x", fix="y")
    in_use = finding("cuda_illegal_memory_access", Severity.INFO, explanation="x", fix="y")
    error = finding("torch_import_error", Severity.ERROR, explanation="x", fix="y")
    ordered = order_findings([tables, in_use, error])
    assert [f.id for f in ordered] == ["torch_import_error", "cuda_illegal_memory_access", "knowledge_tables_outdated"]


def test_tables_note_still_shown_for_a_gpu_really_missing_from_the_table() -> None:
    # Counter-example: a name the table does not know (and nothing reported its capability) keeps the note.
    report = load_text(
        "RuntimeError: CUDA error: an illegal memory access was encountered\nGPU 0: NVIDIA RTX Q9000 (UUID: GPU-1)\n"
    )
    assert [f.id for f in report.findings] == ["cuda_illegal_memory_access", "knowledge_tables_outdated"]
