"""Fresh-eyes review of round 17 (issue #14): adversarial synthetic texts for the round's readers.

Each case is a text a user could paste, with a one-line reason. "Must not fire" cases are the decoys a reader fitted
to one paste would claim (healthy logs, questions, negations, the same words about another tool or job, quoted docs);
"must fire" cases are the same class in other wordings.
"""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text, wsl_linux_driver
from gpuassist.ingest.text import UnreadableInput, clean_lines


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


# ---- nouveau_failures --------------------------------------------------------------------------------------------

NOUVEAU_QUIET = [
    pytest.param(
        "Laptop dmesg, the display works fine, I only browse the web:\n"
        "[    3.1] nouveau 0000:01:00.0: DRM: failed to create encoder 1/8/0: -19\n"
        "[    3.2] nouveau 0000:01:00.0: DRM: failed to create encoder 1/8/0: -19\n"
        "[    3.3] fbcon: nouveaudrmfb (fb0) is primary device\n",
        id="encoder-warning-is-NV_WARN-and-nouveau-goes-on",
    ),
    pytest.param(
        "[    2.9] nouveau 0000:01:00.0: Direct firmware load for nouveau/nv106_fuc084 failed with error -2\n"
        "[    3.0] nouveau 0000:01:00.0: DRM: VRAM: 2048 MiB\n"
        "[    3.1] [drm] Initialized nouveau 1.3.1 20120801 for 0000:01:00.0 on minor 0\n",
        id="optional-firmware-missing-then-nouveau-initialised",
    ),
    pytest.param(
        "[    5.1] nouveau 0000:01:00.0: bus: MMIO read of 00000000 FAULT at 6013d4 [ IBUS ]\n"
        "[    5.2] nouveau 0000:01:00.0: DRM: allocated 1920x1080 fb: 0x60000, bo 00000000\n",
        id="harmless-ibus-fault-on-a-working-desktop",
    ),
    pytest.param(
        "[    4.0] nouveau 0000:01:00.0: gr: init failed, -110\n"
        "[    9.0] nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  535.54.03\n",
        id="nouveau-failed-early-then-nvidia-loaded",
    ),
]


@pytest.mark.parametrize("text", NOUVEAU_QUIET)
def test_nouveau_lines_that_are_not_a_failure_claim_nothing(text: str) -> None:
    assert "nvidia_module_not_loaded" not in _ids(text)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(
            "torch.cuda.is_available() returns False on my RTX 3060. dmesg:\n"
            "[    3.2] nouveau 0000:2b:00.0: fifo: one-time init failed, -22\n",
            id="oneinit-failure-with-a-cuda-question",
        ),
        pytest.param(
            "Ubuntu 22.04 black screen after the update.\n"
            "Jan 3 kernel: nouveau 0000:01:00.0: pmu: preinit failed, -22\n"
            "Jan 3 kernel: nouveau: probe of 0000:01:00.0 failed with error -22\n",
            id="preinit-and-probe-failure-in-journal-form",
        ),
    ],
)
def test_nouveau_failing_in_other_wordings_is_read(text: str) -> None:
    assert _ids(text)[:1] == ["nvidia_module_not_loaded"]


# ---- wsl_linux_driver --------------------------------------------------------------------------------------------

