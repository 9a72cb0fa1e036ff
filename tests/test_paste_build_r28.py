"""Round 28 (issue #14), build side: readings of a torch build against the machine it runs on. Synthetic texts.

- torch's dispatcher refusing an operator for the CUDA backend ("Could not run 'aten::X' with arguments from the
  'CUDA' backend", OperatorEntry::reportError) on a Mac is macOS's missing CUDA (macos_no_cuda_use_mps); off a Mac
  (quantized ops, extensions built without CUDA) it claims nothing.
- the user's GPU named as what the card is ("it is GeForce RTX 3080 Ti") is the machine's GPU, so a CUDA 10.x build
  on an Ampere card is too old a toolkit for it (gpu_arch_too_new_for_build).
"""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text


def _dispatch(op: str, key: str, keys: str) -> str:
    return (
        f"NotImplementedError: Could not run '{op}' with arguments from the '{key}' backend. This could be because "
        "the operator doesn't exist for this backend, or was omitted during the selective/custom build process (if "
        f"using custom build). '{op}' is only available for these backends: [{keys}].\n"
    )


MAC_PATHS = (
    'File "/Users/ana/src/trainer/loop.py", line 88, in fetch\n    x = x.pin_memory().to(device, non_blocking=True)\n'
    + _dispatch("aten::_pin_memory", "CUDA", "CPU, BackendSelect, Python, AutogradCPU, AutogradCUDA")
)
MPS_IN_KEYS = _dispatch("aten::empty_strided", "CUDA", "CPU, MPS, Meta, QuantizedCPU, BackendSelect, AutogradMPS")
MAC_IN_WORDS = "Running the notebook on my MacBook Pro (Apple M2 Max):\n" + _dispatch(
    "aten::_copy_from", "CUDA", "CPU, Meta, BackendSelect, Python"
)


@pytest.mark.parametrize("text", [MAC_PATHS, MPS_IN_KEYS, MAC_IN_WORDS])
def test_dispatcher_without_cuda_on_a_mac_is_mps(text: str) -> None:
    ids = [f.id for f in load_text(text).findings]
    assert ids and ids[0] == "macos_no_cuda_use_mps"


# Counter-examples: a quantized op in a Linux CUDA build, an extension built without CUDA, another key on a Mac.
LINUX_QUANTIZED = 'File "/home/lee/q.py", line 9, in <module>\n' + _dispatch(
    "quantized::linear", "CUDA", "QuantizedCPU, BackendSelect, Python, AutogradCPU, AutogradCUDA"
)
LINUX_TORCHVISION = "Ubuntu 22.04, torch 2.1.0+cu121\n" + _dispatch(
    "torchvision::nms", "CUDA", "CPU, QuantizedCPU, BackendSelect"
)
MAC_SPARSE = "On my M1 Mac with the mps device:\n" + _dispatch(
    "aten::addmm", "SparseMPS", "CPU, MPS, SparseCPU, BackendSelect"
)


@pytest.mark.parametrize("text", [LINUX_QUANTIZED, LINUX_TORCHVISION, MAC_SPARSE])
def test_dispatcher_refusal_off_a_mac_claims_nothing(text: str) -> None:
    assert "macos_no_cuda_use_mps" not in [f.id for f in load_text(text).findings]


# The user's GPU named as what the card IS ("it is GeForce RTX 3080 Ti", the answer to "which GPU?"), read like
# "I have an RTX 3090": a CUDA 10.x build on an Ampere card is then too old a toolkit for it, whatever error CUDA or
# cuDNN printed.
CUDNN_FAILED = "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED\nmy environment: torch 1.6.0+cu101\n"


@pytest.mark.parametrize(
    "said",
    [
        "It is GeForce RTX 3070.",
        "My GPU is an NVIDIA GeForce RTX 3090",
        "Sorry. it's an RTX 3060 Ti",
        "The card is an A100.",
    ],
)
def test_gpu_named_as_what_it_is_decides_the_build(said: str) -> None:
    ids = [f.id for f in load_text(CUDNN_FAILED + said + "\n").findings]
    assert ids and ids[0] == "gpu_arch_too_new_for_build"


