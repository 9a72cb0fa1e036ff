"""Round 29: a "no kernel image" in a text that says torch's own GPU computations run is not torch's build failing.
Synthetic texts with counter-examples that must keep the torch-build guesses."""

from __future__ import annotations

from gpuassist.ingest import load_text
from gpuassist.ingest.torch_kernels_run import torch_work_runs

ARCH = {"gpu_arch_too_new_for_build", "gpu_arch_dropped_from_build"}
GUESSES = ARCH | {"stale_or_shadowed_torch", "source_build_without_cuda"}
MESSAGE = "RuntimeError: CUDA error: no kernel image is available for execution on the device"


def _ids(text: str) -> set[str]:
    return {f.id for f in load_text(text).findings}


def test_torch_computations_said_to_run_clear_the_torch_build_guesses() -> None:
    text = (
        "Running the demo of my compiled ops package fails:\n"
        f"{MESSAGE}\n"
        "I built the package with python setup.py install. Other torch models run fine on the GPU, "
        "only this package's layer breaks.\n"
    )
    assert torch_work_runs(text.splitlines()) == 3
    assert not _ids(text) & GUESSES


def test_do_not_produce_the_error_form_also_counts() -> None:
    text = f"{MESSAGE}\nPlain PyTorch operations don't raise this error on the same card.\n"
    assert torch_work_runs(text.splitlines()) == 2
    assert not _ids(text) & GUESSES


def test_torch_code_failing_too_keeps_the_guesses() -> None:
    # Counter-example: torch's own code hits the error as well, so torch's arch list may lack the GPU.
    text = f"{MESSAGE}\nSimple torch operations do not work either, they fail with the same error.\n"
    assert torch_work_runs(text.splitlines()) is None
    assert _ids(text) & ARCH


def test_is_available_alone_keeps_the_guesses() -> None:
    # Counter-example: is_available() launches no kernel; it says nothing about the build's arch list.
    text = f"torch.cuda.is_available() returns True and the GPU shows in nvidia-smi.\n{MESSAGE}\n"
    assert torch_work_runs(text.splitlines()) is None
    assert _ids(text) & ARCH


def test_working_torch_without_the_message_is_not_read() -> None:
    # Counter-example: no "no kernel image" in the text: nothing to drop, nothing claimed by this reader.
    text = "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\nOther torch models run fine on the GPU.\n"
    assert "cuda_out_of_memory" in _ids(text)
