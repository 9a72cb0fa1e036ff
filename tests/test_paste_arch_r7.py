"""Round 7 (issue #14): a GPU older than anything the build's CUDA toolkit can still compile for is
gpu_arch_dropped_from_build even where no arch list is known (torch 1.x, conda, source builds), and the
Tesla-architecture GPUs (compute capability 1.x) have their capability. The mechanism (cuda_compat.json
``cuda_capability_floors``) landed from fx7-sys; these are fx7-env's checks of it. Synthetic texts."""

from __future__ import annotations

from gpuassist.ingest import load_text
from gpuassist.knowledge.wheels import capability_from_name, cuda_dropped


def _collect_env(torch: str, cuda: str, gpu: str, driver: str = "472.12") -> str:
    return f"""PyTorch version: {torch}
Is debug build: False
CUDA used to build PyTorch: {cuda}

OS: Microsoft Windows 10 Pro
Python version: 3.8
Is CUDA available: False
CUDA runtime version: {cuda}
GPU models and configuration: GPU 0: {gpu}
Nvidia driver version: {driver}
cuDNN version: Could not collect

Versions of relevant libraries:
[pip3] numpy==1.21.2
[pip3] torch=={torch}
[conda] Could not collect
"""


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


def test_the_cuda_release_that_removed_each_architecture() -> None:
    assert cuda_dropped("10.0", "1.2") == "7.0" and cuda_dropped("9.0", "2.0") == "9.0"
    assert cuda_dropped("8.0", "2.0") is None and cuda_dropped("10.2", "3.0") is None
    assert cuda_dropped("12.9.1", "6.1") is None  # a 12.9 update still compiles for Pascal
    assert cuda_dropped("13.0", "6.1") == "13.0"


def test_tesla_architecture_names_have_their_capability() -> None:
    assert capability_from_name("GeForce GT 220") == "1.2"
    assert capability_from_name("GeForce GTX 285") == "1.3"
    assert capability_from_name("GeForce 8800 GTX") == "1.0"
    # the mobile GTX 260M is a G92 (1.1) and the 8800 GTS was sold as G80 and G92: no guess
    assert capability_from_name("GeForce GTX 260M") is None and capability_from_name("GeForce 8800 GTS") is None


def test_a_fermi_gpu_under_a_cuda_10_build_without_arch_list_is_dropped() -> None:
    ids = _ids(_collect_env("1.4.0", "10.1", "GeForce GTX 580", driver="391.35"))
    assert ids and ids[0] == "gpu_arch_dropped_from_build"


def test_a_kepler_gpu_under_cuda_10_2_is_not_called_dropped() -> None:
    # CUDA 10.2 still compiles for sm_30 (its last toolkit): the toolkit alone cannot rule it out.
    assert "gpu_arch_dropped_from_build" not in _ids(_collect_env("1.5.0", "10.2", "GeForce GTX 680"))
