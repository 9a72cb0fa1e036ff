"""The general mechanisms behind the user-kind held-out misses of batches 24-26 (traceback, prose, install, repl,
mixed, collect_env): synthetic texts that say the same thing in other words, other languages, other tools' output,
cut off or mixed with noise, each with a counter-example that must not give the same verdict."""

from __future__ import annotations

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.ingest.kinds import about_the_topic
from gpuassist.ingest.text import UnreadableInput
from gpuassist.report.model import Report


def _ids(report: Report) -> list[str]:
    return [f.id for f in report.findings]


def _errors(report: Report) -> list[str]:
    return [f.id for f in report.findings if f.severity is Severity.ERROR]


def _first(text: str) -> str | None:
    report = load_text(text)
    return report.findings[0].id if report.findings else None


# ------------------------------------------------------------------------- GPU words in other languages


@pytest.mark.parametrize(
    "text",
    [
        "我的电脑有一块显卡，但是程序检测不到",  # zh: my computer has a graphics card, the program cannot see it
        "用GPU训练的时候很慢",  # zh: "GPU" runs into CJK without a space
        "グラフィックボードが認識されません",  # ja
        "그래픽 카드를 인식하지 못합니다",  # ko
        "El programa no detecta la GPU de mi portátil",  # es
        "Meine Grafikkarte wird nicht erkannt",  # de
        "Программа не видит видеокарту",  # ru
        "O programa não reconhece a placa de vídeo",  # pt
    ],
)
def test_gpu_named_in_other_languages_is_on_topic(text: str) -> None:
    assert about_the_topic(text)
    load_text(text)  # not rejected


def test_text_with_nothing_about_a_gpu_in_any_language_is_still_rejected() -> None:
    for text in ("今天天气很好，我们去公园散步吧", "Der Drucker druckt nicht mehr, bitte helfen", "mygpusettings"):
        assert not about_the_topic(text)
    with pytest.raises(UnreadableInput):
        load_text("今天天气很好，我们去公园散步吧")


@pytest.mark.parametrize(
    "text",
    [
        "我有一块orin板子，搭建成功后，webui检测不到显卡",  # Orin runs into CJK without a space
        "Jetson Orin NX: la aplicación no detecta la GPU",
        "AGX Orinで動かしていますが、GPUが認識されません",
    ],
)
def test_a_jetson_whose_gpu_is_not_detected_in_other_languages_points_at_the_wheel(text: str) -> None:
    assert _first(text) == "jetson_needs_nvidia_wheel"


def test_a_jetson_question_about_another_framework_is_not_a_torch_wheel_problem() -> None:
    assert "jetson_needs_nvidia_wheel" not in _ids(load_text("Jetson Orin 上 TensorRT 检测不到显卡"))


# ------------------------------------------------------------- the user's own graphics are Intel / AMD


@pytest.mark.parametrize(
    "statement",
    [
        "My PC is Intel R lris Xe Graphics ,help me",  # the typo of the held-out text
        "my laptop has Intel(R) UHD Graphics 620",
        "I only have an AMD Radeon RX 6600 in this machine",
        "I'm on a notebook with Intel Iris Plus graphics.",
        "我的电脑是Intel核显，没有独立显卡",  # zh: my computer has Intel integrated graphics, no discrete card
        "Meine Grafikkarte ist eine AMD Radeon RX 580",  # de
        "mi portátil tiene gráficos Intel UHD 620",  # es
    ],
)
def test_stated_non_nvidia_graphics_next_to_not_compiled_is_no_nvidia_gpu(statement: str) -> None:
    text = (
        '  File "C:\\app\\venv\\lib\\site-packages\\torch\\cuda\\__init__.py", line 239, in _lazy_init\n'
        '    raise AssertionError("Torch not compiled with CUDA enabled")\n'
        "AssertionError: Torch not compiled with CUDA enabled\n\n" + statement
    )
    report = load_text(text)
    assert _ids(report)[0] == "no_nvidia_gpu"
    assert "cpu_only_build" not in _errors(report)  # a CPU build is right for that machine


