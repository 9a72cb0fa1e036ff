"""Judge the events of a whole program: which are findings, how severe, and the code change for each.

Severity follows what the problem does on a machine with a working GPU. *error*: the script fails
("Expected all tensors to be on the same device") or does its work on the CPU. *warning*: the GPU
waits (a sync every step, a DataLoader without workers), a device hard-coded to the CPU, a setting that
has no effect. *info*: a speed-up left on the table (autocast, cudnn.benchmark) or a silent CPU
fallback. Anything the flow could not follow stays silent.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from gpuassist.audit import events as ev
from gpuassist.audit.fixes import Editor, add_keyword
from gpuassist.audit.interp import device_prefix
from gpuassist.audit.model import AuditFinding, CodeChange
from gpuassist.audit.program import CONSTRUCTION_METHODS, LOOPS, Program, walk_scope
from gpuassist.audit.source import Source
from gpuassist.audit.values import Kind, Val
from gpuassist.audit.vocab import DEVICE_NAME, FACTORIES, LIKE_FACTORIES, dotted, torch_attr
from gpuassist.findings import Severity

CONCRETE_ACCELERATORS = frozenset({"cuda", "mps", "xpu", "fallback"})
AVAILABILITY_CALLS = frozenset({"is_available", "device_count"})  # torch.cuda.*, torch.backends.mps.*
MISMATCH = '"Expected all tensors to be on the same device"'
NO_DEVICE_KEYWORD = frozenset(
    {
        "from_numpy",
        "Tensor",
        "FloatTensor",
        "LongTensor",
        "IntTensor",
        "DoubleTensor",
        "HalfTensor",
        "BoolTensor",
        "ByteTensor",
    }
)


def short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass
class Index:
    """Events about models, gathered across all scopes."""

    created: dict[ast.AST, ev.ModelCreated]
    placed_accel: set[ast.AST]
    placed_any: dict[ast.AST, set[ast.AST]]  # origin -> scopes where it was moved (anywhere)
    escaped: set[ast.AST]
    used: set[ast.AST]


class Judge:
    def __init__(self, source: Source, program: Program, events: list[ev.Event]) -> None:
        self.src = source
        self.program = program
        self.events = events
        self.edit = Editor(source)
        self.findings: list[AuditFinding] = []
        self.index = self._index()
        self.devices = [e for e in events if isinstance(e, ev.DeviceAssigned)]
        self.targets_accelerator = self._targets_accelerator()
        self.placed_classes = self._placed_classes()
        self.reported_models: set[ast.AST] = set()

    # -- shared facts ------------------------------------------------------------------------------
    def _index(self) -> Index:
        idx = Index({}, set(), {}, set(), set())
        for e in self.events:
            if isinstance(e, ev.ModelCreated):
                idx.created.setdefault(e.call, e)
            elif isinstance(e, ev.ModelPlaced):
                for o in e.origins:
                    idx.placed_any.setdefault(o, set()).add(e.scope)
                    if e.accelerator:
                        idx.placed_accel.add(o)
            elif isinstance(e, ev.ModelEscaped):
                idx.escaped |= e.origins
            elif isinstance(e, ev.ModelUsed):
                idx.used |= e.origins
        return idx

    def _targets_accelerator(self, scope: ast.AST | None = None) -> bool:
        """Does the script (or ``scope``, its own statements) mean to use a GPU: a device chosen as "cuda",
        .cuda(), a "cuda"/"mps" string, torch.cuda.*?"""
        if any(d.target in CONCRETE_ACCELERATORS and (scope is None or d.scope is scope) for d in self.devices):
            return True
        if scope is None:
            nodes: Iterable[ast.AST] = ast.walk(self.program.tree)
        else:
            body = getattr(scope, "body", [])
            nodes = walk_scope(body) if isinstance(scope, ast.Module) else ast.walk(scope)
        for node in nodes:
            if (
                isinstance(node, ast.Attribute)
                and node.attr in ("cuda", "mps")
                and (self.program.symbols.qualname(node) or "").startswith(("torch.cuda", "torch.backends.mps"))
            ):
                return True
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "cuda":
                return True
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and re.fullmatch(r"(cuda|mps)(:\d+)?", node.value)
            ):
                return True
            if isinstance(node, ast.JoinedStr) and device_prefix(node) in ("cuda", "mps"):
                return True
        return False

    def _placed_classes(self) -> set[str]:
        placed = {c.cls for o, c in self.index.created.items() if c.cls and o in self.index.placed_accel}
        for _ in range(len(self.program.classes) + 1):
            grown = set(placed)
            for name in placed:
                info = self.program.classes.get(name)
                if info is None:
                    continue
                for method in (m for n, m in info.methods.items() if n in CONSTRUCTION_METHODS):
                    for node in ast.walk(method):
                        if (
                            isinstance(node, ast.Call)
                            and isinstance(node.func, ast.Name)
                            and node.func.id in self.program.classes
                        ):
                            grown.add(node.func.id)
            if grown == placed:
                break
            placed = grown
        return placed

    def device_name(self) -> str:
        """How fixes name the device: the script's own variable if it has one."""
        for d in self.devices:
            if d.target != "cpu" and isinstance(d.scope, ast.Module):
                return d.key
        for d in self.devices:
            if d.target != "cpu":
                return d.key
        return "device"

    def device_expr(self, via: str | None) -> str:
        return via if via and not via.startswith(".") else self.device_name()

    def moved(self, expr: str, via: str | None) -> str:
        """``x.to(device)`` or ``x.cuda()``, the way the script moves things."""
        return f"{expr}{via}" if via and via.startswith(".") else f"{expr}.to({self.device_expr(via)})"

    def add(self, node: ast.AST, fid: str, severity: Severity, message: str, fix: CodeChange) -> None:
        line = node.lineno  # type: ignore[attr-defined]
        cell, local = self.src.locate(line)
        _, end_local = self.src.locate(getattr(node, "end_lineno", None) or line)
        col = self.src.column(line, node.col_offset)  # type: ignore[attr-defined]
        self.findings.append(
            AuditFinding(
                self.src.path, local, col, end_local, fid, severity, message, fix, cell, self.src.line_text(line)
            )
        )

    def seg(self, node: ast.AST, limit: int = 60) -> str:
        return short(self.edit.segment(node), limit)

    def where(self, node: ast.AST) -> str:
        return self.src.line_label(node.lineno)  # type: ignore[attr-defined]

    # -- run ---------------------------------------------------------------------------------------
    def run(self) -> list[AuditFinding]:
        placement = self.program.framework is None
        if placement:
            self.mixes()
            self.cpu_models_with_device_inputs()
            self.discarded_moves()
            self.late_submodules()
            self.modules_in_forward()
            self.never_moved()
        self.device_choices()
        self.env_settings()
        self.data_parallel()
        if self.targets_accelerator:
            self.loaders()
            self.syncs()
            if placement:
                self.hints()
        return sorted(self.findings, key=AuditFinding.sort_key)

    # -- tensors_on_different_devices ----------------------------------------------------------------
    def _batch_origin(self, v: Val) -> ast.AST | None:
        for o in sorted(v.origins, key=lambda n: (n.lineno, n.col_offset)):  # type: ignore[attr-defined]
            if isinstance(o, (*LOOPS, ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)) or (
                isinstance(o, ast.Call) and isinstance(o.func, ast.Name) and o.func.id == "next"
            ):
                return o
        return None

    def _factory_origin(self, v: Val) -> ast.Call | None:
        for o in sorted(v.origins, key=lambda n: (n.lineno, n.col_offset)):  # type: ignore[attr-defined]
            if isinstance(o, ast.Call):
                q = self.program.symbols.qualname(o.func)
                name = torch_attr(q, "torch") or ""
                if (
                    name in FACTORIES
                    or name in LIKE_FACTORIES
                    or (isinstance(o.func, ast.Attribute) and o.func.attr.startswith("new_"))
                ):
                    return o
        return None

    def mixes(self) -> None:
        discarded = [e for e in self.events if isinstance(e, ev.DiscardedMove)]
        batches: dict[ast.AST, list[ev.Mix]] = {}
        created: dict[ast.Call, ev.Mix] = {}
        copied: dict[ast.Call, ev.Mix] = {}
        for m in (e for e in self.events if isinstance(e, ev.Mix)):
            batch = self._batch_origin(m.cpu) if m.cpu.kind is Kind.BATCH else None
            if batch is not None:
                if any(
                    d.recv.origins & m.cpu.origins and self.edit.segment(d.recv_node) == self.edit.segment(m.cpu_node)
                    for d in discarded
                ):
                    continue  # the discarded .to() is the finding
                batches.setdefault(batch, []).append(m)
                continue
            factory = self._factory_origin(m.cpu)
            if factory is not None and factory not in created:
                created[factory] = m
            copy = self._copy_origin(m.cpu)
            if copy is not None and copy not in copied:
                copied[copy] = m
        for origin, mixes in batches.items():
            self.batch_left_on_cpu(origin, mixes)
        for factory, m in created.items():
            self.tensor_created_on_cpu(factory, m)
        for copy, m in copied.items():
            self.tensor_copied_to_cpu(copy, m)

    @staticmethod
    def _copy_origin(v: Val) -> ast.Call | None:
        """``t.cpu()`` / ``t.to("cpu")`` that made this CPU tensor from a tensor (see Interpreter.move)."""
        if len(v.origins) != 1:
            return None
        (o,) = v.origins
        if isinstance(o, ast.Call) and isinstance(o.func, ast.Attribute) and o.func.attr in ("cpu", "to", "type"):
            return o
        return None

    def tensor_copied_to_cpu(self, call: ast.Call, m: ev.Mix) -> None:
        assert isinstance(call.func, ast.Attribute)
        receiver = self.edit.segment(call.func.value)
        message = (
            f"`{self.seg(call, 50)}` copies the tensor to the CPU; it meets `{self.seg(m.other_node, 30)}` on "
            f"the GPU in `{self.seg(m.op, 50)}` ({self.where(m.op)}), which fails with {MISMATCH}"
        )
        if call.func.attr != "type" and len(call.args) + len(call.keywords) <= 1:
            fix = self.edit.replace(
                call, receiver, "keep it on the GPU (compute there; move the result to the CPU once, when it is needed)"
            )
        else:
            fix = self.edit.replace(
                m.other_node, f"{self.edit.segment(m.other_node)}.cpu()", "bring the other operand to the CPU too"
            )
        self.add(call, "tensors_on_different_devices", Severity.ERROR, message, fix)

    def batch_left_on_cpu(self, origin: ast.AST, mixes: list[ev.Mix]) -> None:
        first = min(mixes, key=lambda m: (m.cpu_node.lineno, m.cpu_node.col_offset))
        names: list[str] = []
        for m in mixes:
            text = self.seg(m.cpu_node, 40)
            if text not in names:
                names.append(text)
        listed = " and ".join(f"`{n}`" for n in names[:3]) + (" ..." if len(names) > 3 else "")
        source = self._loader_text(origin)
        other = first.other
        on = f"`{self.seg(first.other_node, 30)}` is on the GPU" + (
            f" (moved with `{other.via}`)" if other.via and other.kind is Kind.MODEL else ""
        )
        verb = "comes" if len(names) == 1 else "come"
        message = (
            f"{listed} {verb} from {source} and {'is' if len(names) == 1 else 'are'} still on the CPU, but "
            f"{on}: `{self.seg(first.op, 50)}` fails with {MISMATCH}"
        )
        fix = self._move_batch_fix(origin, mixes, other.via)
        self.add(first.cpu_node, "tensors_on_different_devices", Severity.ERROR, message, fix)

    def _loader_text(self, origin: ast.AST) -> str:
        if isinstance(origin, (ast.For, ast.AsyncFor)):
            it = origin.iter
            while (
                isinstance(it, ast.Call)
                and it.args
                and isinstance(it.func, ast.Name)
                and it.func.id in ("enumerate", "tqdm", "iter", "zip")
            ):
                it = it.args[0]
            return f"`{self.seg(it, 40)}`"
        if isinstance(origin, ast.Call) and origin.args:
            return f"`{self.seg(origin.args[0], 40)}`"
        return "the DataLoader"

    def _move_batch_fix(self, origin: ast.AST, mixes: list[ev.Mix], via: str | None) -> CodeChange:
        summary = "move each batch to the device as soon as the loop receives it"
        home = self.program.enclosing_function(origin)
        # a batch handed to a function and unpacked there: its structure is not known where the loop is
        local = all(self.program.enclosing_function(m.cpu_node) is home for m in mixes)
        if local and isinstance(origin, (ast.For, ast.AsyncFor, ast.Call)):
            target = origin.target if isinstance(origin, (ast.For, ast.AsyncFor)) else None
            stmt = None if target is not None else self.program.enclosing_stmt(origin)
            if target is None and isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target = stmt.targets[0]
            names = self._batch_names(target, origin, mixes)
            if names and (isinstance(origin, (ast.For, ast.AsyncFor)) or stmt is not None):
                line = self._move_line(names, mixes, via)
                if isinstance(origin, (ast.For, ast.AsyncFor)):
                    return self.edit.insert_at_block_start(origin, origin.body, [line], summary)
                assert stmt is not None
                return self.edit.insert_after(stmt, [line], summary)
        first = mixes[0]
        return self.edit.replace(
            first.cpu_node, self.moved(self.edit.segment(first.cpu_node), via), "move it to the device where it is used"
        )

    def _batch_names(self, target: ast.expr | None, origin: ast.AST, mixes: list[ev.Mix]) -> list[str]:
        if target is None:
            return []
        elts: list[ast.expr] = [target]
        if (
            isinstance(origin, (ast.For, ast.AsyncFor))
            and self._enumerated(origin.iter)
            and isinstance(target, ast.Tuple)
            and len(target.elts) == 2
        ):
            elts = [target.elts[1]]  # skip the counter
        names: list[str] = []
        while elts:
            t = elts.pop(0)
            if isinstance(t, ast.Name):
                names.append(t.id)
            elif isinstance(t, (ast.Tuple, ast.List)):
                elts = list(t.elts) + elts
        used = {n.id for m in mixes for n in ast.walk(m.cpu_node) if isinstance(n, ast.Name)}
        names = [n for n in names if n != "_"]  # a part the loop throws away needs no move
        return [n for n in names if n in used] or names

    @staticmethod
    def _enumerated(it: ast.expr) -> bool:
        """``enumerate(loader)``, also wrapped: ``tqdm(enumerate(loader), total=...)``."""
        while isinstance(it, ast.Call) and isinstance(it.func, (ast.Name, ast.Attribute)):
            if isinstance(it.func, ast.Name) and it.func.id == "enumerate":
                return True
            if not it.args:
                return False
            it = it.args[0]
        return False

    def _move_line(self, names: list[str], mixes: list[ev.Mix], via: str | None) -> str:
        if len(names) == 1:
            name = names[0]
            nodes = [m.cpu_node for m in mixes]
            parents = [self.program.parents.get(n) for n in nodes]
            keyed = any(
                isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, str)
                for n in nodes
            ) or any(isinstance(p, ast.keyword) and p.arg is None for p in parents)
            indexed = any(
                isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, int)
                for n in nodes
            )
            if keyed:
                return f"{name} = {{k: {self.moved('v', via)} for k, v in {name}.items()}}"
            if indexed:
                return f"{name} = [{self.moved('t', via)} for t in {name}]"
            return f"{name} = {self.moved(name, via)}"
        return f"{', '.join(names)} = {', '.join(self.moved(n, via) for n in names)}"

    def tensor_created_on_cpu(self, factory: ast.Call, m: ev.Mix) -> None:
        severity = Severity.ERROR
        context = ""
        if m.module_cls is not None:
            context = " in a method of `" + m.module_cls + "`"
            if m.module_cls not in self.placed_classes:
                severity = Severity.WARNING
        attr = self._plain_tensor_attribute(factory)
        meets = f"it meets `{self.seg(m.other_node, 30)}` on the GPU in `{self.seg(m.op, 50)}` ({self.where(m.op)})"
        tail = f", which fails with {MISMATCH}" + ("" if severity is Severity.ERROR else " once the model is on a GPU")
        if attr is not None:
            stmt, name = attr
            value = stmt.value if isinstance(stmt, ast.Assign) else factory
            message = (
                f"`self.{name}` is a plain tensor attribute: `model.to(device)` moves parameters and buffers, "
                f"not it, so it stays on the CPU; {meets}{tail}"
            )
            fix = self.edit.replace(
                stmt,
                f'self.register_buffer("{name}", {self.edit.segment(value)})',
                "register it as a buffer so it moves with the model",
            )
            self.add(stmt, "tensors_on_different_devices", severity, message, fix)
            return
        dev = self._device_for(m)
        name = torch_attr(self.program.symbols.qualname(factory.func), "torch") or ""
        existing = next((k for k in factory.keywords if k.arg == "device"), None)
        if existing is not None:
            fix = self.edit.replace(existing.value, dev, "create it on the device of the tensors it meets")
        elif name in NO_DEVICE_KEYWORD or (
            isinstance(factory.func, ast.Attribute) and factory.func.attr.startswith("new_")
        ):
            fix = self.edit.replace(
                factory, f"{self.edit.segment(factory)}.to({dev})", "move it to the device of the tensors it meets"
            )
        else:
            fix = self.edit.replace(
                factory,
                add_keyword(self.edit, factory, f"device={dev}"),
                "create it on the device of the tensors it meets",
            )
        message = f"`{self.seg(factory, 50)}` creates a tensor on the CPU{context}; {meets}{tail}"
        self.add(factory, "tensors_on_different_devices", severity, message, fix)

    def _device_for(self, m: ev.Mix) -> str:
        if isinstance(m.other_node, ast.Name) and m.other.tensorish:
            return f"{m.other_node.id}.device"
        if m.module_cls is not None:
            func = self.program.enclosing_function(m.op)
            if func is not None:
                params = [a.arg for a in func.args.args[1:]]
                if params:
                    return f"{params[0]}.device"
        if m.other.via and m.other.via.startswith("."):
            return f'"{m.other.via.strip(".()")}"'  # the script uses .cuda(): name the device the same way
        return self.device_expr(m.other.via)

    def _plain_tensor_attribute(self, factory: ast.Call) -> tuple[ast.stmt, str] | None:
        stmt = self.program.enclosing_stmt(factory)
        func = self.program.enclosing_function(factory)
        if not isinstance(stmt, ast.Assign) or func is None or func.name not in CONSTRUCTION_METHODS:
            return None
        if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Attribute):
            return None
        target = stmt.targets[0]
        if not (isinstance(target.value, ast.Name) and target.value.id == "self"):
            return None
        return stmt, target.attr

    def cpu_models_with_device_inputs(self) -> None:
        in_forward = {e.call for e in self.events if isinstance(e, ev.ModuleInForward)}
        for e in (x for x in self.events if isinstance(x, ev.ModelOnCpuGetsDeviceInput)):
            origins = e.model.origins
            if origins & in_forward or origins & self.index.escaped or origins & self.reported_models:
                continue
            if any(self.index.placed_any.get(o, set()) - {e.scope} for o in origins):
                continue  # moved in another function: order unknown, stay silent
            self.reported_models |= origins
            origin = min(origins, key=lambda n: (n.lineno, n.col_offset))  # type: ignore[attr-defined]
            via = e.arg.via
            message = (
                f"`{self.seg(e.model_node, 30)}` was never moved to a device, but its input "
                f"`{self.seg(e.arg_node, 30)}` was: `{self.seg(e.call, 50)}` fails with {MISMATCH}"
            )
            fix = self.edit.replace(
                origin,
                self.moved(self.edit.segment(origin), via),
                "move the model to the device right after creating it",
            )
            self.add(e.call, "tensors_on_different_devices", Severity.ERROR, message, fix)

    def discarded_moves(self) -> None:
        for e in (x for x in self.events if isinstance(x, ev.DiscardedMove)):
            stmt = self.program.enclosing_stmt(e.call)
            name = self.edit.segment(e.recv_node)
            message = (
                f"`{self.seg(e.call, 50)}` returns a moved copy and the result is thrown away: `{short(name)}` "
                "stays on the CPU (Tensor.to() is not in place, unlike Module.to())"
            )
            node: ast.AST = stmt if stmt is not None else e.call
            fix = self.edit.replace(e.call, f"{name} = {self.edit.segment(e.call)}", "keep the moved tensor")
            self.add(node, "tensors_on_different_devices", Severity.ERROR, message, fix)

    def late_submodules(self) -> None:
        for e in (x for x in self.events if isinstance(x, ev.LateSubmodule)):
            target = self.seg(e.value_node, 30)
            value = e.stmt.value if isinstance(e.stmt, ast.Assign) else None
            if value is None:
                continue
            message = (
                f"`{target}` is a new layer added after `{e.base_key}` was moved to the GPU: its weights "
                f"stay on the CPU and the forward pass fails with {MISMATCH}"
            )
            fix = self.edit.replace(
                value,
                self.moved(self.edit.segment(value), e.base.via),
                "move the new layer too (or move the model after replacing it)",
            )
            self.add(e.stmt, "tensors_on_different_devices", Severity.ERROR, message, fix)

    def modules_in_forward(self) -> None:
        for e in (x for x in self.events if isinstance(x, ev.ModuleInForward)):
            stmt = self.program.enclosing_stmt(e.call)
            attr = None
            if (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
                and stmt.value is e.call
            ):
                attr = stmt.targets[0].id
            layer = self.edit.segment(e.call.func).rsplit(".", 1)[-1]
            attr = attr or re.sub(r"(?<!^)(?=[A-Z])", "_", layer).lower()
            severity = Severity.ERROR if e.module_cls in self.placed_classes else Severity.WARNING
            message = (
                f"`{self.seg(e.call, 50)}` builds a new layer with fresh random weights on every call of "
                f"`{e.method}()`: they are on the CPU (`model.to()` never saw them) and are never trained"
            )
            fix = self.edit.replace(
                e.call,
                f"self.{attr}",
                f"create it once in __init__ (`self.{attr} = {self.seg(e.call, 50)}`) and use it",
            )
            self.add(e.call, "tensors_on_different_devices", severity, message, fix)

    # -- workload_left_on_cpu ----------------------------------------------------------------------
    def never_moved(self) -> None:
        idx = self.index
        warned = False
        for origin in sorted(idx.created, key=lambda n: n.lineno):  # type: ignore[attr-defined]
            if (
                origin not in idx.used
                or origin in idx.placed_any
                or origin in idx.escaped
                or origin in self.reported_models
            ):
                continue
            stmt = self.program.enclosing_stmt(origin)
            name = (
                self.edit.segment(stmt.targets[0])
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                else self.seg(origin, 40)
            )
            dev = self.device_name()
            moved_call = self.moved(self.edit.segment(origin), None if self.devices else '"cuda"')
            created = idx.created[origin]
            if self.targets_accelerator and not (
                self._targets_accelerator(created.scope) or self._targets_accelerator(self.program.tree)
            ):
                continue  # GPU code elsewhere in a big file says nothing about this function
            if self.targets_accelerator:
                defined = next((d for d in self.devices if d.target in CONCRETE_ACCELERATORS), None)
                why = (
                    f"`{defined.key}` is defined at {self.where(defined.stmt)}"
                    if defined
                    else "the script uses CUDA elsewhere"
                )
                message = f"`{name}` is created here and never moved to a device, although {why}: it runs on the CPU"
                fix = self.edit.replace(
                    origin,
                    moved_call,
                    f"move the model to the device once, after creating it (and every batch: x = x.to({dev}))",
                )
                self.add(origin, "workload_left_on_cpu", Severity.ERROR, message, fix)
            elif not warned and self.program.step_loops:
                warned = True
                message = (
                    f"`{name}` and its data are never moved to a GPU: nothing in this script uses one, "
                    "so all the work runs on the CPU"
                )
                change = self.edit.replace(origin, self.moved(self.edit.segment(origin), "device"), "")
                assert stmt is not None
                indent = self.edit.indent(stmt.lineno)
                device_line = f'{indent}device = torch.device("cuda" if torch.cuda.is_available() else "cpu")'
                fix = self.edit.change(
                    stmt.lineno,
                    list(change.before),
                    [device_line, *change.after],
                    "pick the GPU when there is one and move the model to it (then move every batch: x = x.to(device))",
                )
                self.add(origin, "workload_left_on_cpu", Severity.WARNING, message, fix)

    def device_choices(self) -> None:
        groups: dict[tuple[ast.AST, str], list[ev.DeviceAssigned]] = {}
        for d in self.devices:
            groups.setdefault((d.scope, d.key), []).append(d)
        fallback_reported = False
        # a script that picks a GPU elsewhere means this CPU device (an export, a CPU-side step) as it is
        picks_gpu = any(
            d.target in CONCRETE_ACCELERATORS
            or (  # or torch.device(args.device): the user's choice
                d.target == "dynamic"
                and isinstance(d.value_node, ast.Call)
                and self.program.symbols.qualname(d.value_node.func) == "torch.device"
            )
            for d in self.devices
        )
        for (_, key), items in groups.items():
            targets = {d.target for d in items}
            name = key.split(".")[-1]
            if (
                targets == {"cpu"}
                and DEVICE_NAME.match(name)
                and "cpu" not in name.lower()
                and self._moves_to(key)
                and not picks_gpu
            ):
                hard = next((x for x in items if not x.conditional), None)
                if hard is None:
                    continue
                fallback = 'torch.device("cuda" if torch.cuda.is_available() else "cpu")'
                message = (
                    f"`{key}` is hard-coded to the CPU: everything moved to it runs on the CPU, even on a "
                    "machine with a working GPU"
                )
                fix = self.edit.replace(hard.value_node, fallback, "use the GPU when there is one")
                self.add(hard.stmt, "workload_left_on_cpu", Severity.WARNING, message, fix)
            elif (
                not fallback_reported
                and ("fallback" in targets or ("cpu" in targets and len(targets) > 1))
                and self.program.step_loops
                and any(self._availability_names(d) for d in items)
            ):
                fallback_reported = True
                told = self.program.announced | self._displayed_in_notebook()
                if {key.split(".")[-1], "cuda"} & told or any(self._availability_names(d) & told for d in items):
                    continue
                d = items[-1]
                message = (
                    f"`{key}` falls back to the CPU silently when CUDA is not available: training then runs "
                    "on the CPU and nothing says so"
                )
                fix = self.edit.insert_after(
                    d.stmt,
                    [f'print(f"Using device: {{{key}}}")'],
                    "say which device was chosen (or fail: assert torch.cuda.is_available())",
                )
                self.add(d.stmt, "workload_left_on_cpu", Severity.INFO, message, fix)

    def _moves_to(self, key: str) -> bool:
        """Is anything moved to or created on ``key`` (``.to(device)``, ``device=device``)?"""
        for node in ast.walk(self.program.tree):
            if isinstance(node, ast.Call):
                args = list(node.args[:1]) if isinstance(node.func, ast.Attribute) and node.func.attr == "to" else []
                args += [k.value for k in node.keywords if k.arg == "device"]
                if any(ast.unparse(a) == key for a in args):
                    return True
        return False

    def _displayed_in_notebook(self) -> set[str]:
        """Names a notebook shows: a bare name as the last statement of a cell is displayed under it."""
        if self.src.kind != "notebook":
            return set()
        ends = {seg.first_line + seg.line_count - 1 for seg in self.src.segments}
        shown = set()
        for stmt in self.program.tree.body:
            if (
                isinstance(stmt, ast.Expr)
                and isinstance(stmt.value, (ast.Name, ast.Attribute))
                and (stmt.end_lineno or stmt.lineno) in ends
            ):
                shown.add(stmt.value.id if isinstance(stmt.value, ast.Name) else stmt.value.attr)
        return shown

    def _availability_names(self, d: ev.DeviceAssigned) -> set[str]:
        """The names the choice rests on when it is made on whether an accelerator is there
        (``torch.cuda.is_available()``, ``use_cuda``); empty when it is not such a choice."""
        tests: list[ast.AST] = [n.test for n in ast.walk(d.value_node) if isinstance(n, ast.IfExp)]
        node: ast.AST | None = d.stmt
        while node is not None and node is not d.scope:
            parent = self.program.parents.get(node)
            if isinstance(parent, ast.If):
                tests.append(parent.test)
            node = parent
        names = {
            n.attr if isinstance(n, ast.Attribute) else n.id
            for t in tests
            for n in ast.walk(t)
            if isinstance(n, (ast.Attribute, ast.Name))
        }
        keys = {dotted(n) for t in tests for n in ast.walk(t) if isinstance(n, (ast.Attribute, ast.Name))}
        if names & AVAILABILITY_CALLS or keys & self._availability_flags:
            return names
        return set()

    @cached_property
    def _availability_flags(self) -> set[str | None]:
        """Names assigned from an availability check: ``use_cuda = not args.no_cuda and
        torch.cuda.is_available()``, ``args.cuda = ...``. ``if args.gpu >= 0`` is the user's choice instead."""
        flags: set[str | None] = set()
        assigns = [n for n in ast.walk(self.program.tree) if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value]
        for _ in range(3):
            grown = set(flags)
            for a in assigns:
                value = a.value
                assert value is not None
                if any(
                    (isinstance(n, ast.Attribute) and n.attr in AVAILABILITY_CALLS)
                    or (isinstance(n, (ast.Name, ast.Attribute)) and dotted(n) in flags)
                    for n in ast.walk(value)
                ):
                    targets = a.targets if isinstance(a, ast.Assign) else [a.target]
                    grown |= {dotted(t) for t in targets if dotted(t)}
            if grown == flags:
                break
            flags = grown
        return flags

    # -- environment, multi-GPU ----------------------------------------------------------------------
    def env_settings(self) -> None:
        for e in (x for x in self.events if isinstance(x, ev.EnvSet)):
            if e.value is not None and e.value.strip() in ("", "-1"):
                message = (
                    f"`CUDA_VISIBLE_DEVICES` is set to {e.value!r} here: that hides every GPU from this "
                    "process, so torch.cuda.is_available() is False"
                )
                fix = self.edit.delete(
                    e.stmt, "remove it (choose GPUs in the shell: CUDA_VISIBLE_DEVICES=0 python ...)"
                )
                self.add(e.stmt, "cuda_visible_devices_hides_gpus", Severity.WARNING, message, fix)
            elif e.after is not None:
                message = (
                    f"`CUDA_VISIBLE_DEVICES` is set after `{self.seg(e.after, 40)}` ({self.where(e.after)}) "
                    "initialised CUDA: this process keeps the GPUs it saw then, so the setting has no effect"
                )
                body = self.program.tree.body
                first = next((s for s in body if isinstance(s, (ast.Import, ast.ImportFrom))), body[0])
                stmt_text = [line.strip() for line in self.edit.statement_lines(e.stmt)]
                top = self.edit.line(first.lineno)
                after = [top, *stmt_text] if top.strip() == "import os" else ["import os", *stmt_text, top]
                fix = self.edit.change(
                    first.lineno,
                    [top],
                    after,
                    f"set it before anything touches CUDA (and delete it from {self.where(e.stmt)}),"
                    " or in the shell: CUDA_VISIBLE_DEVICES=0 python train.py",
                )
                self.add(e.stmt, "cuda_visible_devices_hides_gpus", Severity.WARNING, message, fix)

    def data_parallel(self) -> None:
        for e in (x for x in self.events if isinstance(x, ev.DataParallelUsed)):
            model = self.edit.segment(e.call.args[0]) if e.call.args else "model"
            message = (
                "`nn.DataParallel` drives every GPU from one process (one Python thread per GPU, bound by the "
                "GIL, the model re-copied each step): DistributedDataParallel with one process per GPU is "
                "faster, even on one machine"
            )
            fix = self.edit.replace(
                e.call,
                f"torch.nn.parallel.DistributedDataParallel({model}, device_ids=[local_rank])",
                "one process per GPU: launch with `torchrun --nproc_per_node=gpu train.py`, call "
                'torch.distributed.init_process_group("nccl") first, use a DistributedSampler',
            )
            self.add(e.call, "multi_gpu_unused", Severity.WARNING, message, fix)

    # -- feeding and syncing the GPU -----------------------------------------------------------------
    def loaders(self) -> None:
        notebook = self.src.kind == "notebook"
        for e in (x for x in self.events if isinstance(x, ev.LoaderCreated)):
            if e.in_memory or e.device_batches:
                continue  # nothing to load, or CUDA tensors made in the loader: workers/pinning would break it
            kw = {k.arg: k.value for k in e.call.keywords if k.arg}
            if any(k.arg is None for k in e.call.keywords):
                continue  # **loader_kwargs: the settings are elsewhere
            workers = kw.get("num_workers")
            pinned = kw.get("pin_memory")
            no_workers = workers is None or (isinstance(workers, ast.Constant) and workers.value == 0)
            unpinned = pinned is None or (isinstance(pinned, ast.Constant) and pinned.value is False)
            if not no_workers and not unpinned:
                continue
            text = self.edit.segment(e.call)
            if no_workers:
                new = text
                if isinstance(workers, ast.Constant):
                    new = self._replace_keyword(e.call, "num_workers", "4")
                else:
                    new = add_keyword(self.edit, e.call, "num_workers=4")
                if unpinned:
                    new = self._with_pin(e.call, new, pinned)
                message = (
                    "`DataLoader(...)` has no worker processes (num_workers=0): the training loop loads and "
                    "collates every batch itself while the GPU waits"
                )
                if notebook:
                    message += (
                        " (on Windows and macOS, workers started from a notebook need the Dataset class in "
                        "an importable .py file)"
                    )
                fix = self.edit.replace(
                    e.call,
                    new,
                    "load batches in worker processes (`gpuassist sweep` measures the best num_workers here)",
                )
                self.add(e.call, "dataloader_starvation", Severity.WARNING, message, fix)
            else:
                new = self._with_pin(e.call, text, pinned)
                message = (
                    "`DataLoader(...)` does not pin memory: each batch is copied to the GPU from pageable "
                    "memory, slower and without overlapping compute"
                )
                fix = self.edit.replace(e.call, new, "pin batches (then move them with .to(device, non_blocking=True))")
                self.add(e.call, "dataloader_starvation", Severity.INFO, message, fix)

    def _replace_keyword(self, call: ast.Call, name: str, value: str, text: str | None = None) -> str:
        text = text if text is not None else self.edit.segment(call)
        kw = next(k for k in call.keywords if k.arg == name)
        old = self.edit.segment(kw)
        return text.replace(old, f"{name}={value}", 1)

    def _with_pin(self, call: ast.Call, text: str, pinned: ast.expr | None) -> str:
        if pinned is not None:
            return self._replace_keyword(call, "pin_memory", "True", text)
        body = text[:-1].rstrip()
        return f"{body}{' ' if body.endswith(',') else ', '}pin_memory=True)"

    def syncs(self) -> None:
        by_stmt: dict[ast.stmt, list[ev.Sync]] = {}
        for e in (x for x in self.events if isinstance(x, ev.Sync)):
            if not self._feeds_next_input(e):
                by_stmt.setdefault(e.stmt, []).append(e)
        for stmt, items in by_stmt.items():
            whats: list[str] = []
            for i in items:
                if i.what not in whats:
                    whats.append(i.what)
            listed = ", ".join(f"`{short(w, 50)}`" for w in whats)
            message = (
                f"{listed} {'runs' if len(whats) == 1 else 'run'} every training step: each waits for the GPU "
                "to finish and copies to the host, so the CPU cannot queue the next step ahead"
            )
            self.add(
                items[0].node, "host_device_sync_in_loop", Severity.WARNING, message, self._sync_fix(stmt, items[0])
            )

    def _feeds_next_input(self, sync: ev.Sync) -> bool:
        """Is the synced value what the host needs to make the loop's next input: an action handed to
        ``env.step()`` whose observation becomes the next tensor, a sampled token fed back? Then the loop
        cannot run ahead of the GPU whatever the script does, and the sync is not a finding."""
        if not isinstance(sync.stmt, ast.Assign) or sync.loop is None:
            return False
        names = {n.id for t in sync.stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        assigns = [n for n in ast.walk(sync.loop) if isinstance(n, ast.Assign) and n is not sync.stmt]
        for _ in range(3):  # action -> env.step(action) -> observation -> torch.as_tensor(observation)
            grown = set(names)
            for a in assigns:
                if any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(a.value)):
                    grown |= {n.id for t in a.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            if grown == names:
                break
            names = grown
        symbols = self.program.symbols
        for node in ast.walk(sync.loop):
            if isinstance(node, ast.Call) and torch_attr(symbols.qualname(node.func), "torch") in FACTORIES:
                parts = [*node.args, *(k.value for k in node.keywords)]
                if any(isinstance(n, ast.Name) and n.id in names for a in parts for n in ast.walk(a)):
                    return True
        return False

    def _sync_fix(self, stmt: ast.stmt, sync: ev.Sync) -> CodeChange:
        lines = self.edit.statement_lines(stmt)
        joined = "\n".join(lines)
        if sync.what == "torch.cuda.synchronize()" and isinstance(stmt, ast.Expr):
            return self.edit.delete(stmt, "remove it (time steps with torch.cuda.Event or the profiler instead)")
        if (
            isinstance(stmt, (ast.AugAssign, ast.Assign))
            and ".item()" in joined
            and not isinstance(stmt.value, ast.JoinedStr)
        ):
            after = joined.replace(".item()", ".detach()").split("\n")
            return self.edit.change(
                stmt.lineno, lines, after, "keep the value on the GPU and call .item() once when you report it"
            )
        if (
            isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Attribute)
            and stmt.value.func.attr in ("append", "extend")
            and ".cpu()" in joined
            and ".numpy()" not in joined
            and ".tolist()" not in joined
        ):
            after = joined.replace(".cpu()", ".detach()").split("\n")
            return self.edit.change(
                stmt.lineno, lines, after, "collect on the GPU and move once after the loop (torch.cat(...).cpu())"
            )
        counter = sync.counter or "step"
        summary = "read it every N steps, not every step" + (
            "" if sync.counter else " (count steps with `for step, batch in enumerate(loader):`)"
        )
        return self.edit.wrap([stmt], f"if {counter} % 100 == 0:", summary)

    # -- hints ---------------------------------------------------------------------------------------
    def hints(self) -> None:
        loops = sorted(
            (e for e in self.events if isinstance(e, ev.StepLoop) and not e.model_on_cpu),
            key=lambda e: e.loop.lineno,  # type: ignore[attr-defined]
        )
        if not loops or any(f.id == "workload_left_on_cpu" and f.severity is Severity.ERROR for f in self.findings):
            return  # speed-ups for a GPU that the script does not use yet would be noise
        if not self.program.uses_reduced_precision:
            self._amp_hint(loops[0])
        if self.program.has_conv and self.program.cudnn_benchmark is None and not self.program.cudnn_deterministic:
            sites = self.program.conv_sites()
            if sites:
                self._cudnn_hint(sites[0])

    def _amp_hint(self, loop: ev.StepLoop) -> None:
        message = (
            "the training step runs in float32: under torch.autocast the GPU's tensor cores (Volta and newer) "
            "run matmuls and convolutions in bfloat16/float16, often 1.5-3x faster"
        )
        forward = loop.forward_stmt
        if forward is not None:
            block = self._block_of(forward)
            stmts = [forward]
            if block is not None and loop.backward_stmt in block:
                start, end = block.index(forward), block.index(loop.backward_stmt)
                for s in block[start + 1 : end]:  # the loss computed from the output, not zero_grad() & co
                    if not isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                        break
                    stmts.append(s)
            fix = self.edit.wrap(
                stmts,
                'with torch.autocast(device_type="cuda", dtype=torch.bfloat16):',
                "run the forward pass and the loss under autocast (float16 needs "
                'torch.amp.GradScaler("cuda") on GPUs without bfloat16)',
            )
            self.add(forward, "amp_tf32_not_used", Severity.INFO, message, fix)
            return
        stmt = loop.loop
        node: ast.AST | None = stmt
        while node is not None and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            if isinstance(node, LOOPS):
                stmt = node  # a process-wide setting goes before the outermost loop, not inside a loop
            node = self.program.parents.get(node)
        assert isinstance(stmt, ast.stmt)
        fix = self.edit.insert_before(
            stmt,
            ['torch.set_float32_matmul_precision("high")'],
            "at least let float32 matmuls use TF32 tensor cores (Ampere and newer)",
        )
        self.add(loop.loop, "amp_tf32_not_used", Severity.INFO, message, fix)

    def _block_of(self, stmt: ast.stmt) -> list[ast.stmt] | None:
        parent = self.program.parents.get(stmt)
        for name in ("body", "orelse", "finalbody"):
            block = getattr(parent, name, None)
            if isinstance(block, list) and stmt in block:
                return block
        return None

    def _cudnn_hint(self, site: ast.Call) -> None:
        anchor: ast.stmt | None = next((d.stmt for d in self.devices if d.target != "cpu"), None)
        if anchor is None:
            imports = [s for s in self.program.tree.body if isinstance(s, (ast.Import, ast.ImportFrom))]
            anchor = imports[-1] if imports else None
        message = (
            "this conv net runs without torch.backends.cudnn.benchmark: when input sizes stay the same, "
            "cuDNN autotuning picks the fastest convolution algorithms for this GPU"
        )
        line = "torch.backends.cudnn.benchmark = True"
        if anchor is not None:
            fix = self.edit.insert_after(anchor, [line], "turn on cuDNN autotuning once at start-up")
        else:
            fix = self.edit.change(site.lineno, [], [line], "turn on cuDNN autotuning once at start-up")
        self.add(site, "cudnn_benchmark_off", Severity.INFO, message, fix)


def judge(source: Source, program: Program, events: list[ev.Event]) -> list[AuditFinding]:
    return Judge(source, program, events).run()