WSL_QUIET = [
    pytest.param(
        "I installed the latest NVIDIA driver, and in WSL2 nvidia-smi shows my RTX 4090, but "
        "torch.cuda.is_available() is False.\n",
        id="place-opens-a-new-clause-the-driver-is-the-windows-one",
    ),
    pytest.param(
        "Do I need to install the NVIDIA driver inside WSL2 for PyTorch, or is the Windows one enough?\n",
        id="a-question",
    ),
    pytest.param(
        "I did not install any Linux GPU driver in WSL, only cuda-toolkit-12-4 from the WSL-Ubuntu repo. "
        "torch.cuda.is_available() is False.\n",
        id="negated",
    ),
    pytest.param(
        "Following the guide I never installed a Linux driver inside WSL; the Windows NVIDIA driver 551.86 is "
        "installed.\n",
        id="never-installed",
    ),
    pytest.param(
        "NVIDIA's note: users must not install any NVIDIA GPU Linux driver within WSL 2.\n"
        "My torch in WSL2 says False.\n",
        id="quoted-guide",
    ),
    pytest.param(
        "WSL2 Ubuntu 22.04. The guide's bad example is `sudo apt-get install cuda-drivers`; I ran only "
        "sudo apt-get install cuda-toolkit-12-6 and torch.cuda.is_available() is True.\n",
        id="driver-package-named-as-an-example-not-run",
    ),
]


@pytest.mark.parametrize("text", WSL_QUIET)
def test_wsl_texts_without_a_linux_driver_inside_do_not_claim_it(text: str) -> None:
    assert "wsl_libcuda_problem" not in _ids(text)


def test_command_not_found_hint_lists_packages_nobody_installed() -> None:
    # Ubuntu's answer to a missing nvidia-smi names nvidia-utils packages; the user ran none of them. (Another reader
    # may still read the missing nvidia-smi on WSL; this reader must not claim a Linux driver was installed.)
    text = (
        "Linux PC 5.15.167.4-microsoft-standard-WSL2 #1 SMP x86_64 GNU/Linux\n$ nvidia-smi\n"
        "Command 'nvidia-smi' not found, but can be installed with:\n"
        "sudo apt install nvidia-utils-535         # version 535.183.01-0ubuntu0.22.04.1\n"
        "sudo apt install nvidia-utils-550-server  # version 550.127.05-0ubuntu0.22.04.1\n"
    )
    assert wsl_linux_driver.linux_driver_in_wsl(clean_lines(text), load_text(text)) is None


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(
            "I'm on WSL2 Ubuntu. I ran sudo apt install nvidia-driver-535 inside WSL and now torch cuda is False.\n",
            id="apt-package-named-in-words",
        ),
        pytest.param(
            "Inside my WSL Ubuntu I also installed the Linux NVIDIA driver from the .run file; now torch can't find "
            "CUDA.\n",
            id="place-first-then-installed",
        ),
        pytest.param(
            "WSL2: I installed nvidia-driver-535 in WSL by mistake and now torch.cuda.is_available() returns False\n",
            id="driver-named-by-its-package",
        ),
    ],
)
def test_linux_driver_inside_wsl_in_other_wordings_is_read(text: str) -> None:
    assert _ids(text)[:1] == ["wsl_libcuda_problem"]


# ---- visible_devices_order: the selection said not to take (was visible_ignored) -----------------------------------