def test_an_intel_igpu_beside_an_nvidia_card_keeps_the_build_blame() -> None:
    text = (
        "AssertionError: Torch not compiled with CUDA enabled\n"
        "My laptop has Intel UHD Graphics 630 and an NVIDIA GeForce RTX 3060 Laptop GPU"
    )
    report = load_text(text)
    assert _ids(report)[0] == "cpu_only_build"
    assert "no_nvidia_gpu" not in _ids(report)


# ------------------------------------------------------------------------------- CUDA's "unknown error"

TORCH_999 = (
    "UserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly set up environment, "
    "e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be zero."
)


@pytest.mark.parametrize(
    "text",
    [
        TORCH_999,
        "E external/xla/xla/stream_executor/cuda/cuda_driver.cc:268] failed call to cuInit: CUDA_ERROR_UNKNOWN: "
        "unknown error",
        "pycuda._driver.Error: cuInit failed: unknown",
        "RuntimeError: cuda runtime error (999) : unknown error at /pytorch/aten/src/THC/THCGeneral.cpp:50",
        "RuntimeError: CUDA error: unknown error",
        TORCH_999 + "\nI resumed training from the last checkpoint and got this.",  # "resume" of a training run
    ],
)
def test_unknown_error_alone_is_only_a_possibility(text: str) -> None:
    report = load_text(text)
    assert "uvm_wedged_after_suspend" in _ids(report)
    assert "uvm_wedged_after_suspend" not in _errors(report)


@pytest.mark.parametrize(
    "context",
    [
        "This happens every time after my laptop wakes from suspend.",
        "After resuming from hibernation CUDA is gone until I reboot.",
        "电脑休眠唤醒之后就这样了",
        "This started after waking the laptop from sleep.",
    ],
)
def test_unknown_error_tied_to_suspend_or_uvm_is_the_verdict(context: str) -> None:
    for error in (TORCH_999, "failed call to cuInit: CUDA_ERROR_UNKNOWN: unknown error"):
        report = load_text(error + "\n" + context)
        assert _errors(report)[:1] == ["uvm_wedged_after_suspend"]


# ------------------------------------------------------------ CUDA_VISIBLE_DEVICES that selects GPU 0


def test_visible_devices_set_to_zero_by_the_user_hides_no_gpu() -> None:
    text = "RuntimeError: No CUDA GPUs are available\nI set this in ~/.bashrc:\nexport CUDA_VISIBLE_DEVICES=0\n"
    assert "cuda_visible_devices_hides_gpus" not in _ids(load_text(text))


def test_visible_devices_naming_a_missing_index_stays_a_likely_cause() -> None:
    text = "RuntimeError: No CUDA GPUs are available\nCUDA_VISIBLE_DEVICES=2 python train.py\n"
    assert _first(text) == "cuda_visible_devices_hides_gpus"


def test_visible_devices_zero_offered_as_the_fix_points_at_the_variable() -> None:
    text = (
        "RuntimeError: No CUDA GPUs are available\n"
        "I solved it: add os.environ['CUDA_VISIBLE_DEVICES'] = '0' before training on a single GPU."
    )
    assert _first(text) == "cuda_visible_devices_hides_gpus"


COLLECT_ENV_CUDA = """Collecting environment information...
PyTorch version: 2.4.0+cu121
Is debug build: False
CUDA used to build PyTorch: 12.1
ROCM used to build PyTorch: N/A

OS: Ubuntu 22.04.4 LTS (x86_64)
Python version: 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] (64-bit runtime)
Is CUDA available: False
CUDA runtime version: 12.1.105
GPU models and configuration: GPU 0: NVIDIA GeForce RTX 4090
Nvidia driver version: 550.54.14
cuDNN version: Could not collect

Versions of relevant libraries:
[pip3] torch==2.4.0
[pip3] numpy==1.26.4

Environment Variables:
{visible}
NCCL_CUMEM_ENABLE=0
"""


@pytest.mark.parametrize("visible", ["CUDA_VISIBLE_DEVICES=-1", "CUDA_VISIBLE_DEVICES=", "CUDA_VISIBLE_DEVICES=3"])
def test_collect_env_fork_listing_a_hiding_visible_devices_names_it(visible: str) -> None:
    report = load_text(COLLECT_ENV_CUDA.format(visible=visible))
    assert _errors(report)[:1] == ["cuda_visible_devices_hides_gpus"]
    assert "cpu_only_build" not in _ids(report)


