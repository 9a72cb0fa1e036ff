"""torch as an operating system's own package: which of those packages are built without CUDA.

Distributions build torch from source, and most build it without CUDA unless the package's name says otherwise
(each name read in its packaging source):

- nixpkgs: ``python3Packages.torch`` (formerly ``pytorch``) is built with ``cudaSupport ? config.cudaSupport``, which is
  false by default (CUDA is unfree); ``torchWithCuda`` / ``pytorchWithCuda`` turn it on, ``torchWithRocm`` builds for
  ROCm, ``torchWithoutCuda`` is explicit, and ``torch-bin`` / ``pytorch-bin`` repackage pytorch.org's CUDA wheels
  (pkgs/development/python-modules/torch/default.nix, bin.nix; pkgs/top-level/python-packages.nix).
- Debian / Ubuntu: source package ``pytorch`` builds ``python3-torch`` for the CPU; ``pytorch-cuda`` (contrib) builds
  ``python3-torch-cuda`` and ``pytorch-rocm`` builds ``python3-torch-rocm`` (salsa.debian.org/deeplearning-team).
- Arch Linux: ``python-pytorch`` and ``python-pytorch-opt`` (AVX2) are CPU builds; ``python-pytorch-cuda``,
  ``python-pytorch-opt-cuda``, ``python-pytorch-rocm`` and ``python-pytorch-opt-rocm`` are the GPU ones (the
  python-pytorch PKGBUILD's split packages).
- Fedora: ``python3-torch`` (Fedora's python-torch spec) has no CUDA: Fedora ships no CUDA toolkit.
- Homebrew: the ``pytorch`` formula builds torch without CUDA.

Such a package shown installed or used, in a text that says CUDA is unavailable, is the CPU build that explains it.
A text that only installs it (no complaint) is left alone: a CPU package is a fine choice for a CPU machine.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE, repl_answer

# nix: "nix-shell -p python310Packages.pytorch", "with python3Packages; [ torch ]" is not read (no package path).
NIX_CPU = re.compile(r"\bpython\d*Packages\.(?:py)?torch(?:WithoutCuda)?(?![\w-])(?!\s*\.override)", re.IGNORECASE)
# CUDA turned on for the source build itself (an override, nixpkgs' config); -bin and WithCuda are their own names.
NIX_CUDA_ON = re.compile(r"\bcudaSupport\s*=\s*true\b")
# An installer or package listing naming a distribution's CPU torch package (not its -cuda / -rocm sibling).
DISTRO_CPU = re.compile(
    r"\b(?:apt(?:-get)?|aptitude|dnf|yum|zypper)\s+(?:-\S+\s+)*install\b[^\n]*?(?<![\w-])python3-torch(?![\w-])|"
    r"^\s*ii\s+python3-torch(?::\w+)?\s+\d|"
    r"\bpacman\s+-S\w*\s[^\n]*?(?<![\w-])python-pytorch(?:-opt)?(?![\w-])|"
    r"^\s*python-pytorch(?:-opt)?\s+\d[\w.:+-]*-\d+\s*$|"
    r"\bbrew\s+install\s+(?:\S+\s+)*?pytorch(?![\w-])",
    re.IGNORECASE,
)


def _cpu_package_line(lines: list[str]) -> tuple[int, str] | None:
    text = "\n".join(line[:MAX_LINE] for line in lines)
    nix_cuda = bool(NIX_CUDA_ON.search(text))
    for no, raw in enumerate(lines, start=1):
        line = raw[:MAX_LINE]
        if (NIX_CPU.search(line) and not nix_cuda) or DISTRO_CPU.search(line):
            return no, line
    return None


def _unavailable_after(lines: list[str], no: int) -> bool:
    """CUDA said unavailable by the package's own run: is_available() on its line answered False there or on one of the
    next two lines."""
    line = lines[no - 1][:MAX_LINE]
    if "is_available" not in line and not any("is_available" in x[:MAX_LINE] for x in lines[no : no + 1]):
        return False
    return bool(re.search(r"\bFalse\b", line)) or any(repl_answer(x[:MAX_LINE]) is False for x in lines[no : no + 2])


def distro_cpu_torch_match(lines: list[str], *, unavailable: bool) -> Match | None:
    """A distribution's CPU-only torch package in a text where CUDA is unavailable (that package's own run answering
    False, or the text saying so): the build has no CUDA."""
    found = _cpu_package_line(lines)
    if found is None:
        return None
    no, line = found
    if not (unavailable or _unavailable_after(lines, no)):
        return None
    return Match("cpu_only_build", no, line.strip()[:500], True, 0.85)
