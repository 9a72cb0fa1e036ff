"""The abstract interpreter under the flow: statements, expressions, names and where their data lives.

Each name holds a :class:`Val` (what it is, where its data lives); assignments, ``.to(device)`` and loops
over loaders update it; branches join conservatively (a name moved in one branch only is UNKNOWN
afterwards, never "on the CPU"). What calls do is :mod:`gpuassist.audit.flow`'s part. While walking, it
records :mod:`events` (a CPU tensor meeting a GPU one, a sync inside a step loop, ...). It never executes
anything and never raises on odd code: what it cannot name is UNKNOWN, and nothing is concluded from it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol

from gpuassist.audit import events as ev
from gpuassist.audit.program import ClassInfo, FuncInfo, Program
from gpuassist.audit.values import ACCELERATOR_TARGETS, UNKNOWN, Kind, Place, Val, combine_places, device, merge
from gpuassist.audit.vocab import (
    DEVICE_NAME,
    LOADER_NAME,
    SAME_TENSOR_ATTRS,
    call_name,
    dotted,
    is_dtype,
)

DEVICE_STRING = re.compile(r"^(cuda|mps|xpu|cpu)(:\d+)?$")
CLOCKS = frozenset(
    {
        "time.time",
        "time.perf_counter",
        "time.monotonic",
        "time.time_ns",
        "time.perf_counter_ns",
        "time.monotonic_ns",
        "datetime.datetime.now",
        "timeit.default_timer",
    }
)
DEVICE_CALLS = frozenset({"torch.device", "torch.accelerator.current_accelerator"})
DEVICE_PREFIX = re.compile(r"^(cuda|mps|xpu):$")  # f"cuda:{local_rank}"


def device_prefix(e: ast.JoinedStr) -> str | None:
    """``"cuda"`` for ``f"cuda:{rank}"``: an f-string that names a device with its index filled in."""
    head = e.values[0] if e.values else None
    if len(e.values) == 2 and isinstance(head, ast.Constant) and isinstance(head.value, str):
        m = DEVICE_PREFIX.match(head.value)
        return m.group(1) if m else None
    return None


class Host(Protocol):
    """What a scope needs from the whole-program analysis."""

    program: Program
    placed_now: set[ast.AST]
    default_device: bool

    def emit(self, event: ev.Event) -> None: ...

    def summary(self, func: FuncInfo) -> Summary: ...

    def record_call(self, func: FuncInfo, bound: dict[str, Val]) -> None: ...


@dataclass(frozen=True)
class Summary:
    """What a function gives back and does to its arguments, as its callers see it."""

    returns: Val = UNKNOWN
    moved_params: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Context:
    """Where a scope's code runs: which function, inside which module class, and whether it is recorded."""

    scope: ast.AST
    func: FuncInfo | None = None
    module_cls: ClassInfo | None = None  # a method of an nn.Module subclass
    construction: bool = False  # __init__ of an nn.Module: layers built here are its submodules
    per_step: bool = False  # the whole body runs once per training step
    record: bool = True


