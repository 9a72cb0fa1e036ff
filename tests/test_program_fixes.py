"""Fix texts name what the pasted text shows (ingest/program_fixes.py): driver_too_old's fix for another program
than torch, and the NixOS way to install the driver."""

from __future__ import annotations

import pytest

from gpuassist.findings import Finding
from gpuassist.ingest import load_text

INSUFFICIENT = "CUDA driver version is insufficient for CUDA runtime version"


def _first(text: str) -> Finding:
    report = load_text(text)
    assert report.findings
    return report.findings[0]


@pytest.mark.parametrize(
    ("text", "program", "keep_driver"),
    [
        (
            ">>> import cupy\ncupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorInsufficientDriver: "
            + INSUFFICIENT,
            "CuPy",
            "pip install cupy-cuda11x",
        ),
        (
            f"W tensorflow/core/common_runtime/gpu/gpu_device.cc:1] {INSUFFICIENT}",
            "TensorFlow",
            "tensorflow.org/install",
        ),
        (f"import jax\njaxlib.xla_extension.XlaRuntimeError: INTERNAL: {INSUFFICIENT}", "JAX", "jax[cuda12]"),
        (
            f"./deviceQuery Starting...\ncudaGetDeviceCount returned 35\n-> {INSUFFICIENT}\nResult = FAIL",
            "this CUDA program",
            "toolkit no newer",
        ),
        (
            f"./llama-cli -m model.gguf\nggml_cuda_init: failed to initialize CUDA: {INSUFFICIENT}",
            "llama.cpp",
            "-DCMAKE_CUDA_COMPILER=",
        ),
        (
            f"$ ollama serve\ncuda driver library failed to get device context 35: {INSUFFICIENT}",
            "Ollama",
            "docs.ollama.com/gpu",
        ),
        (
            "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.4, please update your driver "
            "to a newer version, or use an earlier cuda container: unknown",
            "this container image",
            "nvidia/cuda:",
        ),
    ],
)
def test_driver_too_old_names_the_program_the_text_shows(text: str, program: str, keep_driver: str) -> None:
    found = _first(text)
    assert found.id == "driver_too_old"
    assert found.title.endswith(f"too old for {program}")
    assert keep_driver in found.fix
    assert "pip install --force-reinstall torch" not in found.fix and "PyTorch" not in found.explanation
    assert "To confirm:" in found.fix  # the confirm step survives the rewording


def test_driver_too_old_stays_torchs_where_torch_is_in_the_text() -> None:
    text = f">>> import torch, cupy\n>>> torch.zeros(1).cuda()\nRuntimeError: {INSUFFICIENT}"
    found = _first(text)
    assert found.id == "driver_too_old"
    assert "torch" in found.fix and "cupy-cuda11x" not in found.fix


def test_nixos_driver_fix_is_the_nixos_way() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/nix/store/abc-python3-3.11/lib/python3.11/site-packages/torch/cuda/__init__.py", line 1, in init\n'
        "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed "
        "a driver from http://www.nvidia.com/Download/index.aspx\n"
    )
    found = next(f for f in load_text(text).findings if f.id == "no_nvidia_driver")
    for part in (
        "configuration.nix",
        "hardware.graphics.enable = true;",
        'services.xserver.videoDrivers = [ "nvidia" ];',
        "sudo nixos-rebuild switch",
        "export LD_LIBRARY_PATH=/run/opengl-driver/lib:$LD_LIBRARY_PATH",
    ):
        assert part in found.fix
    assert "apt" not in found.fix and "To confirm:" in found.fix


def test_driver_fix_elsewhere_is_not_nixos() -> None:
    text = "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU\n"
    found = next(f for f in load_text(text).findings if f.id == "no_nvidia_driver")
    assert "nixos-rebuild" not in found.fix
