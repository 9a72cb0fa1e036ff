"""Precision of round 23 (issue #14): wrong claims the fresh-eyes review left open, fixed as classes.

Each case is a realistic synthetic text a user could paste. The decoys must claim nothing of the cause under review
(a claim on them is a miss); the same class in other wordings must still be read.
"""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text
from gpuassist.ingest.gpuless_machine import stated_gpuless_machine
from gpuassist.ingest.other_machine import said_of_another_machine


def _findings(text: str) -> dict[str, str]:
    return {f.id: f.severity.value for f in load_text(text).findings}


# --- 1. "no GPU" said of another machine ------------------------------------------------------------------------

INSUFFICIENT = "RuntimeError: CUDA driver version is insufficient for CUDA runtime version\n"


@pytest.mark.parametrize(
    "text",
    [
        # the laptop the user moved from had no GPU; this machine's driver is the question
        "My old laptop has no NVIDIA GPU, so I moved to my new desktop.\n" + INSUFFICIENT,
        "My previous laptop doesn't have a dedicated GPU, this one should.\ntorch.cuda.is_available() returns False\n",
        # the cluster's login node has no GPU; the job ran on a compute node
        "The login node has no NVIDIA GPU, I run the job on a compute node.\ntorch.cuda.is_available() returns False\n",
        # a colleague's PC without a GPU, as a comparison
        "My colleague's PC has no NVIDIA GPU and it runs there on the CPU; on mine:\n" + INSUFFICIENT,
        "It works on my coworker's laptop, which has no dedicated GPU, but here I get\n" + INSUFFICIENT,
    ],
)
def test_no_gpu_of_another_machine_is_not_this_one(text: str) -> None:
    assert stated_gpuless_machine(text.splitlines()) is None
    assert _findings(text).get("no_nvidia_gpu") != "error"


@pytest.mark.parametrize(
    "text",
    [
        "My laptop doesn't have an NVIDIA GPU.\n" + INSUFFICIENT,
        "I'm running on Windows 11 without a dedicated GPU.\ntorch.cuda.is_available() returns False\n",
        "This machine has no NVIDIA graphics card, but the script calls .cuda():\n"
        "AssertionError: Torch not compiled with CUDA enabled\nCUDA is not available\n",
    ],
)
def test_no_gpu_of_this_machine_is_still_read(text: str) -> None:
    assert stated_gpuless_machine(text.splitlines()) is not None
    assert "no_nvidia_gpu" in _findings(text)


def test_other_machine_words() -> None:
    assert said_of_another_machine("my friend's gaming PC has no NVIDIA GPU")
    assert said_of_another_machine("the head node has no GPU")
    assert not said_of_another_machine("my laptop has no NVIDIA GPU")


# --- 2. another package's DLL -----------------------------------------------------------------------------------

WIN126 = "OSError: [WinError 126] The specified module could not be found. "


