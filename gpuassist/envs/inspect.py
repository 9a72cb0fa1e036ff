"""A quick look inside each discovered interpreter: Python version and every torch on its path.

Why the probe's first two stages and not `import torch`: importing torch takes seconds (and can hang in
CUDA init); the ``interpreter`` and ``torch_dist`` stages read ``sys.path`` and the torch metadata
(version with its build tag, location, installer, conda build string) in about 50 ms. Each interpreter
runs in its own process group with a short limit, many at once, so one that hangs or crashes becomes a
row with its error while the others finish.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from gpuassist.envs.discovery import (
    Candidate,
    Context,
    Discovery,
    KernelSpec,
    Origin,
    ScriptTarget,
    discover,
    identity,
)
from gpuassist.envs.ondisk import last_used
from gpuassist.envs.target import choose_target
from gpuassist.facts import NotCollected, is_known, to_jsonable
from gpuassist.knowledge.wheels import parse_torch_version
from gpuassist.probe.runner import StageLimits, run_probe

DEFAULT_TIMEOUT = 5.0  # seconds per interpreter, start-up included (a cold conda Python on a slow disk)
STAGES = ("interpreter", "torch_dist")

# Row status values.
OK = "ok"
MISSING = "missing"  # the path does not exist / is not executable: nothing was started
ERROR = "error"  # it ran but is not a Python (or the probe failed)
TIMEOUT = "timeout"
TOO_OLD = "too_old"  # a real Python, older than any PyTorch release supports (and than the probe needs)
CRASHED = "crashed"
CANCELLED = "cancelled"
REFUSED = "refused"  # found by discovery but not trusted to run (someone else's, or not a Python): never started


@dataclass(frozen=True)
class TorchCopy:
    """One torch distribution on an interpreter's path (path order: the first one is what imports,
    unless the module found by ``import torch`` says otherwise)."""

    version: str
    local_tag: str | None
    location: str
    installer: str | None
    imported: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "local_tag": self.local_tag,
            "location": self.location,
            "installer": self.installer,
            "imported": self.imported,
        }


def build_flavour(
    version: str | None,
    conda_build: str | None = None,
    conda_packages: Sequence[Any] = (),
    platform: str | None = None,
    machine: str | None = None,
) -> tuple[str | None, str | None]:
    """(flavour, build label) of a torch version: flavour is ``cuda``, ``rocm``, ``cpu``, ``xpu``,
    ``jetson``, ``source`` or ``unknown`` (None: no torch); the label is what to show (``cu124``,
    ``cpu``, ``rocm6.2``, the conda build string, ``PyPI default (CUDA)``)."""

    if not version:
        return None, None
    parsed = parse_torch_version(version)
    if parsed.kind != "unknown":
        return parsed.kind, parsed.variant or parsed.local
    names = {str(p.get("name")): str(p.get("build")) for p in conda_packages if isinstance(p, Mapping)}
    if conda_build:
        if "cuda" in conda_build or "pytorch-cuda" in names:
            return "cuda", f"conda {conda_build}"
        if "cpu" in conda_build or "cpuonly" in names or "cpu" in names.get("pytorch-mutex", ""):
            return "cpu", f"conda {conda_build}"
        return "unknown", f"conda {conda_build}"
    if parsed.local:
        return "unknown", parsed.local
    # No local tag: a PyPI wheel, which is a CUDA build on Linux x86_64 and CPU-only on Windows and macOS.
    if platform == "linux" and machine in ("x86_64", "AMD64"):
        return "cuda", "PyPI default (CUDA)"
    if platform in ("win32", "darwin"):
        return "cpu", "PyPI default (CPU" + (", MPS)" if platform == "darwin" else ")")
    return "unknown", "no build tag"


@dataclass
class EnvRow:
    """One interpreter as the table shows it. ``status`` is ``ok`` or why it could not be read."""

    python: str
    name: str
    kind: str
    origins: list[Origin]
    status: str
    error: str | None = None
    seconds: float | None = None
    python_version: str | None = None
    executable: str | None = None
    prefix: str | None = None
    env_kind: str | None = None
    platform: str | None = None
    machine: str | None = None
    user_site: str | None = None
    torch: list[TorchCopy] = field(default_factory=list)
    torch_origin: str | None = None  # where `import torch` would load from (find_spec), None: nowhere
    conda_build: str | None = None
    conda_packages: list[dict[str, Any]] = field(default_factory=list)
    is_target: bool = False
    last_used: float | None = None  # when torch was last imported there (file access time), see envs.ondisk

    # -- derived --------------------------------------------------------------------------------------

    @property
    def is_self(self) -> bool:
        return any(o.kind == "self" for o in self.origins)

    @property
    def is_active(self) -> bool:
        return any(o.kind in ("virtual_env", "conda_prefix") for o in self.origins)

    @property
    def kernels(self) -> list[str]:
        return [o.label for o in self.origins if o.kind == "kernel"]

    @property
    def imported(self) -> TorchCopy | None:
        """The torch copy `import torch` loads (None: no torch, or a module without metadata)."""
        return next((t for t in self.torch if t.imported), None)

    @property
    def torch_version(self) -> str | None:
        copy = self.imported
        if copy is not None:
            return copy.version
        return self.torch[0].version if self.torch and self.torch_origin is None else None

    @property
    def flavour(self) -> str | None:
        return self._flavour()[0]

    @property
    def build(self) -> str | None:
        return self._flavour()[1]

    def _flavour(self) -> tuple[str | None, str | None]:
        if self.torch_version is None:
            return (None, None) if self.torch_origin is None else ("unknown", "no metadata")
        return build_flavour(self.torch_version, self.conda_build, self.conda_packages, self.platform, self.machine)

    @property
    def gpu_build(self) -> bool:
        return self.flavour in ("cuda", "rocm", "jetson")

    @property
    def installer(self) -> str | None:
        copy = self.imported or (self.torch[0] if self.torch else None)
        if copy is None:
            return None
        return "conda" if self.conda_build and not copy.installer else copy.installer

    def to_json(self) -> dict[str, Any]:
        return {
            "python": self.python,
            "name": self.name,
            "kind": self.kind,
            "origins": [o.to_json() for o in self.origins],
            "status": self.status,
            "error": self.error,
            "seconds": self.seconds,
            "python_version": self.python_version,
            "executable": self.executable,
            "prefix": self.prefix,
            "env_kind": self.env_kind,
            "platform": self.platform,
            "machine": self.machine,
            "user_site": self.user_site,
            "torch": [t.to_json() for t in self.torch],
            "torch_origin": self.torch_origin,
            "conda_build": self.conda_build,
            "conda_packages": self.conda_packages,
            "is_target": self.is_target,
            "last_used": self.last_used,
            # derived, stored so a reopened report (or another tool) need not recompute them
            "is_self": self.is_self,
            "is_active": self.is_active,
            "kernels": self.kernels,
            "torch_version": self.torch_version,
            "flavour": self.flavour,
            "build": self.build,
            "installer": self.installer,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> EnvRow:
        return cls(
            python=str(data.get("python")),
            name=str(data.get("name")),
            kind=str(data.get("kind")),
            origins=[
                Origin(str(o.get("kind")), str(o.get("label")), str(o.get("path")))
                for o in data.get("origins") or []
                if isinstance(o, Mapping)
            ],
            status=str(data.get("status")),
            error=data.get("error"),
            seconds=data.get("seconds"),
            python_version=data.get("python_version"),
            executable=data.get("executable"),
            prefix=data.get("prefix"),
            env_kind=data.get("env_kind"),
            platform=data.get("platform"),
            machine=data.get("machine"),
            user_site=data.get("user_site"),
            torch=[
                TorchCopy(
                    str(t.get("version")),
                    t.get("local_tag"),
                    str(t.get("location")),
                    t.get("installer"),
                    bool(t.get("imported")),
                )
                for t in data.get("torch") or []
                if isinstance(t, Mapping)
            ],
            torch_origin=data.get("torch_origin"),
            conda_build=data.get("conda_build"),
            conda_packages=list(data.get("conda_packages") or []),
            is_target=bool(data.get("is_target")),
            last_used=data.get("last_used") if isinstance(data.get("last_used"), (int, float)) else None,
        )


def _known(value: Any) -> Any:
    return value if is_known(value) else None


def _inside(path: str, root: str) -> bool:
    p = os.path.normcase(os.path.normpath(path))
    r = os.path.normcase(os.path.normpath(root)).rstrip(os.sep)
    return p.startswith(r + os.sep)


def _torch_copies(dists: Any, origin: str | None) -> list[TorchCopy]:
    copies: list[TorchCopy] = []
    marked = False
    for d in dists if isinstance(dists, list) else []:
        if not isinstance(d, Mapping):
            continue
        location = str(d.get("location") or "")
        imported = bool(
            origin and not marked and location and not origin.startswith("namespace:") and _inside(origin, location)
        )
        marked = marked or imported
        copies.append(TorchCopy(str(d.get("version")), d.get("local_tag"), location, d.get("installer"), imported))
    return copies


def row_from_facts(cand: Candidate, facts: Mapping[str, Any], seconds: float | None = None) -> EnvRow:
    """An inventory row from a probe run's facts (``interpreter`` and ``torch_dist`` stages)."""
    outcome = facts.get("probe.outcome")
    status = {
        "ok": OK,
        "interpreter_not_found": MISSING if not cand.exists else ERROR,
        "timeout": TIMEOUT,
        "crashed": CRASHED,
        "cancelled": CANCELLED,
        "python_too_old": TOO_OLD,
    }.get(str(outcome), ERROR)
    error = facts.get("probe.error")
    if status == CRASHED:
        error = f"crashed ({facts.get('probe.signal')}) in stage {facts.get('probe.failed_stage')}"
    elif status == TIMEOUT:
        error = f"no answer within {facts.get('probe.limit_seconds')} s (stage {facts.get('probe.failed_stage')})"
    elif status == OK and isinstance(facts.get("torch.dists"), NotCollected):
        status, error = ERROR, str(facts["torch.dists"])
    origin = _known(facts.get("torch.spec_origin"))
    return EnvRow(
        python=cand.python,
        name=cand.name,
        kind=cand.kind,
        origins=list(cand.origins),
        status=status,
        error=str(error) if error else None,
        seconds=seconds,
        python_version=_known(facts.get("python.version")) or cand.layout_version,
        executable=_known(facts.get("python.executable")),
        prefix=_known(facts.get("python.prefix")) or cand.prefix,
        env_kind=_known(facts.get("python.env_kind")),
        platform=_known(facts.get("python.platform")),
        machine=_known(facts.get("python.machine")),
        user_site=_known(facts.get("python.user_site")),
        torch=_torch_copies(_known(facts.get("torch.dists")), origin),
        torch_origin=origin,
        conda_build=_known(facts.get("torch.conda_build")),
        conda_packages=list(_known(facts.get("torch.conda_packages")) or []),
    )


