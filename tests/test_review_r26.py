"""Fresh-eyes review of round 26 (issue #14): the readers widened for users' retellings (fx26-prose: ASCII names in
CJK prose, torch.version.cuda said None, the driver said too old; fx26-sys: a REPL/python -c is_available() False
as asking for CUDA; fx26-neg: told_not_shown). Each case is a realistic synthetic text with the reason it must (not)
fire: decoys a user could paste (a Mac named only as a comparison, a belief denied, a statement about builds in
general, a CPU job) and texts of the same class in other wordings."""

from __future__ import annotations

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text, system_causes


def _claims(text: str) -> dict[str, Severity]:
    """The findings stated as a problem (error or warning), by id."""
    return {f.id: f.severity for f in load_text(text).findings if f.severity in (Severity.ERROR, Severity.WARNING)}


# ------------------------------------------------------------------ a Mac named in CJK prose (MAC_TEXT ascii_bounded)

MAC_COMPARED = [
    (
        "M1 Macと比べて、このWindowsマシン(RTX 3080)では遅いです。torch.cuda.is_available() は False を返します。"
        "torch 2.1.0+cu118",
        "Japanese: the Mac is only compared with ('と比べて'); the machine is a Windows PC ('Windowsマシン')",
    ),
    (
        "我之前在M1 Mac上跑过，现在换了Windows台式机（RTX 3060），torch.cuda.is_available()返回False。",
        "Chinese: the Mac was the earlier machine; the one that fails is a Windows desktop ('Windows台式机')",
    ),
    (
        "M2 MacBookでは問題ないのですが、Ubuntuサーバー(RTX 4090)では torch.cuda.is_available() が False です。",
        "Japanese: the Mac works; the failing machine is an Ubuntu server written into the prose ('Ubuntuサーバー')",
    ),
]


@pytest.mark.parametrize(("text", "reason"), MAC_COMPARED)
def test_mac_named_only_as_a_comparison_in_cjk_prose_is_not_the_machine(text: str, reason: str) -> None:
    assert "macos_no_cuda_use_mps" not in _claims(text), reason


MAC_IS_THE_MACHINE = [
    ("M1 Macで torch.cuda.is_available() が False になります。GPUを使いたいです。", "Japanese: the user's M1 Mac"),
    ("我的MacBook Pro M2上 torch.cuda.is_available() 返回 False，怎么用GPU？", "Chinese: the user's MacBook"),
]


@pytest.mark.parametrize(("text", "reason"), MAC_IS_THE_MACHINE)
def test_the_users_own_mac_in_cjk_prose_is_still_read(text: str, reason: str) -> None:
    assert "macos_no_cuda_use_mps" in _claims(text), reason


# ------------------------------------------------------------------------------ the driver said too old, in words

DRIVER_NOT_TOO_OLD = [
    (
        "I don't think my driver is too old: nvidia-smi shows 550.54 and torch.cuda.is_available() returns False "
        "with torch 2.3.1+cu121.",
        "the belief is denied ('don't think')",
    ),
    (
        "It's not because my driver is too old, I updated to 560.35 yesterday. torch.cuda.is_available() is False.",
        "the cause is set aside ('not because')",
    ),
    (
        "My driver is too old for Windows 11 HDR, but PyTorch works fine, torch.cuda.is_available() returns True.",
        "too old for something other than CUDA or torch (a display feature), and CUDA works",
    ),
    (
        "The game launcher says my driver is too old for Cyberpunk's path tracing. torch.cuda.is_available() is True.",
        "too old for a game, not for CUDA",
    ),
]


@pytest.mark.parametrize(("text", "reason"), DRIVER_NOT_TOO_OLD)
def test_driver_too_old_denied_or_about_something_else_is_not_claimed(text: str, reason: str) -> None:
    assert "driver_too_old" not in _claims(text), reason