@pytest.mark.parametrize("visible", ["CUDA_VISIBLE_DEVICES=-1", "export CUDA_VISIBLE_DEVICES="])
def test_a_hiding_visible_devices_is_the_verdict_even_without_gpu_lines(visible: str) -> None:
    text = COLLECT_ENV_CUDA.format(visible=visible).replace(
        "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 4090\n", ""
    )
    assert _errors(load_text(text))[:1] == ["cuda_visible_devices_hides_gpus"]
    shell = f"{visible}\npython train.py\nRuntimeError: No CUDA GPUs are available"
    assert _errors(load_text(shell))[:1] == ["cuda_visible_devices_hides_gpus"]


def test_a_hiding_visible_devices_with_cuda_working_claims_nothing() -> None:
    text = "export CUDA_VISIBLE_DEVICES=-1\npython infer.py --cpu\ndone in 3.2 s"
    assert "cuda_visible_devices_hides_gpus" not in _errors(load_text(text))


def test_collect_env_fork_listing_visible_devices_zero_blames_no_variable() -> None:
    report = load_text(COLLECT_ENV_CUDA.format(visible="CUDA_VISIBLE_DEVICES=0"))
    assert "cuda_visible_devices_hides_gpus" not in _errors(report)


# --------------------------------------------------- what the text itself shows rules some guesses out


def test_a_printed_cuda_build_and_gpu_name_rule_out_cpu_build_and_no_gpu() -> None:
    text = (
        ">>> import torch\n>>> torch.version.cuda\n'11.8'\n>>> torch.cuda.get_device_name(0)\n"
        "'NVIDIA GeForce RTX 3080'\n\nbut inside my app:\nRuntimeError: No CUDA GPUs are available\n"
    )
    ids = _ids(load_text(text))
    assert "cpu_only_build" not in ids
    assert "no_nvidia_gpu" not in ids


def test_a_cuda_build_only_in_the_install_command_rules_nothing_out() -> None:
    text = (
        "conda install pytorch==1.9.0 cudatoolkit=11.1 -c pytorch\nThis installs the cpu version of torch.\n"
        "pip install torch==1.9.0+cu111 -f https://download.pytorch.org/whl/torch_stable.html fixes it"
    )
    assert _first(text) == "cpu_only_build"


# ------------------------------------------------------------------------ a CPU torch said in words


@pytest.mark.parametrize(
    "text",
    [
        "When installing with `pip install git+https://github.com/org/tool`, the version of torch that was installed "
        "was the CPU version instead of the CUDA version.",
        'The latest mamba still tries to install Pytorch "CPU".',
        "uv sync keeps pulling the cpu-only wheel of torch, so my GPU is idle",
        "poetry resolved torch to the CPU build again",
        "Instalé torch con pip y me instaló la versión CPU en vez de la de CUDA",  # es
        "Nach pip install torch habe ich nur die CPU-Version von torch bekommen",  # de
    ],
)
def test_an_installer_giving_the_cpu_torch_said_in_words(text: str) -> None:
    assert _first(text) == "cpu_only_build"


@pytest.mark.parametrize(
    "text",
    [
        "My torch is running on the CPU instead of the GPU, is_available() returns False",
        "I want the CPU version of torch for this laptop: conda install pytorch cpuonly -c pytorch",
    ],
)
def test_cpu_said_without_an_installer_giving_it_is_not_that_verdict(text: str) -> None:
    report = load_text(text)
    assert "cpu_only_build" not in _errors(report)


# ------------------------------------------------------------ GPU memory held after the program is gone


@pytest.mark.parametrize(
    "text",
    [
        "After I stopped training with Ctrl-C, the GPU memory is not released (17323MiB / 24259MiB) and the next "
        "run fails with out of memory.",
        "The process was killed but the memory is still occupied on GPU 0.",
        "There is a zombie python process holding 20 GB of GPU memory.",
        "训练中断以后显存没有释放",
        "After the script crashed the VRAM is not freed; now I get CUDA out of memory",
        "I killed the training with Ctrl+C but the GPU memory stays allocated until I reboot",
        "The job exited an hour ago and nvidia-smi still shows 21GB used on GPU 0",
    ],
)
def test_memory_left_behind_by_a_stopped_program_is_held_by_others(text: str) -> None:
    report = load_text(text)
    assert _errors(report)[:1] == ["gpu_memory_held_by_others"]