Runner = Callable[..., Any]


def inspect_one(
    cand: Candidate,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    cancel: threading.Event | None = None,
    env: Mapping[str, str] | None = None,
    runner: Runner | None = None,
) -> EnvRow:
    """Run the probe's first stages in one interpreter; never raises, never waits longer than ``timeout``
    (plus the kill grace period)."""

    if not cand.exists:
        return row_from_facts(
            cand,
            {"probe.outcome": "interpreter_not_found", "probe.error": "it does not exist or is not executable"},
            0.0,
        )
    if cand.refused:
        row = row_from_facts(cand, {"probe.outcome": "refused", "probe.error": f"not run: {cand.refused}"}, 0.0)
        row.status = REFUSED
        return row
    limits = StageLimits(
        startup=timeout,
        stages=dict.fromkeys(STAGES, timeout),
        between=timeout,
        exit=min(2.0, timeout),
        overall=timeout,
        grace=0.5,
    )
    started = time.monotonic()
    try:
        result = (runner or run_probe)(
            cand.python, stages=list(STAGES), device_tests=False, limits=limits, cancel=cancel, env=env
        )
        facts = result.facts
    except Exception as exc:  # the runner is meant not to raise; one bad interpreter must not end the table
        facts = {"probe.outcome": "failed", "probe.error": f"{type(exc).__name__}: {exc}"}
    return row_from_facts(cand, facts, round(time.monotonic() - started, 3))