DRIVER_TOO_OLD_SAID = [
    (
        "torch.cuda.is_available() returns False and the warning says my driver is too old. GTX 1080, driver 418.",
        "the warning told in words",
    ),
    (
        "My driver is too old for CUDA 12.1, torch 2.3.1+cu121 prints False for torch.cuda.is_available().",
        "too old for the CUDA the wheel needs",
    ),
    (
        "torch.cuda.is_available() returns False; the error says the NVIDIA driver is too old for this version.",
        "too old for this (torch) version",
    ),
]


@pytest.mark.parametrize(("text", "reason"), DRIVER_TOO_OLD_SAID)
def test_driver_too_old_said_for_cuda_is_still_read(text: str, reason: str) -> None:
    assert "driver_too_old" in _claims(text), reason


# ------------------------------------------------------------------------- torch.version.cuda said to be None

BUILDS_IN_GENERAL = [
    (
        "torch.version.cuda returns None for CPU-only builds; mine is 2.3.1+cu121 and torch.cuda.is_available() "
        "returns True.",
        "a statement about CPU builds in general, the user's build is a CUDA one",
    ),
    (
        "torch.version.cuda is None when torch was built without CUDA. Mine prints 12.1, and "
        "torch.cuda.is_available() returns True; training is just slow.",
        "a condition ('when ...'), not the user's value",
    ),
]


@pytest.mark.parametrize(("text", "reason"), BUILDS_IN_GENERAL)
def test_cuda_version_none_said_of_builds_in_general_is_not_the_users(text: str, reason: str) -> None:
    assert "cpu_only_build" not in _claims(text), reason


NONE_IS_THE_USERS = [
    (
        "torch.version.cuda is None on my machine and torch.cuda.is_available() returns False. RTX 3070, driver 551.",
        "the user's own value",
    ),
    (
        "`torch.version.cuda` -> None, torch.cuda.is_available() -> False, even though I have an RTX 4070.",
        "arrows, the user's values",
    ),
]


@pytest.mark.parametrize(("text", "reason"), NONE_IS_THE_USERS)
def test_cuda_version_none_of_the_users_build_is_still_read(text: str, reason: str) -> None:
    assert "cpu_only_build" in _claims(text), reason


# ------------------------------------------------------- told_not_shown: "works fine on the CPU" is no healthy run


def test_works_fine_on_cpu_beside_a_guide_does_not_hide_the_cuda_failure() -> None:
    text = (
        'Following the guide, training works fine on CPU but .cuda() fails with "CUDA error: no kernel image is '
        'available for execution on the device" on my GTX 770.'
    )
    # the guide is where the steps came from, not the message; the CUDA run is the one failing
    assert "gpu_arch_dropped_from_build" in _claims(text)


def test_message_from_the_docs_on_a_healthy_gpu_is_still_dropped() -> None:
    text = (
        'The FAQ says "CUDA error: no kernel image is available for execution on the device" means the wheel lacks '
        "your GPU's architecture. Training works fine on my RTX 4090, torch.cuda.is_available() returns True."
    )
    assert "gpu_arch_dropped_from_build" not in _claims(text)


# --------------------------------------- a REPL/python -c check answering False where CUDA is not wanted at all

CUDA_NOT_WANTED = [
    (
        "This is a CPU-only job on purpose, just tokenizing:\n"
        '$ python -c "import torch; print(torch.__version__, torch.cuda.is_available())"\n'
        "2.2.0+cpu False",
        "a CPU-only job by choice: False is what the user expects",
    ),
    (
        "[alice@login01 ~]$ cat slurm-4242.out\n"
        ">>> import torch; print(torch.__version__, torch.cuda.is_available())\n"
        "2.2.0+cpu False\n"
        "preprocessing done in 341 s. This runs in a CPU partition, no GPU needed.",
        "a Slurm log of a CPU job whose owner says no GPU is needed",
    ),
]


@pytest.mark.parametrize(("text", "reason"), CUDA_NOT_WANTED)
def test_cuda_check_false_where_cuda_is_not_wanted_is_no_error(text: str, reason: str) -> None:
    assert _claims(text).get("cpu_only_build") is not Severity.ERROR, reason