VISIBLE_QUIET = [
    pytest.param(
        "I run CUDA_VISIBLE_DEVICES=1 python train.py and it trains on GPU 1 as expected, but nvidia-smi still shows "
        "all 4 GPUs. Is that normal?\n",
        id="nvidia-smi-lists-every-gpu-whatever-the-variable",
    ),
    pytest.param(
        "CUDA_VISIBLE_DEVICES=2 python eval.py\n"
        "torch.cuda.device_count() returns 1 and the model still goes to cuda:0, is that right?\n",
        id="one-visible-gpu-renumbered-cuda0-is-the-variable-working",
    ),
    pytest.param(
        "Someone else's job is using all the GPUs on the node, so I launch mine with CUDA_VISIBLE_DEVICES=3 "
        "python train.py. How do I check which one is free?\n",
        id="another-users-job-on-every-gpu",
    ),
    pytest.param(
        "Note from the docs: CUDA_VISIBLE_DEVICES is ignored by nvidia-smi, which always lists every GPU.\n"
        "My job: CUDA_VISIBLE_DEVICES=0 python a.py runs fine.\n",
        id="quoted-fact-about-nvidia-smi",
    ),
    pytest.param(
        "torchrun --nproc_per_node=4 train.py uses all 4 GPUs fine.\n"
        "Then CUDA_VISIBLE_DEVICES=0 python eval.py evaluates on one GPU, as expected. Thanks!\n",
        id="multi-gpu-run-as-meant-next-to-a-one-gpu-run",
    ),
    pytest.param(
        "import os\n# CUDA_VISIBLE_DEVICES has no effect if set after the first CUDA call\n"
        "os.environ['CUDA_VISIBLE_DEVICES'] = '1'\nimport torch\nprint(torch.cuda.device_count())\n1\n",
        id="the-rule-in-a-code-comment-of-a-correct-script",
    ),
    pytest.param(
        "The README says: CUDA_VISIBLE_DEVICES is ignored once CUDA is initialised, so set it first.\n"
        "I did, and CUDA_VISIBLE_DEVICES=1 python train.py runs on GPU 1. Thanks!\n",
        id="the-rule-quoted-as-a-conditional",
    ),
    pytest.param(
        "Our lab server has 4 GPUs.\nMy labmate's job runs on all 4 GPUs.\n"
        "I use CUDA_VISIBLE_DEVICES=3 python train.py\nHow do I reserve it?\n",
        id="a-labmates-job-on-every-gpu-near-a-one-index-selection",
    ),
]


@pytest.mark.parametrize("text", VISIBLE_QUIET)
def test_visible_devices_working_as_meant_is_not_ignored(text: str) -> None:
    assert "cuda_visible_devices_hides_gpus" not in _ids(text)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(
            "Even with CUDA_VISIBLE_DEVICES=1 exported, my PyTorch script allocates memory on every GPU of the "
            "machine.\n",
            id="every-gpu-used-despite-the-variable",
        ),
        pytest.param(
            'I set CUDA_VISIBLE_DEVICES="0" at the top of the notebook after import torch, but '
            "torch.cuda.device_count() still says 8.\n",
            id="count-unchanged",
        ),
        pytest.param(
            "CUDA_VISIBLE_DEVICES=0,1 python train.py\nbut DataParallel still uses all 8 GPUs on the server\n",
            id="two-selected-eight-used-on-the-next-line",
        ),
        pytest.param(
            "export CUDA_VISIBLE_DEVICES=2\npython train.py --epochs 10\n\nthe training runs on all 4 GPUs anyway\n",
            id="one-index-exported-a-few-lines-above-the-complaint",
        ),
    ],
)
def test_visible_devices_ignored_in_other_wordings_is_read(text: str) -> None:
    assert _ids(text)[:1] == ["cuda_visible_devices_hides_gpus"]


# ---- soname_build --------------------------------------------------------------------------------------------------

_IMPORT_FAILS = (
    '>>> import torch\nTraceback (most recent call last):\n  File "<stdin>", line 1, in <module>\n'
    '  File "/home/u/.local/lib/python3.10/site-packages/torch/__init__.py", line 237, in <module>\n'
    "    from torch._C import *\nImportError: {lib}: cannot open shared object file: No such file or directory\n"
)


def test_cusparse_so12_spans_cuda_12_and_13_and_tells_no_major() -> None:
    # cuSPARSE 12.6 ships with CUDA 13.0: a cu130 build needs libcusparse.so.12 itself (the right build, missing it)
    text = "$ pip install torch --index-url https://download.pytorch.org/whl/cu130\n" + _IMPORT_FAILS.format(
        lib="libcusparse.so.12"
    )
    assert "stale_or_shadowed_torch" not in _ids(text)


