"""Round 28 (issue #14): the NGC deep-learning containers' start-up GPU check, read from its script.

The entrypoint compares each GPU's compute capability with the image's build range and says which side it is on:
'which is not supported by this container' (below the oldest build = dropped), 'which is not yet supported in this
version of the container' (above the newest = too new), 'which may not yet be supported' (a newer minor of a built
major: still counted as supported) and the summary 'No supported GPU(s) detected' (no side). Synthetic texts.
"""

from __future__ import annotations

from gpuassist.ingest import load_text


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


BANNER = (
    "=============\n== PyTorch ==\n=============\n\nNVIDIA Release 20.03 (build 11026000)\nPyTorch Version 1.5.0a0\n\n"
)


def test_gpu_below_the_images_build_is_dropped_from_the_build() -> None:
    text = (
        BANNER + "ERROR: Detected Quadro K2200 GPU, which is not supported by this container\n"
        "ERROR: No supported GPU(s) detected to run this container\n"
    )
    ids = _ids(text)
    assert ids[0] == "gpu_arch_dropped_from_build"
    assert "gpu_arch_too_new_for_build" not in ids


def test_gpu_above_the_images_build_is_too_new_for_it() -> None:
    text = (
        BANNER + "WARNING: Detected NVIDIA NVIDIA RTX 6000 Ada Generation GPU GPU, which is not yet supported in this "
        "version of the container\nERROR: No supported GPU(s) detected to run this container\n"
    )
    ids = _ids(text)
    assert ids[0] == "gpu_arch_too_new_for_build"
    assert "gpu_arch_dropped_from_build" not in ids


def test_may_not_yet_be_supported_and_the_summary_alone_blame_nothing() -> None:
    maybe = BANNER + (
        "WARNING: Detected NVIDIA NVIDIA GeForce RTX 4090 GPU, which may not yet be supported in this version of "
        "the container\n"
    )
    summary = BANNER + "ERROR: No supported GPU(s) detected to run this container\n"
    for text in (maybe, summary):
        ids = _ids(text)
        assert "gpu_arch_too_new_for_build" not in ids
        assert "gpu_arch_dropped_from_build" not in ids


ABOVE = (
    "WARNING: Detected NVIDIA NVIDIA GeForce RTX 4090 GPU, which is not yet supported in this version of the "
    "container\nERROR: No supported GPU(s) detected to run this container\n"
)


def test_the_too_new_banner_beside_a_gpu_shown_computing_is_dropped() -> None:
    computed = BANNER + ABOVE + ">>> torch.ones(2).cuda() * 2\ntensor([2., 2.], device='cuda:0')\n"
    said = BANNER + ABOVE + "Training runs fine on the GPU anyway, can I ignore this?\n"
    for text in (computed, said):
        assert "gpu_arch_too_new_for_build" not in _ids(text), text


def test_the_too_new_banner_stays_when_the_gpu_is_not_shown_working_or_kernels_fail() -> None:
    denied = BANNER + ABOVE + "Training does not work fine, it stops at the first batch.\n"
    kernels = (
        BANNER + ABOVE + ">>> torch.ones(2).cuda() * 2\ntensor([2., 2.], device='cuda:0')\n"
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    )
    for text in (denied, kernels):
        assert "gpu_arch_too_new_for_build" in _ids(text), text
