"""The whole program as the flow needs it: classes, functions, training loops, and file-wide facts.

Everything here is syntactic (no values yet): which classes are nn.Modules or Datasets, which functions
run one training step (``backward()``/``optimizer.step()`` outside any loop of theirs), which loops are
*step loops* (a step per iteration, so a sync there runs every step), the call graph that orders the
analysis callers-first, and file-wide switches (autocast used, cudnn.benchmark set, a placing framework).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

from gpuassist.audit.vocab import (
    ANNOUNCE_FUNCS,
    CONV_LAYERS,
    DATASET_BASES,
    MODULE_BASES,
    OPTIMIZER_NAME,
    PLACING_FRAMEWORKS,
    PLACING_NAMES,
    REDUCED_PRECISION,
    Symbols,
    call_name,
    is_conv_model_factory,
    torch_attr,
)

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
LOOPS = (ast.For, ast.AsyncFor, ast.While)
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
# Where forward() may take a CPU tensor although the module is on the GPU: APIs that want the host copy
# (packed sequences need CPU lengths), reads of its shape, its own .to()/.cpu(), builtins that read it.
HOST_INPUT_CALLS = frozenset({"torch.nn.utils.rnn.pack_padded_sequence", "torch.nn.utils.rnn.pack_sequence"})
HOST_INPUT_METHODS = frozenset({"to", "cuda", "cpu", "tolist", "numpy", "item", "size", "dim", "numel"})
HOST_INPUT_ATTRS = frozenset({"shape", "dtype", "ndim", "device", "is_cuda"})
HOST_INPUT_BUILTINS = frozenset({"len", "int", "float", "list", "range", "max", "min", "sorted", "isinstance"})
# Methods of an nn.Module that run at construction (before any .to()), not per forward call.
DEVICE_LOADER_LIBS = frozenset({"nvidia", "ffcv", "dali"})
CONSTRUCTION_METHODS = frozenset(
    {"__init__", "reset_parameters", "_init_weights", "init_weights", "_reset_parameters", "build", "__post_init__"}
)


@dataclass
class ClassInfo:
    node: ast.ClassDef
    is_module: bool = False
    is_dataset: bool = False
    is_lightning: bool = False
    self_moving: bool = False  # a method calls self.to(...)/self.cuda(): instances place themselves
    mentions_device: bool = False  # the body moves tensors or names a device (datasets that yield GPU tensors)
    has_conv: bool = False
    methods: dict[str, FunctionNode] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.node.name


@dataclass
class FuncInfo:
    node: FunctionNode
    cls: ClassInfo | None = None

    @property
    def key(self) -> str:
        return f"{self.cls.name}.{self.node.name}" if self.cls else self.node.name

    @property
    def params(self) -> list[str]:
        a = self.node.args
        names = [p.arg for p in (*a.posonlyargs, *a.args)]
        if self.cls is not None and names and not _is_static(self.node):
            names = names[1:]  # self / cls
        return names + [p.arg for p in a.kwonlyargs]


def _is_module_base(q: str | None) -> bool:
    """nn.Module itself, any torch.nn layer (``class MyConv(nn.Conv2d)``), Lightning, Hugging Face models."""
    if not q:
        return False
    last = q.rsplit(".", 1)[-1]
    if q.startswith("torch.nn.") and last[:1].isupper() and "functional" not in q:
        return True
    return last in ("LightningModule", "PreTrainedModel") or (
        q.split(".")[0] in ("timm", "transformers") and last.endswith(("Model", "Module"))
    )


def _is_static(node: FunctionNode) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)


def walk_scope(nodes: list[ast.stmt] | list[ast.AST], *, into_loops: bool = True) -> Iterator[ast.AST]:
    """Every node under ``nodes`` without entering nested functions/classes (nor loops, if asked)."""

    def skipped(node: ast.AST) -> bool:
        return isinstance(node, SCOPES) or (not into_loops and isinstance(node, LOOPS))

    stack: list[ast.AST] = [n for n in reversed(nodes) if not skipped(n)]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(child for child in reversed(list(ast.iter_child_nodes(node))) if not skipped(child))


class Program:
    """Syntactic facts about one module, computed once before the flow runs."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.symbols = Symbols(tree)
        self.parents: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node
        self.classes: dict[str, ClassInfo] = {}
        self.functions: dict[str, FuncInfo] = {}  # plain functions by name (nested ones too; last wins)
        self._host_params: dict[ast.AST, frozenset[str]] = {}
        self._collect_definitions()
        self.step_functions = self._step_functions()
        self.step_loops = {n for n in ast.walk(tree) if isinstance(n, LOOPS) and self._has_step(n.body + n.orelse)}
        self.per_step_functions = self._per_step_functions()
        self.framework = self._framework()
        # DALI / FFCV loaders hand out batches already on the GPU: a "loader" of unknown origin may be one
        self.device_loaders = self.symbols.imports_root(DEVICE_LOADER_LIBS) is not None
        self.uses_reduced_precision = self._uses_reduced_precision()
        self.cudnn_benchmark, self.cudnn_deterministic = self._cudnn_flags()
        self.has_conv = self._has_conv()
        self.announced = self._announced_names()

    # -- definitions -------------------------------------------------------------------------------
    def _collect_definitions(self) -> None:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ClassDef):
                info = ClassInfo(node)
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        info.methods[item.name] = item
                self.classes[node.name] = info
        for _ in range(len(self.classes) + 1):  # bases may be classes of this file, in any order
            changed = False
            for info in self.classes.values():
                for base in info.node.bases:
                    q = self.symbols.qualname(base)
                    local = self.classes.get(base.id) if isinstance(base, ast.Name) else None
                    module = (
                        q in MODULE_BASES or _is_module_base(q) or bool(local and local.is_module and local is not info)
                    )
                    dataset = q in DATASET_BASES or bool(local and local.is_dataset and local is not info)
                    lightning = (q or "").endswith("LightningModule") or bool(local and local.is_lightning)
                    if (
                        (module and not info.is_module)
                        or (dataset and not info.is_dataset)
                        or (lightning and not info.is_lightning)
                    ):
                        info.is_module |= module
                        info.is_dataset |= dataset
                        info.is_lightning |= lightning
                        changed = True
            if not changed:
                break
        for info in self.classes.values():
            for node in ast.walk(info.node):
                if isinstance(node, ast.Call):
                    name = call_name(node)
                    f = node.func
                    if name in ("to", "cuda") and isinstance(f, ast.Attribute):
                        info.mentions_device = True
                        if isinstance(f.value, ast.Name) and f.value.id == "self":
                            info.self_moving = True
                    if torch_attr(self.symbols.qualname(node.func), "torch.nn") in CONV_LAYERS:
                        info.has_conv = True
                if isinstance(node, ast.keyword) and node.arg == "device":
                    info.mentions_device = True
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                parent = self.parents.get(node)
                if isinstance(parent, ast.ClassDef):
                    continue
                self.functions[node.name] = FuncInfo(node)

    def method(self, cls: str | None, name: str) -> FuncInfo | None:
        """The method ``name`` of local class ``cls`` or of its local bases."""
        seen: set[str] = set()
        while cls and cls in self.classes and cls not in seen:
            seen.add(cls)
            info = self.classes[cls]
            if name in info.methods:
                return FuncInfo(info.methods[name], info)
            cls = next((b.id for b in info.node.bases if isinstance(b, ast.Name) and b.id in self.classes), None)
        return None

    def all_functions(self) -> list[FuncInfo]:
        out = list(self.functions.values())
        for info in self.classes.values():
            out += [FuncInfo(m, info) for m in info.methods.values()]
        return out

    def host_params(self, func: FuncInfo) -> frozenset[str]:
        """Parameters of a forward() that may be CPU tensors when the module is on the GPU: forward moves
        them itself (``lengths = lengths.to(x.device)``), or only reads their shape, hands them to an API that
        wants them on the host (``pack_padded_sequence(emb, lengths)``), or copies them out (``.tolist()``)."""
        cached = self._host_params.get(func.node)
        if cached is not None:
            return cached
        out = set()
        for name in func.params:
            uses = [
                n
                for n in ast.walk(func.node)
                if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
            ]
            if self._moves_name(func.node, name) or all(self._host_use(n) for n in uses):
                out.add(name)
        self._host_params[func.node] = frozenset(out)
        return self._host_params[func.node]

    def _moves_name(self, func: FunctionNode, name: str) -> bool:
        """Does ``func`` move (part of) ``name`` itself: ``x.to(dev)``, ``batch["image"].to(self.device)``,
        ``[d["image"].to(self.device) for d in batched_inputs]``?"""
        derived = {name}
        for node in ast.walk(func):
            if isinstance(node, ast.comprehension) and any(
                isinstance(n, ast.Name) and n.id == name for n in ast.walk(node.iter)
            ):
                derived |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
        for node in ast.walk(func):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("to", "cuda")
                and any(isinstance(n, ast.Name) and n.id in derived for n in ast.walk(node.func.value))
            ):
                return True
        return False

    def _host_use(self, use: ast.Name) -> bool:
        parent = self.parents.get(use)
        if isinstance(parent, ast.Attribute):
            call = self.parents.get(parent)
            return parent.attr in HOST_INPUT_ATTRS or (
                parent.attr in HOST_INPUT_METHODS and isinstance(call, ast.Call) and call.func is parent
            )
        if isinstance(parent, ast.keyword):
            parent = self.parents.get(parent)
        if isinstance(parent, ast.Call) and use is not parent.func:
            return self.symbols.qualname(parent.func) in HOST_INPUT_CALLS or (
                isinstance(parent.func, ast.Name) and parent.func.id in HOST_INPUT_BUILTINS
            )
        return isinstance(parent, ast.Compare) and all(isinstance(op, (ast.Is, ast.IsNot)) for op in parent.ops)

    def enclosing_function(self, node: ast.AST) -> FunctionNode | None:
        cur = self.parents.get(node)
        while cur is not None and not isinstance(cur, (ast.FunctionDef, ast.AsyncFunctionDef)):
            cur = self.parents.get(cur)
        return cur

    def enclosing_stmt(self, node: ast.AST) -> ast.stmt | None:
        cur: ast.AST | None = node
        while cur is not None and not isinstance(cur, ast.stmt):
            cur = self.parents.get(cur)
        return cur

    # -- training steps ----------------------------------------------------------------------------
    def _is_step_call(self, node: ast.AST, step_functions: set[str]) -> bool:
        if not isinstance(node, ast.Call):
            return False
        f = node.func
        if isinstance(f, ast.Attribute):
            if f.attr == "backward":
                return True
            if f.attr == "step" and isinstance(f.value, (ast.Name, ast.Attribute)):
                recv = f.value.id if isinstance(f.value, ast.Name) else f.value.attr
                if OPTIMIZER_NAME.search(recv) or "scaler" in recv.lower():
                    return True
            if isinstance(f.value, ast.Name) and f.value.id == "self" and f.attr in step_functions:
                return True
        return isinstance(f, ast.Name) and f.id in step_functions

    def _has_step(self, stmts: list[ast.stmt], step_functions: set[str] | None = None) -> bool:
        names = self.step_functions if step_functions is None else step_functions
        return any(self._is_step_call(n, names) for n in walk_scope(stmts, into_loops=False))

    def _step_functions(self) -> set[str]:
        """Names of functions/methods whose body (outside its own loops) runs a training step."""
        found: set[str] = set()
        for _ in range(8):
            new = {f.node.name for f in self.all_functions() if self._has_step(f.node.body, found)}
            if new == found:
                break
            found = new
        return found

    def _per_step_functions(self) -> set[str]:
        """Step functions called from inside a loop: their body runs once per training step."""
        out: set[str] = set()
        for loop in (n for n in ast.walk(self.tree) if isinstance(n, LOOPS)):
            for node in walk_scope(loop.body):
                if isinstance(node, ast.Call) and call_name(node) in self.step_functions:
                    out.add(call_name(node))
        return out

    def in_step_body(self, func: FuncInfo) -> bool:
        return func.node.name in self.per_step_functions

    # -- file-wide switches ------------------------------------------------------------------------
    def _framework(self) -> str | None:
        root = self.symbols.imports_root(PLACING_FRAMEWORKS)
        if root:
            return root
        if any(q in PLACING_NAMES for q in self.symbols.aliases.values()):
            return "transformers.Trainer"
        if any(c.is_lightning for c in self.classes.values()):
            return "lightning"
        return None

    def _uses_reduced_precision(self) -> bool:
        """autocast, .half()/.bfloat16(), a float16/bfloat16 dtype, GradScaler, or TF32 switched on."""
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call):
                name = call_name(node)
                q = self.symbols.qualname(node.func) or ""
                if "autocast" in name or "autocast" in q or name in ("half", "bfloat16", "GradScaler"):
                    return True
                if name == "set_float32_matmul_precision" and any(
                    isinstance(a, ast.Constant) and a.value in ("high", "medium") for a in node.args
                ):
                    return True
            elif (isinstance(node, ast.Attribute) and self.symbols.qualname(node) in REDUCED_PRECISION) or (
                isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Attribute) and t.attr == "allow_tf32" for t in node.targets)
            ):
                return True
        return False

    def _cudnn_flags(self) -> tuple[bool | None, bool]:
        benchmark: bool | None = None
        deterministic = False
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    # torch.backends.cudnn.benchmark, or cudnn.benchmark after `import torch.backends.cudnn as cudnn`
                    if isinstance(t, ast.Attribute) and (
                        (isinstance(t.value, ast.Attribute) and t.value.attr == "cudnn")
                        or self.symbols.qualname(t.value) == "torch.backends.cudnn"
                    ):
                        value = node.value.value if isinstance(node.value, ast.Constant) else True
                        if t.attr == "benchmark":
                            benchmark = bool(value)
                        elif t.attr == "deterministic" and value:
                            deterministic = True
            elif isinstance(node, ast.Call) and call_name(node) == "use_deterministic_algorithms":
                deterministic = True
        return benchmark, deterministic

    def _has_conv(self) -> bool:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call):
                q = self.symbols.qualname(node.func)
                if torch_attr(q, "torch.nn") in CONV_LAYERS or is_conv_model_factory(q):
                    return True
        return False

    def conv_sites(self) -> list[ast.Call]:
        out = []
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call):
                q = self.symbols.qualname(node.func)
                if torch_attr(q, "torch.nn") in CONV_LAYERS or is_conv_model_factory(q):
                    out.append(node)
        return sorted(out, key=lambda n: (n.lineno, n.col_offset))

    def _announced_names(self) -> set[str]:
        """Names printed/logged/asserted anywhere, and "cuda" if CUDA's absence is reported loudly."""

        names: set[str] = set()
        for node in ast.walk(self.tree):
            inside: list[ast.AST] = []
            if isinstance(node, ast.Call) and call_name(node) in ANNOUNCE_FUNCS:
                inside = [*node.args, *(k.value for k in node.keywords)]
            elif isinstance(node, ast.Assert) or (
                isinstance(node, ast.If)
                and any(
                    isinstance(s, ast.Raise)
                    or (
                        isinstance(s, ast.Expr)
                        and isinstance(s.value, ast.Call)
                        and call_name(s.value) in ANNOUNCE_FUNCS
                    )
                    for s in node.body
                )
            ):
                inside = [node.test]
            for part in inside:
                for sub in ast.walk(part):
                    if isinstance(sub, ast.Name):
                        names.add(sub.id)
                    elif isinstance(sub, ast.Attribute):
                        names.add(sub.attr)
                        if sub.attr in ("is_available", "get_device_name", "device_count"):
                            names.add("cuda")
        return names
