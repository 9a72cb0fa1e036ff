"""Helpers shared by the whole suite (tests/ui/conftest.py adds the Qt ones)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from gpuassist.probe.runner import FAULT_ENV

#: Variables that would change what a real probe or runtime script sees; tests start from an env without them.
_PERTURBING = (FAULT_ENV, "PYTHONPATH", "CUDA_VISIBLE_DEVICES")


def nvidia_on_pci(sys_root: Path = Path("/sys")) -> bool:
    """Whether this machine has an NVIDIA device on the PCI bus: live-machine tests derive their expected
    verdict from it, so they pass on a developer box with a GPU as well as on a CPU-only CI runner."""
    for dev in (sys_root / "bus" / "pci" / "devices").glob("*"):
        try:
            if (dev / "vendor").read_text().strip() == "0x10de":
                return True
        except OSError:
            pass
    return False


@pytest.fixture(scope="session")
def cpu_only_machine() -> bool:
    """True on a Linux machine without an NVIDIA GPU, where the live verdict is known in advance."""
    import sys

    return sys.platform.startswith("linux") and not nvidia_on_pci()


@pytest.fixture(scope="session")
def clean_env() -> Callable[..., dict[str, str]]:
    """A factory for the environment of a real probe run: this process's, without fault injection, an
    inherited PYTHONPATH or a CUDA_VISIBLE_DEVICES, plus the given variables."""

    def make(**extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in _PERTURBING}
        env.update(extra)
        return env

    return make
