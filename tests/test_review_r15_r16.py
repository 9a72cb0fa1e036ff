"""Fresh-eyes review of rounds 15 and 16 (issue #14): the readers they added, tried on texts they were not written
from. Each case is a realistic synthetic text a user could paste, with the reason it must (or must not) be read."""

from __future__ import annotations

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text, prose
from gpuassist.ingest.dkms_words import module_not_rebuilt_in_words
from gpuassist.ingest.import_words import torch_import_said
from gpuassist.ingest.reboot_words import not_rebooted_since_install
from gpuassist.ingest.smi_words import smi_said_working
from gpuassist.ingest.text import clean_lines
from gpuassist.sim import simulate


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


def _errors(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings if f.severity is Severity.ERROR]


LOADER = "OSError: libcudnn_ops_infer.so.8: cannot open shared object file: No such file or directory\n"

# ---- import_words: "import torch fails" said in words --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("Failed to import torch on the new server:\n", "'failed to import torch' is the class in other words"),
        ("Whenever I run import torch I get this:\n", "'when I run import torch' puts a verb between"),
        ("When typing import torch in the shell it prints\n", "typing the import is running it"),
    ],
)
def test_torch_import_failing_in_other_words_is_read(text: str, reason: str) -> None:
    assert torch_import_said(clean_lines(text + LOADER)), reason
    assert "torch_import_error" in _ids(text + LOADER), reason


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            "The error does not happen when importing torch, only when I load the model with ctranslate2.\n",
            "the words deny that the torch import fails",
        ),
        (
            "import torch used to fail with this but I fixed it; now my own C++ extension says\n",
            "a failure told as over is not this one",
        ),
        ("Does it fail when importing torch? No, torch imports. The crash is later:\n", "a question, then a denial"),
        ("I can import torch without problems. But running my ONNX model gives:\n", "torch imports fine"),
    ],
)
def test_torch_import_denied_asked_or_over_is_not_read(text: str, reason: str) -> None:
    assert not torch_import_said(clean_lines(text + LOADER)), reason


# ---- dkms_words: the nvidia module not rebuilt for a new kernel ----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            "After a kernel update to 6.8 the nvidia module didn't get rebuilt and now torch.cuda.is_available() is "
            "False.\n",
            "the class with 'didn't get rebuilt'",
        ),
        (
            "Upgraded to a newer kernel yesterday. akmods did not build kmod-nvidia, so CUDA is gone.\n",
            "Fedora's akmods in place of DKMS",
        ),
    ],
)
def test_nvidia_module_not_rebuilt_in_other_words_is_read(text: str, reason: str) -> None:
    found = module_not_rebuilt_in_words(clean_lines(text), [])
    assert found is not None and found.id == "nvidia_module_not_loaded", reason


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            "Updated kernel; the virtualbox module was not rebuilt so I ran dkms install vboxhost/7.0.14. My nvidia "
            "GPU:\ntorch.cuda.is_available() False\n",
            "the module not rebuilt is VirtualBox's",
        ),
        (
            "Upgraded kernel. zfs module was not rebuilt by dkms, fixed it. The nvidia driver is 550.\n",
            "ZFS's module, another DKMS package",
        ),
        (
            "Note: you do not need to run dkms install manually, the new kernel triggers it. nvidia driver 550.\n",
            "the chore is denied",
        ),
        (
            "From the Arch wiki: after a kernel upgrade you need to run dkms autoinstall for the nvidia module.\n",
            "a quoted instruction, not what happened here",
        ),
        (
            "I upgraded the kernel, then had to run dkms install for my realtek rtl8821ce wifi. nvidia works? "
            "not sure\n",
            "the by-hand rebuild is the Wi-Fi driver's",
        ),
    ],
)
def test_other_modules_denied_chores_and_instructions_are_not_read(text: str, reason: str) -> None:
    assert module_not_rebuilt_in_words(clean_lines(text), []) is None, reason


# ---- smi_words / reboot_words: checked, unchanged -------------------------------------------------------------------