def test_another_packages_extension_built_for_old_cuda_is_not_an_older_torch() -> None:
    # torch_scatter's own .so was built against CUDA 10.2; torch itself (cu121) imports fine
    text = (
        "$ pip install torch==2.1.0+cu121 -f https://download.pytorch.org/whl/torch_stable.html\n"
        ">>> import torch_scatter\nTraceback (most recent call last):\n"
        '  File "<stdin>", line 1, in <module>\n'
        '  File "/opt/venv/lib/python3.10/site-packages/torch_scatter/__init__.py", line 16, in <module>\n'
        "    torch.ops.load_library(spec.origin)\n"
        '  File "/opt/venv/lib/python3.10/site-packages/torch/_ops.py", line 643, in load_library\n'
        "    ctypes.CDLL(path)\n"
        "OSError: libcudart.so.10.2: cannot open shared object file: No such file or directory\n"
    )
    assert "stale_or_shadowed_torch" not in _ids(text)


def test_torch_import_reached_through_torchvision_is_still_torchs() -> None:
    # the traceback passes through torchvision/__init__.py on its way into torch/__init__.py: torch's own import failed
    text = (
        "$ pip install torch==2.1.0+cu121 torchvision==0.16.0+cu121 --index-url https://download.pytorch.org/whl/cu121\n"
        "$ python train.py\nTraceback (most recent call last):\n"
        '  File "train.py", line 3, in <module>\n    import torchvision\n'
        '  File "/home/u/.local/lib/python3.10/site-packages/torchvision/__init__.py", line 5, in <module>\n'
        "    import torch\n"
        '  File "/home/u/.local/lib/python3.10/site-packages/torch/__init__.py", line 237, in <module>\n'
        "    from torch._C import *\n"
        "ImportError: libcudart.so.10.2: cannot open shared object file: No such file or directory\n"
    )
    assert _ids(text)[:1] == ["stale_or_shadowed_torch"]


def test_tensorflow_failing_on_an_old_cudart_is_not_torch() -> None:
    text = (
        "pip install torch==2.1.0+cu118\n>>> import tensorflow as tf\n"
        "ImportError: libcudart.so.10.0: cannot open shared object file: No such file or directory\n"
    )
    assert "stale_or_shadowed_torch" not in _ids(text)


def test_conda_listed_build_against_an_older_cudart_is_an_older_torch() -> None:
    # the same class, the installed build read from a `conda list` row instead of a pip command
    text = "conda list | grep torch\ntorch 2.0.1+cu118 pypi_0 pypi\n" + _IMPORT_FAILS.format(lib="libcudart.so.10.1")
    assert _ids(text)[:1] == ["stale_or_shadowed_torch"]


# ---- python_words (a .py name against CJK characters) and kinds (nouveau in the topic test) --------------------------


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("ファイル名はsetup.pyです。実行するとエラーになります。\n", id="japanese-around-a-script-name"),
        pytest.param("train.py를 실행하면 오류가 납니다.\n", id="korean-particle-glued-to-the-name"),
    ],
)
def test_script_name_glued_to_cjk_is_read_as_python_and_claims_nothing(text: str) -> None:
    assert _ids(text) == []


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("我在网站shop.com.py上买了东西,请问怎么退货?\n", id="paraguay-domain-glued-to-chinese"),
        pytest.param("Le nouveau pilote de mon imprimante ne marche pas.\n", id="french-nouveau-about-a-printer"),
        pytest.param(
            "J'ai installé un nouveau driver pour ma souris, ça ne marche pas.\n", id="french-un-nouveau-driver"
        ),
    ],
)
def test_off_topic_texts_stay_refused(text: str) -> None:
    with pytest.raises(UnreadableInput):
        load_text(text)


def test_selection_ignored_is_explained_as_too_late_not_as_hiding_every_gpu() -> None:
    # one module reads both wordings of the class (visible_devices_order): the finding says the variable came too late
    text = (
        "Even with CUDA_VISIBLE_DEVICES=1 exported, my PyTorch script allocates memory on every GPU of the machine.\n"
    )
    finding = next(f for f in load_text(text).findings if f.id == "cuda_visible_devices_hides_gpus")
    assert "hides all of them" not in finding.explanation
    assert "once, when it initialises" in finding.explanation
    assert "os.environ" in finding.fix
