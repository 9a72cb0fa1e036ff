"""The abstract values the analyser tracks for names: what a thing is and where its data lives.

A value is deliberately coarse: a *kind* (model, loader, batch, tensor, device, ...) and a *place*
(``DEVICE``: moved to an accelerator or a device chosen at run time; ``CPU``: never moved, or moved to
the CPU; ``UNKNOWN``). Anything the analyser cannot name is UNKNOWN, and rules only fire on values whose
kind and place are both known: that is where the precision comes from.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from enum import Enum


class Kind(str, Enum):
    MODEL = "model"  # an nn.Module instance (layer, model, wrapped model)
    LOSS = "loss"  # a loss module (CrossEntropyLoss(...)); a CPU weight= tensor makes it CPU-bound
    LOADER = "loader"  # something whose iteration yields batches (DataLoader)
    DATASET = "dataset"
    BATCH = "batch"  # what iterating a loader yields, or a part of it
    TENSOR = "tensor"
    DEVICE = "device"
    DTYPE = "dtype"
    OPTIMIZER = "optimizer"
    WRAPPER = "wrapper"  # enumerate(...)/zip(...) of loaders: ``elements`` are what each item unpacks to
    TUPLE = "tuple"  # a tuple of values (``return x, y``)
    UNKNOWN = "unknown"


class Place(str, Enum):
    DEVICE = "device"
    CPU = "cpu"
    UNKNOWN = "unknown"


# What a device expression targets: "cuda", "mps", "xpu", "cpu", "fallback" (accelerator if available,
# else the CPU) or "dynamic" (decided at run time: a parameter, args.device, rank).
ACCELERATOR_TARGETS = frozenset({"cuda", "mps", "xpu", "fallback", "dynamic"})


@dataclass(frozen=True)
class Val:
    kind: Kind = Kind.UNKNOWN
    place: Place = Place.UNKNOWN
    origins: frozenset[ast.AST] = frozenset()  # constructor / factory calls, or the loop a batch comes from
    cls: str | None = None  # local class of a model/dataset instance
    target: str | None = None  # DEVICE: what it targets (see ACCELERATOR_TARGETS)
    via: str | None = None  # a moved model/tensor: the device expression as written ("device", ".cuda()")
    whole: bool = True  # BATCH: the loop variable itself (maybe a dict/BatchEncoding), not a tensor in it
    scalar: bool = False  # a 0-dim CPU tensor, which may meet CUDA tensors
    elements: tuple[Val, ...] = ()  # TUPLE / WRAPPER

    def at(self, place: Place, via: str | None = None) -> Val:
        return replace(self, place=place, via=via if via is not None else self.via)

    @property
    def tensorish(self) -> bool:
        return self.kind in (Kind.TENSOR, Kind.BATCH)

    @property
    def on_cpu(self) -> bool:
        """A tensor or batch certainly on the CPU (0-dim tensors excepted: they may meet CUDA tensors)."""
        return self.tensorish and self.place is Place.CPU and not self.scalar

    @property
    def on_device(self) -> bool:
        return self.kind in (Kind.TENSOR, Kind.BATCH, Kind.MODEL) and self.place is Place.DEVICE


UNKNOWN = Val()


def device(target: str) -> Val:
    return Val(Kind.DEVICE, target=target)


def merge(a: Val | None, b: Val | None) -> Val:
    """The value after two branches join: what both agree on, UNKNOWN where they differ."""
    if a is None or b is None:
        return UNKNOWN
    if a == b:
        return a
    if a.kind is not b.kind:
        return UNKNOWN
    if a.kind is Kind.DEVICE:
        return device(merge_targets(a.target, b.target))
    place = a.place if a.place is b.place else Place.UNKNOWN
    return Val(
        a.kind,
        place,
        a.origins | b.origins,
        a.cls if a.cls == b.cls else None,
        a.target if a.target == b.target else None,
        a.via if a.via == b.via else None,
        a.whole and b.whole,
        a.scalar and b.scalar,
    )


def merge_targets(a: str | None, b: str | None) -> str:
    """``"cuda" if ... else "cpu"`` is the idiomatic fallback; two different accelerators are dynamic."""
    if a == b and a is not None:
        return a
    targets = {a, b}
    if "fallback" in targets or ("cpu" in targets and targets - {"cpu"} <= ACCELERATOR_TARGETS):
        return "fallback"
    return "dynamic"


def combine_places(vals: list[Val]) -> Place:
    """Where the result of an operation on these tensors lives."""
    places = {v.place for v in vals if v.tensorish or v.kind is Kind.MODEL}
    if Place.DEVICE in places:
        return Place.DEVICE
    if places == {Place.CPU}:
        return Place.CPU
    return Place.UNKNOWN
