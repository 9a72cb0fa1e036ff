"""Every Python environment on the machine, what torch each one has, and which one the user's code runs.

Qt-free (the GUI shows :func:`gpuassist.envs.inventory` beside its target selector). Two phases, kept
apart on purpose: :func:`discover` only reads the file system (it never starts a process, so a broken
interpreter or a pyenv shim cannot hang it), and :func:`inspect_all` runs the probe's first two stages in
each interpreter, in parallel, with short time limits.
"""

from __future__ import annotations

from gpuassist.envs.discovery import (
    Candidate,
    Context,
    Discovery,
    KernelSpec,
    Origin,
    ScriptTarget,
    discover,
)
from gpuassist.envs.inspect import (
    EnvRow,
    Inventory,
    TorchCopy,
    default_target,
    inspect_all,
    inspect_one,
    inventory,
    inventory_facts,
)

__all__ = [
    "Candidate",
    "Context",
    "Discovery",
    "EnvRow",
    "Inventory",
    "KernelSpec",
    "Origin",
    "ScriptTarget",
    "TorchCopy",
    "default_target",
    "discover",
    "inspect_all",
    "inspect_one",
    "inventory",
    "inventory_facts",
]