def test_nvidia_smi_said_working_in_other_words_and_docs_that_say_it_should() -> None:
    assert smi_said_working(["nvidia-smi works perfectly and lists my RTX 3090, yet torch says no driver."])
    # the docs' "should show your GPU" is an expectation, not this machine's state
    assert not smi_said_working(["The install guide says nvidia-smi should show your GPU. Mine prints nothing."])
    assert not smi_said_working(["Is nvidia-smi fine for you? mine fails"])


def test_not_rebooting_something_else_is_not_the_driver() -> None:
    assert not_rebooted_since_install(["I installed nvidia-driver-550 and haven't restarted yet."]) is not None
    # the restart denied is the Docker daemon's, in a sentence without the driver
    assert (
        not_rebooted_since_install(["I installed the driver and rebooted. I did not restart the docker daemon."])
        is None
    )


# ---- no_wheel_for_platform: the Python-range reason on a live probe -------------------------------------------------


def test_live_probe_python_out_of_range_without_torch_still_gets_the_range_reason() -> None:
    """A live probe knows its interpreter, so a missing torch is shown, not guessed."""
    report = simulate("no-wheel-python37")
    found = next(f for f in report.findings if f.id == "no_wheel_for_platform")
    assert "outside every PyTorch 2.x release's supported range" in found.explanation


def test_pasted_pip_refusal_for_an_old_python_is_no_wheel_for_platform() -> None:
    text = (
        "Python 3.7.9\n$ pip install torch==2.3.0\n"
        "ERROR: Could not find a version that satisfies the requirement torch==2.3.0 (from versions: 1.13.1)\n"
        "ERROR: No matching distribution found for torch==2.3.0\n"
    )
    assert "no_wheel_for_platform" in _ids(text)


# ---- macOS: a native arm64 interpreter with an MPS-capable torch -----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            "- Platform: macOS-14.4-x86_64-i386-64bit\n- Python version: 3.11.9\n- PyTorch version: 2.2.2\n",
            "an x86_64 interpreter (Intel Mac or Rosetta) has no MPS",
        ),
        (
            "- Platform: macOS-12.1-arm64-arm-64bit\n- Python version: 3.10.4\n- PyTorch version: 2.0.1\n",
            "macOS 12.1 is below MPS's 12.3",
        ),
    ],
)
def test_mac_without_what_mps_needs_is_not_info(text: str, reason: str) -> None:
    found = [f for f in load_text(text).findings if f.id == "macos_no_cuda_use_mps"]
    assert found and found[0].severity is not Severity.INFO, reason


def test_arm64_mac_already_on_mps_gets_no_cuda_fault() -> None:
    """The Mac is using MPS (its own out-of-memory message): no CUDA cause may be claimed on it."""
    text = (
        "- Platform: macOS-14.2.1-arm64-arm-64bit\n- Python version: 3.11.7\n- PyTorch version: 2.1.2\n"
        "RuntimeError: MPS backend out of memory (MPS allocated: 17.00 GB, other allocations: 1.20 GB, max "
        "allowed: 18.13 GB). Tried to allocate 256.00 MB on private pool.\n"
    )
    assert not _errors(text)


# ---- message rows of rounds 15/16 -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            "srun --gres=gpu:1 -c 4 python train.py\nsrun: job 4121 queued and waiting for resources\n"
            "srun: job 4121 has been allocated resources\ncuda available: True\n",
            "a healthy Slurm job with a GPU",
        ),
        (
            "NOTE: the 390.xx driver will ignore GPUs it does not support; check the README.\n"
            ">>> torch.cuda.is_available()\nTrue\n",
            "a lower-case note about 'the driver', no release, beside working CUDA",
        ),
    ],
)
def test_scheduler_and_legacy_rows_stay_quiet_on_healthy_texts(text: str, reason: str) -> None:
    assert not _errors(text), reason


# ---- ingest/prose.py: the one sentence split the word readers share --------------------------------------------------


