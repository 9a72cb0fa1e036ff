"""Round 20 (issue #14): the CUDA a torch build was made with, stated in words ("a torch with CUDA 10.2", "pytorch
built with cuda 11.1", "the cu102 build of torch"), is the build's CUDA: beside a named GPU newer than that toolkit
the architecture rule decides (gpu_arch_too_new_for_build). Wishes, denials, questions and two builds named state
nothing. Synthetic texts and counter-examples."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text
from gpuassist.ingest.torch_build_words import stated_build_facts

ID = "gpu_arch_too_new_for_build"

TOO_NEW_IN_WORDS = (
    "Training crashes on our new RTX 3080\n"
    "I have an RTX 3080. The setup script installs a pytorch built with CUDA 10.1, and nothing runs on the card.\n"
)
TAG_IN_WORDS = "My RTX 3070 gives errors; pip gave me the cu102 build of torch from the project's requirements.\n"


@pytest.mark.parametrize("text", [TOO_NEW_IN_WORDS, TAG_IN_WORDS])
def test_build_in_words_beside_newer_gpu_is_arch_too_new(text: str) -> None:
    ids = [f.id for f in load_text(text).findings]
    assert ids and ids[0] == ID


@pytest.mark.parametrize(
    ("sentence", "cuda"),
    [
        ("The requirements bring a torch with Cuda version 10.2.", "10.2"),
        ("my pytorch is compiled for cuda 11.1 here", "11.1"),
        ("installed torch (cu113) from the wheel index", "11.3"),
        ("RTX 3090 and torch 1.6 with cuda 10.2 from the requirements", "10.2"),
    ],
)
def test_build_forms_read(sentence: str, cuda: str) -> None:
    assert stated_build_facts([sentence], {}) == {"torch.cuda_build": cuda}


@pytest.mark.parametrize(
    "text",
    [
        "I need a torch built with CUDA 11.8 for my RTX 4090.",  # a wish
        "Is this torch built with CUDA 10.2?",  # a question
        "It is not a torch with CUDA 10.2, it came from pytorch.org.",  # a denial
        "I replaced the torch with CUDA 10.2 by a torch with CUDA 11.3 and it works.",  # two builds
        "I installed CUDA 10.2 and torch 1.8.",  # the toolkit, not the build's CUDA
        "I use torch 1.7 with CUDA 11.0 on my RTX 3090 and training works fine.",  # said to work
        "Old setup: RTX 3090, torch 1.6 with cuda 10.2.",  # a past setup
    ],
)
def test_build_not_stated(text: str) -> None:
    assert stated_build_facts(text.splitlines(), {}) == {}


def test_build_in_words_with_a_gpu_it_covers_claims_nothing() -> None:
    text = "I have an RTX 2080. The setup installs a torch with CUDA 10.2, but training is slow.\n"
    assert ID not in [f.id for f in load_text(text).findings]
