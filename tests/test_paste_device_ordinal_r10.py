"""A lone "invalid device ordinal" (round 10): an index beyond the GPUs the process sees, from the program's own
device choice as often as from CUDA_VISIBLE_DEVICES; without the variable in the text the warning names both and
blames neither outright. Synthetic texts."""

from __future__ import annotations

from gpuassist.findings import Finding, Severity
from gpuassist.ingest import load_text

TRACE = (
    "python train.py --config configs/two_gpus.yaml\n"
    "Traceback (most recent call last):\n"
    '  File "train.py", line 40, in <module>\n'
    "    torch.cuda.set_device(rank)\n"
    "RuntimeError: CUDA error: invalid device ordinal\n"
)


def _ordinal(text: str) -> Finding:
    return next(f for f in load_text(text).findings if f.id == "cuda_visible_devices_hides_gpus")


def test_a_lone_ordinal_error_names_the_programs_index_and_stays_a_possibility() -> None:
    finding = _ordinal(TRACE)
    assert finding.severity is Severity.WARNING
    assert "GPU index" in finding.title
    assert "cuda:0" in finding.fix and "device_count" in finding.fix


def test_the_variable_in_the_text_keeps_its_own_wording() -> None:
    # Counter-example: the text sets CUDA_VISIBLE_DEVICES, so the catalogue's reading (and program_devices') stands.
    finding = _ordinal("export CUDA_VISIBLE_DEVICES=1\n" + TRACE)
    assert "GPU index" not in finding.title


def test_other_generic_errors_are_not_reworded() -> None:
    # Counter-example: "No CUDA GPUs are available" is no ordinal error; its CUDA_VISIBLE_DEVICES guess keeps its text.
    text = 'Traceback (most recent call last):\n  File "a.py", line 3\nRuntimeError: No CUDA GPUs are available\n'
    found = [f for f in load_text(text).findings if f.id == "cuda_visible_devices_hides_gpus"]
    assert all("GPU index" not in f.title for f in found)
