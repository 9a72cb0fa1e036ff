"""Round 22 (issue #14): PyTorch's shape-mismatch messages in every torch version's wording.

TH/THC's addmm before torch 1.5 said "size mismatch, m1: [a x b], m2: [c x d]" (addmv: "size mismatch, [a x b],
[c]"), ATen 1.5-1.8 "mat1 dim 1 must match mat2 dim 0", view/reshape "shape '[...]' is invalid for input of size N",
cat "Sizes of tensors must match except in dimension N", nll_loss "Expected input batch_size (N) to match target
batch_size (M)". The message is the same on the CPU and on CUDA, so a CPU build in the traceback's path is only a
fact, never the verdict. Synthetic texts and counter-examples."""

from __future__ import annotations

from gpuassist.ingest import load_text


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


def test_old_addmm_size_mismatch_is_a_shape_error() -> None:
    text = (
        '  File "model.py", line 40, in forward\n'
        "    x = self.fc(x)\n"
        "RuntimeError: size mismatch, m1: [16 x 4608], m2: [2048 x 256] at "
        "/pytorch/aten/src/THC/generic/THCTensorMathBlas.cu:249\n"
    )
    assert _ids(text)[:1] == ["tensor_shape_mismatch"]


def test_cpu_build_path_does_not_make_the_build_the_verdict() -> None:
    text = (
        "RuntimeError: size mismatch, m1: [8 x 100], m2: [200 x 10] at "
        "c:\\anaconda3\\conda-bld\\pytorch-cpu_1524577523076\\work\\aten\\src\\th\\generic/THTensorMath.c:2033\n"
    )
    ids = _ids(text)
    assert ids[:1] == ["tensor_shape_mismatch"]
    assert "cpu_only_build" not in ids


def test_other_shape_messages_read() -> None:
    for line in (
        "RuntimeError: mat1 dim 1 must match mat2 dim 0",
        "RuntimeError: shape '[-1, 1600]' is invalid for input of size 51200",
        "RuntimeError: Sizes of tensors must match except in dimension 2. Expected size 24 but got size 25 for "
        "tensor number 1 in the list.",
        "ValueError: Expected input batch_size (128) to match target batch_size (64).",
        "RuntimeError: size mismatch, [512 x 300], [200] at /pytorch/aten/src/TH/generic/THTensorMath.cpp:490",
    ):
        assert _ids(line + "\n")[:1] == ["tensor_shape_mismatch"], line


def test_words_about_sizes_without_the_message_read_nothing() -> None:
    # prose about a size mismatch, and a tensor size printed in a healthy log, name no error
    text = (
        "PyTorch on CUDA: is there a size mismatch between the 640x480 and 640x360 inputs? The model printed "
        "m1: [1 x 10240] while training ran fine; shape [-1, 400] was what I expected.\n"
    )
    assert "tensor_shape_mismatch" not in _ids(text)


def test_shape_error_under_a_cpu_build_does_not_say_cuda_works() -> None:
    text = "RuntimeError: size mismatch, m1: [4 x 30], m2: [60 x 2] at c:\\conda-bld\\pytorch-cpu_1\\TH.c:9\n"
    finding = load_text(text).findings[0]
    assert finding.id == "tensor_shape_mismatch"
    assert "CUDA working" not in finding.explanation
