"""A library's own words that it ran on the CPU, read against the machine the text shows (round 8).

Synthetic texts written from the libraries' sources (whisper's transcribe.py, sentence-transformers' device log,
Ultralytics' select_device banner, diffusers' DiffusionPipeline.to warning, ATen's "not implemented for 'Half'");
the counter-examples must stay undecided or keep their own reading."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text
from gpuassist.ingest.cpu_fallback import app_on_cpu

WHISPER = (
    "UserWarning: FP16 is not supported on CPU; using FP32 instead\n"
    '  warnings.warn("FP16 is not supported on CPU; using FP32 instead")\n'
)


def _first(text: str) -> str | None:
    findings = load_text(text).findings
    return findings[0].id if findings else None


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


@pytest.mark.parametrize(
    "line",
    [
        "UserWarning: FP16 is not supported on CPU; using FP32 instead",
        "2024-05-01 10:00:01 - Use pytorch device_name: cpu",
        "Device set to use cpu",
        "Ultralytics 8.3.12 🚀 Python-3.11.9 torch-2.5.0 CPU (AMD Ryzen 9 7950X 16-Core Processor)",
        "YOLOv5 🚀 v7.0-72 Python-3.10.6 torch-1.13.1 CPU",
        "Pipelines loaded with `dtype=torch.float16` cannot run with `cpu` device. It is not recommended to move them",
        "RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'",
        "RuntimeError: \"LayerNormKernelImpl\" not implemented for 'Half'",
    ],
)
def test_each_library_line_is_read(line: str) -> None:
    assert app_on_cpu([line]) is not None


def test_whisper_on_cpu_with_an_nvidia_gpu_named_is_a_cpu_build() -> None:
    text = "Transcription takes ages on my RTX 4070 laptop, I get this:\n" + WHISPER
    assert _ids(text) == ["cpu_only_build"]
    assert load_text(text).findings[0].severity.value == "warning"  # a likely cause, not a verdict


def test_whisper_on_cpu_on_a_mac_is_no_cuda() -> None:
    text = "Running on a MacBook Pro 2019 with macOS 13, Radeon Pro 5500M\n" + WHISPER
    assert _first(text) == "macos_no_cuda_use_mps"


def test_diffusers_left_on_cpu_is_the_program_first() -> None:
    text = (
        "I have an RTX 3080 but generation is slow\n"
        "Pipelines loaded with `dtype=torch.float16` cannot run with `cpu` device. It is not recommended to move "
        "them to `cpu` as running them will fail.\n"
    )
    assert _ids(text)[:2] == ["workload_left_on_cpu", "cpu_only_build"]


@pytest.mark.parametrize(
    "text",
    [
        # no machine named: a CPU box running whisper on purpose
        "transcribing on my server\n" + WHISPER,
        # the banner of a laptop without NVIDIA graphics (an AMD APU's own Radeon graphics)
        "Ultralytics 8.2.60 🚀 Python-3.11.9 torch-2.4.0 CPU (AMD Ryzen 7 7735HS with Radeon Graphics)\n",
        # CUDA shown working: the program's choice, read by the working-GPU readers, not a CPU build
        "I have an RTX 3060\n>>> torch.cuda.is_available()\nTrue\n" + WHISPER,
    ],
)
def test_no_cpu_build_claim_without_the_machine_or_with_cuda_working(text: str) -> None:
    assert "cpu_only_build" not in _ids(text)


def test_a_cuda_build_banner_is_not_a_cpu_build() -> None:
    text = "my RTX 3090 is not used\nUltralytics 8.3.1 🚀 Python-3.12.1 torch-2.4.1+cu121 CPU (Intel Core i9-13900K)\n"
    assert "cpu_only_build" not in _ids(text)


def test_a_transformers_pipeline_on_cpu_with_a_geforce_named_is_a_cpu_build() -> None:
    text = "My GPU: GeForce RTX 3070 (8 GB)\nDevice set to use cpu\n"
    assert _ids(text) == ["cpu_only_build"]


def test_whisper_told_to_use_the_cpu_is_the_program_not_the_build() -> None:
    # Round 9: the CPU asked for and the GPU said to be unused: the flag is the answer. Without the complaint the CPU
    # line is the requested behaviour and nothing is claimed (tests/test_paste_device_choice_r9.py).
    text = (
        "whisper audio.mp3 --device cpu --model medium\nI have an RTX 3060 but the GPU is not used at all\n"
        "UserWarning: FP16 is not supported on CPU; using FP32 instead\n"
    )
    assert _ids(text)[0] == "workload_left_on_cpu"
