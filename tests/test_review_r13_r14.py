"""Fresh-eyes review of the round 13/14 readers (issue #14): synthetic texts a user could paste, in wordings other
than the threads they were read from, where each reader must fire, and decoys (questions, negations, other
devices, code, quoted docs, past hardware) where it must not."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text
from gpuassist.ingest.cuda_working import cuda_shown_working


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


FIRES = [
    (
        "Device Manager's Code 43 on the GPU in the user's words",
        "In Device Manager my GeForce RTX 2070 has a yellow mark: Windows has stopped this device because it has "
        "reported problems. (Code 43)",
        "gpu_xid_fault",
    ),
    # (reason, text, the id that must be among the findings)
    (
        "the host slept and CUDA fails after, told without the thread's words",
        "Ever since my Ubuntu box woke up from sleep, CUDA fails with error 999 in PyTorch although nvidia-smi "
        "shows the card.",
        "uvm_wedged_after_suspend",
    ),
    (
        "a laptop lid closed, the GPU lost on wake, work on the CPU",
        "When I close the lid and the laptop goes to sleep, on wake-up torch can't use the gpu anymore: it falls "
        "back to cpu.",
        "uvm_wedged_after_suspend",
    ),
    (
        "the core module said not loaded in a retold log",
        "After the reboot the pod fails: the logs complained that the kernel module nvidia is not loaded.",
        "nvidia_module_not_loaded",
    ),
    (
        "nvidia-uvm with a contracted negation ('isn't loaded')",
        "cuda init fails in enroot; dmesg is clean but nvidia-uvm isn't loaded on the node.",
        # round 18 (fx20-sys): UVM not loaded with no sleep in the text is a module never loaded, the module class
        "nvidia_module_not_loaded",
    ),
    (
        "an AMD card owned, named by its RX model",
        "torch.cuda.is_available() is False. I have a Radeon RX 6800 card, is that the problem?",
        "no_nvidia_gpu",
    ),
    (
        "an AMD graphics card in a question about this machine",
        "Is there any way to use this on my AMD graphics card? It says Torch not compiled with CUDA enabled.",
        "no_nvidia_gpu",
    ),
    (
        "a cp310 wheel forced into Python 3.11: torch._C does not import",
        "Python 3.11.4 (main, Jun 7 2023)\n$ pip install torch-2.0.0-cp310-cp310-win_amd64.whl\n>>> import torch\n"
        "ModuleNotFoundError: No module named 'torch._C'",
        "no_wheel_for_platform",
    ),
    (
        "a CPU torch from an install, in the future tense",
        "Whatever I do, conda installs pytorch and the torch will be cpu version; torch.cuda.is_available() False",
        "cpu_only_build",
    ),
    (
        "Docker's GPU request on an Apple silicon Mac",
        "macOS 14.2 on Apple M1\n$ docker run --gpus all nvidia/cuda:12.2.0-base nvidia-smi\n"
        'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].',
        "no_nvidia_gpu",
    ),
    (
        "an image platform warning with the same platform keeps the toolkit reading",
        "WARNING: The requested image's platform (linux/amd64) does not match the detected host platform "
        "(linux/amd64) and no specific platform was requested\n"
        'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].',
        "docker_no_gpu_runtime",
    ),
    (
        "'nvidia 5090' names a Blackwell GeForce for a cu121 build's kernel-image error",
        "torch 2.5.1+cu121 on my nvidia 5090: CUDA error: no kernel image is available for execution on the device",
        "gpu_arch_too_new_for_build",
    ),
    (
        "nvidia-smi is not on PATH and the user says no driver is installed: 'no driver' stays",
        "nvidia-smi -L\n'nvidia-smi' is not recognized as an internal or external command\n"
        "I don't have any driver installed yet.",
        "no_nvidia_driver",
    ),
]

QUIET = [
    # (reason, text, the id that must not be among the findings)
    (
        "a question before enabling hibernation: nothing has failed",
        "My laptop with an RTX 3060 works fine with CUDA. Will the GPU stop working after suspend if I enable "
        "hibernation? Just asking before I do it.",
        "uvm_wedged_after_suspend",
    ),
    (
        "the failure denied after resume; another problem (a monitor)",
        "After resume from suspend the GPU did not fail, CUDA still works; the problem is my external monitor "
        "flickers.",
        "uvm_wedged_after_suspend",
    ),
    (
        "'since sleep is disabled' denies the sleep: the failure has another cause",
        "Since sleep is disabled on this workstation, that cannot be it: torch says CUDA not available on the GPU and "
        "nvidia-smi fails.",
        "uvm_wedged_after_suspend",
    ),
    (
        "a GPU named by a vendor and number the user only plans to buy; the GTX 1070 in use is fine for cu121",
        "I'm considering buying an nvidia 5090 next year. For now my GTX 1070 with torch 2.1.0+cu121 gives "
        "RuntimeError: CUDA error: no kernel image is available for execution on the device",
        "gpu_arch_too_new_for_build",
    ),
    (
        "the wifi stops after suspend, the GPU is fine",
        "After suspend my wifi fails to reconnect. The NVIDIA GPU is fine and torch.cuda.is_available() returns True.",
        "uvm_wedged_after_suspend",
    ),
    (
        "lsmod shows the UVM module loaded and its node present",
        "I checked lsmod: nvidia_uvm is loaded and /dev/nvidia-uvm exists. Still torch.cuda.is_available() returns "
        "False in my script and I can't find why.",
        "uvm_wedged_after_suspend",
    ),
    (
        "'not missing, it was loaded' is not a missing module",
        "I checked: nvidia_uvm is not missing, it was loaded. But training fails.",
        "nvidia_module_not_loaded",
    ),
    (
        "an AMD CPU beside an NVIDIA GPU",
        "I am on an AMD Ryzen 9 CPU with an RTX 4090, torch.cuda.is_available() returns False.",
        "no_nvidia_gpu",
    ),
    (
        "someone else's AMD GPU",
        "My friend has an AMD GPU; I have a GeForce RTX 3070 and CUDA is False.",
        "no_nvidia_gpu",
    ),
    (
        "an AMD iGPU beside an NVIDIA laptop dGPU",
        "Laptop: my AMD Radeon graphics is the integrated one, the dGPU is an RTX 3050 Laptop GPU. CUDA is False.",
        "no_nvidia_gpu",
    ),
    (
        "an AMD card replaced, the new one not named",
        "I replaced my AMD card with a new one last week. torch.cuda.is_available() False",
        "no_nvidia_gpu",
    ),
    (
        "an AMD GPU the user used to have",
        "I used to have an AMD GPU, now I have an RTX 3080 and torch still says CUDA not available.",
        "no_nvidia_gpu",
    ),
    (
        "torch._C missing from running inside the source tree, wheel for this very Python",
        "Python 3.10.12\nI installed torch-2.1.0-cp310-cp310-linux_x86_64.whl\n"
        "ModuleNotFoundError: No module named 'torch._C'\nI ran python from inside the pytorch source folder.",
        "no_wheel_for_platform",
    ),
    (
        "renaming some other file is not renaming the wheel",
        "I renamed the file config.yaml and now: ModuleNotFoundError: No module named 'torch._C'",
        "no_wheel_for_platform",
    ),
    (
        "an RTX 4090 user who tried ROCm once: the CUDA build's arch error keeps its CUDA reading",
        "I first tried ROCm, now on my RTX 4090:\n"
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\ntorch 2.0.1+cu117",
        "rocm_gpu_unsupported_or_no_access",
    ),
    (
        "a Bluetooth adapter's Code 28 on a line that also names the working GPU",
        "Device Manager: Bluetooth adapter shows (Code 28). My NVIDIA GeForce RTX 3060 works; "
        "torch.cuda.is_available() False",
        "no_nvidia_driver",
    ),
    (
        "a CUDA sample's error code beside Device Manager saying the GPU works",
        "Device Manager lists my NVIDIA GeForce GTX 960 as working properly, driver 391.35.\n"
        "deviceQuery: cudaGetDeviceCount returned error code 10 -> invalid device ordinal",
        "gpu_xid_fault",
    ),
    (
        "a program's exit code is not a Device Manager code",
        "Device Manager: NVIDIA GeForce RTX 3060, working properly.\nProcess finished with exit code 28",
        "no_nvidia_driver",
    ),
    (
        "the GPU's HDMI audio function without its driver is not the GPU",
        "Device Manager\nDisplay adapters: NVIDIA GeForce GTX 1660 SUPER\n"
        "NVIDIA High Definition Audio - The drivers for this device are not installed. (Code 28)",
        "no_nvidia_driver",
    ),
    (
        "a question whether pip's torch will be the CPU build",
        "Will the torch be cpu version if I install from pypi without index-url? My CUDA works fine.",
        "cpu_only_build",
    ),
    (
        "code that picks mps, run on a Linux GPU",
        'device = "mps" if torch.backends.mps.is_available() else "cuda"\nprint(f"device: {device}")\n'
        "RuntimeError: CUDA error: out of memory on my RTX 3090",
        "no_nvidia_gpu",
    ),
    (
        "a program's mps log line quoted as code, the user on Linux",
        'logger.info("Using device: mps")  # on Mac\nOn my Linux server with RTX 3090: torch.cuda.is_available() '
        "returns False",
        "mps_not_cuda",
    ),
    (
        "a question about Docker on a Mac, no GPU error",
        "MacBook Pro M2, macOS 14. Docker Desktop.\nQuestion: can I run my CUDA image on a Linux server later? "
        "Locally I use MPS and it works.",
        "no_nvidia_gpu",
    ),
    (
        "'nvidia 570 driver' is a driver branch, not a GPU number",
        "I installed the nvidia 570 driver; torch.cuda.is_available() False",
        "gpu_arch_too_new_for_build",
    ),
    (
        "'nvidia 4000 series drivers' is no GPU, the user's GPU is a GTX 1080",
        "The nvidia 4000 series drivers are buggy. torch 2.0.1+cu117 works fine on my GTX 1080.",
        "gpu_arch_too_new_for_build",
    ),
]


@pytest.mark.parametrize(("reason", "text", "fid"), FIRES, ids=[c[0] for c in FIRES])
def test_reader_fires_on_its_class_in_other_words(reason: str, text: str, fid: str) -> None:
    assert fid in _ids(text), reason


@pytest.mark.parametrize(("reason", "text", "fid"), QUIET, ids=[c[0] for c in QUIET])
def test_reader_stays_quiet_on_a_decoy(reason: str, text: str, fid: str) -> None:
    assert fid not in _ids(text), reason


MORE_QUIET = [
    (
        "NVML's init failure in words on the host, a container named only to say there is none",
        "nvidia-smi on the host says nvml init failed with unknown error after the driver update; no docker "
        "involved, I reboot and it works.",
        "container_gpu_access_lost",
    ),
    (
        "a script's own lsmod check that prints the words, never printed",
        "```\nif ! lsmod | grep -q nvidia_uvm; then echo 'nvidia_uvm not loaded'; fi\n```\n"
        "This check in my script never prints anything; the training fails with a NaN loss.",
        "uvm_wedged_after_suspend",
    ),
    (
        "a benchmark's CSV row (model, score) is not nvidia-smi's name,driver_version: 'no driver' stays",
        "model, score\nRTX 4090, 165.32\n'nvidia-smi' is not recognized as an internal or external command\n"
        "I never installed the NVIDIA driver on this fresh Windows.",
        "no_nvidia_driver",
    ),
]


def test_nvidia_smi_csv_with_a_driver_version_still_rules_out_no_driver() -> None:
    """nvidia-smi's own --query-gpu=name,driver_version row shows the driver answered."""
    text = (
        "GeForce RTX 3060, 535.104.05\n'nvidia-smi' is not recognized as an internal or external command\n"
        "torch.cuda.is_available() False"
    )
    assert "no_nvidia_driver" not in _ids(text)