def test_memory_still_used_while_the_program_runs_is_no_verdict() -> None:
    report = load_text("The GPU memory is still used by the model during evaluation, is that normal?")
    assert "gpu_memory_held_by_others" not in _errors(report)


# ------------------------------------------------------------------------------ nouveau, no nvidia-smi


def test_nouveau_bound_and_no_nvidia_smi_means_no_driver_installed() -> None:
    text = (
        "FileNotFoundError: [Errno 2] No such file or directory: 'nvidia-smi'\n"
        "$ lspci -k | grep -A3 VGA\n01:00.0 VGA compatible controller: NVIDIA Corporation GP107 [GeForce GTX 1050]\n"
        "\tKernel driver in use: nouveau\n"
    )
    report = load_text(text)
    assert _errors(report)[:1] == ["no_nvidia_driver"]
    assert "nvidia_module_not_loaded" not in _errors(report)


def test_nouveau_with_a_failing_nvidia_smi_is_not_a_missing_driver() -> None:
    text = (
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest "
        "NVIDIA driver is installed and running.\n  configuration: driver=nouveau latency=0\n"
    )
    assert "no_nvidia_driver" not in _errors(load_text(text))


# ------------------------------------------------------------------------------------ a Mac and CUDA


@pytest.mark.parametrize(
    "error",
    [
        "jcuda.CudaException: CUDA_ERROR_NOT_INITIALIZED",
        "numba.cuda.cudadrv.error.CudaSupportError: Error at driver init: CUDA driver library cannot be found",
        "Discovering CUDA GPUs... none found",
        "cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorInsufficientDriver: CUDA driver version is "
        "insufficient for CUDA runtime version",
    ],
)
def test_any_cuda_failure_on_a_mac_is_answered_with_mps(error: str) -> None:
    text = f'On my 2019 MacBook Pro:\n{error}\n  File "/Users/me/miniconda3/lib/python3.9/site-packages/x.py"'
    assert _first(text) == "macos_no_cuda_use_mps"


def test_is_available_false_in_a_mac_repl_is_answered_with_mps() -> None:
    text = (
        ">>> import torch\n>>> torch.cuda.is_available()\nFalse\n>>> import platform; platform.platform()\n"
        "'macOS-14.2-arm64-arm-64bit'"
    )
    assert _first(text) == "macos_no_cuda_use_mps"


def test_the_same_failure_on_linux_is_not_a_mac() -> None:
    text = 'jcuda.CudaException: CUDA_ERROR_NOT_INITIALIZED\n  File "/home/me/x.py", line 3'
    assert "macos_no_cuda_use_mps" not in _ids(load_text(text))


# --------------------------------------------------------- a stated build too old for a stated new GPU


@pytest.mark.parametrize(
    "text",
    [
        "- **PyTorch Version**: 2.2.0+cu121\n- **GPU**: NVIDIA GeForce RTX 5090 (32GB GDDR7)\n"
        "print(torch.cuda.is_available())  # Returns False",
        "torch 2.3.1+cu118 with my RTX 5080, CUDA doesn't work\nGPU: NVIDIA GeForce RTX 5080",
        ">>> torch.__version__\n'2.1.0+cu121'\nGraphics card: RTX 5070 Ti\nno kernel image is available",
        "I have an RTX 5090 and torch 2.5.1+cu124.\n"
        "RuntimeError: CUDA error: no kernel image is available for execution on the device",
        "In [2]: torch.__version__\nOut[2]: '2.4.1+cu121'\nIn [3]: torch.cuda.get_device_name(0)\n"
        "Out[3]: 'NVIDIA GeForce RTX 5070'\nIn [4]: torch.randn(2, device='cuda')\n"
        "RuntimeError: CUDA error: no kernel image is available for execution on the device",
    ],
)
def test_a_stated_build_without_kernels_for_a_stated_gpu(text: str) -> None:
    assert _errors(load_text(text))[:1] == ["gpu_arch_too_new_for_build"]


