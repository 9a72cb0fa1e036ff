"""What the analyser observed while following values through the code, before any judgement.

The flow (flow.py) records these as it walks the program; the checks (checks.py) decide which of them are
findings, with which severity, once the whole program has been seen (a model moved in another function
must silence "never moved", so judging has to wait).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from gpuassist.audit.values import Val


@dataclass(frozen=True)
class Mix:
    """A CPU tensor meets a tensor or model on the device in one operation (``op``)."""

    cpu_node: ast.expr
    cpu: Val
    other_node: ast.expr
    other: Val
    op: ast.AST
    module_cls: str | None  # inside a method of this nn.Module subclass: "device" means "the module's device"


@dataclass(frozen=True)
class ModelOnCpuGetsDeviceInput:
    """A model that was never moved is called with an input that was moved to the device."""

    call: ast.Call
    model_node: ast.expr
    model: Val
    arg_node: ast.expr
    arg: Val
    scope: ast.AST


@dataclass(frozen=True)
class DiscardedMove:
    """``x.to(device)`` as a statement on a tensor: Tensor.to returns a copy, so ``x`` stays where it was."""

    call: ast.Call
    recv_node: ast.expr
    recv: Val
    via: str


@dataclass(frozen=True)
class LateSubmodule:
    """``model.fc = nn.Linear(...)`` after ``model`` was moved: the new layer stays on the CPU."""

    stmt: ast.stmt
    value_node: ast.expr
    base_key: str
    base: Val


@dataclass(frozen=True)
class ModelCreated:
    call: ast.Call
    cls: str | None
    conv: bool
    scope: ast.AST


@dataclass(frozen=True)
class ModelPlaced:
    origins: frozenset[ast.AST]
    scope: ast.AST
    accelerator: bool  # False: moved to the CPU explicitly


@dataclass(frozen=True)
class ModelEscaped:
    """The model went where the analyser cannot follow (an unknown call, a container): never judge it."""

    origins: frozenset[ast.AST]


@dataclass(frozen=True)
class ModelUsed:
    origins: frozenset[ast.AST]


@dataclass(frozen=True)
class ModuleInForward:
    """A layer with parameters constructed inside forward() (or another method that runs per call)."""

    call: ast.Call
    module_cls: str
    method: str


@dataclass(frozen=True)
class Sync:
    """A host-device sync (``.item()``, ``.cpu()``, ``print(tensor)``, ``synchronize()``) every step."""

    node: ast.AST
    stmt: ast.stmt
    what: str
    loop: ast.AST | None
    counter: str | None  # the loop's step counter (``for i, batch in enumerate(...)``), if any


@dataclass(frozen=True)
class LoaderCreated:
    call: ast.Call
    dataset: Val
    in_memory: bool
    device_batches: bool  # its batches may already be on the device (dataset or collate_fn moves them)


@dataclass(frozen=True)
class DeviceAssigned:
    stmt: ast.stmt
    value_node: ast.expr
    key: str
    target: str
    conditional: bool
    scope: ast.AST


@dataclass(frozen=True)
class EnvSet:
    """``os.environ["CUDA_VISIBLE_DEVICES"] = ...``; ``after`` is the CUDA-initialising call before it."""

    stmt: ast.stmt
    value: str | None
    after: ast.AST | None


@dataclass(frozen=True)
class DataParallelUsed:
    call: ast.Call


@dataclass(frozen=True)
class StepLoop:
    """A loop that runs one training step per iteration; where its forward pass and backward are."""

    loop: ast.AST
    forward_stmt: ast.stmt | None
    backward_stmt: ast.stmt | None
    model_on_cpu: bool  # the model of its forward pass is certainly on the CPU


Event = (
    Mix
    | ModelOnCpuGetsDeviceInput
    | DiscardedMove
    | LateSubmodule
    | ModelCreated
    | ModelPlaced
    | ModelEscaped
    | ModelUsed
    | ModuleInForward
    | Sync
    | LoaderCreated
    | DeviceAssigned
    | EnvSet
    | DataParallelUsed
    | StepLoop
)
