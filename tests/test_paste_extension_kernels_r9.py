"""A "no kernel image" from a third-party extension's own kernels, and a named GPU that the release build's published
arch list covers (round 9): torch's build is not what failed. Synthetic texts with counter-examples."""

from __future__ import annotations

from gpuassist.ingest import load_text
from gpuassist.ingest.extension_kernels import extension_named

ARCH = {"gpu_arch_too_new_for_build", "gpu_arch_dropped_from_build"}
GUESSES = ARCH | {"stale_or_shadowed_torch", "source_build_without_cuda"}
MESSAGE = "RuntimeError: CUDA error: no kernel image is available for execution on the device"


def _ids(text: str) -> set[str]:
    return {f.id for f in load_text(text).findings}


def test_a_frame_inside_an_extension_clears_the_torch_build_guesses() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/app/model.py", line 88, in forward\n'
        "    out = xops.memory_efficient_attention(q, k, v)\n"
        '  File "/home/u/venv/lib/python3.10/site-packages/xformers/ops/fmha/__init__.py", line 192, in apply\n'
        "    return _memory_efficient_attention_forward(inp, op=op)\n"
        '  File "/home/u/venv/lib/python3.10/site-packages/torch/_ops.py", line 692, in __call__\n'
        "    return self._op(*args, **kwargs or {})\n" + MESSAGE + "\n"
    )
    lines = text.splitlines()
    assert extension_named(lines, len(lines)) == "xformers"
    assert not _ids(text) & GUESSES


def test_an_extension_named_on_the_message_line() -> None:
    text = (
        "CUDA Error: no kernel image is available for execution on the device (209) "
        "/tmp/build/flashinfer-0.2.0+cu124torch2.5/include/flashinfer/sampling.cuh: line 70\n"
    )
    assert extension_named(text.splitlines(), 1) == "flashinfer"
    assert not _ids(text) & GUESSES


def test_torch_own_kernels_keep_the_guesses() -> None:
    # Counter-example: the nearest frame outside torch is the user's own code: torch's kernel failed.
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/app/train.py", line 12, in <module>\n'
        "    y = model(x)\n"
        '  File "/home/u/venv/lib/python3.10/site-packages/torch/nn/modules/conv.py", line 456, in _conv_forward\n'
        "    return F.conv2d(input, weight, bias)\n" + MESSAGE + "\n"
    )
    assert extension_named(text.splitlines(), len(text.splitlines())) is None
    assert _ids(text) & ARCH


def test_a_named_gpu_that_the_published_list_covers_rules_torch_out() -> None:
    text = f"PyTorch: 2.4.0+cu121\nCUDA available: True\nGPU 0: Tesla T4\nGPU 0 Compute Capability: 7.5\n{MESSAGE}\n"
    assert not _ids(text) & ARCH


def test_a_named_gpu_the_published_list_lacks_keeps_the_reading() -> None:
    # Counter-example: a Kepler GTX 680 (sm_30) is not in 2.4.0+cu121's list: torch's build is the reading.
    text = (
        "PyTorch: 2.4.0+cu121\nCUDA available: True\nGPU 0: NVIDIA GeForce GTX 680\nGPU 0 Compute Capability: 3.0\n"
        f"{MESSAGE}\n"
    )
    assert "gpu_arch_dropped_from_build" in _ids(text)


def test_an_extension_custom_op_frame_clears_the_guesses() -> None:
    text = (
        '  File "/usr/local/lib/python3.10/dist-packages/vllm/_custom_ops.py", line 34, in wrapper\n'
        "    return fn(*args, **kwargs)\n"
        '  File "/usr/local/lib/python3.10/dist-packages/torch/_ops.py", line 854, in __call__\n' + MESSAGE + "\n"
    )
    assert extension_named(text.splitlines(), len(text.splitlines())) == "vllm"
    assert not _ids(text) & GUESSES


def test_a_python_layer_of_a_large_library_is_not_its_kernel() -> None:
    # Counter-example: vLLM's model code calling torch's F.linear: torch's own kernel failed.
    text = (
        '  File "/usr/local/lib/python3.10/dist-packages/vllm/model_executor/layers/linear.py", line 132, in apply\n'
        "    return F.linear(x, layer.weight, bias)\n" + MESSAGE + "\n"
    )
    assert extension_named(text.splitlines(), len(text.splitlines())) is None
