"""Round 29: 'no CUDA-capable device' on a machine whose hardware / CUDA setup the person says is unchanged.
Synthetic texts with counter-examples."""

from __future__ import annotations

from gpuassist.ingest import load_text

MESSAGE = "RuntimeError: CUDA error: no CUDA-capable device is detected"


def _ids(text: str) -> set[str]:
    return {f.id for f in load_text(text).findings}


def test_generic_message_alone_keeps_its_possibilities() -> None:
    # Counter-example: nothing said about the setup: the message's possibilities stay.
    assert {"no_nvidia_gpu", "cuda_visible_devices_hides_gpus"} <= _ids(f"{MESSAGE}\n")


def test_unchanged_hardware_and_cuda_setup_drop_both_guesses() -> None:
    text = f"Training ran for months. I have not changed the hardware or anything related to CUDA, now:\n{MESSAGE}\n"
    ids = _ids(text)
    assert "no_nvidia_gpu" not in ids
    assert "cuda_visible_devices_hides_gpus" not in ids


def test_unchanged_hardware_alone_keeps_the_visible_devices_guess() -> None:
    text = f"We did not touch the GPUs since last week's run.\n{MESSAGE}\n"
    ids = _ids(text)
    assert "no_nvidia_gpu" not in ids
    assert "cuda_visible_devices_hides_gpus" in ids


def test_changed_hardware_keeps_the_no_gpu_guess() -> None:
    # Counter-example: the hardware was changed, so the GPU may be gone.
    text = f"We changed the hardware last week and moved the disk to a new box.\n{MESSAGE}\n"
    assert "no_nvidia_gpu" in _ids(text)