@pytest.mark.parametrize(
    "said",
    [
        "It is not an RTX 3090 problem, the author says.",  # "not" right after "is": no model named as the GPU
        "My GPU is an RTX 3090. I have an RTX 2080 too.",  # two models: which one ran is not told
        "The issue is the same as on RTX 3090 cards in #12.",  # a model mentioned, not the machine's
        "It is GeForce GTX 1080.",  # Pascal: CUDA 10.1 builds for it
    ],
)
def test_gpu_not_stated_as_the_machines_claims_no_arch(said: str) -> None:
    ids = [f.id for f in load_text(CUDNN_FAILED + said + "\n").findings]
    assert "gpu_arch_too_new_for_build" not in ids


# Poetry's operation line with its state (": Failed", ": Pending...") installed nothing: its "no installation
# candidates" is the no-wheel message (no_wheel_for_platform), not an untagged PyPI torch installed on Windows.
POETRY_FAILED = (
    "Windows 11, Python 3.12, RTX 4070\n"
    "Package operations: 1 install, 0 updates, 0 removals\n\n"
    "  - Installing torch (2.0.1): Failed\n\n"
    "  RuntimeError\n\n"
    "  Unable to find installation candidates for torch (2.0.1)\n"
)


def test_poetry_failed_install_is_no_wheel() -> None:
    report = load_text(POETRY_FAILED)
    assert [f.id for f in report.findings][:1] == ["no_wheel_for_platform"]
    assert report.facts.value("torch.version") is None


@pytest.mark.parametrize("state", ["", ": Pending...", ": Installing..."])
def test_poetry_install_line_states(state: str) -> None:
    # Counter-example: the finished line ("  - Installing torch (2.0.1)") did install PyPI's Windows (CPU) torch;
    # a line still pending or installing states no torch at all.
    text = f"Windows 11, RTX 4070\n  - Installing torch (2.0.1){state}\ntorch.cuda.is_available() returns False\n"
    report = load_text(text)
    if state:
        assert report.facts.value("torch.version") is None
    else:
        assert report.facts.value("torch.version") == "2.0.1"
        assert [f.id for f in report.findings][:1] == ["cpu_only_build"]


# glibc's dynamic linker on a cuBLAS pair of two CUDA versions (elf/dl-lookup.c "symbol X version Y not defined in file
# Z with link time reference", elf/dl-version.c "version `Y' not found (required by Z)"): a libcublas/libcublasLt
# from another CUDA found first = ld_library_path_shadowing. Other libraries' version errors claim nothing of it.
@pytest.mark.parametrize(
    "line",
    [
        "OSError: /srv/env/lib/python3.9/site-packages/torch/lib/../../../../libcublas.so.12: symbol "
        "cublasLtMatmulAlgoGetHeuristic version libcublasLt.so.12 not defined in file libcublasLt.so.12 with link "
        "time reference",
        "ImportError: /usr/local/cuda/lib64/libcublasLt.so.11: version `libcublasLt.so.11' not found (required by "
        "/srv/env/lib/python3.8/site-packages/torch/lib/libtorch_cuda.so)",
    ],
)
def test_cublas_pair_of_two_cuda_versions_is_shadowing(line: str) -> None:
    ids = [f.id for f in load_text("import torch\n" + line + "\n").findings]
    assert ids and ids[0] == "ld_library_path_shadowing"


@pytest.mark.parametrize(
    "line",
    [
        "ImportError: /lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.29' not found (required by "
        "/srv/env/lib/python3.10/site-packages/torch/lib/libtorch_python.so)",
        "OSError: /srv/app/libfoo.so.2: symbol bar_init version FOO_2 not defined in file libfoo.so.2 with link time "
        "reference",
    ],
)
def test_other_library_versions_are_not_cublas_shadowing(line: str) -> None:
    ids = [f.id for f in load_text("import torch\n" + line + "\n").findings]
    assert "ld_library_path_shadowing" not in ids