def test_cuda_check_false_with_an_nvidia_gpu_named_is_still_an_error() -> None:
    text = (
        '$ python -c "import torch; print(torch.__version__, torch.cuda.is_available())"\n'
        "2.2.0+cpu False\n"
        "I have an RTX 3060 in this box, why?"
    )
    assert _claims(text).get("cpu_only_build") is Severity.ERROR


# ------------------------------------------------------------- device_count() said 0, as the user expects it there


def test_device_count_zero_said_to_be_expected_is_no_complaint() -> None:
    text = (
        "In our CI (no GPU runners) torch.cuda.device_count() returns 0, which is expected; the tests skip CUDA. "
        "torch 2.2.0+cpu."
    )
    # a CI runner without a GPU: a CPU build there is what the project wants, not an error
    assert _claims(text).get("cpu_only_build") is not Severity.ERROR


def test_device_count_zero_as_a_complaint_is_still_read() -> None:
    text = "torch.cuda.device_count() returns 0 on my workstation with an RTX 4080. torch 2.2.0+cpu."
    assert _claims(text).get("cpu_only_build") is Severity.ERROR


# --------------------------------------------- the GPU at a low figure "% utilization" (a warm-up, not starvation)


def test_low_utilisation_that_then_climbs_is_a_warm_up_not_starvation() -> None:
    text = (
        "During data loading the GPU sits at 0-5% utilization for the first minute, then goes to 98% and stays "
        "there. torch 2.1 cu121, A100."
    )
    assert "dataloader_starvation" not in _claims(text)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            "The GPU sits at 0-10% utilization the whole epoch; the DataLoader with num_workers=0 decodes JPEGs. "
            "torch 2.1.0+cu121, RTX 3090.",
            "idle throughout, the loader named",
        ),
        (
            "GPU at 5 % usage while loading the images, then it drops to 0% between batches. torch 2.1.0+cu121.",
            "low, then lower: no recovery",
        ),
    ],
)
def test_low_utilisation_beside_the_loader_is_still_read(text: str, reason: str) -> None:
    assert "dataloader_starvation" in _claims(text), reason


# ------------------------ told_not_shown: an answer or a PR named as what the user followed, not where X came from

NO_KERNEL_OWN = [
    (
        'Following the answer on Stack Overflow I reinstalled torch, and now "CUDA error: no kernel image is '
        'available for execution on the device" appears on my GTX 680. torch.cuda.is_available() returns True.',
        "the answer is what the user followed; the message appears now, on their GPU",
    ),
    (
        'Like in the linked PR, model.cuda() raises "CUDA error: no kernel image is available for execution on the '
        'device" on a Tesla K40. torch.cuda.is_available() is True.',
        "the user's own call raises it; is_available() True is no healthy run for a kernel-image error",
    ),
    (
        'Same steps as the guide, but my script fails with "CUDA error: no kernel image is available for execution '
        'on the device" on a GTX 770; torch.cuda.is_available() returns True.',
        "the user's script fails with it",
    ),
]


@pytest.mark.parametrize(("text", "reason"), NO_KERNEL_OWN)
def test_message_the_users_own_run_raises_beside_a_named_source_is_kept(text: str, reason: str) -> None:
    assert "gpu_arch_dropped_from_build" in _claims(text), reason


def test_message_only_explained_by_an_answer_on_a_healthy_machine_is_still_dropped() -> None:
    text = (
        'The accepted answer explains that "CUDA error: no kernel image is available for execution on the device" '
        "means the wheel lacks your GPU's architecture; good to know, my RTX 4090 trains fine."
    )
    assert "gpu_arch_dropped_from_build" not in _claims(text)


# ------------------------------------------------------- a Mac user's REPL tuple, checked out of curiosity


def test_mac_users_repl_tuple_out_of_curiosity_is_no_error() -> None:
    text = (
        ">>> import torch; torch.__version__, torch.cuda.is_available()\n"
        "('2.1.0', False)\n"
        ">>> # I'm on a MacBook Pro M3, just curious whether CUDA exists here"
    )
    assert _claims(text).get("macos_no_cuda_use_mps") is not Severity.ERROR