def test_prose_split_and_its_named_differences() -> None:
    line = "Is nvidia-smi fine? It works; torch fails. Really!"
    assert prose.split(line) == ["Is nvidia-smi fine?", "It works; torch fails.", "Really!"]
    assert prose.split(line, semicolon=True) == ["Is nvidia-smi fine?", "It works;", "torch fails.", "Really!"]
    assert prose.split(line, question_mark=False) == ["Is nvidia-smi fine? It works; torch fails.", "Really!"]
    assert prose.sentences(["a. b", "", "c?"]) == [(1, "a."), (1, "b"), (3, "c?")]
    assert prose.is_question("does import torch fail?  ") and not prose.is_question("v2.3.0 (why?) works.")


# ---- second pass: smi_words, reboot_words, the legacy and Slurm rows, collect_env on an arm64 Mac --------------------


@pytest.mark.parametrize(
    ("sentence", "reason"),
    [
        ("nvidia-smi works on my laptop but the server says no driver.", "another computer of the user's"),
        ("First make sure nvidia-smi works, then run the script.", "an instruction, not this machine's state"),
        ("Please verify that nvidia-smi shows all GPUs before filing.", "an issue template's step"),
    ],
)
def test_nvidia_smi_working_elsewhere_or_as_an_instruction_is_not_read(sentence: str, reason: str) -> None:
    assert not smi_said_working([sentence]), reason


@pytest.mark.parametrize(
    ("sentence", "reason"),
    [
        ("The installer said no reboot is required after the driver update.", "no reboot needed is not one owed"),
        (
            "You can reload the nvidia driver without rebooting: sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm.",
            "advice, not an account",
        ),
    ],
)
def test_reboot_not_needed_or_advice_is_not_an_unbooted_driver(sentence: str, reason: str) -> None:
    assert not_rebooted_since_install([sentence]) is None, reason


def test_legacy_driver_list_quoted_beside_working_cuda_is_not_the_refusal() -> None:
    """NVIDIA's README lists which cards 'are supported by the 470.xx Legacy drivers': a list, not this machine."""
    text = (
        "NVIDIA says Kepler cards like my GTX 780 are supported by the 470.xx Legacy drivers, so I use 470.\n"
        ">>> torch.cuda.is_available()\nTrue\n"
    )
    assert "driver_does_not_support_gpu" not in _ids(text)


def test_legacy_refusal_retyped_for_this_gpu_is_still_read() -> None:
    text = "dmesg says the GeForce GT 640 GPU installed is supported by the 470.xx Legacy drivers and nothing loads.\n"
    assert _errors(text)[:1] == ["driver_does_not_support_gpu"]


def test_slurmd_waiting_for_a_device_that_then_appears_is_not_a_module_fault() -> None:
    """slurmd retries for 20 s ('Waiting for'); only the fatal 'can't stat' says the node never appeared."""
    text = (
        "slurmd[901]: error: Waiting for gres.conf file /dev/nvidia0\n"
        "slurmd[901]: slurmd version 23.02.7 started\n"
        ">>> torch.cuda.is_available()\nTrue\n"
    )
    assert "nvidia_module_not_loaded" not in _ids(text)


def test_healthy_arm64_mac_collect_env_is_info() -> None:
    """collect_env's 'Python platform' is platform.platform(): it gives mac_ver and the interpreter's machine too."""
    text = (
        "PyTorch version: 2.1.2\nIs debug build: False\nCUDA used to build PyTorch: None\n"
        "OS: macOS 14.2.1 (arm64)\nPython version: 3.11.7 (main) [Clang 15.0.0 ] (64-bit runtime)\n"
        "Python platform: macOS-14.2.1-arm64-arm-64bit\nIs CUDA available: False\n"
    )
    report = load_text(text)
    assert report.facts.value("python.mac_ver") == "14.2.1"
    assert [f.severity for f in report.findings if f.id == "macos_no_cuda_use_mps"] == [Severity.INFO]