class Interpreter:
    """The interpretation of one scope; ``env`` maps names (``x``, ``self.model``) to values."""

    def __init__(self, host: Host, ctx: Context, env: dict[str, Val], fallback: Callable[[str], Val | None]) -> None:
        self.host = host
        self.program = host.program
        self.sym = host.program.symbols
        self.ctx = ctx
        self.env = env
        self.fallback = fallback
        self.step_depth = 1 if ctx.per_step else 0
        self.periodic = 0
        self.cond = 0
        self.device_ctx = 0
        self.loops: list[ast.AST] = []
        self.counters: dict[ast.AST, str] = {}  # loop -> its step counter (``for i, batch in enumerate(...)``)
        self.late: dict[str, ev.LateSubmodule] = {}  # model key -> a CPU layer set on it after it was moved
        self.returns: list[Val] = []
        self.moved: set[str] = set()
        self.cuda_init: ast.AST | None = None
        self.stmt_now: ast.stmt | None = None
        self.step_forward: dict[ast.AST, ast.stmt] = {}
        self.step_backward: dict[ast.AST, ast.stmt] = {}
        self.step_model_on_cpu: dict[ast.AST, bool] = {}

    # -- plumbing ----------------------------------------------------------------------------------
    def emit(self, event: ev.Event) -> None:
        if self.ctx.record:
            self.host.emit(event)

    def lookup(self, key: str) -> Val | None:
        if key in self.env:
            return self.env[key]
        return self.fallback(key)

    def text(self, node: ast.AST) -> str:
        return ast.unparse(node)

    def run(self, body: list[ast.stmt]) -> None:
        self.block(body)
        for key in list(self.late):
            self.settle_late(key, report=True)

    def settle_late(self, key: str | None, *, report: bool) -> None:
        """A layer set on a moved model stays a finding unless the model is moved again (or handed to code
        that may move it) before it runs: ``model.fc = nn.Linear(...)`` then ``model = model.to(device)``."""
        late = self.late.pop(key, None) if key is not None else None
        if late is not None and report:
            self.emit(late)

    def block(self, stmts: list[ast.stmt]) -> None:
        for s in stmts:
            self.stmt(s)

    # -- statements --------------------------------------------------------------------------------
    def stmt(self, s: ast.stmt) -> None:
        outer, self.stmt_now = self.stmt_now, s
        try:
            self._stmt(s)
        finally:
            self.stmt_now = outer

    def _stmt(self, s: ast.stmt) -> None:
        if isinstance(s, ast.Assign):
            value = self.expr(s.value)
            for t in s.targets:
                self.env_var_assignment(s, t)
                self.bind(t, value, s)
            self.device_assignment(s, s.targets, s.value, value)
        elif isinstance(s, ast.AnnAssign):
            if s.value is not None:
                value = self.expr(s.value)
                self.bind(s.target, value, s)
                self.device_assignment(s, [s.target], s.value, value)
        elif isinstance(s, ast.AugAssign):
            current = self.expr(s.target)
            value = self.expr(s.value)
            self.check_mix(s, [(s.target, current), (s.value, value)])
        elif isinstance(s, ast.Expr):
            self.expr_statement(s.value)
        elif isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
            self.loop(s)
        elif isinstance(s, ast.If):
            self.if_stmt(s)
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            self.with_stmt(s)
        elif isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
            self.try_stmt(s)
        elif isinstance(s, ast.Return):
            if s.value is not None:
                self.returns.append(self.expr(s.value))
        elif isinstance(s, ast.Match):
            self.expr(s.subject)
            self.branches([c.body for c in s.cases])
        elif isinstance(s, (ast.Raise, ast.Assert, ast.Delete)):
            return
        # FunctionDef/ClassDef are analysed as scopes of their own; imports, pass, break, global: nothing

    def expr_statement(self, e: ast.expr) -> None:
        """``x.to(device)`` on its own line: modules (and batch objects) move in place, tensors do not."""
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr in ("to", "cuda", "xpu"):
            recv_node = e.func.value
            recv = self.expr(recv_node)
            moved = self.move(e, recv)
            for a in [*e.args, *(k.value for k in e.keywords)]:
                self.expr(a)
            if moved is None:
                return
            if recv.kind is Kind.TENSOR or (recv.kind is Kind.BATCH and not recv.whole):
                if moved.place is Place.DEVICE and not recv.on_device:
                    self.emit(ev.DiscardedMove(e, recv_node, recv, moved.via or "device"))
                return
            key = dotted(recv_node)
            if key is not None:
                if recv.kind is Kind.UNKNOWN and moved.place is Place.DEVICE:
                    moved = replace(moved, kind=Kind.MODEL)  # only modules are moved by a bare .to()
                self.env[key] = moved
            return
        self.expr(e)

    def bind(self, target: ast.expr, value: Val, stmt: ast.stmt | None = None) -> None:
        if isinstance(target, ast.Name):
            self.env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            parts = self.unpack(value, len(target.elts))
            for t, v in zip(target.elts, parts, strict=False):
                self.bind(t.value if isinstance(t, ast.Starred) else t, v, stmt)
        elif isinstance(target, ast.Attribute):
            base = self.lookup(dotted(target.value) or "") if dotted(target.value) else None
            if base is not None and base.kind is Kind.MODEL and value.kind is Kind.MODEL and value.origins:
                if (
                    base.place is Place.DEVICE
                    and value.place is Place.CPU
                    and stmt is not None
                    and not (self.ctx.module_cls and dotted(target.value) == "self")
                ):
                    owner = dotted(target.value) or ""
                    self.late[owner] = ev.LateSubmodule(stmt, target, owner, base)
                self.emit(ev.ModelEscaped(value.origins))  # it is part of the parent model now
            elif (
                base is not None
                and base.kind is Kind.MODEL
                and base.origins
                and stmt is not None
                and value.place is not Place.CPU
                and not isinstance(getattr(stmt, "value", None), ast.Constant)
            ):
                self.emit(ev.ModelEscaped(base.origins))  # layer.weight = <from elsewhere>: placement unknown
            key = dotted(target)
            if key is not None:
                self.env[key] = value
        elif isinstance(target, ast.Subscript):
            self.expr(target.value)
            if value.kind is Kind.MODEL:
                self.emit(ev.ModelEscaped(value.origins))
        elif isinstance(target, ast.Starred):
            self.bind(target.value, UNKNOWN, stmt)

    def unpack(self, value: Val, n: int) -> list[Val]:
        if value.kind is Kind.TUPLE and len(value.elements) == n:
            return list(value.elements)
        if value.kind is Kind.BATCH:
            return [replace(value, whole=False)] * n
        if value.kind is Kind.TENSOR:
            return [value] * n
        if value.kind in (Kind.DATASET, Kind.LOADER):
            return [value] * n
        return [UNKNOWN] * n

    def device_assignment(self, s: ast.stmt, targets: list[ast.expr], node: ast.expr, value: Val) -> None:
        if value.kind is not Kind.DEVICE or value.target is None:
            return
        if not self.names_a_device(node):
            return  # device = device, self.rank = rank: not a choice made here
        explicit = isinstance(node, ast.Call) and self.sym.qualname(node.func) == "torch.device"
        for t in targets:
            key = dotted(t)
            if key and (explicit or DEVICE_NAME.match(key.split(".")[-1])):
                self.emit(ev.DeviceAssigned(s, node, key, value.target, self.cond > 0, self.ctx.scope))

    def names_a_device(self, node: ast.expr) -> bool:
        """torch.device(...), a "cuda"/"cpu" string, or ``x.device``: the expression chooses a device."""
        for n in ast.walk(node):
            if isinstance(n, ast.Call) and self.sym.qualname(n.func) in DEVICE_CALLS:
                return True
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and DEVICE_STRING.match(n.value):
                return True
            if isinstance(n, ast.JoinedStr) and device_prefix(n):
                return True
            if isinstance(n, ast.Attribute) and n.attr == "device":
                return True
        return False

    def env_var_assignment(self, s: ast.Assign, target: ast.expr) -> None:
        if isinstance(target, ast.Subscript) and self.sym.qualname(target.value) == "os.environ":
            key = target.slice
            if isinstance(key, ast.Constant) and key.value == "CUDA_VISIBLE_DEVICES":
                value = s.value.value if isinstance(s.value, ast.Constant) else None
                self.emit(ev.EnvSet(s, str(value) if value is not None else None, self.cuda_init))

    def loop(self, s: ast.For | ast.AsyncFor | ast.While) -> None:
        if isinstance(s, ast.While):
            self.expr(s.test)
        else:
            it = self.expr(s.iter)
            if it == UNKNOWN:
                name = dotted(s.iter)
                if (
                    name
                    and LOADER_NAME.search(name.split(".")[-1])
                    and not self.ctx.module_cls
                    and not self.program.device_loaders
                ):
                    it = Val(Kind.LOADER, Place.CPU)  # a loader from a helper we cannot see into
            self.bind(s.target, self.item(it, s), s)
            counter = s.target.elts[0] if isinstance(s.target, ast.Tuple) and s.target.elts else None
            if isinstance(counter, ast.Name) and it.kind is Kind.WRAPPER and it.target == "enumerate":
                self.counters[s] = counter.id  # also through tqdm(enumerate(loader)) or a name bound to it
        step = s in self.program.step_loops
        self.cond += 1
        self.step_depth += step
        self.loops.append(s)
        saved_periodic, self.periodic = self.periodic, (0 if step else self.periodic)
        try:
            self.block(s.body)
            self.block(s.orelse)
        finally:
            self.loops.pop()
            self.step_depth -= step
            self.cond -= 1
            self.periodic = saved_periodic
        if step:
            self.emit(
                ev.StepLoop(
                    s, self.step_forward.get(s), self.step_backward.get(s), self.step_model_on_cpu.get(s, False)
                )
            )

    def item(self, it: Val, loop: ast.AST) -> Val:
        """What one iteration over ``it`` binds."""
        if it.kind is Kind.LOADER:
            return Val(Kind.BATCH, it.place, frozenset({loop}))
        if it.kind is Kind.WRAPPER:
            inner = tuple(self.item(e, loop) for e in it.elements)
            return Val(Kind.TUPLE, elements=(UNKNOWN, *inner) if it.target == "enumerate" else inner)
        if it.kind in (Kind.BATCH, Kind.TENSOR):
            return replace(it, whole=False)
        if it.kind is Kind.TUPLE and it.elements:
            out = it.elements[0]
            for e in it.elements[1:]:
                out = merge(out, e)
            return out
        return UNKNOWN

    def if_stmt(self, s: ast.If) -> None:
        self.expr(s.test)
        periodic = self.step_depth > 0 and self.is_periodic(s.test)
        self.periodic += periodic
        try:
            self.branches([s.body, s.orelse], first_periodic=periodic)
        finally:
            self.periodic -= periodic

    def is_periodic(self, test: ast.expr) -> bool:
        """``if step % 100 == 0:`` (or ``i == len(loader) - 1``, or ``time.time() - last > 10``): runs now and
        then, not every step."""
        return (
            any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) for n in ast.walk(test))
            or any(isinstance(n, ast.Compare) and any(isinstance(op, ast.Eq) for op in n.ops) for n in ast.walk(test))
            or any(isinstance(n, ast.Compare) and self.reads_clock(n) for n in ast.walk(test))
        )

    def reads_clock(self, node: ast.AST) -> bool:
        return any(isinstance(n, ast.Call) and (self.sym.qualname(n.func) or "") in CLOCKS for n in ast.walk(node))

    def branches(self, bodies: list[list[ast.stmt]], first_periodic: bool = False) -> None:
        before = dict(self.env)
        results: list[dict[str, Val]] = []
        self.cond += 1
        try:
            for i, body in enumerate(bodies):
                self.env = dict(before)
                if i == 1 and first_periodic:
                    self.periodic -= 1  # the else branch runs on the other steps
                    try:
                        self.block(body)
                    finally:
                        self.periodic += 1
                else:
                    self.block(body)
                results.append(self.env)
        finally:
            self.cond -= 1
        if len(bodies) == 1 or any(not b for b in bodies):
            results.append(before)  # a missing else keeps the values from before the if
        merged: dict[str, Val] = {}
        for key in set().union(*results):
            vals = [r.get(key) for r in results]
            out = merge(vals[0], vals[1]) if len(vals) > 1 else (vals[0] or UNKNOWN)
            for v in vals[2:]:
                out = merge(out, v)
            merged[key] = out
        self.env = merged

    def with_stmt(self, s: ast.With | ast.AsyncWith) -> None:
        placing = 0
        for item in s.items:
            value = self.expr(item.context_expr)
            if value.kind is Kind.DEVICE and value.target in ACCELERATOR_TARGETS:
                placing = 1  # with torch.device("cuda"): factories and layers are created there
            if item.optional_vars is not None:
                self.bind(item.optional_vars, UNKNOWN)
        self.device_ctx += placing
        try:
            self.block(s.body)
        finally:
            self.device_ctx -= placing

    def try_stmt(self, s: ast.stmt) -> None:
        body: list[ast.stmt] = getattr(s, "body", [])
        self.cond += 1
        try:
            self.block(body)
        finally:
            self.cond -= 1
        handlers = [h.body for h in getattr(s, "handlers", [])]
        if handlers:
            self.branches([getattr(s, "orelse", []), *handlers])
        else:
            self.block(getattr(s, "orelse", []))
        self.block(getattr(s, "finalbody", []))

    # -- expressions -------------------------------------------------------------------------------
    def expr(self, e: ast.expr | None) -> Val:
        if e is None:
            return UNKNOWN
        method = getattr(self, f"e_{type(e).__name__}", None)
        if method is not None:
            result: Val = method(e)
            return result
        for child in ast.iter_child_nodes(e):
            if isinstance(child, ast.expr):
                self.expr(child)
        return UNKNOWN

    def e_Constant(self, e: ast.Constant) -> Val:
        if isinstance(e.value, str) and DEVICE_STRING.match(e.value):
            return device(e.value.split(":")[0])
        return UNKNOWN

    def e_Name(self, e: ast.Name) -> Val:
        found = self.lookup(e.id)
        if found is not None:
            return found
        if DEVICE_NAME.match(e.id):
            return device("dynamic")
        q = self.sym.qualname(e)
        if is_dtype(q):
            return Val(Kind.DTYPE)
        return UNKNOWN

    def e_Attribute(self, e: ast.Attribute) -> Val:
        key = dotted(e)
        if key is not None:
            found = self.lookup(key)
            if found is not None:
                return found
        q = self.sym.qualname(e)
        if q is not None:
            return Val(Kind.DTYPE) if is_dtype(q) else UNKNOWN
        base = self.expr(e.value)
        if e.attr == "device":
            return device("dynamic")
        if e.attr == "type" and base.kind is Kind.DEVICE:
            return base  # device.type ("cuda") names the same device for .to() and autocast
        if base.tensorish:
            if e.attr in SAME_TENSOR_ATTRS:
                return base
            if base.kind is Kind.BATCH and base.whole and e.attr not in ("shape", "dtype", "ndim"):
                return replace(base, whole=False)  # batch.input_ids, data.x (PyG)
            return UNKNOWN
        if base.kind is Kind.MODEL and base.place is not Place.UNKNOWN:
            return Val(Kind.UNKNOWN, base.place)  # a submodule or parameter of a placed model
        if base.kind is Kind.LOADER and e.attr == "dataset":
            return Val(Kind.DATASET, base.place)
        return UNKNOWN

    def e_Subscript(self, e: ast.Subscript) -> Val:
        base = self.expr(e.value)
        self.expr(e.slice)
        if base.tensorish:
            return replace(base, whole=False)
        if base.kind is Kind.MODEL:
            return base
        if base.kind is Kind.TUPLE and isinstance(e.slice, ast.Constant) and isinstance(e.slice.value, int):
            i = e.slice.value
            return base.elements[i] if -len(base.elements) <= i < len(base.elements) else UNKNOWN
        return UNKNOWN

    def e_BinOp(self, e: ast.BinOp) -> Val:
        left, right = self.expr(e.left), self.expr(e.right)
        self.check_mix(e, [(e.left, left), (e.right, right)])
        return self.tensor_result([left, right])

    def e_Compare(self, e: ast.Compare) -> Val:
        vals = [(e.left, self.expr(e.left))] + [(c, self.expr(c)) for c in e.comparators]
        if not any(isinstance(op, (ast.In, ast.NotIn, ast.Is, ast.IsNot)) for op in e.ops):
            self.check_mix(e, vals)
        return self.tensor_result([v for _, v in vals])

    def e_UnaryOp(self, e: ast.UnaryOp) -> Val:
        v = self.expr(e.operand)
        return v if v.tensorish else UNKNOWN

    def e_BoolOp(self, e: ast.BoolOp) -> Val:
        for v in e.values:
            self.expr(v)
        return UNKNOWN

    def e_IfExp(self, e: ast.IfExp) -> Val:
        self.expr(e.test)
        return merge(self.expr(e.body), self.expr(e.orelse))

    def e_Tuple(self, e: ast.Tuple | ast.List) -> Val:
        return Val(Kind.TUPLE, elements=tuple(self.expr(x) for x in e.elts))

    e_List = e_Tuple

    def e_Dict(self, e: ast.Dict) -> Val:
        vals = [self.expr(v) for v in e.values]
        for k in e.keys:
            self.expr(k)
        tensors = [v for v in vals if v.tensorish]
        if tensors and len(tensors) == len(vals):
            return Val(Kind.BATCH, combine_places(tensors), frozenset().union(*(v.origins for v in tensors)))
        return UNKNOWN

    def e_NamedExpr(self, e: ast.NamedExpr) -> Val:
        v = self.expr(e.value)
        self.bind(e.target, v)
        return v

    def e_Starred(self, e: ast.Starred) -> Val:
        return self.expr(e.value)

    def e_Await(self, e: ast.Await) -> Val:
        return self.expr(e.value)

    def e_Lambda(self, e: ast.Lambda) -> Val:
        return UNKNOWN

    def e_JoinedStr(self, e: ast.JoinedStr) -> Val:
        for v in e.values:
            if isinstance(v, ast.FormattedValue):
                self.expr(v.value)
        target = device_prefix(e)
        return device(target) if target else UNKNOWN

    def comprehension(self, e: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> Val:
        saved = self.env
        self.env = dict(saved)
        try:
            for gen in e.generators:
                self.bind(gen.target, self.item(self.expr(gen.iter), e))
                for cond in gen.ifs:
                    self.expr(cond)
            if isinstance(e, ast.DictComp):
                self.expr(e.key)
                value = self.expr(e.value)
            else:
                value = self.expr(e.elt)
        finally:
            self.env = saved
        if value.tensorish:
            return Val(Kind.BATCH, value.place, value.origins, via=value.via)
        return UNKNOWN

    e_ListComp = e_SetComp = e_GeneratorExp = e_DictComp = comprehension

    def tensor_result(self, vals: list[Val]) -> Val:
        tensors = [v for v in vals if v.tensorish]
        if not tensors:
            return UNKNOWN
        place = combine_places(tensors)
        origins = frozenset().union(*(v.origins for v in tensors if v.place is place))
        return Val(Kind.TENSOR, place, origins, scalar=all(v.scalar for v in tensors))

    # -- mixing devices ----------------------------------------------------------------------------
    def check_mix(self, op: ast.AST, operands: list[tuple[ast.expr, Val]]) -> None:
        """A CPU tensor meeting a device tensor in one operation fails on a GPU."""
        device_side = next(((n, v) for n, v in operands if v.on_device and v.kind is not Kind.MODEL), None)
        if device_side is None:
            return
        for n, v in operands:
            if v.on_cpu or (v.kind is Kind.LOSS and v.place is Place.CPU and v.origins):
                self.emit(ev.Mix(n, v, device_side[0], device_side[1], op, self.module_name()))

    def module_name(self) -> str | None:
        return self.ctx.module_cls.name if self.ctx.module_cls else None

    def call_operands(self, node: ast.Call) -> list[tuple[ast.expr, Val]]:
        out = []
        for a in node.args:
            out.append((a.value if isinstance(a, ast.Starred) else a, self.expr(a)))
        for k in node.keywords:
            out.append((k.value, self.expr(k.value)))
        return out

    @staticmethod
    def flatten(operands: list[tuple[ast.expr, Val]]) -> list[tuple[ast.expr, Val]]:
        out: list[tuple[ast.expr, Val]] = []
        for n, v in operands:
            if v.kind is Kind.TUPLE and isinstance(n, (ast.Tuple, ast.List)):
                out += Interpreter.flatten(list(zip(n.elts, v.elements, strict=False)))
            else:
                out.append((n, v))
        return out

    def move(self, node: ast.Call, recv: Val) -> Val | None:
        """The value after ``.to(...)``/``.cuda()``/``.cpu()``, or None when it only changes dtype."""
        f = node.func
        assert isinstance(f, ast.Attribute)
        target, via = self.move_target(node, f.attr)
        if target is None:
            return None
        accelerator = target in ACCELERATOR_TARGETS
        if accelerator and target != "mps" and self.cuda_init is None:
            self.cuda_init = node
        if recv.kind is Kind.MODEL and recv.origins:
            self.emit(ev.ModelPlaced(recv.origins, self.ctx.scope, accelerator))
            if accelerator:
                self.host.placed_now.update(recv.origins)
        key = dotted(f.value)
        if key is not None and self.ctx.func is not None and key in [*self.ctx.func.params, "self"]:
            self.moved.add(key)  # Module.to() moves the caller's object too
        if accelerator:
            self.settle_late(key, report=False)
        if recv.tensorish and not accelerator:  # a copy made here: this call is where it comes from
            return Val(Kind.TENSOR, Place.CPU, frozenset({node}), via=via, scalar=recv.scalar)
        return recv.at(Place.DEVICE if accelerator else Place.CPU, via)

    def move_target(self, node: ast.Call, meth: str) -> tuple[str | None, str]:
        if meth in ("cuda", "xpu"):
            return meth, f".{meth}()"
        if meth == "cpu":
            return "cpu", ".cpu()"
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        arg = kw.get("device") or (node.args[0] if node.args else None)
        if arg is None:
            return None, ""
        if is_dtype(self.sym.qualname(arg)):
            return None, ""
        v = self.expr(arg)
        if v.kind is Kind.DTYPE:
            return None, ""
        if v.kind is Kind.DEVICE:
            return v.target or "dynamic", self.text(arg)
        if v.tensorish:
            return ("cpu" if v.place is Place.CPU else "dynamic"), f"{self.text(arg)}.device"
        if isinstance(arg, ast.Constant):
            if isinstance(arg.value, int) and not isinstance(arg.value, bool):
                return "cuda", self.text(arg)
            return None, ""  # "meta", a dtype name, ...
        return "dynamic", self.text(arg)

    # -- host syncs --------------------------------------------------------------------------------
    def sync(self, node: ast.AST, what: str, val: Val) -> None:
        if not self.step_depth or self.periodic or self.stmt_now is None:
            return
        loop = self.loops[-1] if self.loops else None
        self.emit(ev.Sync(node, self.stmt_now, what, loop, self.step_counter()))

    def step_counter(self) -> str | None:
        for loop in reversed(self.loops):
            if loop in self.counters:
                return self.counters[loop]
            if isinstance(loop, (ast.For, ast.AsyncFor)):
                t = loop.target
                if (
                    isinstance(t, ast.Tuple)
                    and t.elts
                    and isinstance(t.elts[0], ast.Name)
                    and isinstance(loop.iter, ast.Call)
                    and call_name(loop.iter) == "enumerate"
                ):
                    return t.elts[0].id
                if isinstance(t, ast.Name) and isinstance(loop.iter, ast.Call) and call_name(loop.iter) == "range":
                    return t.id
            if loop in self.program.step_loops:
                break
        return None
