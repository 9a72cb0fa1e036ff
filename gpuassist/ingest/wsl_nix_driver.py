"""A Nix-built program on WSL that looks for the driver's libraries where NixOS puts them, and finds none.

On WSL 2 the Windows driver provides libcuda.so.1 (and libnvidia-ml, libdxcore) under /usr/lib/wsl/lib, and NVIDIA's
CUDA-on-WSL guide says not to install a Linux driver inside WSL. Programs built by Nix do not search the system's
library directories: they find the driver's libraries through /run/opengl-driver/lib, which only NixOS's driver
module populates (wiki.nixos.org/wiki/CUDA and /wiki/OpenGL; NixOS/nixpkgs#255070; program_fixes.py's NixOS row; not
re-read in round 29, the search budget was spent). A text on WSL that says /run/opengl-driver/lib does not exist (in
words or as ls/stat's "No such file or directory") is a process that cannot find WSL's libcuda
(wsl_libcuda_problem, a guess: link /usr/lib/wsl/lib into /run/opengl-driver/lib or put it on LD_LIBRARY_PATH); the
"install the driver" guesses are wrong there. Without WSL in the text (NixOS itself, where the directory missing is
the driver not enabled) or with the directory said to exist, nothing is claimed.
"""

from __future__ import annotations

import re

from gpuassist.ingest import prose
from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

WSL = re.compile(r"\bWSL\s?2?\b|microsoft-standard-WSL|/usr/lib/wsl\b", re.IGNORECASE)
NOT_WSL = re.compile(r"\b(?:not|no|without|outside(?:\s+of)?)\s+(?:on\s+|in\s+|using\s+)?(?:the\s+)?WSL", re.IGNORECASE)
NIX_DRIVER_DIR = re.compile(r"/run/opengl-driver\b", re.IGNORECASE)
# The directory (or "that library/folder/path") said absent: in words or as a tool's ENOENT.
ABSENT = re.compile(
    r"\b(?:does\s*n[o']?t|do\s*n[o']?t|did\s*n[o']?t|not|never)\s+exists?\b|\bno such file or directory\b|"
    r"\b(?:is|are)\s+(?:missing|absent|empty)\b|\bthere\s+is\s+no\b",
    re.IGNORECASE,
)
GIVES_WAY = frozenset({"no_nvidia_driver", "nvidia_module_not_loaded"})
NEAR = 4  # sentences: the directory named, then "that library does not exist" a few sentences on


def nix_driver_dir_missing_on_wsl(lines: list[str], matches: list[Match]) -> list[Match]:
    """On WSL, Nix's driver directory /run/opengl-driver/lib said not to exist: WSL's libcuda is not found."""
    if any(m.id == "wsl_libcuda_problem" for m in matches) or any(
        m.specific and m.id not in GIVES_WAY for m in matches
    ):
        return matches
    cut = [line[:MAX_LINE] for line in lines[:5000]]
    if not any(WSL.search(NOT_WSL.sub(" ", line)) for line in cut) or not any(NIX_DRIVER_DIR.search(x) for x in cut):
        return matches
    said = [(no, s) for no, s in prose.sentences(cut) if not prose.is_question(s)]
    for at, (_no, sentence) in enumerate(said):
        if not NIX_DRIVER_DIR.search(sentence):
            continue
        for no, later in said[at : at + NEAR]:
            absent = ABSENT.search(later)
            if absent and not re.search(r"\bif\b[^.]{0,40}$", later[: absent.start()], re.IGNORECASE):
                kept = [m for m in matches if not (m.id in GIVES_WAY and not m.specific)]
                return [Match("wsl_libcuda_problem", no, later.strip()[:500], False, 0.75), *kept]
    return matches
