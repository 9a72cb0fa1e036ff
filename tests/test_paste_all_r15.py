"""Round 15 (issue #14): classes read from their sources (the NVIDIA driver's legacy-GPU printk, Slurm's gres.conf
device check, import torch failing said in words, MPS on a native arm64 Mac), each with a synthetic text that must
be read and a counter-example that must not fire."""

from __future__ import annotations

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.ingest.errors import Match
from gpuassist.ingest.import_words import torch_import_said
from gpuassist.ingest.reboot_words import not_rebooted_since_install
from gpuassist.ingest.smi_words import smi_said_working, smi_working_rules_out_driver


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


def _errors(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings if f.severity is Severity.ERROR]


# ---- the driver's legacy-GPU message, as printed (wrapped over NVRM: lines) and as retyped ------------------------


@pytest.mark.parametrize(
    "text",
    [
        "[   11.9] NVRM: The NVIDIA GeForce 8600 GT GPU installed in this system is\n"
        "[   11.9] NVRM:  supported through the NVIDIA 340.xx Legacy drivers. Please\n"
        "[   11.9] NVRM:  visit http://www.nvidia.com/object/unix.html for more\n"
        "[   11.9] NVRM:  information.  The 390.48 NVIDIA driver will ignore\n"
        "[   11.9] NVRM:  this GPU.  Continuing probe...\n",
        "black screen after boot, dmesg says:\n"
        'NVRM: "The GeForce 210 GPU installed is supported by the 340.xx Legacy drivers."\n'
        'NVRM: "The 418.56 driver will ignore this GPU."\n',
    ],
)
def test_legacy_gpu_message_in_any_wording_is_an_unsupported_gpu(text: str) -> None:
    assert _ids(text)[:1] == ["driver_does_not_support_gpu"]


def test_another_drivers_will_ignore_prose_is_not_the_legacy_message() -> None:
    text = "If set to False the driver will ignore this setting; the GPU still is not used by torch.\n"
    assert "driver_does_not_support_gpu" not in _ids(text)


# ---- Slurm's gres.conf File= check: the /dev/nvidiaN node is missing when slurmd starts ---------------------------


def test_slurmd_cannot_stat_the_gpu_device_node_is_a_module_not_loaded() -> None:
    text = (
        "Mar  3 07:00:01 node17 slurmd[901]: error: Waiting for gres.conf file /dev/nvidia2\n"
        "Mar  3 07:00:20 node17 slurmd[901]: fatal: can't stat gres.conf file /dev/nvidia2: No such file or directory\n"
    )
    assert _ids(text)[:1] == ["nvidia_module_not_loaded"]


def test_slurmd_gres_file_of_another_device_claims_no_nvidia_module() -> None:
    text = (
        "slurmd on the Radeon GPU node will not start (gres.conf: Name=gpu File=/dev/dri/renderD128)\n"
        "slurmd[77]: fatal: can't stat gres.conf file /dev/dri/renderD128: No such file or directory\n"
    )
    assert "nvidia_module_not_loaded" not in _ids(text)


# ---- import torch failing, said in words beside a generic loader message ------------------------------------------


@pytest.mark.parametrize(
    "sentence",
    [
        "I get this error when importing torch:",
        "After pip install, `import torch` fails with",
        "torch fails to import on the cluster node:",
        "I cannot import torch any more:",
    ],
)
def test_loader_message_with_import_torch_in_words_is_an_import_error(sentence: str) -> None:
    text = (
        f"{sentence}\nImportError: libmkl_intel_lp64.so.1: cannot open shared object file: No such file or directory\n"
    )
    assert _ids(text)[:1] == ["torch_import_error"]


def test_loader_message_while_importing_another_package_is_not_torchs() -> None:
    text = (
        "When I import torch everything is fine, but import onnxruntime fails:\n"
        "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory\n"
    )
    assert "torch_import_error" not in _ids(text)
    assert not torch_import_said(["Does import torch fail for you too?"])


# ---- a native arm64 Mac with a torch that has MPS: no CUDA is the platform, not a fault ---------------------------


def test_arm64_mac_platform_string_with_mps_capable_torch_is_info_only() -> None:
    text = "- Platform: macOS-15.1-arm64-arm-64bit\n- Python version: 3.11.9\n- PyTorch version: 2.5.1\n"
    report = load_text(text)
    assert not [f.id for f in report.findings if f.severity is Severity.ERROR]
    assert report.facts.value("python.mac_ver") == "15.1"


@pytest.mark.parametrize(
    "platform",
    ["macOS-14.4-x86_64-i386-64bit", "macOS-11.7-arm64-arm-64bit"],
)
def test_intel_or_too_old_mac_still_has_no_usable_gpu(platform: str) -> None:
    text = f"- Platform: {platform}\n- Python version: 3.11.9\n- PyTorch version: 2.2.2\n"
    assert _errors(text)[:1] == ["macos_no_cuda_use_mps"]


# ---- nvidia-smi said to work: the driver is installed and its module loaded ----------------------------------------


def test_smi_said_working_in_a_container_drops_the_driver_guesses() -> None:
    text = (
        "docker run my-llm-image: torch says RuntimeError: Found no NVIDIA driver on your system.\n"
        "nvidia-smi works fine inside the container and shows both GPUs.\n"
    )
    ids = _ids(text)
    assert "no_nvidia_driver" not in ids
    assert "nvidia_module_not_loaded" not in ids


def test_smi_said_working_is_read_in_its_own_clause() -> None:
    assert smi_said_working(["nvidia-smi works fine, but torch fails: RuntimeError: Found no NVIDIA driver"])
    assert not smi_said_working(["torch fails and nvidia-smi is not working either"])


@pytest.mark.parametrize(
    "sentence",
    [
        "nvidia-smi does not work either.",
        "Does nvidia-smi work inside the container?",
        "nvidia-smi worked fine before the kernel update.",
    ],
)
def test_smi_not_said_working_keeps_the_driver_guess(sentence: str) -> None:
    lines = ["RuntimeError: Found no NVIDIA driver on your system.", sentence]
    assert not smi_said_working(lines)
    assert smi_working_rules_out_driver(lines, [Match("no_nvidia_driver", 1, lines[0], False, 0.7)])


# ---- the driver installed and the machine not rebooted since: the module is not running yet -----------------------


def test_no_device_on_a_host_not_rebooted_after_the_driver_install_is_the_module() -> None:
    text = (
        "deviceQuery: cudaGetDeviceCount returned 100 -> no CUDA-capable device is detected\n"
        "We ran it straight after installing the nvidia-driver-550 package, without rebooting the VM.\n"
    )
    assert _ids(text)[:1] == ["nvidia_module_not_loaded"]


@pytest.mark.parametrize(
    "sentence",
    [
        "I installed the driver and rebooted twice.",
        "It worked before the reboot, the driver is 550.",
        "Should I reboot after installing the driver?",
    ],
)
def test_rebooted_or_before_the_reboot_does_not_raise_the_module(sentence: str) -> None:
    assert not_rebooted_since_install([sentence]) is None