def test_mac_users_repl_tuple_wanting_the_gpu_is_still_read() -> None:
    text = (
        ">>> import torch; torch.__version__, torch.cuda.is_available()\n"
        "('2.1.0', False)\n"
        "How do I train on the GPU of my MacBook Pro M3?"
    )
    assert "macos_no_cuda_use_mps" in _claims(text)


# ------------------------------------------------- the GPU named by its model number ("doesn't see my 4090")


def test_a_count_after_the_number_is_no_gpu_said_unused() -> None:
    text = (
        "My training loop doesn't use the 1024 threads I set with torch.set_num_threads(1024); it stays at 64.\n"
        "model = Net()\n"
        "for x, y in loader:\n"
        "    out = model(x)\n"
        "torch 2.1.0+cu121 on an RTX 3090; GPU training is not what I'm asking about."
    )
    # "the 1024 threads" is a count, not a card: nothing says the GPU is unused
    assert "workload_left_on_cpu" not in _claims(text)


def test_the_card_by_its_number_said_unused_is_still_read() -> None:
    text = (
        "PyTorch doesn't use my 3090 at all:\n"
        "model = Net()\n"
        "for x, y in loader:\n"
        "    out = model(x)\n"
        "torch 2.1.0+cu121, torch.cuda.is_available() True."
    )
    assert "workload_left_on_cpu" in _claims(text)


@pytest.mark.parametrize(
    ("sentence", "unused"),
    [
        ("The dataloader doesn't use the 1024 workers I asked for", False),  # a count
        ("the script doesn't use the 2048 batch size I passed", False),  # a size
        ("Is it normal that PyTorch doesn't use my 4090's tensor cores for fp32", False),  # a part of the card
        ("PyTorch doesn't see my 4090.", True),
        ("torch does not use my 3090 when I train", True),
        ("it can't detect my 3060 card", True),
    ],
)
def test_gpu_said_unused_by_its_number(sentence: str, unused: bool) -> None:
    assert system_causes.says_gpu_unused([sentence]) is unused


# ------------------------------------------- YOLOv5's select_device with a device word, on a machine with no CUDA


def test_yolo_device_word_on_a_mac_is_macos_not_a_hidden_gpu() -> None:
    text = (
        "On my MacBook Pro M2:\n"
        "$ python detect.py --device gpu\n"
        "AssertionError: Invalid CUDA '--device gpu' requested, use '--device cpu' or pass valid CUDA device(s)"
    )
    # CUDA_VISIBLE_DEVICES hides nothing on a Mac: there is no CUDA device; the answer is MPS
    claims = _claims(text)
    assert "cuda_visible_devices_hides_gpus" not in claims
    assert "macos_no_cuda_use_mps" in claims


def test_yolo_device_word_on_a_linux_gpu_box_is_still_read() -> None:
    text = (
        "Ubuntu 22.04, RTX 3090, driver 550, torch 2.1.0+cu121\n"
        "$ python detect.py --device cuda\n"
        "AssertionError: CUDA unavailable, invalid device cuda requested"
    )
    assert "cuda_visible_devices_hides_gpus" in _claims(text)


# ---------------------------- quoted_in_a_request: "it would be great/nice" as politeness is no request about messages

POLITE_REPORTS = [
    (
        'It would be great if someone could help, model.cuda() gives "CUDA error: no kernel image is available for '
        'execution on the device" on my GTX 680.',
        "a plea for help: the user's own call gives the message",
    ),
    (
        "It would be nice to know what this means: CUDA error: no kernel image is available for execution on the "
        "device (GTX 680, torch 2.1.0+cu121)",
        "asking what their own error means, said politely",
    ),
]


@pytest.mark.parametrize(("text", "reason"), POLITE_REPORTS)
def test_politeness_is_no_request_about_messages(text: str, reason: str) -> None:
    assert "gpu_arch_dropped_from_build" in _claims(text), reason


def test_a_request_about_what_torch_should_print_is_still_dropped() -> None:
    text = (
        "It would be nice if torch printed which wheel to install instead of just 'Torch not compiled with CUDA "
        "enabled'. Not a bug report: everything works here on the cu121 wheel."
    )
    assert "cpu_only_build" not in _claims(text)