def inspect_all(
    candidates: Sequence[Candidate],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    max_workers: int | None = None,
    cancel: threading.Event | None = None,
    env: Mapping[str, str] | None = None,
    on_row: Callable[[EnvRow], None] | None = None,
    runner: Runner | None = None,
) -> list[EnvRow]:
    """Inspect every candidate in parallel; rows come back in the candidates' order.

    ``on_row`` is called as each row is ready, from a worker thread (a GUI must hand it to its own
    thread). ``cancel`` stops the runs still going (their rows say ``cancelled``)."""
    if not candidates:
        return []
    workers = max_workers or min(32, max(4, 2 * (os.cpu_count() or 2)))

    def one(cand: Candidate) -> EnvRow:
        row = inspect_one(cand, timeout=timeout, cancel=cancel, env=env, runner=runner)
        if on_row is not None:
            with contextlib.suppress(Exception):  # a display bug must not lose the row
                on_row(row)
        return row

    with ThreadPoolExecutor(max_workers=min(workers, len(candidates)), thread_name_prefix="gpuassist-envs") as pool:
        return list(pool.map(one, candidates))


# ---- the inventory: discovery + inspection + which one is the target ------------------------------------


@dataclass
class Inventory:
    """What `gpuassist envs` shows and the environment rules read (via :meth:`facts`)."""

    rows: list[EnvRow]
    kernels: list[KernelSpec] = field(default_factory=list)
    script: ScriptTarget | None = None
    target: str | None = None  # python path of the target row
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    target_reason: str | None = None  # why that one (gpuassist.envs.target)

    def target_row(self) -> EnvRow | None:
        return next((r for r in self.rows if r.is_target), None)

    def with_target(self, python: str | None) -> Inventory:
        """The same inventory with another target (the GUI's "pick a row"): rows are not re-inspected."""
        key = identity(python)[0] if python else None
        rows = []
        target = None
        for r in self.rows:
            is_target = key is not None and identity(r.python)[0] == key
            rows.append(EnvRow(**{**r.__dict__, "is_target": is_target}))
            target = r.python if is_target and target is None else target
        return Inventory(
            rows, self.kernels, self.script, target or python, self.notes, self.seconds, self.target_reason
        )

    def facts(self) -> dict[str, Any]:
        """The ``envs.*`` facts (docs/facts.md) the rules in ``gpuassist.rules.environments`` read."""
        return {
            "envs.inventory": [r.to_json() for r in self.rows],
            "envs.target": self.target,
            "envs.target_reason": self.target_reason,
            "envs.kernels": [k.to_json() for k in self.kernels],
            "envs.script": self.script.to_json() if self.script else None,
            "envs.notes": list(self.notes),
            "envs.seconds": round(self.seconds, 3),
        }

    def to_json(self) -> dict[str, Any]:
        return dict(to_jsonable(self.facts()))


