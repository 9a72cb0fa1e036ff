"""macOS changes the answer entirely: there is no CUDA there (use MPS)."""

from __future__ import annotations

from packaging.version import InvalidVersion, Version

from gpuassist.facts import Facts
from gpuassist.findings import Finding, Severity
from gpuassist.knowledge.wheels import macos_arm64_newest_release, parse_torch_version
from gpuassist.rules import fixes, view
from gpuassist.rules.make import finding
from gpuassist.rules.registry import rule

# MPS needs macOS 12.3 (https://pytorch.org/docs/stable/notes/mps.html) and torch 1.12, its first release.
MPS_MIN_MACOS = Version("12.3")
MPS_MIN_TORCH = Version("1.12")


def _rosetta(facts: Facts) -> bool:
    return facts.value("platform.rosetta") is True


@rule("macos_no_cuda_use_mps")
def macos_no_cuda_use_mps(facts: Facts) -> Finding | None:
    if not view.is_macos(facts) or _rosetta(facts) or facts.value("cuda.available"):
        return None  # old macOS CUDA builds (up to torch 1.x on 10.13) did work
    mac_ver = facts.value("python.mac_ver") or facts.value("host.distro")
    if facts.value("mps.available"):
        return _use_mps(
            facts,
            "This torch can use the Apple GPU through the MPS backend, and MPS is available.",
            ("host.os", "mps.built", "mps.available", "python.mac_ver"),
        )
    if facts.value("torch.version") is None and not facts.known("mps.available"):
        return None
    if _mps_expected(facts):
        return _use_mps(
            facts,
            f"This is a native arm64 Python on macOS {mac_ver} with torch {facts.value('torch.version')}, which has "
            "the MPS backend for the Apple GPU; the text does not say whether MPS is available.",
            ("host.os", "python.machine", "python.mac_ver", "torch.version"),
        )
    why = (
        "this torch was built without MPS"
        if facts.value("mps.built") is False
        else (
            f"MPS needs Apple silicon and a recent macOS (this is {mac_ver or 'unknown'}); PyTorch's MPS support "
            "targets macOS 14 (Sonoma) or later"
        )
    )
    arm = str(facts.value("python.machine") or "").lower() == "arm64"
    newest = macos_arm64_newest_release(str(facts.value("python.mac_ver") or "")) if arm else None
    return finding(
        "macos_no_cuda_use_mps",
        Severity.ERROR,
        title="macOS has no CUDA, and MPS is not available either",
        explanation=f"CUDA does not exist on macOS; the Apple GPU is used through MPS, but {why}.",
        fix=(
            "On Apple silicon: update macOS to 14 or later and use a native arm64 Python, then\n"
            f"  {fixes.pip(facts)} install --upgrade torch\n"
            + (
                f"Until macOS is updated, torch {newest} is the newest release with a wheel for macOS {mac_ver} "
                f'(PyPI\'s arm64 wheels need macOS 14 from 2.12): {fixes.pip(facts)} install "torch=={newest}.*"\n'
                if newest
                else ""
            )
            + "Intel Macs cannot use the GPU with current PyTorch; use the CPU or a Linux/Windows machine "
            "with an NVIDIA GPU."
        ),
        evidence=view.ev(facts, "host.os", "python.machine", "python.mac_ver", "mps.built", "mps.available"),
    )


def _use_mps(facts: Facts, situation: str, evidence: tuple[str, ...]) -> Finding:
    """The note for a Mac whose GPU is reached through MPS: CUDA's absence is the platform, not a fault."""
    return finding(
        "macos_no_cuda_use_mps",
        Severity.INFO,
        title="macOS has no CUDA: use the Apple GPU through MPS",
        explanation=("CUDA does not exist on macOS, so torch.cuda.is_available() is always False there. " + situation),
        fix=(
            "Use the MPS device:\n"
            "  device = torch.device('mps' if torch.backends.mps.is_available() else 'cpu')\n"
            "  model.to(device); x = x.to(device)\n"
            "For operators MPS lacks, set PYTORCH_ENABLE_MPS_FALLBACK=1."
        ),
        evidence=view.ev(facts, *evidence),
    )


def _mps_expected(facts: Facts) -> bool:
    """MPS's availability is not stated, but everything it needs is: a native arm64 interpreter (platform.machine(),
    so not Rosetta), macOS 12.3 or later (MPS's minimum; PyTorch docs "MPS backend") and a torch from 1.12 (the
    first with MPS) that was not built without it. Then a missing CUDA is the platform, not a fault."""
    if facts.known("mps.available") or facts.value("mps.built") is False:
        return False
    if str(facts.value("python.machine") or "").lower() != "arm64":
        return False
    mac = _version(str(facts.value("python.mac_ver") or ""))
    torch_version = _version(parse_torch_version(str(facts.value("torch.version") or "")).release)
    if mac is None or torch_version is None:
        return False
    return mac >= MPS_MIN_MACOS and torch_version >= MPS_MIN_TORCH


def _version(text: str) -> Version | None:
    try:
        return Version(text.strip())
    except InvalidVersion:
        return None


@rule("macos_rosetta_x86_python")
def macos_rosetta_x86_python(facts: Facts) -> Finding | None:
    if not view.is_macos(facts) or not _rosetta(facts):
        return None
    return finding(
        "macos_rosetta_x86_python",
        Severity.ERROR,
        explanation=(
            "This Mac has Apple silicon, but the Python interpreter is an x86_64 build running under Rosetta. "
            "x86_64 macOS has no current PyTorch wheels and no MPS acceleration."
        ),
        fix=(
            "Install a native arm64 Python (python.org universal2 installer, Homebrew in /opt/homebrew, or "
            "Miniforge arm64), create the environment again and reinstall torch there. Check with:\n"
            '  python -c "import platform; print(platform.machine())"   # must print arm64'
        ),
        evidence=view.ev(facts, "platform.rosetta", "python.machine", "host.machine"),
        explains=["macos_no_cuda_use_mps"],
    )