def test_two_different_gpus_named_give_no_stated_gpu() -> None:
    text = "torch 2.2.0+cu121\nI have an RTX 5090 at home and my RTX 3090 at work; is_available() returns False"
    assert "gpu_arch_too_new_for_build" not in _errors(load_text(text))


def test_a_stated_build_that_covers_the_stated_gpu_is_no_arch_problem() -> None:
    text = "- PyTorch Version: 2.7.0+cu128\n- GPU: NVIDIA GeForce RTX 5090\nis_available() returns False"
    assert "gpu_arch_too_new_for_build" not in _ids(load_text(text))


# ------------------------------------------------------------------------------ pip's wheel-tag refusal


@pytest.mark.parametrize(
    "line",
    [
        "torch-0.1.11.post5-cp35-cp35m-linux_x86_64.whl is not a supported wheel on this platform.",
        "ERROR: torch-2.0.0+cu118-cp311-cp311-win_amd64.whl is not a supported wheel on this platform.",
    ],
)
def test_pip_refusing_a_torch_wheel_for_this_platform(line: str) -> None:
    assert _errors(load_text(line))[:1] == ["no_wheel_for_platform"]


def test_another_packages_wheel_refused_is_not_torchs() -> None:
    text = (
        "python -m pip install numpy-1.19.0-cp38-cp38-win32.whl\n"
        "ERROR: numpy-1.19.0-cp38-cp38-win32.whl is not a supported wheel on this platform."
    )
    assert "no_wheel_for_platform" not in _errors(load_text(text))


# ------------------------------------------------------------ a rebuilt source checkout is not stale


ROCM_SOURCE = """Collecting environment information...
PyTorch version: 1.7.0a0+9ddd3df
Is debug build: False
CUDA used to build PyTorch: N/A
ROCM used to build PyTorch: 3.7.20315-077bcfa0

OS: Ubuntu 18.04.4 LTS (x86_64)
Python version: 3.6 (64-bit runtime)
Is CUDA available: True
CUDA runtime version: N/A
GPU models and configuration: Device 66a1
Nvidia driver version: Could not collect
cuDNN version: N/A
HIP runtime version: 3.18.2
MIOpen runtime version: 2.6.0

Versions of relevant libraries:
[pip3] numpy==1.18.5
[pip3] torch=={installed}
"""


@pytest.mark.parametrize("installed", ["1.7.0a0+a9603c7", "1.7.0a0+git96dd291", "1.7.0a0"])
def test_a_source_build_whose_metadata_keeps_an_older_commit_is_not_stale(installed: str) -> None:
    assert "stale_or_shadowed_torch" not in _ids(load_text(ROCM_SOURCE.format(installed=installed)))


def test_a_different_release_in_the_metadata_is_still_stale() -> None:
    report = load_text(ROCM_SOURCE.format(installed="1.6.0a0+a9603c7"))
    assert "stale_or_shadowed_torch" in _errors(report)


# ------------------------------------------------------------------- another job said to be on the GPU

OOM = "RuntimeError: CUDA error: out of memory"


@pytest.mark.parametrize(
    "said",
    [
        "gpu 0 是tf 在跑的代码，我运行就出错",  # zh: GPU 0 runs TF code
        "Another training job is running on GPU 0 right now.",
        "GPU 1 is already used by my colleague's notebook",
        "显卡被别的程序占用了",
    ],
)
def test_another_job_said_to_run_on_the_gpu_explains_an_oom(said: str) -> None:
    report = load_text(f"python train.py --device 0\n{said}\n{OOM}")
    assert _errors(report)[:1] == ["gpu_memory_held_by_others"]


def test_an_oom_with_no_other_job_named_is_the_jobs_own() -> None:
    report = load_text(f"python train.py --batch_size 64\n{OOM}\nThe other settings are default.")
    assert "gpu_memory_held_by_others" not in _errors(report)


# ------------------------------------------------------------ CUDA works in the user's check, not in the app


