"""A collect_env paste cut inside its conda rows says so (round 9): conda's ``_pytorch_select`` row exists only beside
a ``pytorch`` row, which sorts after it; a list that stops before that row was cut. Synthetic pastes."""

from __future__ import annotations

from gpuassist.ingest import load_text
from gpuassist.ingest.torch_rows import cut_before_selected_pytorch

HEAD = (
    "PyTorch version: 1.2.0\nIs debug build: No\nCUDA used to build PyTorch: 10.0.130\n\nOS: Ubuntu 18.04.3 LTS\n"
    "Python version: 3.6\nIs CUDA available: Yes\nGPU models and configuration: GPU 0: GeForce GTX 1080 Ti\n"
    "Nvidia driver version: 430.50\n\nVersions of relevant libraries:\n[pip] numpy==1.17.2\n[pip] torch==1.2.0\n"
)
SELECT = "[conda] _pytorch_select           0.2                       gpu_0  \n"


def test_a_list_that_stops_before_the_selected_pytorch_row_is_cut() -> None:
    text = HEAD + SELECT + "[conda] blas                      1.0                         mkl  \n```\n"
    missing = load_text(text).meta["missing_facts"]
    assert any("before the pytorch row" in m for m in missing), missing
    assert cut_before_selected_pytorch(text.splitlines())


def test_the_pytorch_row_shown_is_no_cut() -> None:
    # Counter-example: the list reaches the pytorch row (and past it).
    text = (
        HEAD
        + SELECT
        + "[conda] blas                      1.0                         mkl  \n"
        + "[conda] pytorch                   1.2.0           py3.6_cuda10.0.130_cudnn7.6.2_0    pytorch\n"
    )
    assert cut_before_selected_pytorch(text.splitlines()) == []


def test_prose_after_the_rows_is_no_cut() -> None:
    # Counter-example: the poster's words follow the rows: the list ended where collect_env ended it, or was trimmed
    # on purpose; nothing says which.
    text = HEAD + SELECT + "[conda] blas  1.0  mkl\n\nAny idea why the import fails?\n"
    assert cut_before_selected_pytorch(text.splitlines()) == []


def test_no_selector_is_no_reading() -> None:
    text = HEAD + "[conda] blas                      1.0                         mkl  \n"
    assert cut_before_selected_pytorch(text.splitlines()) == []
