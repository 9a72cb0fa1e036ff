"""Round 27 (issue #14): WSL 2 reaches the GPU only through the Windows driver in WDDM; a GPU in the TCC driver
model (nvidia-smi's TCC/WDDM column, -q's "Current : TCC", `nvidia-smi -dm 1`, or the user's words) is invisible
to WSL: wsl_libcuda_problem. TCC on native Windows, WDDM, and denials or questions about TCC claim nothing.
Synthetic texts."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text

SMI_TABLE_TCC = (
    "+-----------------------------------------------------------------------------+\n"
    "| NVIDIA-SMI 528.24       Driver Version: 528.24       CUDA Version: 12.0     |\n"
    "|-------------------------------+----------------------+----------------------+\n"
    "| GPU  Name            TCC/WDDM | Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
    "|===============================+======================+======================|\n"
    "|   0  Tesla T4            TCC  | 00000000:3B:00.0 Off |                    0 |\n"
    "+-------------------------------+----------------------+----------------------+\n"
)
TABLE_BESIDE_WSL = (
    "In WSL2 Ubuntu, torch.cuda.is_available() is False. nvidia-smi in PowerShell on the host:\n" + SMI_TABLE_TCC
)
QUERY_BESIDE_WSL = (
    "CUDA does not work inside WSL 2 on our server.\n"
    "    Driver Model\n"
    "        Current                           : TCC\n"
    "        Pending                           : TCC\n"
)
WORDS_IN_WSL = (
    "Using WSL2 on a Windows Server with a Tesla V100; the card runs in TCC mode and CUDA in WSL finds no GPU.\n"
)


@pytest.mark.parametrize("text", [TABLE_BESIDE_WSL, QUERY_BESIDE_WSL, WORDS_IN_WSL])
def test_tcc_under_wsl_is_wsl_path(text: str) -> None:
    ids = [f.id for f in load_text(text).findings]
    assert ids and ids[0] == "wsl_libcuda_problem"


# Counter-examples: TCC on native Windows is a working CUDA mode; WDDM in WSL; a denial; a question.
NATIVE_WINDOWS_TCC = "Training on Windows Server 2022, native Python, no issues so far.\n" + SMI_TABLE_TCC
WSL_WDDM = "WSL2 with an RTX A4000, driver 552.86 (WDDM mode); torch.cuda.is_available() returns True.\n"
WSL_NOT_TCC = "WSL2: my RTX 3090 is not in TCC mode (GeForce cards cannot be), CUDA works fine in Ubuntu.\n"
WSL_TCC_QUESTION = "Does WSL2 support a GPU in TCC mode? I might buy a Tesla card. CUDA works on my RTX now.\n"


@pytest.mark.parametrize("text", [NATIVE_WINDOWS_TCC, WSL_WDDM, WSL_NOT_TCC, WSL_TCC_QUESTION])
def test_no_claim_without_tcc_under_wsl(text: str) -> None:
    ids = [f.id for f in load_text(text).findings]
    assert "wsl_libcuda_problem" not in ids


def test_tcc_fix_switches_the_driver_model() -> None:
    found = next(f for f in load_text(WORDS_IN_WSL).findings if f.id == "wsl_libcuda_problem")
    assert "-dm 0" in found.fix and "To confirm:" in found.fix
    other = "Inside WSL2: /usr/lib/wsl/lib/libcuda.so.1 is missing, torch.cuda.is_available() False\n"
    assert all("-dm 0" not in f.fix for f in load_text(other).findings)


@pytest.mark.parametrize(
    "sentence",
    [
        "I don't want to switch the card to TCC, it drives my monitor.",
        "The RTX 4090 cannot run in TCC mode.",
        "Should I put the Tesla in TCC mode?",
    ],
)
def test_tcc_denied_or_asked_in_wsl_claims_nothing(sentence: str) -> None:
    text = f"WSL2 Ubuntu 22.04, CUDA works and training runs. {sentence}\n"
    assert "wsl_libcuda_problem" not in [f.id for f in load_text(text).findings]
