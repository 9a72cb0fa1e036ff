"""What conda prints that states the pytorch build, conda-forge's forms included (round 8).

Synthetic conda outputs: conda-forge's CPU and CUDA build strings in `conda list`, the package plan and the
download table; a cudatoolkit pin whose command names pytorch only as its channel is not the build."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text

FALSE = ">>> torch.cuda.is_available()\nFalse\n"


def _build(text: str) -> object:
    facts = load_text(text).facts
    return facts.value("torch.cuda_build") if facts.known("torch.cuda_build") else "unknown"


@pytest.mark.parametrize(
    ("line", "cuda"),
    [
        ("pytorch                   1.10.2          cpu_py39hc5866cc_0    conda-forge", None),
        ("pytorch                   2.1.0           cpu_generic_py310h0ae7b8b_0    conda-forge", None),
        ("    pytorch-2.3.1              |cpu_mkl_py311h2b5e8a0_100        28.5 MB  conda-forge", None),
        ("pytorch                   1.10.0          cuda112py39h3ad7f43_1    conda-forge", "11.2"),
        ("pytorch                   2.4.1           cuda120_py311h0f0e1c6_300    conda-forge", "12.0"),
        ("  pytorch            conda-forge/linux-64::pytorch-2.5.1-cuda126_mkl_py312h1e2a3b4_306", "12.6"),
    ],
)
def test_conda_forge_build_strings_state_the_build(line: str, cuda: str | None) -> None:
    assert _build(line + "\n" + FALSE) == cuda


def test_a_cpu_build_string_with_cuda_unavailable_is_a_cpu_build() -> None:
    text = "$ conda list torch\npytorch  2.1.0  cpu_generic_py310h0ae7b8b_0  conda-forge\n" + FALSE
    assert load_text(text).findings[0].id == "cpu_only_build"


def test_a_cuda_build_string_is_no_cpu_build() -> None:
    text = "$ conda list torch\npytorch  2.4.1  cuda120_py311h0f0e1c6_300  conda-forge\n" + FALSE
    assert "cpu_only_build" not in [f.id for f in load_text(text).findings]


@pytest.mark.parametrize(
    ("command", "cuda"),
    [
        ("$ conda install cudatoolkit=10.2 -c pytorch", "unknown"),  # pytorch is only the channel
        ("$ conda install cudatoolkit=11.3 --channel pytorch", "unknown"),
        ("$ conda install pytorch cudatoolkit=10.2 -c pytorch", "10.2"),
        ("$ conda install pytorch::pytorch pytorch-cuda=12.1 -c nvidia", "12.1"),
    ],
)
def test_a_cuda_pin_counts_only_with_pytorch_asked_for(command: str, cuda: str) -> None:
    assert _build(command + "\n" + FALSE) == cuda
