"""Follow values through one scope (the module, a function, a method): what each call does to them.

:class:`ScopeFlow` adds the meaning of calls to the interpreter: the torch API (factories, ``nn`` layers,
``DataLoader``, ``torch.device``, DataParallel/DDP), methods of models and tensors, the file's own
functions and classes (through their summaries, with arguments recorded for the callee), and unknown
calls, into which a model "escapes" (it may be moved there, so it is never judged afterwards).
"""

from __future__ import annotations

import ast
from dataclasses import replace

from gpuassist.audit import events as ev
from gpuassist.audit.interp import Interpreter
from gpuassist.audit.program import ClassInfo, FuncInfo
from gpuassist.audit.values import UNKNOWN, Kind, Place, Val, combine_places, device
from gpuassist.audit.vocab import (
    COMBINING_FUNCS,
    COMBINING_METHODS,
    CONV_LAYERS,
    DATA_PARALLEL,
    DDP,
    FACTORIES,
    FULL_REDUCTIONS,
    LAZY_CUDA_CALLS,
    LIKE_FACTORIES,
    LOADER_PASSTHROUGH,
    LOSS_NAME,
    NON_TENSOR_METHODS,
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
MODEL_SELF_METHODS = frozenset(
    {
        "train",
        "eval",
        "requires_grad_",
        "apply",
        "float",
        "double",
        "half",
        "bfloat16",
        "type",
        "share_memory",
        "zero_grad",
    }
)
MODEL_QUERY_METHODS = frozenset(
    {
        "parameters",
        "named_parameters",
        "buffers",
        "named_buffers",
        "state_dict",
        "load_state_dict",
        "modules",
        "named_modules",
        "children",
        "named_children",
        "register_forward_hook",
        "register_forward_pre_hook",
        "register_full_backward_hook",
    }
)
NEUTRAL_BUILTINS = frozenset(
    {
        "len",
        "range",
        "isinstance",
        "hasattr",
        "getattr",
        "setattr",
        "type",
        "str",
        "repr",
        "sorted",
        "min",
        "max",
        "sum",
        "abs",
        "round",
        "super",
        "id",
        "hash",
        "open",
        "vars",
        "dir",
        "callable",
        "format",
        "divmod",
        "map",
        "filter",
        "reversed",
        "any",
        "all",
        "set",
        "frozenset",
        "issubclass",
        "input",
        "exit",
        "quit",
    }
)


class ScopeFlow(Interpreter):
    """The interpreter with the meaning of calls: what the torch API, models, tensors and the file's own
    functions do to the values passed to them."""

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
        if callee.kind is Kind.LOSS or (
            callee.kind is Kind.UNKNOWN
            and isinstance(f, (ast.Name, ast.Attribute))
            and LOSS_NAME.search(dotted(f) or "")
        ):
            own = [(f, callee)] if callee.kind is Kind.LOSS else []
            self.check_mix(node, operands + own)
            return self.tensor_result([v for _, v in operands])
        return self.unknown_call(node, operands)

    def model_call(self, node: ast.Call, f: ast.expr, model: Val, operands: list[tuple[ast.expr, Val]]) -> Val:
        host = self.host_inputs(node, model)
        operands = self.flatten([(n, v) for n, v in operands if n not in host])  # model(x, (h0, c0)): all of it
        self.settle_late(dotted(f), report=True)  # it runs with the CPU layer in it
        if model.origins:
            self.emit(ev.ModelUsed(model.origins))
        if self.step_depth and self.loops and self.loops[-1] not in self.step_forward and self.stmt_now:
            self.step_forward[self.loops[-1]] = self.stmt_now
            self.step_model_on_cpu[self.loops[-1]] = model.place is Place.CPU and not (
                model.origins & self.host.placed_now
            )
        if model.place is Place.DEVICE and model.target != MOVES_INPUTS:
            for n, v in operands:
                if v.on_cpu:
                    self.emit(ev.Mix(n, v, f, model, node, self.module_name()))
        elif (
            model.place is Place.CPU
            and model.kind is Kind.MODEL
            and model.origins
            and not (model.origins & self.host.placed_now)
        ):
            for n, v in operands:
                if v.tensorish and v.place is Place.DEVICE:
                    self.emit(ev.ModelOnCpuGetsDeviceInput(node, f, model, n, v, self.ctx.scope))
                    break
        place = model.place if model.place is not Place.UNKNOWN else Place.UNKNOWN
        return Val(Kind.TENSOR, place, frozenset({node}), via=model.via)

    def host_inputs(self, node: ast.Call, model: Val) -> set[ast.expr]:
        """Arguments of a call of this file's module that its forward() takes on the CPU on purpose
        (``model(text, lengths)`` with ``pack_padded_sequence(..., lengths)`` inside)."""
        forward = self.program.method(model.cls, "forward") if model.cls else None
        if forward is None:
            return set()
        host = self.program.host_params(forward)
        out: set[ast.expr] = set()
        for param, arg in zip(forward.params, node.args, strict=False):
            if isinstance(arg, ast.Starred):
                break
            if param in host:
                out.add(arg)
        return out | {k.value for k in node.keywords if k.arg in host}

    def unknown_call(self, node: ast.Call, operands: list[tuple[ast.expr, Val]]) -> Val:
        """A call we cannot see into: a model passed in may be moved there; batch + device means moved."""
        for n, v in operands:
            if v.kind is Kind.MODEL and v.origins:
                self.emit(ev.ModelEscaped(v.origins))
                key = dotted(n)
                self.settle_late(key, report=False)
                if key is not None:
                    self.env[key] = replace(v, place=Place.UNKNOWN)
        dev = next((v for _, v in operands if v.kind is Kind.DEVICE), None)
        carried = next((v for _, v in operands if v.kind in (Kind.BATCH, Kind.TENSOR, Kind.LOADER)), None)
        if carried is not None and dev is not None:
            return carried.at(Place.DEVICE if dev.target != "cpu" else Place.CPU)  # to_device(batch, device)
        first = operands[0][1] if operands else UNKNOWN
        if first.kind in (Kind.LOADER, Kind.WRAPPER) and (carried is None or carried is first):
            if call_name(node) in LOADER_PASSTHROUGH:
                return first  # tqdm(loader), tqdm(enumerate(loader)), islice(loader, n)
            return Val(Kind.LOADER) if first.kind is Kind.LOADER else UNKNOWN  # PrefetchLoader(loader) moves
        if dev is not None:
            return Val(via=self.text(next(n for n, v in operands if v is dev)))  # made knowing the device
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
        if name in ("float", "int", "bool") and first.tensorish and first.place is Place.DEVICE:
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
        for k, (_, v) in zip(node.keywords, operands[len(node.args) :], strict=False):
            if k.arg is not None and k.arg in params:
                bound[k.arg] = v
        return bound

    def local_call(
        self, node: ast.Call, func: FuncInfo, operands: list[tuple[ast.expr, Val]], receiver: ast.expr | None = None
    ) -> Val:
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
                self.settle_late(key, report=False)
                if key is not None:
                    self.env[key] = v.at(Place.DEVICE)
        if "self" in summary.moved_params and receiver is not None:
            key = dotted(receiver)
            self.settle_late(key, report=False)
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
            if (
                meth == "cpu"
                and self.step_depth
                and (recv.place is Place.DEVICE or recv.kind is Kind.UNKNOWN)
                and recv.kind is not Kind.MODEL
            ):
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
        if recv.kind is Kind.MODEL or (
            recv.cls
            and self.program.classes.get(recv.cls, None) is not None
            and self.program.classes[recv.cls].is_module
        ):
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
        if (
            meth == "register_buffer"
            and self.ctx.construction
            and len(node.args) >= 2
            and isinstance(node.args[0], ast.Constant)
        ):
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
        if meth == "type" and node.args:
            place = self.type_place(node.args[0], recv.place)
            if place is Place.CPU and recv.place is not Place.CPU:  # a CPU copy made here
                return Val(Kind.TENSOR, Place.CPU, frozenset({node}), scalar=recv.scalar)
            return replace(recv, place=place)
        if meth in ("get", "pop", "values", "items", "chunk", "split", "unbind", "unsqueeze", "squeeze"):
            return replace(recv, whole=recv.whole if meth in ("items", "values") else False)
        if meth in FULL_REDUCTIONS and not node.args and not any(k.arg == "dim" for k in node.keywords):
            return replace(recv, kind=Kind.TENSOR, scalar=True)  # w.sum() is 0-dim: it may meet CUDA tensors
        return replace(recv, scalar=recv.scalar and meth not in ("expand", "repeat"))

    def type_place(self, arg: ast.expr, place: Place) -> Place:
        """Where ``t.type(arg)`` puts ``t``: a ``torch.cuda.*Tensor`` type moves it to the GPU, a CPU tensor
        type (``torch.FloatTensor``) to the CPU, a dtype keeps it; anything else (``Tensor =
        torch.cuda.FloatTensor if cuda else torch.FloatTensor``) is unknown."""
        q = self.sym.qualname(arg) or ""
        text = arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else q
        if text.startswith("torch.cuda.") and text.endswith("Tensor"):
            return Place.DEVICE
        if text.startswith("torch.") and text.endswith("Tensor") and "." not in text[len("torch.") :]:
            return Place.CPU
        if is_dtype(q):
            return place
        return Place.UNKNOWN

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
        if q == "torch.accelerator.current_accelerator":  # the CUDA/MPS/XPU device, None without one
            self.call_operands(node)
            return device("fallback")
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
        if (
            q.startswith("torch.nn.")
            and not q.startswith("torch.nn.functional.")
            and not q.startswith("torch.nn.init.")
            and not q.startswith("torch.nn.utils.")
        ):
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
            result = self.tensor_result([v for _, v in operands])  # torch.sigmoid(x), torch.tril(t)
            if tname in FULL_REDUCTIONS and len(node.args) == 1 and not node.keywords and result.tensorish:
                return replace(result, scalar=True)  # torch.sum(w): 0-dim
            return result
        if name == "print" or q in ("pprint.pprint", "rich.print"):
            return self.builtin_call(node, "print")
        return self.unknown_call(node, self.call_operands(node))

    def cuda_call(self, node: ast.Call, q: str) -> Val:
        rest = q[len("torch.cuda.") :]
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
        scalar = name in ("tensor", "as_tensor") and not (
            node.args
            and (
                isinstance(node.args[0], (ast.List, ast.Tuple, ast.ListComp, ast.Call))
                or operands[0][1].kind is Kind.TUPLE
            )
        )
        if (
            name in ("zeros", "ones", "empty", "rand", "randn", "full")
            and node.args
            and isinstance(node.args[0], (ast.Tuple, ast.List))
            and not node.args[0].elts
        ):
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
            isinstance(a, ast.Starred)
            or (v.kind is Kind.MODEL and v.origins and v.place is not Place.CPU)
            or (v.kind is not Kind.MODEL and not isinstance(a, ast.Call))
            for a, (_, v) in zip(node.args, operands, strict=False)
        ):
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
        kw = {k.arg: v for k, (_, v) in zip(node.keywords, operands[len(node.args) :], strict=False)}
        dataset = kw.get("dataset") or (operands[0][1] if operands else UNKNOWN)
        collate = next((k.value for k in node.keywords if k.arg == "collate_fn"), None)
        on_device = (dataset.kind is Kind.DATASET or dataset.tensorish) and dataset.place is not Place.CPU
        # MyDataset(data, device) from another module may put its samples on the device already; so may a
        # collate_fn that moves each batch (and then worker processes and pinning would be wrong, not slow)
        made_with_device = kw.get("collate_fn", UNKNOWN).via is not None  # partial(fn, device=device)
        device_batches = (
            on_device
            or dataset.via is not None
            or made_with_device
            or (collate is not None and self.collate_moves(collate))
        )
        in_memory = dataset.target == "in_memory"
        self.emit(ev.LoaderCreated(node, dataset, in_memory, device_batches))
        return Val(Kind.LOADER, Place.UNKNOWN if device_batches else Place.CPU, frozenset({node}))

    def collate_moves(self, collate: ast.expr) -> bool:
        """Does this collate_fn of this file move tensors: a lambda or function that calls ``.to()``/``.cuda()``,
        ``partial(fn, ...)`` of one, or an instance of a collator class of this file that does."""
        if isinstance(collate, ast.Lambda):
            body: list[ast.AST] = [collate.body]
        elif isinstance(collate, ast.Name) and collate.id in self.program.functions:
            body = list(self.program.functions[collate.id].node.body)
        elif isinstance(collate, ast.Name) and collate.id in self.program.classes:
            body = [self.program.classes[collate.id].node]
        elif isinstance(collate, ast.Call) and collate.args and call_name(collate) == "partial":
            return self.collate_moves(collate.args[0])
        elif isinstance(collate, ast.Call):
            return self.collate_moves(collate.func)  # Collator(pad_id=0): its class
        else:
            return False
        for root in body:
            for n in ast.walk(root):
                if isinstance(n, ast.Call) and call_name(n) in ("to", "cuda"):
                    return True
        return False
