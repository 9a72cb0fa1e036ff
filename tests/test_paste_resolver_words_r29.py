"""Round 29: pip's "no matching distribution" retold in prose after a torch install command reads as no wheel for
this platform. Synthetic texts with counter-examples."""

from __future__ import annotations

from gpuassist.ingest import load_text
from gpuassist.ingest.resolver_words import retold_resolver_failure


def _ids(text: str) -> set[str]:
    return {f.id for f in load_text(text).findings}


def test_retold_answer_after_a_torch_install_command() -> None:
    text = (
        "Following the install page I ran\n"
        "pip install torch --index-url https://download.pytorch.org/whl/cu121\n"
        "and pip just says could not find a version that satisfies the requirement, nothing else.\n"
        "I am on Python 3.13 on Windows 11.\n"
    )
    found = retold_resolver_failure(text.splitlines())
    assert found is not None and found.line_no == 3
    assert "no_wheel_for_platform" in _ids(text)


def test_retold_answer_naming_another_package_is_not_read() -> None:
    # Counter-example: the package without a wheel is detectron2, not torch.
    text = (
        "pip install torch torchvision worked, then pip install detectron2 gave\n"
        "no matching distribution found for detectron2, how do I build it?\n"
    )
    assert retold_resolver_failure(text.splitlines()) is None


def test_retold_answer_without_a_torch_command_is_not_read() -> None:
    # Counter-example: no torch install command in the text; the retold failure may be any package's.
    text = "pip install -r requirements.txt says no matching distribution found.\n"
    assert retold_resolver_failure(text.splitlines()) is None


def test_installed_afterwards_is_not_read() -> None:
    # Counter-example: the retry installed torch: nothing is left unresolved.
    text = (
        "pip install torch first said no matching distribution found, after upgrading pip it worked:\n"
        "Successfully installed torch-2.5.1\n"
    )
    assert retold_resolver_failure(text.splitlines()) is None


def test_retold_answer_with_another_pinned_requirement_is_not_read() -> None:
    # Counter-example: the retelling names mmcv's pin, so mmcv has no wheel here.
    text = "pip install torch==2.1.0 mmcv==1.7.0\ncould not find a version that satisfies the requirement mmcv==1.7.0\n"
    assert retold_resolver_failure(text.splitlines()) is None
