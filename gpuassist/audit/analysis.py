"""Run the flow over the whole program: function summaries first, then every scope callers-first.

Two phases. (A) *Summaries*: each function is walked with its parameters guessed from their names
(``device`` is a device, ``train_loader`` a loader) to learn what it returns (``build_model(device)``
returns a model on the device) and which arguments it moves in place; repeated so helpers calling
helpers settle. (B) *Recording*: the module body runs first, then each function once its callers have
run, with its parameters bound to what the callers really passed (``train_one_epoch(model, loader,
device)`` gets the moved model), so an unmoved batch inside it is judged against the real model.
Events are only recorded in phase B.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from gpuassist.audit import events as ev
from gpuassist.audit.flow import ScopeFlow
from gpuassist.audit.interp import Context, Summary
from gpuassist.audit.program import CONSTRUCTION_METHODS, FuncInfo, Program
from gpuassist.audit.values import UNKNOWN, Kind, Place, Val, device, merge
from gpuassist.audit.vocab import DEVICE_NAME, LOADER_NAME, OPTIMIZER_NAME, call_name

SUMMARY_ROUNDS = 2


class Analysis:
    """Holds what all scopes share: events, summaries, call sites, the module's and classes' values."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self.events: list[ev.Event] = []
        self.placed_now: set[ast.AST] = set()
        self.default_device = self._sets_default_device()
        self.summaries: dict[str, Summary] = {}
        self.call_sites: dict[str, list[dict[str, Val]]] = {}
        self.module_env: dict[str, Val] = {}
        self.self_envs: dict[str, dict[str, Val]] = {}
        self.function_envs: dict[ast.AST, dict[str, Val]] = {}  # what a function's names hold at its end
        self.recording = False

    # -- Host protocol -----------------------------------------------------------------------------
    def emit(self, event: ev.Event) -> None:
        if self.recording:
            self.events.append(event)

    def summary(self, func: FuncInfo) -> Summary:
        return self.summaries.get(func.key, Summary())

    def record_call(self, func: FuncInfo, bound: dict[str, Val]) -> None:
        if self.recording:
            self.call_sites.setdefault(func.key, []).append(bound)

    # -- phases ------------------------------------------------------------------------------------
    def run(self) -> list[ev.Event]:
        functions = self.program.all_functions()
        self._summarise(functions)
        self.module_env = self._module_flow(record=False).env
        self._summarise(functions)
        self.placed_now.clear()
        self.recording = True
        self.module_env = {}
        module = self._module_flow(record=True)
        self.module_env = module.env
        for func in self._callers_first(functions):
            flow = self._function_flow(func, record=True)
            if func.cls is not None and func.node.name == "__init__":
                self.self_envs[func.cls.name] = {k: v for k, v in flow.env.items() if k.startswith("self.")}
        return self.events

    def _summarise(self, functions: list[FuncInfo]) -> None:
        for _ in range(SUMMARY_ROUNDS):
            for func in functions:
                flow = self._function_flow(func, record=False)
                returns = flow.returns[0] if flow.returns else UNKNOWN
                for r in flow.returns[1:]:
                    returns = merge(returns, r)
                self.summaries[func.key] = Summary(returns, frozenset(flow.moved))

    def _module_flow(self, *, record: bool) -> ScopeFlow:
        flow = ScopeFlow(self, Context(scope=self.program.tree, record=record), self.module_env, lambda key: None)
        flow.run(self.program.tree.body)
        return flow

    def _function_flow(self, func: FuncInfo, *, record: bool) -> ScopeFlow:
        cls = func.cls
        module_cls = cls if cls is not None and cls.is_module else None
        ctx = Context(
            scope=func.node,
            func=func,
            module_cls=module_cls,
            construction=bool(module_cls and func.node.name in CONSTRUCTION_METHODS),
            per_step=func.node.name in self.program.per_step_functions,
            record=record,
        )
        env: dict[str, Val] = {}
        if cls is not None:
            env["self"] = Val(Kind.MODEL, Place.DEVICE, cls=cls.name) if module_cls else Val(cls=cls.name)
            if func.node.name != "__init__":
                env.update(self._self_seeds(cls.name, follows=module_cls is not None))
        env.update(self._params(func, forward_inputs=bool(module_cls and not ctx.construction)))
        flow = ScopeFlow(self, ctx, env, self._enclosing_lookup(func))
        flow.run(func.node.body)
        self.function_envs[func.node] = flow.env
        return flow

    def _enclosing_lookup(self, func: FuncInfo) -> Callable[[str], Val | None]:
        """Free names of a function: a nested function (a closure) sees its enclosing function's names
        (the loader ``main()`` built is a loader, not a guess from its name), then the module's."""
        module_env = self.module_env
        outer = self.program.enclosing_function(func.node)
        outer_env = self.function_envs.get(outer) if outer is not None else None
        if outer_env is None:
            return module_env.get
        return lambda key: outer_env[key] if key in outer_env else module_env.get(key)

    def _self_seeds(self, cls: str, *, follows: bool) -> dict[str, Val]:
        seeds = dict(self.self_envs.get(cls, {}))
        if follows:  # submodules, parameters and buffers live wherever the module is moved
            for key, v in seeds.items():
                if v.kind is Kind.MODEL:
                    seeds[key] = Val(Kind.MODEL, Place.DEVICE, cls=v.cls)
        return seeds

    def _params(self, func: FuncInfo, *, forward_inputs: bool) -> dict[str, Val]:
        sites = self.call_sites.get(func.key, []) if self.recording else []
        out: dict[str, Val] = {}
        for name in func.params:
            if forward_inputs and func.node.name == "forward":
                out[name] = Val(Kind.TENSOR, Place.DEVICE)  # inputs are where the module is
                continue
            passed = [site.get(name) for site in sites]
            if passed and all(v is not None for v in passed):
                value = passed[0]
                for v in passed[1:]:
                    value = merge(value, v)
                out[name] = value if value is not None else UNKNOWN
            else:
                out[name] = self._guess(name)
        return out

    def _guess(self, name: str) -> Val:
        """A parameter nobody visible passes: its name is all there is."""
        if DEVICE_NAME.match(name):
            return device("dynamic")
        if LOADER_NAME.search(name) and not self.program.device_loaders:
            return Val(Kind.LOADER, Place.CPU)
        if OPTIMIZER_NAME.search(name):
            return Val(Kind.OPTIMIZER)
        return UNKNOWN

    def _callers_first(self, functions: list[FuncInfo]) -> list[FuncInfo]:
        """Order functions so each runs after every function that calls it (cycles broken in file order)."""
        callers: dict[str, set[str]] = {f.key: set() for f in functions}
        by_name: dict[str, list[str]] = {}
        for f in functions:
            by_name.setdefault(f.node.name, []).append(f.key)
            if f.cls is not None and f.node.name != "__init__" and f"{f.cls.name}.__init__" in callers:
                callers[f.key].add(f"{f.cls.name}.__init__")
        for f in functions:
            for node in ast.walk(f.node):
                if isinstance(node, ast.Call):
                    name = call_name(node)
                    targets = by_name.get(name, []) + ([f"{name}.__init__"] if name in self.program.classes else [])
                    for t in targets:
                        if t in callers and t != f.key:
                            callers[t].add(f.key)
        done: set[str] = set()
        order: list[FuncInfo] = []
        remaining = list(functions)
        while remaining:
            ready = next((f for f in remaining if callers[f.key] <= done), remaining[0])
            remaining.remove(ready)
            done.add(ready.key)
            order.append(ready)
        return order

    def _sets_default_device(self) -> bool:
        """torch.set_default_device("cuda"), or the older torch.set_default_tensor_type(torch.cuda.FloatTensor):
        factories without device= then create tensors on the GPU."""
        symbols = self.program.symbols
        for node in ast.walk(self.program.tree):
            if not (isinstance(node, ast.Call) and node.args):
                continue
            q = symbols.qualname(node.func)
            arg = node.args[0]
            if q == "torch.set_default_device" and not (isinstance(arg, ast.Constant) and arg.value == "cpu"):
                return True
            if q == "torch.set_default_tensor_type":
                named = arg.value if isinstance(arg, ast.Constant) else symbols.qualname(arg)
                if isinstance(named, str) and named.startswith("torch.cuda."):
                    return True
        return False
