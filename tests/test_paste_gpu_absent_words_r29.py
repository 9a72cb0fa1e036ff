"""Round 29: a text that states the machine has no NVIDIA GPU (or is a VirtualBox VM) rules out the CUDA
'unknown error' guesses that presuppose one. Synthetic texts with counter-examples."""

from __future__ import annotations

from gpuassist.ingest import load_text
from gpuassist.ingest.gpu_absent_words import no_gpu_stated

PRESUPPOSE = {"uvm_wedged_after_suspend", "nvidia_module_not_loaded"}
UNKNOWN = "RuntimeError: CUDA error: unknown error"


def _ids(text: str) -> set[str]:
    return {f.id for f in load_text(text).findings}


def test_unknown_error_baseline_names_the_gpu_guesses() -> None:
    # The counter-example first: without the statement, the generic message keeps its GPU-side possibilities.
    text = f"Running the CPU example script on my desktop:\n{UNKNOWN}\n"
    assert _ids(text) & PRESUPPOSE


def test_no_gpu_stated_drops_the_guesses_that_need_a_gpu() -> None:
    text = f"I run the tutorial on my laptop; this laptop has no NVIDIA GPU.\n{UNKNOWN}\n"
    assert no_gpu_stated(text.splitlines()) == 1
    assert not _ids(text) & PRESUPPOSE


def test_virtualbox_vm_stated() -> None:
    text = f"Ubuntu 22.04, it's a VirtualBox VM on a Windows host.\n{UNKNOWN}\n"
    assert no_gpu_stated(text.splitlines()) == 1
    assert not _ids(text) & PRESUPPOSE


def test_cuda_cannot_see_the_gpu_is_not_a_statement_of_absence() -> None:
    # Counter-example: "torch sees no GPU" is the symptom, not the machine lacking one.
    text = f"torch says there is no GPU available although nvidia-smi shows my RTX 3060.\n{UNKNOWN}\n"
    assert no_gpu_stated(text.splitlines()) is None
    assert _ids(text) & PRESUPPOSE
