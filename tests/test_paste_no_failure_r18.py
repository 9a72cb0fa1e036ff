"""Round 18 (issue #14, system side): a driver state or a quoted message in a text that says nothing fails is not
a cause (ingest/not_about_failure.py). Synthetic texts, each with counter-examples that must still be read."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


LSPCI_NOUVEAU = (
    "$ lspci -k -d 10de:\n01:00.0 VGA compatible controller: NVIDIA Corporation TU106 [GeForce RTX 2060]\n"
    "\tKernel driver in use: nouveau\n\tKernel modules: nouveau\n"
)


@pytest.mark.parametrize(
    "words",
    [
        "I never use CUDA on this box, it is only for gaming.\n",
        "Is that bad? I don't run any machine learning here, the desktop works fine.\n",
    ],
)
def test_nouveau_for_someone_without_cuda_claims_nothing(words: str) -> None:
    assert _ids(LSPCI_NOUVEAU + words) == []


@pytest.mark.parametrize(
    "words",
    [
        "",
        ">>> torch.cuda.is_available()\nFalse\n",
        "I don't use CUDA often, but today PyTorch cannot find the GPU.\n",
    ],
)
def test_nouveau_beside_a_cuda_failure_or_alone_is_still_read(words: str) -> None:
    ids = _ids(LSPCI_NOUVEAU + words)
    assert ids[:1] in (["no_nvidia_driver"], ["nvidia_module_not_loaded"])


@pytest.mark.parametrize(
    "text",
    [
        "What does 'NVML: Driver/library version mismatch' mean? I saw it in a forum post; everything works here.\n",
        'Quick question: what is "CUDA driver version is insufficient for CUDA runtime version"? '
        "Training on my GPU still works fine.\n",
    ],
)
def test_a_message_only_asked_about_by_someone_whose_gpu_works_is_no_claim(text: str) -> None:
    assert _ids(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "Why do I get 'Failed to initialize NVML: Driver/library version mismatch'? "
        "nvidia-smi fails since the update.\n",
        "$ nvidia-smi\nFailed to initialize NVML: Driver/library version mismatch\nWhat does this mean? "
        "Everything else works.\n",
        "What does 'Driver/library version mismatch' mean?\n",
    ],
)
def test_a_message_printed_or_asked_about_without_it_working_is_still_read(text: str) -> None:
    assert _ids(text)[:1] == ["driver_library_mismatch"]


@pytest.mark.parametrize(
    "text",
    [
        "How do I fix 'RuntimeError: CUDA error: out of memory'? Everything works with a small batch size.\n",
        "Why 'Failed to initialize NVML: Driver/library version mismatch'? It works after a reboot.\n",
    ],
)
def test_a_question_that_reports_the_message_is_still_read(text: str) -> None:
    assert _ids(text) != []
