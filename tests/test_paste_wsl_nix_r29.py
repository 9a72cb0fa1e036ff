"""Round 29 (issue #14): a Nix-built program on WSL that looks for libcuda in /run/opengl-driver/lib.

WSL's libcuda lives under /usr/lib/wsl/lib; Nix programs look in /run/opengl-driver/lib, which only NixOS's driver
module fills. On WSL that directory said missing = WSL's libcuda not found. On NixOS itself, or with the directory
present, nothing is claimed. Synthetic texts.
"""

from __future__ import annotations

import pytest

from gpuassist.ingest import UnreadableInput, load_text


def _ids(text: str) -> list[str]:
    try:
        return [f.id for f in load_text(text).findings]
    except UnreadableInput:
        return []


@pytest.mark.parametrize(
    "said",
    [
        "Inside nix develop on WSL2 the torch program cannot use the GPU; /run/opengl-driver/lib does not exist here.",
        "Running my flake on Ubuntu under WSL, CUDA is not found by the program.\n"
        "$ ls /run/opengl-driver/lib\nls: cannot access '/run/opengl-driver/lib': No such file or directory",
    ],
)
def test_nix_driver_dir_missing_on_wsl_reads_wsl_libcuda(said: str) -> None:
    assert _ids(said + "\n")[:1] == ["wsl_libcuda_problem"]


@pytest.mark.parametrize(
    "said",
    [
        "On my NixOS desktop the torch program cannot use the GPU; /run/opengl-driver/lib does not exist here.",
        "Under WSL2 with nix develop, /run/opengl-driver/lib exists and holds libcuda.so.1, but training is slow.",
        "Not on WSL: a plain NixOS server where /run/opengl-driver/lib is missing after the upgrade.",
    ],
)
def test_nixos_itself_or_the_dir_present_claims_no_wsl_library(said: str) -> None:
    assert "wsl_libcuda_problem" not in _ids(said + "\n")
