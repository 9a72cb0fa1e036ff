"""Round 22 (issue #14): a Mac named as the user's machine in plain words ("my Mac", "Mac doesn't have cuda").

CUDA dropped macOS after 10.2 and no Mac has an NVIDIA GPU since 2016, so "Torch not compiled with CUDA enabled" on
a Mac means MPS is the answer, not a CUDA wheel. The words must name the machine: a MAC address or a word that only
starts with "mac" says nothing. Synthetic texts and counter-examples."""

from __future__ import annotations

from gpuassist.ingest import load_text


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


def test_mac_said_to_lack_cuda_is_the_mac_reading() -> None:
    text = (
        "I installed everything, but Macs have no NVIDIA card and I get\n"
        "AssertionError: Torch not compiled with CUDA enabled\n"
    )
    assert _ids(text)[:1] == ["macos_no_cuda_use_mps"]


def test_my_mac_is_the_mac_reading() -> None:
    text = "Running the demo on my Mac fails:\nAssertionError: Torch not compiled with CUDA enabled\n"
    assert _ids(text)[:1] == ["macos_no_cuda_use_mps"]


def test_mac_address_and_macro_words_are_not_a_mac() -> None:
    text = (
        "The node's MAC address does not have a CUDA entry in our inventory; my macro sets device='cuda'.\n"
        "AssertionError: Torch not compiled with CUDA enabled\n"
    )
    ids = _ids(text)
    assert ids[:1] == ["cpu_only_build"]
    assert "macos_no_cuda_use_mps" not in ids