@pytest.mark.parametrize(("reason", "text", "fid"), MORE_QUIET[:2], ids=[c[0] for c in MORE_QUIET[:2]])
def test_more_decoys_stay_quiet(reason: str, text: str, fid: str) -> None:
    assert fid not in _ids(text), reason


def test_a_benchmark_row_does_not_rule_out_no_driver() -> None:
    reason, text, fid = MORE_QUIET[2]
    assert fid in _ids(text), reason


@pytest.mark.parametrize(
    "text",
    [
        # an assertion that fails: the comparison is the question, AssertionError the answer
        "    assert torch.cuda.is_available() == True\nAssertionError",
        # the code's own branch, not an answer printed by it
        "if torch.cuda.is_available() == True:\n    device = 'cuda'",
        "assert torch.cuda.device_count() == 1, 'need one GPU'\nAssertionError: need one GPU",
    ],
)
def test_code_comparing_is_available_to_true_is_not_cuda_shown_working(text: str) -> None:
    assert not cuda_shown_working(text.splitlines())


@pytest.mark.parametrize(
    "text",
    [
        "cuda_available: True",
        "CUDA available = True",
        "torch.cuda.is_available() = True",
        ">>> torch.cuda.is_available()\nTrue",
    ],
)
def test_answers_and_fields_still_show_cuda_working(text: str) -> None:
    assert cuda_shown_working(text.splitlines())


@pytest.mark.parametrize(
    ("reason", "text"),
    [
        (
            "nvidia_drm not loaded on a headless server where torch sees the GPU",
            "nvidia_drm module is not loaded since the server is headless, which is expected.\n"
            "$ python -c 'import torch; print(torch.cuda.is_available())'\nTrue\n"
            "But my training fails to converge after epoch 3.",
        ),
        (
            "nvidia_modeset not loaded while nvidia-smi answers: display modules only",
            "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |\n"
            "nvidia_modeset is not loaded (headless). The container build fails with a pip error.",
        ),
    ],
)
def test_a_display_module_missing_on_a_working_driver_is_not_a_cause(reason: str, text: str) -> None:
    assert "nvidia_module_not_loaded" not in _ids(text), reason


def test_a_display_module_missing_with_nothing_working_is_still_read() -> None:
    """enroot's case: the runtime needs /dev/nvidia-modeset and the text shows no working driver."""
    text = "After the reboot the container fails to start: could not find /dev/nvidia-modeset."
    assert "nvidia_module_not_loaded" in _ids(text)
