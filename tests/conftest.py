"""Helpers shared by the whole suite (tests/ui/conftest.py adds the Qt ones)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

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


def _starts_python(args: object) -> bool:
    """Whether a Popen argument list starts a Python interpreter (the target, gpuassist's own CLI...)."""
    argv = [args] if isinstance(args, (str, bytes, os.PathLike)) else list(args or [])  # type: ignore[call-overload]
    if not argv:
        return False
    name = os.path.basename(os.fsdecode(argv[0])).lower()
    return name.startswith(("python", "pypy", "gpuassist")) or os.fsdecode(argv[0]) == sys.executable


@pytest.fixture(autouse=True)
def slow_marker_is_honest(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Fail a test that starts a real interpreter without the ``slow`` marker: ``pytest -m "not slow"`` is the
    inner loop (CONTRIBUTING.md) and must stay free of interpreter start-ups."""
    if request.node.get_closest_marker("slow") is not None:
        yield
        return
    started: list[str] = []
    original = subprocess.Popen.__init__

    def spy(self: subprocess.Popen[Any], args: Any, *rest: Any, **kwargs: Any) -> None:
        if _starts_python(args):
            started.append(str(args if isinstance(args, str) else list(args)[:2]))
        original(self, args, *rest, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "__init__", spy)
    yield
    if started:
        pytest.fail(f"this test starts a real interpreter ({started[0]}): mark it @pytest.mark.slow")