@pytest.mark.parametrize(
    "text",
    [
        # torchaudio's extension loaded through torch.ops.load_library: torchaudio's DLL (or a dependency) is missing
        "Traceback (most recent call last):\n"
        '  File "C:\\proj\\train.py", line 2, in <module>\n'
        "    import torchaudio\n"
        '  File "C:\\Users\\u\\venv\\Lib\\site-packages\\torch\\_ops.py", line 1350, in load_library\n'
        "    ctypes.CDLL(path)\n"
        '  File "C:\\Python311\\Lib\\ctypes\\__init__.py", line 376, in __init__\n'
        "    self._handle = _dlopen(self._name, mode)\n"
        + WIN126
        + 'Error loading "C:\\Users\\u\\venv\\Lib\\site-packages\\torchaudio\\lib\\libtorchaudio.pyd" '
        "or one of its dependencies.\n",
        # a torch DLL name in another package's folder: that package's copy, not torch's loading
        WIN126 + 'Error loading "C:\\Python310\\Lib\\site-packages\\torchvision\\lib\\c10.dll" '
        "or one of its dependencies.\n",
        WIN126 + 'Error loading "C:\\Users\\u\\venv\\Lib\\site-packages\\numpy\\.libs\\libiomp5md.dll" '
        "or one of its dependencies.\n",
        WIN126 + 'Error loading "C:\\Users\\u\\miniconda3\\envs\\cv\\Library\\bin\\libiomp5md.dll" '
        "or one of its dependencies.\n",
        WIN126 + 'Error loading "C:\\venv\\Lib\\site-packages\\onnxruntime\\capi\\onnxruntime_providers_cuda.dll" '
        "or one of its dependencies.\ntorch.cuda.is_available() is True\n",
        "import cv2 fails while torch works:\n"
        "ImportError: DLL load failed while importing cv2: The specified module could not be found.\n",
        "C:\\venv\\Lib\\site-packages\\torchvision\\lib\\c10.dll is missing, torch itself imports fine\n",
    ],
)
def test_another_packages_dll_is_not_torchs_import(text: str) -> None:
    assert "torch_import_error" not in _findings(text)


@pytest.mark.parametrize(
    "text",
    [
        WIN126 + 'Error loading "C:\\Users\\u\\venv\\Lib\\site-packages\\torch\\lib\\c10.dll" '
        "or one of its dependencies.\n",
        WIN126 + 'Error loading "...\\lib\\fbgemm.dll" or one of its dependencies.\n',
        'Error loading "fbgemm.dll" or one of its dependencies.\n',
        "Traceback (most recent call last):\n"
        '  File "C:\\proj\\main.py", line 1, in <module>\n'
        "    import torch\n"
        '  File "C:\\Users\\u\\venv\\Lib\\site-packages\\torch\\__init__.py", line 141, in <module>\n'
        "    raise err\n"
        "OSError: [WinError 127] The specified procedure could not be found.\n",
    ],
)
def test_torchs_own_dll_is_still_its_import(text: str) -> None:
    assert _findings(text).get("torch_import_error") == "error"


def test_torch_dll_named_missing_in_torch_lib_is_still_a_possibility() -> None:
    assert "torch_import_error" in _findings("C:\\venv\\Lib\\site-packages\\torch\\lib\\c10.dll is missing\n")


# --- 3. "unknown error" of a program that is not CUDA -----------------------------------------------------------

UNKNOWN_CAUSES = ("uvm_wedged_after_suspend", "nvidia_module_not_loaded")


@pytest.mark.parametrize(
    "text",
    [
        "I have an RTX 3060 and the NVIDIA driver 550.\nSteam: Update failed: unknown error\n",
        "Installing torch for my NVIDIA GPU with pip:\nERROR: Could not install packages: failed: unknown error\n",
        "My GPU is an RTX 4070.\nThe game launcher shows: Download failed: unknown\n",
        "NVIDIA RTX 3060 here.\nGame crashed. Error 30: unknown error\n",
        "RTX 3060, driver 550.\nsetup.exe error=5 unknown error\n",
    ],
)
def test_unknown_error_of_other_programs_claims_nothing(text: str) -> None:
    found = _findings(text)
    assert not any(cause in found for cause in UNKNOWN_CAUSES)


@pytest.mark.parametrize(
    "text",
    [
        "RuntimeError: CUDA error: unknown error\n",
        "pycuda._driver.Error: cuInit failed: unknown error\n",
        "cudaGetDeviceCount returned 999\n-> unknown error\n",
        "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCGeneral.cpp line=50 error=30 : unknown error\n",
        "Check failed: error == cudaSuccess (30 vs. 0)  unknown error\n",
        "RuntimeError: cuda runtime error (30) : unknown error at /pytorch/aten/src/THC/THCGeneral.cpp:51\n",
    ],
)
def test_cudas_unknown_error_is_still_read(text: str) -> None:
    found = _findings(text)
    assert all(cause in found for cause in UNKNOWN_CAUSES)
