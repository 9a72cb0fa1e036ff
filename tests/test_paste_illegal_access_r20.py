"""Round 20 (issue #14): a CUDA illegal memory access told in words (the phrases of messages.json's rows for
cudaErrorIllegalAddress / cudaErrorMisalignedAddress) in a text about CUDA work is cuda_illegal_memory_access;
questions, denials, suppositions, the CPU's "Illegal instruction" and texts without CUDA work claim nothing.
Synthetic texts and counter-examples."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text

ID = "cuda_illegal_memory_access"

BATCH_SIZE_PROSE = (
    "Depthwise conv fails for large inputs\n"
    "With batch 16 the layer runs, with batch 17 the forward pass stops (illegal memory access), on two machines.\n"
    "```\n"
    "layer = nn.Conv2d(8, 8, 3, groups=8).cuda()\n"
    "y = layer(torch.randn(17, 8, 4096, 4096).cuda())\n"
    "```\n"
)
ADDRESS_PROSE = (
    "My custom scatter kernel gives an illegal address when the index tensor is on cuda:0.\n"
    "PyTorch 2.3, CUDA 12.1, RTX 4090.\n"
)


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


@pytest.mark.parametrize("text", [BATCH_SIZE_PROSE, ADDRESS_PROSE])
def test_illegal_access_in_words_is_the_cause(text: str) -> None:
    ids = _ids(text)
    assert ids and ids[0] == ID


@pytest.mark.parametrize(
    "text",
    [
        # a question
        "Could a wrong index give an illegal memory access on the GPU?\nI use torch 2.1 with CUDA 12.1.\n",
        # a denial
        "The CUDA kernel finishes without any illegal memory access, but the output on the GPU is all zeros.\n",
        "compute-sanitizer shows no illegal memory access in my CUDA extension, yet the loss is NaN.\n",
        # a fault already fixed
        "Upgrading cuDNN fixed the illegal memory access in my conv3d on the GPU.\n",
        # a supposition / explanation
        "If the index is out of range the CUDA kernel may hit an illegal memory access, so I check it first.\n",
        # the CPU's SIGILL, not CUDA's fault
        "On my Jetson Nano `import torch` prints Illegal instruction (core dumped) with the GPU wheel.\n",
        # no CUDA work in the text
        "My Python C extension crashes with an illegal memory access when I free the buffer twice.\n",
    ],
)
def test_illegal_access_words_not_reported_claim_nothing(text: str) -> None:
    assert ID not in _ids(text)