@pytest.mark.parametrize(
    "text",
    [
        "Although torch.cuda.is_available() returns True, the following error message is shown after launching "
        "webui-user.bat",
        "torch.cuda.is_available() gives True in my Python, but run.bat still says Torch is not able to use GPU",
        "torch.cuda.is_available() is True, yet when launching the web UI it falls back to the CPU",
    ],
)
def test_cuda_true_in_the_users_check_but_the_app_fails_points_at_the_apps_environment(text: str) -> None:
    assert _first(text) == "wrong_interpreter_or_kernel"


def test_cuda_true_and_the_app_working_is_no_interpreter_problem() -> None:
    text = "torch.cuda.is_available() returns True and training runs on the GPU, but it is slower than I expected"
    assert "wrong_interpreter_or_kernel" not in _ids(load_text(text))


# ---------------------------------------------------------- torch that does not import has no build type yet


def test_an_import_failure_of_a_cpu_build_is_the_import_failure() -> None:
    text = (
        "`import torch` fails:\n"
        "FileNotFoundError: Could not find module 'C:\\Python38\\lib\\site-packages\\torch\\lib\\c10.dll' (or one of "
        "its dependencies)\n - PyTorch Version (e.g., 1.0): 1.5.0+cpu\n - CUDA/cuDNN version: No (CPU version)"
    )
    report = load_text(text)
    assert _ids(report)[0] == "torch_import_error"
    assert "cpu_only_build" not in _ids(report)


def test_a_cpu_build_that_ran_keeps_its_verdict() -> None:
    text = "torch 1.5.0+cpu\nAssertionError: Torch not compiled with CUDA enabled"
    assert _first(text) == "cpu_only_build"


# --------------------------------------------------------------------- decoys: healthy texts in the same words


@pytest.mark.parametrize(
    "text",
    [
        "Tip: Intel Arc GPUs need the XPU build. My PC has an RTX 4090 and torch.cuda.is_available() returns True.",
        "GPUは正常に認識されています。torch.cuda.is_available() は True です",  # ja: the GPU is recognised
        "显卡没有问题，GPU可以正常使用，只是训练比较慢",  # zh: the card is fine, the GPU works, training is slow
        "torch 2.1.0+cu121 installed; the CPU version was uninstalled first. Training runs on cuda:0 now.",
        "The GPU memory is still used by the dataloader workers while training, is that expected? python train.py",
        "export CUDA_VISIBLE_DEVICES=0\npython train.py\nEpoch 1: loss 0.53",
        "Meine GPU wird erkannt: NVIDIA GeForce RTX 3060, torch 2.3.0+cu121, alles gut",
        "我的电脑是Intel i7 CPU + RTX 3060显卡, torch.cuda.is_available() 返回 True",
    ],
)
def test_healthy_texts_in_the_same_words_claim_nothing(text: str) -> None:
    assert _errors(load_text(text)) == []


# ------------------------------------------------------------- logs and code with the same facts, and denials


def test_a_hardware_line_with_radeon_graphics_and_no_nvidia_card_is_no_nvidia_gpu() -> None:
    text = (
        "AssertionError: Torch not compiled with CUDA enabled\n\n"
        "System: Windows 11, Ryzen 7 5800H with Radeon Graphics, 16GB RAM, no NVIDIA card"
    )
    assert _errors(load_text(text))[:1] == ["no_nvidia_gpu"]


def test_radeon_graphics_beside_an_nvidia_laptop_gpu_is_not_no_gpu() -> None:
    text = (
        "AssertionError: Torch not compiled with CUDA enabled\n\n"
        "System: Ryzen 7 5800H with Radeon Graphics and a GeForce RTX 3050 Laptop GPU"
    )
    assert "no_nvidia_gpu" not in _errors(load_text(text))


@pytest.mark.parametrize(
    "text",
    [
        'os.environ["CUDA_VISIBLE_DEVICES"] = ""\nimport torch\nprint(torch.cuda.is_available())  # False',
        "CUDA_VISIBLE_DEVICES='' python train.py\nRuntimeError: No CUDA GPUs are available",
    ],
)
def test_an_empty_visible_devices_in_code_or_a_command_is_the_likely_cause(text: str) -> None:
    assert _first(text) == "cuda_visible_devices_hides_gpus"