def merge_shims(rows: list[EnvRow]) -> tuple[list[EnvRow], dict[str, str]]:
    """Fold each shim (pyenv's ``shims/python``, a wrapper script) into the row of the interpreter it
    started, keeping the shim's origins; only running it tells which one that is. Returns the rows and
    {shim path: row python} so a target named by its shim path still finds its row."""
    by_key = {identity(r.python)[0]: r for r in rows if r.kind != "shim"}
    kept: list[EnvRow] = []
    aliases: dict[str, str] = {}
    for r in rows:
        real = by_key.get(identity(r.executable)[0]) if r.kind == "shim" and r.status == OK and r.executable else None
        if real is None:
            kept.append(r)
            continue
        for o in r.origins:
            shim_origin = Origin(o.kind, f"{o.label} (shim {r.python})", o.path)
            if shim_origin not in real.origins:
                real.origins.append(shim_origin)
        aliases[r.python] = real.python
    return kept, aliases


def default_target(
    disc: Discovery, requested: str | None = None, ctx: Context | None = None, script: str | None = None
) -> str | None:
    """The interpreter the user's code most likely runs with (:func:`gpuassist.envs.target.choose_target`)."""
    return choose_target(ctx or Context.current(), requested=requested, disc=disc, script=script).python


def inventory(
    ctx: Context | None = None,
    *,
    script: str | None = None,
    target: str | None = None,
    extra: Iterable[str] = (),
    timeout: float = DEFAULT_TIMEOUT,
    max_workers: int | None = None,
    cancel: threading.Event | None = None,
    env: Mapping[str, str] | None = None,
    on_row: Callable[[EnvRow], None] | None = None,
    runner: Runner | None = None,
) -> Inventory:
    """Discover every interpreter, inspect each in parallel, and mark the target (see :func:`default_target`).

    ``env`` is the environment the interpreters run with (default: this process's)."""
    started = time.monotonic()
    ctx = ctx or Context.current()
    requested = [target] if target else []
    disc = discover(ctx, script=script, requested=[*requested, *extra])
    choice = choose_target(ctx, requested=target, script=script, disc=disc)
    rows = inspect_all(
        disc.candidates, timeout=timeout, max_workers=max_workers, cancel=cancel, env=env, on_row=on_row, runner=runner
    )
    for cand, row in zip(disc.candidates, rows, strict=True):
        row.last_used = last_used(cand, ctx.home)
    rows, aliases = merge_shims(rows)
    chosen = choice.python
    inv = Inventory(rows, list(disc.kernels), disc.script, None, list(disc.notes), 0.0, choice.reason)
    inv = inv.with_target(aliases.get(chosen, chosen) if chosen else None)
    inv.seconds = time.monotonic() - started
    return inv


def inventory_facts(inv: Inventory) -> dict[str, Any]:
    """Shorthand for ``inv.facts()``, for callers that merge them into a diagnosis."""
    return inv.facts()
