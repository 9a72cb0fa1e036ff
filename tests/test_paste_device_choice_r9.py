"""Who chose the CPU a library reports (round 9): the user on purpose (a flag, an argument, a config key, every GPU
hidden: nothing to claim) or the program against its own GPU setting (the work left on the CPU).

Synthetic texts; each mechanism has a counter-example that must not fire."""

from __future__ import annotations

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.ingest.device_choice import cpu_requested, gpu_setting_said

FP16 = "UserWarning: FP16 is not supported on CPU; using FP32 instead"
GPU = "GPU: NVIDIA GeForce RTX 3060, driver 550.54"


def _claims(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings if f.severity in (Severity.ERROR, Severity.WARNING)]


@pytest.mark.parametrize(
    "choice",
    [
        "$ transcribe-app --model small --device cpu audio.wav",
        "python run.py --device=cpu",
        "model = whisper.load_model('base', device='cpu')",
        'pipe = pipeline("asr", device=torch.device("cpu"))',
        "device: cpu",
        '  "device": "cpu",',
        'export CUDA_VISIBLE_DEVICES=""',
        'os.environ["CUDA_VISIBLE_DEVICES"] = "-1"',
        "python main.py --cpu",
        "asr = pipeline('automatic-speech-recognition', model=m, device=-1)",
        "python train.py --dataroot ./maps --gpu_ids -1",
    ],
)
def test_a_cpu_asked_for_on_purpose_claims_nothing(choice: str) -> None:
    assert cpu_requested([choice]) is not None
    text = f"I ran\n{choice}\non my machine ({GPU}) and got\n{FP16}\nCan the fp16 option work on cpu?\n"
    assert _claims(text) == []


def test_without_the_choice_the_same_warning_still_reads_the_machine() -> None:
    # Counter-example: no CPU asked for, an NVIDIA GPU named, whisper chose the CPU by itself.
    text = f"$ transcribe-app --model small audio.wav\n{FP16}\nMy GPU: NVIDIA GeForce RTX 3060\n"
    assert cpu_requested(text.splitlines()) is None
    assert _claims(text)[:1] == ["cpu_only_build"]


def test_a_cpu_flag_used_as_a_workaround_is_no_choice() -> None:
    lines = ["I had to use --device cpu because the GPU run crashed"]
    assert cpu_requested(lines) is None


def test_moving_results_to_the_host_is_no_choice() -> None:
    assert cpu_requested(["out = model(x.to('cuda')).to('cpu')", "ckpt = torch.load(p, map_location='cpu')"]) is None


@pytest.mark.parametrize(
    "said",
    [
        "The GPU stays idle even though I set the device to GPU in the settings.",
        "When I select GPU as the device the CPU goes to 100% and nothing runs on the graphics card.",
        "The device option is set to cuda but the CPU does all the work.",
        "app.exe --device gpu",
        "设备已经设置为GPU，但是显卡没有被使用，CPU占用100%",
    ],
)
def test_a_gpu_setting_with_a_cpu_line_is_work_left_on_the_cpu(said: str) -> None:
    assert gpu_setting_said([said]) is not None
    text = f"{said}\n{FP16}\n  warnings.warn(...)\n"
    assert _claims(text)[:1] == ["workload_left_on_cpu"]
    assert "cpu_only_build" not in _claims(text)


def test_a_gpu_setting_that_failed_loudly_is_not_this_reading() -> None:
    # Counter-example: CUDA shown failing: the build/driver readings decide, not the program's placement.
    text = (
        "I set the device to GPU.\n" + FP16 + "\n>>> torch.cuda.is_available()\nFalse\n"
        "AssertionError: Torch not compiled with CUDA enabled\n"
    )
    assert "workload_left_on_cpu" not in _claims(text)


def test_a_cpu_line_with_no_setting_and_no_machine_is_left_undecided() -> None:
    assert _claims(f"Why do I see this?\n{FP16}\n") == []


def test_a_cpu_flag_with_the_card_said_unused_is_the_answer() -> None:
    # The complaint makes the flag the explanation: the user did not mean to leave the card idle.
    text = f"$ python infer.py --device cpu\n{FP16}\nWhy does it not use my RTX 4070?\n"
    assert _claims(text)[:1] == ["workload_left_on_cpu"]


def test_every_gpu_asked_for_is_no_cpu_choice() -> None:
    # Counter-example: Lightning's devices=-1 / gpus=-1 ask for every GPU.
    assert cpu_requested(["trainer = pl.Trainer(accelerator='gpu', devices=-1)", "Trainer(gpus=-1)"]) is None
