"""Round 27 (issue #14): nvidia-smi's "couldn't communicate with the NVIDIA driver" printed by nvidia-smi run on
Windows itself (a cmd.exe or PowerShell prompt, or the Windows build's "... NVIDIA GPU is in WDDM mode" tail) means the
Windows driver is missing or not running: no Linux kernel module and no WSL path is involved, even when the text
also talks about WSL. The same message under a Linux or WSL shell keeps its readings. Synthetic texts."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text
from gpuassist.ingest.windows_smi import run_on_windows

SMI_LINUX_FORM = (
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
    "Make sure that the latest NVIDIA driver is installed and running."
)
SMI_WINDOWS_FORM = (
    SMI_LINUX_FORM + " This can also be happening if non-NVIDIA GPU is running as primary display, and NVIDIA GPU is "
    "in WDDM mode."
)

CMD_PROMPT = (
    f"After a driver update my games still run but training is slow.\nC:\\Users\\ana>nvidia-smi\n{SMI_LINUX_FORM}\n"
)
POWERSHELL_PATH = (
    "Our Windows Server VM, after the unattended install:\n"
    "PS C:\\Users\\admin> & 'C:\\Program Files\\NVIDIA Corporation\\NVSMI\\nvidia-smi.exe'\n"
    ">>\n"
    f"{SMI_LINUX_FORM}\n"
)
WINDOWS_FORM_BESIDE_WSL = (
    f"WSL used to see my GPU, now torch in Ubuntu says no CUDA. On Windows I ran nvidia-smi:\n{SMI_WINDOWS_FORM}\n"
)


@pytest.mark.parametrize("text", [CMD_PROMPT, POWERSHELL_PATH, WINDOWS_FORM_BESIDE_WSL])
def test_smi_failing_on_windows_is_no_driver(text: str) -> None:
    ids = [f.id for f in load_text(text).findings]
    assert ids and ids[0] == "no_nvidia_driver"
    assert "nvidia_module_not_loaded" not in ids and "wsl_libcuda_problem" not in ids


# Counter-examples: the same message printed inside WSL or on Linux is not Windows' driver.
INSIDE_WSL = f"Using WSL2 with Ubuntu 22.04\nana@DESKTOP-1:~$ nvidia-smi\n{SMI_LINUX_FORM}\n"
ON_LINUX = f"Ubuntu 22.04 after a kernel update\nana@box:~$ nvidia-smi\n{SMI_LINUX_FORM}\n"
# A Windows prompt above, but the last command before the message is a WSL shell's.
WINDOWS_THEN_WSL = f"Using WSL2\nC:\\Users\\ana>wsl\nana@DESKTOP-1:/mnt/c/Users/ana$ nvidia-smi\n{SMI_LINUX_FORM}\n"


def test_smi_inside_wsl_stays_wsl() -> None:
    for text in (INSIDE_WSL, WINDOWS_THEN_WSL):
        ids = [f.id for f in load_text(text).findings]
        assert ids and ids[0] == "wsl_libcuda_problem"


def test_smi_on_linux_stays_kernel_module() -> None:
    ids = [f.id for f in load_text(ON_LINUX).findings]
    assert ids and ids[0] != "no_nvidia_driver"


def test_prompt_reading() -> None:
    lines = ["C:\\work>python train.py", SMI_LINUX_FORM]
    assert not run_on_windows(lines, 2)  # a Windows prompt running something else
    assert run_on_windows(["PS C:\\> nvidia-smi", SMI_LINUX_FORM], 2)
    assert run_on_windows([SMI_WINDOWS_FORM], 1)


def test_fix_is_the_windows_installer_not_a_linux_package() -> None:
    found = next(f for f in load_text(CMD_PROMPT).findings if f.id == "no_nvidia_driver")
    assert "Windows" in found.fix and "apt install" not in found.fix and "To confirm:" in found.fix
    linux = "ana@box:~$ nvidia-smi\nNVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"
    assert all("NVIDIA driver for Windows" not in f.fix for f in load_text(linux).findings)
