"""Follow values through one scope (the module, a function, a method), statement by statement.

This is a small abstract interpreter: each name holds a :class:`Val` (what it is, where its data lives);
assignments, ``.to(device)``, loops over loaders, calls into the file's own functions and the torch API
update it; branches join conservatively (a name moved in one branch only is UNKNOWN afterwards, never
"on the CPU"). While walking it records :mod:`events` (a CPU tensor meeting a GPU one, a model created,
a sync inside a step loop, ...). It never executes anything and never raises on odd code: what it
cannot name is UNKNOWN, and nothing is concluded from UNKNOWN.
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
    COMBINING_FUNCS,
    COMBINING_METHODS,
    CONV_LAYERS,
    DATA_PARALLEL,
    DDP,
    DEVICE_NAME,
    FACTORIES,
    LAZY_CUDA_CALLS,
    LIKE_FACTORIES,
    LOADER_NAME,
    LOSS_NAME,
    NON_TENSOR_METHODS,
    SAME_TENSOR_ATTRS,
    call_name,
    dotted,
    is_conv_model_factory,
    is_dtype,
    is_loss_class,
    is_model_factory,
    is_weighted_layer,
    torch_attr,
)

MOVES_INPUTS = "moves_inputs"  # Val.target of a DataParallel/DDP-wrapped model
DEVICE_STRING = re.compile(r"^(cuda|mps|xpu|cpu)(:\d+)?$")
MODEL_SELF_METHODS = frozenset({"train", "eval", "requires_grad_", "apply", "float", "double", "half", "bfloat16",
                                "type", "share_memory", "zero_grad"})
MODEL_QUERY_METHODS = frozenset({"parameters", "named_parameters", "buffers", "named_buffers", "state_dict",
                                 "load_state_dict", "modules", "named_modules", "children", "named_children",
                                 "register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook"})
NEUTRAL_BUILTINS = frozenset({"len", "range", "isinstance", "hasattr", "getattr", "setattr", "type", "str", "repr",
                              "sorted", "min", "max", "sum", "abs", "round", "super", "id", "hash", "open",
                              "vars", "dir", "callable", "format", "divmod", "map", "filter", "reversed", "any",
                              "all", "set", "frozenset", "issubclass", "input", "exit", "quit"})


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
    scope: ast.AST
    func: FuncInfo | None = None
    module_cls: ClassInfo | None = None  # a method of an nn.Module subclass
    construction: bool = False  # __init__ of an nn.Module: layers built here are its submodules
    per_step: bool = False  # the whole body runs once per training step
    record: bool = True


class ScopeFlow:
    """The abstract interpretation of one scope; ``env`` maps names (``x``, ``self.model``) to values."""

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
                if base.place is Place.DEVICE and value.place is Place.CPU and stmt is not None \
                        and not (self.ctx.module_cls and dotted(target.value) == "self"):
                    self.emit(ev.LateSubmodule(stmt, target, dotted(target.value) or "", base))
                self.emit(ev.ModelEscaped(value.origins))  # it is part of the parent model now
            elif base is not None and base.kind is Kind.MODEL and base.origins and stmt is not None and \
                    value.place is not Place.CPU and not isinstance(getattr(stmt, "value", None), ast.Constant):
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
            if isinstance(n, ast.Call) and self.sym.qualname(n.func) == "torch.device":
                return True
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and DEVICE_STRING.match(n.value):
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
                if name and LOADER_NAME.search(name.split(".")[-1]) and not self.ctx.module_cls:
                    it = Val(Kind.LOADER, Place.CPU)  # a loader from a helper we cannot see into
            self.bind(s.target, self.item(it, s), s)
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
            self.emit(ev.StepLoop(s, self.step_forward.get(s), self.step_backward.get(s),
                                  self.step_model_on_cpu.get(s, False)))

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
        """``if step % 100 == 0:`` (or ``i == len(loader) - 1``): runs now and then, not every step."""
        return any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) for n in ast.walk(test)) or any(
            isinstance(n, ast.Compare) and any(isinstance(op, ast.Eq) for op in n.ops) for n in ast.walk(test))

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
        return UNKNOWN

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
                out += ScopeFlow.flatten(list(zip(n.elts, v.elements, strict=False)))
            else:
                out.append((n, v))
        return out

    # -- calls -------------------------------------------------------------------------------------
    def e_Call(self, node: ast.Call) -> Val:
        f = node.func
        q = self.sym.qualname(f)
        if q is not None:
            return self.torch_or_library_call(node, q)
        if isinstance(f, ast.Attribute):
            return self.method_call(node, f)
        if isinstance(f, ast.Name):
            return self.name_call(node, f.id)
        callee = self.expr(f)  # e.g. nn.Linear(3, 4)(x)
        return self.call_value(node, f, callee, self.call_operands(node))

    def call_value(self, node: ast.Call, f: ast.expr, callee: Val, operands: list[tuple[ast.expr, Val]]) -> Val:
        """Calling a value: a model (forward), a loss, or something unknown."""
        if callee.kind is Kind.MODEL or (callee.kind is Kind.UNKNOWN and callee.place is Place.DEVICE):
            return self.model_call(node, f, callee, operands)
        if callee.kind is Kind.LOSS or (callee.kind is Kind.UNKNOWN and isinstance(f, (ast.Name, ast.Attribute))
                                        and LOSS_NAME.search(dotted(f) or "")):
            own = [(f, callee)] if callee.kind is Kind.LOSS else []
            self.check_mix(node, operands + own)
            return self.tensor_result([v for _, v in operands])
        return self.unknown_call(node, operands)

    def model_call(self, node: ast.Call, f: ast.expr, model: Val, operands: list[tuple[ast.expr, Val]]) -> Val:
        operands = self.flatten(operands)  # model(x, (h0, c0)): the state tuple goes in too
        if model.origins:
            self.emit(ev.ModelUsed(model.origins))
        if self.step_depth and self.loops and self.loops[-1] not in self.step_forward and self.stmt_now:
            self.step_forward[self.loops[-1]] = self.stmt_now
            self.step_model_on_cpu[self.loops[-1]] = model.place is Place.CPU and not (
                model.origins & self.host.placed_now)
        if model.place is Place.DEVICE and model.target != MOVES_INPUTS:
            for n, v in operands:
                if v.on_cpu:
                    self.emit(ev.Mix(n, v, f, model, node, self.module_name()))
        elif model.place is Place.CPU and model.kind is Kind.MODEL and model.origins and not (
                model.origins & self.host.placed_now):
            for n, v in operands:
                if v.tensorish and v.place is Place.DEVICE:
                    self.emit(ev.ModelOnCpuGetsDeviceInput(node, f, model, n, v, self.ctx.scope))
                    break
        place = model.place if model.place is not Place.UNKNOWN else Place.UNKNOWN
        return Val(Kind.TENSOR, place, frozenset({node}), via=model.via)

    def unknown_call(self, node: ast.Call, operands: list[tuple[ast.expr, Val]]) -> Val:
        """A call we cannot see into: a model passed in may be moved there; batch + device means moved."""
        for n, v in operands:
            if v.kind is Kind.MODEL and v.origins:
                self.emit(ev.ModelEscaped(v.origins))
                key = dotted(n)
                if key is not None:
                    self.env[key] = replace(v, place=Place.UNKNOWN)
        dev = next((v for _, v in operands if v.kind is Kind.DEVICE), None)
        carried = next((v for _, v in operands if v.kind in (Kind.BATCH, Kind.TENSOR, Kind.LOADER)), None)
        if carried is not None and dev is not None:
            return carried.at(Place.DEVICE if dev.target != "cpu" else Place.CPU)  # to_device(batch, device)
        if carried is not None and carried.kind is Kind.LOADER and operands and operands[0][1] is carried:
            return carried  # tqdm(loader), islice(loader, n)
        return UNKNOWN

    def name_call(self, node: ast.Call, name: str) -> Val:
        if name in self.program.classes and self.lookup(name) is None:
            return self.construct(node, self.program.classes[name])
        func = self.program.functions.get(name)
        if func is not None and self.lookup(name) is None:
            return self.local_call(node, func, self.call_operands(node))
        callee = self.lookup(name)
        if callee is not None:
            return self.call_value(node, node.func, callee, self.call_operands(node))
        return self.builtin_call(node, name)

    def builtin_call(self, node: ast.Call, name: str) -> Val:
        operands = self.call_operands(node)
        vals = [v for _, v in operands]
        first = vals[0] if vals else UNKNOWN
        if name in ("print",):
            for n, v in operands:
                if v.tensorish and v.place is Place.DEVICE:
                    self.sync(node, f"print({self.text(n)})", v)
            self.formatted_syncs(node)
            return UNKNOWN
        if name in ("float", "int", "bool") and first.tensorish:
            self.sync(node, f"{name}({self.text(node.args[0])})", first)
            return UNKNOWN
        if name in ("iter", "tuple", "list"):
            return first if first.kind in (Kind.LOADER, Kind.BATCH, Kind.TENSOR) or name == "iter" else UNKNOWN
        if name == "next":
            if first.kind is Kind.LOADER:
                return Val(Kind.BATCH, first.place, frozenset({node}))
            return replace(first, whole=False) if first.kind is Kind.BATCH else UNKNOWN
        if name == "enumerate" and first.kind is Kind.LOADER:
            return Val(Kind.WRAPPER, target="enumerate", elements=(first,))
        if name == "zip" and vals and all(v.kind is Kind.LOADER for v in vals):
            return Val(Kind.WRAPPER, target="zip", elements=tuple(vals))
        if name in NEUTRAL_BUILTINS:
            return UNKNOWN
        return self.unknown_call(node, operands)

    def formatted_syncs(self, node: ast.Call) -> None:
        for a in node.args:
            if isinstance(a, ast.JoinedStr):
                for part in a.values:
                    if isinstance(part, ast.FormattedValue):
                        v = self.expr(part.value)
                        if v.tensorish and v.place is Place.DEVICE:
                            self.sync(node, f"f-string of {self.text(part.value)}", v)

    def construct(self, node: ast.Call, cls: ClassInfo) -> Val:
        operands = self.call_operands(node)
        init = self.program.method(cls.name, "__init__")
        if init is not None:
            self.host.record_call(init, self.bind_args(init, node, operands))
        if cls.is_dataset:
            return Val(Kind.DATASET, Place.UNKNOWN if cls.mentions_device else Place.CPU, cls=cls.name)
        if not cls.is_module:
            return Val(Kind.UNKNOWN, cls=cls.name)
        for _, v in operands:
            if v.kind is Kind.MODEL and v.origins:
                self.emit(ev.ModelEscaped(v.origins))  # a backbone handed to a wrapper model goes with it
        if self.ctx.construction:
            return Val(Kind.MODEL, Place.DEVICE, cls=cls.name)  # a submodule: it follows its parent
        placed_by_arg = any(v.kind is Kind.DEVICE for _, v in operands)
        if cls.self_moving or placed_by_arg or self.device_ctx or self.host.default_device:
            self.emit(ev.ModelCreated(node, cls.name, cls.has_conv, self.ctx.scope))
            self.emit(ev.ModelPlaced(frozenset({node}), self.ctx.scope, True))
            return Val(Kind.MODEL, Place.UNKNOWN, frozenset({node}), cls=cls.name)
        self.emit(ev.ModelCreated(node, cls.name, cls.has_conv, self.ctx.scope))
        return Val(Kind.MODEL, Place.CPU, frozenset({node}), cls=cls.name)

    def bind_args(self, func: FuncInfo, node: ast.Call, operands: list[tuple[ast.expr, Val]]) -> dict[str, Val]:
        params = func.params
        bound: dict[str, Val] = {}
        positional = [v for (_, v), a in zip(operands, node.args, strict=False) if not isinstance(a, ast.Starred)]
        if any(isinstance(a, ast.Starred) for a in node.args):
            return bound
        for name, v in zip(params, positional, strict=False):
            bound[name] = v
        for k, (_, v) in zip(node.keywords, operands[len(node.args):], strict=False):
            if k.arg is not None and k.arg in params:
                bound[k.arg] = v
        return bound

    def local_call(self, node: ast.Call, func: FuncInfo, operands: list[tuple[ast.expr, Val]],
                   receiver: ast.expr | None = None) -> Val:
        bound = self.bind_args(func, node, operands)
        self.host.record_call(func, bound)
        summary = self.host.summary(func)
        for name in summary.moved_params:
            v = bound.get(name)
            arg = next((n for (n, _), p in zip(operands, func.params, strict=False) if p == name), None)
            if v is not None and v.kind is Kind.MODEL:
                self.emit(ev.ModelPlaced(v.origins, self.ctx.scope, True))
                self.host.placed_now.update(v.origins)
                key = dotted(arg) if arg is not None else None
                if key is not None:
                    self.env[key] = v.at(Place.DEVICE)
        if "self" in summary.moved_params and receiver is not None:
            key = dotted(receiver)
            v = self.lookup(key) if key else None
            if key and v is not None and v.kind is Kind.MODEL:
                self.env[key] = v.at(Place.DEVICE)
        ret = summary.returns
        if ret.kind in (Kind.MODEL, Kind.LOADER, Kind.DATASET, Kind.TENSOR, Kind.DEVICE, Kind.TUPLE):
            return ret
        dev = next((v for _, v in operands if v.kind is Kind.DEVICE), None)
        carried = next((v for _, v in operands if v.kind in (Kind.BATCH, Kind.TENSOR)), None)
        if carried is not None and dev is not None:
            return carried.at(Place.DEVICE if dev.target != "cpu" else Place.CPU)
        if ret.kind is Kind.BATCH:
            return ret
        return UNKNOWN

    # -- method calls ------------------------------------------------------------------------------
    def method_call(self, node: ast.Call, f: ast.Attribute) -> Val:
        meth = f.attr
        key = dotted(f)
        bound = self.lookup(key) if key is not None else None
        if bound is not None and (bound.kind in (Kind.MODEL, Kind.LOSS) or bound.place is Place.DEVICE):
            return self.call_value(node, f, bound, self.call_operands(node))  # self.fc(x), self.criterion(...)
        recv = self.expr(f.value)
        if meth in ("to", "cuda", "xpu", "cpu", "to_empty"):
            moved = self.move(node, recv)
            for a in [*node.args, *(k.value for k in node.keywords)]:
                self.expr(a)
            if meth == "cpu" and self.step_depth and (recv.place is Place.DEVICE or recv.kind is Kind.UNKNOWN) \
                    and recv.kind is not Kind.MODEL:
                self.sync(node, f"{self.text(f.value)}.cpu()", recv)
            return moved if moved is not None else recv
        if meth in ("item", "tolist"):
            if recv.place is Place.DEVICE or (recv.kind is Kind.UNKNOWN and meth == "item"):
                self.sync(node, f"{self.text(f.value)}.{meth}()", recv)
            return UNKNOWN
        if meth == "backward":
            if self.loops and self.stmt_now is not None:
                self.step_backward.setdefault(self.loops[-1], self.stmt_now)
            return UNKNOWN
        if meth == "synchronize":
            return UNKNOWN
        if recv.kind is Kind.MODEL or (recv.cls and self.program.classes.get(recv.cls, None) is not None
                                       and self.program.classes[recv.cls].is_module):
            return self.model_method(node, f, recv)
        if recv.tensorish:
            return self.tensor_method(node, f, recv)
        if recv.cls is not None:
            func = self.program.method(recv.cls, meth)
            if func is not None:
                return self.local_call(node, func, self.call_operands(node), receiver=f.value)
        if recv.kind is Kind.LOSS:
            return self.call_value(node, f, recv, self.call_operands(node)) if meth == "forward" else UNKNOWN
        if recv.kind is Kind.OPTIMIZER:
            self.call_operands(node)
            return UNKNOWN
        if recv.kind is Kind.UNKNOWN and recv.place is Place.DEVICE:
            return self.tensor_method(node, f, Val(Kind.TENSOR, Place.DEVICE, recv.origins))
        operands = self.call_operands(node)
        if LOSS_NAME.search(meth) and any(v.tensorish for _, v in operands):
            self.check_mix(node, operands)
            return self.tensor_result([v for _, v in operands])
        return self.unknown_call(node, operands)

    def model_method(self, node: ast.Call, f: ast.Attribute, recv: Val) -> Val:
        meth = f.attr
        if meth == "register_buffer" and self.ctx.construction and len(node.args) >= 2 \
                and isinstance(node.args[0], ast.Constant):
            self.expr(node.args[1])
            self.env[f"self.{node.args[0].value!s}"] = Val(Kind.TENSOR, Place.DEVICE)
            return UNKNOWN
        operands = self.call_operands(node)
        if meth == "forward":
            return self.model_call(node, f, recv, operands)
        if meth in MODEL_QUERY_METHODS or meth in MODEL_SELF_METHODS:
            if meth in ("parameters", "named_parameters", "train") and recv.origins:
                self.emit(ev.ModelUsed(recv.origins))
            return recv if meth in MODEL_SELF_METHODS else UNKNOWN
        func = self.program.method(recv.cls, meth)
        if func is not None:
            return self.local_call(node, func, operands, receiver=f.value)
        return UNKNOWN

    def tensor_method(self, node: ast.Call, f: ast.Attribute, recv: Val) -> Val:
        meth = f.attr
        operands = self.call_operands(node)
        if meth in COMBINING_METHODS:
            self.check_mix(node, [(f.value, recv), *operands])
        if meth in NON_TENSOR_METHODS:
            return UNKNOWN
        if meth.startswith("new_"):
            return Val(Kind.TENSOR, recv.place, frozenset({node}) if recv.place is Place.CPU else recv.origins)
        if meth == "type_as" and operands:
            return replace(recv, place=operands[0][1].place) if operands[0][1].tensorish else recv
        if meth in ("get", "pop", "values", "items", "chunk", "split", "unbind", "unsqueeze", "squeeze"):
            return replace(recv, whole=recv.whole if meth in ("items", "values") else False)
        return replace(recv, scalar=recv.scalar and meth not in ("expand", "repeat"))

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

    # -- torch and other imported names ------------------------------------------------------------
    def torch_or_library_call(self, node: ast.Call, q: str) -> Val:
        name = q.rsplit(".", 1)[-1]
        if q == "torch.device":
            operands = self.call_operands(node)
            first = operands[0][1] if operands else UNKNOWN
            if first.kind is Kind.DEVICE:
                return device(first.target or "dynamic")
            if node.args and isinstance(node.args[0], ast.Constant):
                return UNKNOWN
            return device("dynamic")
        if q.startswith("torch.cuda."):
            return self.cuda_call(node, q)
        if q == "torch.set_default_device":
            self.call_operands(node)
            return UNKNOWN
        tname = torch_attr(q, "torch")
        if tname in FACTORIES or q in ("torch.cuda.FloatTensor", "torch.cuda.LongTensor"):
            return self.factory(node, tname or name)
        if tname in LIKE_FACTORIES:
            operands = self.call_operands(node)
            like = operands[0][1] if operands else UNKNOWN
            dev = next((v for n, v in operands[1:] if v.kind is Kind.DEVICE), None)
            if dev is not None:
                return Val(Kind.TENSOR, Place.CPU if dev.target == "cpu" else Place.DEVICE, frozenset({node}))
            return Val(Kind.TENSOR, like.place, frozenset({node}) if like.place is Place.CPU else like.origins)
        if q in DATA_PARALLEL or q in DDP or q.endswith(".DistributedDataParallel"):
            if q in DATA_PARALLEL:
                self.emit(ev.DataParallelUsed(node))
            operands = self.call_operands(node)
            model = operands[0][1] if operands else UNKNOWN
            if model.kind is not Kind.MODEL:
                return Val(Kind.MODEL, model.place, target=MOVES_INPUTS)
            if any(k.arg in ("device_ids", "output_device") for k in node.keywords):
                self.emit(ev.ModelPlaced(model.origins, self.ctx.scope, True))
                model = model.at(Place.DEVICE)
            return replace(model, target=MOVES_INPUTS)  # the wrapper scatters CPU inputs to its devices
        if q.startswith("torch.nn.") and not q.startswith("torch.nn.functional.") and not q.startswith(
                "torch.nn.init.") and not q.startswith("torch.nn.utils."):
            return self.nn_constructor(node, q)
        if q.startswith("torch.nn.functional."):
            operands = self.call_operands(node)
            self.check_mix(node, operands)
            return self.tensor_result([v for _, v in operands])
        if tname in COMBINING_FUNCS:
            operands = self.call_operands(node)
            flat = self.flatten(operands)
            self.check_mix(node, flat)
            return self.tensor_result([v for _, v in flat])
        if q.endswith("DataLoader"):
            return self.data_loader(node)
        if q in ("torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset"):
            operands = self.call_operands(node)
            tensors = [v for _, v in operands if v.tensorish]
            place = combine_places(tensors) if tensors and len(tensors) == len(operands) else Place.UNKNOWN
            return Val(Kind.DATASET, place, target="in_memory")
        if q.startswith("torch.utils.data."):
            operands = self.call_operands(node)
            first = operands[0][1] if operands else UNKNOWN
            return first if first.kind is Kind.DATASET else UNKNOWN
        if q.startswith("torchvision.datasets."):
            self.call_operands(node)
            return Val(Kind.DATASET, Place.CPU)
        if q.startswith("torch.optim.") and name[:1].isupper() and "lr_scheduler" not in q:
            self.call_operands(node)
            return Val(Kind.OPTIMIZER)
        if is_model_factory(q):
            return self.model_factory(node, q)
        if q in ("torch.compile", "torch.jit.script", "torch.jit.trace", "copy.deepcopy"):
            operands = self.call_operands(node)
            return operands[0][1] if operands else UNKNOWN
        if q in ("os.environ.setdefault", "os.putenv") or q == "os.environ.update":
            self.env_call(node)
            return UNKNOWN
        if tname is not None and tname[:1].islower():
            operands = self.call_operands(node)
            return self.tensor_result([v for _, v in operands])  # torch.sigmoid(x), torch.tril(t)
        if name == "print" or q in ("pprint.pprint", "rich.print"):
            return self.builtin_call(node, "print")
        return self.unknown_call(node, self.call_operands(node))

    def cuda_call(self, node: ast.Call, q: str) -> Val:
        rest = q[len("torch.cuda."):]
        self.call_operands(node)
        if rest.split(".")[0] not in LAZY_CUDA_CALLS and self.cuda_init is None:
            self.cuda_init = node  # is_available() too: it counts devices, which fixes CUDA_VISIBLE_DEVICES
        if rest == "synchronize" and self.step_depth:
            self.sync(node, "torch.cuda.synchronize()", Val(Kind.TENSOR, Place.DEVICE))
        if rest == "current_device":
            return device("cuda")
        return UNKNOWN

    def env_call(self, node: ast.Call) -> None:
        stmt = self.stmt_now
        if stmt is None:
            return
        if node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value == "CUDA_VISIBLE_DEVICES":
            value = node.args[1].value if len(node.args) > 1 and isinstance(node.args[1], ast.Constant) else None
            self.emit(ev.EnvSet(stmt, str(value) if value is not None else None, self.cuda_init))
        for k in node.keywords:
            if k.arg == "CUDA_VISIBLE_DEVICES":
                value = k.value.value if isinstance(k.value, ast.Constant) else None
                self.emit(ev.EnvSet(stmt, str(value) if value is not None else None, self.cuda_init))

    def factory(self, node: ast.Call, name: str) -> Val:
        operands = self.call_operands(node)
        if name.startswith("cuda.") or ".cuda." in name:
            return Val(Kind.TENSOR, Place.DEVICE, frozenset({node}))
        dev_node = next((k.value for k in node.keywords if k.arg == "device"), None)
        if dev_node is not None:
            target, _ = self.device_target(dev_node)
            if self.cuda_init is None and target not in (None, "cpu", "mps"):
                self.cuda_init = node
            # device="cpu" written out is a deliberate choice (a host-side buffer): not judged
            return Val(Kind.TENSOR, Place.UNKNOWN if target == "cpu" else Place.DEVICE, frozenset({node}))
        if self.device_ctx or self.host.default_device:
            return Val(Kind.TENSOR, Place.DEVICE, frozenset({node}))
        # torch.tensor(0.5) is 0-dim and may meet CUDA tensors; so may torch.tensor(x) for all we know of x
        scalar = name in ("tensor", "as_tensor") and not (node.args and (
            isinstance(node.args[0], (ast.List, ast.Tuple, ast.ListComp, ast.Call))
            or operands[0][1].kind is Kind.TUPLE))
        if name in ("zeros", "ones", "empty", "rand", "randn", "full") and node.args and \
                isinstance(node.args[0], (ast.Tuple, ast.List)) and not node.args[0].elts:
            scalar = True  # torch.zeros(()) is 0-dim
        return Val(Kind.TENSOR, Place.CPU, frozenset({node}), scalar=scalar)

    def device_target(self, node: ast.expr) -> tuple[str | None, str]:
        v = self.expr(node)
        if v.kind is Kind.DEVICE:
            return v.target or "dynamic", self.text(node)
        if v.tensorish:
            return ("cpu" if v.place is Place.CPU else "dynamic"), self.text(node)
        return "dynamic", self.text(node)

    def nn_constructor(self, node: ast.Call, q: str) -> Val:
        operands = self.call_operands(node)
        name = q.rsplit(".", 1)[-1]
        if name == "Parameter":
            inner = operands[0][1] if operands else UNKNOWN
            return Val(Kind.TENSOR, Place.DEVICE) if self.ctx.module_cls else inner
        if is_loss_class(q):
            cpu = [v for _, v in operands if v.on_cpu]
            if cpu:
                return Val(Kind.LOSS, Place.CPU, frozenset().union(*(v.origins for v in cpu)))
            return Val(Kind.LOSS)
        if not is_weighted_layer(q):
            return Val(Kind.MODEL) if name[:1].isupper() else UNKNOWN
        for _, v in operands:
            if v.kind is Kind.MODEL and v.origins:
                self.emit(ev.ModelEscaped(v.origins))  # nn.Sequential(layer, ...) owns its layers
        if self.ctx.module_cls is not None:
            if self.ctx.construction:
                return Val(Kind.MODEL, Place.DEVICE)
            method = self.ctx.func.node.name if self.ctx.func else ""
            if method not in ("forward", "__call__"):
                return Val(Kind.MODEL)  # a conversion helper building a module to return: not per call
            self.emit(ev.ModuleInForward(node, self.ctx.module_cls.name, method))
            return Val(Kind.MODEL, Place.CPU, frozenset({node}))
        if name in ("Sequential", "ModuleList", "ModuleDict") and any(
                isinstance(a, ast.Starred) or (v.kind is Kind.MODEL and v.origins and v.place is not Place.CPU)
                or (v.kind is not Kind.MODEL and not isinstance(a, ast.Call))
                for a, (_, v) in zip(node.args, operands, strict=False)):
            return Val(Kind.MODEL)  # built from layers made elsewhere: placed wherever they are
        dev = next((v for _, v in operands if v.kind is Kind.DEVICE), None)
        self.emit(ev.ModelCreated(node, None, name in CONV_LAYERS, self.ctx.scope))
        if dev is not None or self.device_ctx or self.host.default_device:
            accelerator = dev is None or dev.target != "cpu"
            self.emit(ev.ModelPlaced(frozenset({node}), self.ctx.scope, accelerator))
            return Val(Kind.MODEL, Place.DEVICE if accelerator else Place.CPU, frozenset({node}))
        return Val(Kind.MODEL, Place.CPU, frozenset({node}))

    def model_factory(self, node: ast.Call, q: str) -> Val:
        self.call_operands(node)
        self.emit(ev.ModelCreated(node, None, is_conv_model_factory(q), self.ctx.scope))
        placing = {"device", "device_map"} & {k.arg for k in node.keywords}
        if placing or self.device_ctx or self.host.default_device:
            self.emit(ev.ModelPlaced(frozenset({node}), self.ctx.scope, True))
            return Val(Kind.MODEL, Place.UNKNOWN, frozenset({node}))
        return Val(Kind.MODEL, Place.CPU, frozenset({node}))

    def data_loader(self, node: ast.Call) -> Val:
        operands = self.call_operands(node)
        kw = {k.arg: v for k, (_, v) in zip(node.keywords, operands[len(node.args):], strict=False)}
        dataset = kw.get("dataset") or (operands[0][1] if operands else UNKNOWN)
        collate = next((k.value for k in node.keywords if k.arg == "collate_fn"), None)
        on_device = (dataset.kind is Kind.DATASET or dataset.tensorish) and dataset.place is not Place.CPU
        place = Place.UNKNOWN if on_device else Place.CPU
        if collate is not None and self.collate_moves(collate):
            place = Place.UNKNOWN
        in_memory = dataset.target == "in_memory"
        self.emit(ev.LoaderCreated(node, dataset, in_memory))
        return Val(Kind.LOADER, place, frozenset({node}))

    def collate_moves(self, collate: ast.expr) -> bool:
        """A collate_fn of this file that moves tensors (or names a device) yields device batches."""
        if isinstance(collate, ast.Lambda):
            body: list[ast.AST] = [collate.body]
        elif isinstance(collate, ast.Name) and collate.id in self.program.functions:
            body = list(self.program.functions[collate.id].node.body)
        else:
            return False
        for root in body:
            for n in ast.walk(root):
                if isinstance(n, ast.Call) and call_name(n) in ("to", "cuda"):
                    return True
        return False

    # -- host syncs --------------------------------------------------------------------------------
    def sync(self, node: ast.AST, what: str, val: Val) -> None:
        if not self.step_depth or self.periodic or self.stmt_now is None:
            return
        loop = self.loops[-1] if self.loops else None
        self.emit(ev.Sync(node, self.stmt_now, what, loop, self.step_counter()))

    def step_counter(self) -> str | None:
        for loop in reversed(self.loops):
            if isinstance(loop, (ast.For, ast.AsyncFor)):
                t = loop.target
                if isinstance(t, ast.Tuple) and t.elts and isinstance(t.elts[0], ast.Name) and \
                        isinstance(loop.iter, ast.Call) and call_name(loop.iter) == "enumerate":
                    return t.elts[0].id
                if isinstance(t, ast.Name) and isinstance(loop.iter, ast.Call) and call_name(loop.iter) == "range":
                    return t.id
            if loop in self.program.step_loops:
                break
        return None

