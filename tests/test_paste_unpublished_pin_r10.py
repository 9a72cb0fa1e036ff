"""A torch pin whose CUDA variant was never published for its release (round 10): PyTorch's release matrix
(knowledge/cuda_compat.json ``releases``) lists each release's variants; a pin outside them cannot resolve, and the
CPU build a setup script falls back to is the consequence. Synthetic texts."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text
from gpuassist.ingest.unpublished_pin import unpublished_pin


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


PIP = (
    "$ pip install torch==2.6.0+cu121 -f https://download.pytorch.org/whl/torch_stable.html\n"
    "Looking in links: https://download.pytorch.org/whl/torch_stable.html\n"
    "ERROR: Could not find a version that satisfies the requirement torch==2.6.0+cu121 (from versions: 2.5.1, "
    "2.6.0, 2.6.0+cpu, 2.6.0+cu118, 2.6.0+cu124, 2.6.0+cu126)\n"
    "ERROR: No matching distribution found for torch==2.6.0+cu121\n"
)


def test_a_pip_pin_of_an_unpublished_variant_is_the_cause() -> None:
    report = load_text(PIP)
    first = report.findings[0]
    assert first.id == "no_wheel_for_platform"
    assert "cu118, cu124, cu126" in first.explanation
    assert "whl/cu124" in first.fix and "2.5" in first.fix
    assert "fallback" not in first.explanation  # nothing was installed


def test_an_index_url_variant_counts_as_the_pin() -> None:
    text = (
        "pip install torch==2.7.1 --index-url https://download.pytorch.org/whl/cu124\n"
        "ERROR: No matching distribution found for torch==2.7.1\n"
    )
    found = unpublished_pin(text.splitlines())
    assert found is not None and (found.release, found.variant) == ("2.7", "cu124")


def test_a_setup_that_falls_back_to_the_cpu_wheel_ranks_the_pin_first() -> None:
    text = (
        "My app's installer on Windows with an RTX 3060 tries torch==2.8.0+cu118 and pip says "
        "No matching distribution found, then it installs torch 2.8.0+cpu and torch.cuda.is_available() is False.\n"
    )
    report = load_text(text)
    ids = [f.id for f in report.findings]
    assert ids[:1] == ["no_wheel_for_platform"], ids
    assert "fallback, not the cause" in report.findings[0].explanation


def test_uv_and_poetry_wordings() -> None:
    uv = (
        "  × No solution found when resolving dependencies:\n"
        "  ╰─▶ Because there is no version of torch==2.9.0+cu124 and your project depends on torch==2.9.0+cu124, "
        "we can conclude that your project's requirements are unsatisfiable.\n"
    )
    poetry = "Because app depends on torch (2.4.1+cu126) which doesn't match any versions, version solving failed.\n"
    assert unpublished_pin(uv.splitlines()) is not None
    assert unpublished_pin(poetry.splitlines()) is not None


@pytest.mark.parametrize(
    "text",
    [
        # Counter-examples. A published variant failing (here for a Python it has no wheel for): another cause.
        "pip install torch==2.5.1+cu121 on Python 3.14\nERROR: No matching distribution found for torch==2.5.1+cu121\n",
        # A variant the table's notes name (2.0 also shipped cu117): the table cannot tell, no claim.
        "pip install torch==2.0.1+cu117\nERROR: No matching distribution found for torch==2.0.1+cu117\n",
        # A release the table does not list.
        "pip install torch==1.13.1+cu116\nERROR: No matching distribution found for torch==1.13.1+cu116\n",
        # The unpublished pin is only mentioned; nothing failed to resolve.
        "I used to pin torch==2.6.0+cu121 by mistake; now torch==2.6.0+cu124 installs fine.\nSuccessfully installed "
        "torch-2.6.0+cu124\n",
    ],
)
def test_no_claim_when_the_table_or_the_text_cannot_tell(text: str) -> None:
    assert unpublished_pin(text.splitlines()) is None
