"""gpuassist audit run: the user's training script, run inside the target interpreter with instrumentation.

Run as ``<python> -X faulthandler [the user's -u/-O/-X/-W flags] audit_script.py --nonce TOKEN
[--seconds S] [--steps N] [--grace S] [--limit STAGE=SECONDS] -- (SCRIPT | -m MODULE) [ARGS...]``. Standard library +
torch only, Python 3.8+; it never imports gpuassist (the target interpreter does not have it). The user's
files are not touched: the script runs unmodified through ``runpy`` with ``sys.argv``, ``sys.path[0]`` and
``__main__`` as ``python SCRIPT ARGS`` would give it, in the working directory gpuassist was started in.

What is installed before the script starts, all in this process only:

- a ``TorchDispatchMode`` on the main thread: every aten operator, counted by device; copies between
  devices with their bytes, pinned source and ``non_blocking``; operators that make the host wait for
  the device (``.item()``, blocking device→host copies, ``nonzero``, boolean-mask indexing...) with the
  source line that called them; matmul/convolution/attention operators by dtype;
- DataLoader timing (``_BaseDataLoaderIter.__init__``/``__next__`` wrapped): time waiting for each
  batch, first batch of an epoch (worker start-up) apart, each loader's settings and ``for`` line;
- a global optimizer step post-hook (a *step* is ``optimizer.step()``, of one optimizer when there are
  several; a script that never creates an optimizer counts forward passes of its first module instead),
  a global module forward pre-hook (the devices of the parameters and inputs at the first forward), and
  ``torch.cuda.synchronize`` counted;
- ``torch.compile`` calls recorded (the dispatch mode lets them compile: ``ignore_compile_internals``), and
  the processes the script starts (work its main process waits for is done where nothing is measured).

A forked child (a DataLoader worker, a fork Pool) records nothing and runs without the dispatch mode and
without the SIGTERM stack dump (:func:`leave_forked_child`).

Stopping: after ``--steps`` steps or ``--seconds`` seconds the next hook or operator raises
:class:`StopRun` (a ``BaseException``, so ``except Exception`` in the script does not swallow it) and the
script unwinds. A script that reaches none of them (stuck in ``time.sleep``, a blocking read, a pure-Python
loop) is ended by the watchdog thread after a grace period, with the lines it was stuck at. A script stuck
in native code holding the GIL is stopped by the host (SIGTERM: faulthandler leaves the stack on stderr).
The summary is also sent every few seconds, so a crash keeps the last one.

Protocol (``channel.py``): ``hello``, ``stage`` (``setup``, ``script``), ``fact``, ``progress``
(``{"stage": "script", "done": D, "total": T, "steps": S, "seconds": X, "message": M}``), ``done``.
Fact keys (docs/facts.md, "Audit run facts") are listed in :data:`STAGE_KEYS`.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import linecache
import os
import sys
import threading
import time
import traceback
import warnings
from typing import TYPE_CHECKING, Any, Callable, NoReturn

if TYPE_CHECKING or __package__:  # imported as part of gpuassist (host side, tests)
    from .channel import Channel, dump_stacks_on_sigterm, guard_lifetime, parse_limits
else:  # run as a script in the target interpreter: channel.py next to this file, loaded by its path
    import runpy as _runpy

    _channel = _runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "channel.py"))
    guard_lifetime = _channel["guard_lifetime"]
    Channel, dump_stacks_on_sigterm = _channel["Channel"], _channel["dump_stacks_on_sigterm"]
    parse_limits = _channel["parse_limits"]

PROTOCOL = 1
STAGES = ("setup", "script")
DEFAULT_LIMITS = {"setup": 120.0, "script": 90.0}  # the host passes the script's own limit
STAGE_KEYS = {
    "setup": ("run.torch", "run.accelerators", "run.instrumentation"),
    "script": ("run.ops", "run.copies", "run.syncs", "run.steps", "run.data", "run.first_forward", "run.settings",
               "run.devices", "run.stop", "run.exception", "run.snapshot"),
}

STOP_GRACE = 3.0  # seconds between asking the script to stop and ending the process without it
SNAPSHOT_EVERY = 2.0  # partial summaries, so a crash keeps what was seen
PROGRESS_EVERY = 0.5
MAX_STEP_RECORDS = 2000  # the latest steps kept for the medians
MAX_SITES = 20
MAX_SHAPES = 64

# Operators by what they mean for the audit (overload packets; every overload counts).
COPY_OPS = ("_to_copy", "copy_", "_copy_from", "_copy_from_and_resize")
SYNC_OPS = {  # operators that make the host wait for an accelerator (on the CPU they are plain reads)
    "_local_scalar_dense": "item", "nonzero": "nonzero", "masked_select": "masked_select", "unique": "unique",
    "_unique": "unique", "_unique2": "unique", "unique_dim": "unique", "unique_consecutive": "unique",
    "is_nonzero": "bool", "equal": "equal", "repeat_interleave": "repeat_interleave",
}
MASK_INDEX_OPS = ("index", "index_put_", "index_put")  # a boolean mask index runs nonzero inside
COMPUTE_OPS = (
    "mm", "addmm", "bmm", "baddbmm", "addbmm", "convolution", "_convolution", "cudnn_convolution",
    "convolution_overrideable", "_scaled_mm", "_scaled_dot_product_flash_attention",
    "_scaled_dot_product_efficient_attention", "_scaled_dot_product_cudnn_attention",
)
CONV_OPS = ("convolution", "_convolution", "cudnn_convolution", "convolution_overrideable")

USER, LIB, INTERNAL = "user", "lib", "internal"
EXIT = os._exit  # the real one: the script's os._exit() is wrapped so that it still gets a final summary
GRAD_SCALER_FILES = (os.path.join("amp", "grad_scaler.py"),)  # torch.amp's and torch.cuda.amp's


class StopRun(BaseException):
    """Raised into the script when its bound is reached: not an ``Exception``, so ``except Exception`` in the
    script lets it through and the script unwinds."""


def error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


# ---- where in the user's code ------------------------------------------------------------------------

class Sites:
    """Classifies source files (the user's code, a library, or torch/stdlib/this script) and finds the
    line of the user's code behind an operator by walking the Python stack."""

    def __init__(self, user_files: list[str], user_root: str | None, internal_roots: list[str]) -> None:
        self.user_files = {os.path.abspath(f) for f in user_files}
        self.user_root = os.path.abspath(user_root) + os.sep if user_root else None
        self.internal = tuple(os.path.abspath(r) + os.sep for r in internal_roots if r)
        prefixes = {getattr(sys, n, "") for n in ("prefix", "base_prefix", "exec_prefix", "base_exec_prefix")}
        self.lib_prefixes = tuple(os.path.abspath(p) + os.sep for p in prefixes if p)
        self.kinds: dict[str, str] = {}

    def kind(self, filename: str) -> str:
        found = self.kinds.get(filename)
        if found is None:
            found = self.kinds[filename] = self._classify(filename)
        return found

    def _classify(self, filename: str) -> str:
        if filename.startswith("<"):
            return INTERNAL  # <frozen runpy>, <string>
        path = os.path.abspath(filename)
        if path in self.user_files:
            return USER
        if path.startswith(self.internal):
            return INTERNAL
        parts = path.split(os.sep)
        if "site-packages" in parts or "dist-packages" in parts:
            return LIB
        if self.user_root and path.startswith(self.user_root):
            return USER
        if path.startswith(self.lib_prefixes):
            return LIB
        return USER  # a module of the user's project outside the script's directory (PYTHONPATH, src/)

    def locate(self, frame: Any) -> tuple[tuple[str, int] | None, tuple[str, int] | None]:
        """(innermost line of the user's code, innermost library line inside it or None)."""
        user, lib, _ = self.locate_with_torch(frame)
        return user, lib

    def locate_with_torch(self, frame: Any) -> tuple[tuple[str, int] | None, tuple[str, int] | None, str]:
        """:meth:`locate`, plus the file of the outermost internal (torch) frame below the user's line."""
        lib = None
        internal = ""
        while frame is not None:
            code = frame.f_code
            kind = self.kind(code.co_filename)
            if kind == USER:
                return (code.co_filename, frame.f_lineno), lib, internal
            if kind == LIB and lib is None:
                lib = (code.co_filename, frame.f_lineno)
            elif kind == INTERNAL and lib is None:
                internal = code.co_filename
            frame = frame.f_back
        return None, lib, internal

    def user_frames(self, tb: Any) -> list[tuple[str, int, str]]:
        """(file, line, function) of the user's frames in a traceback, outermost first."""
        out = []
        for fs in traceback.extract_tb(tb):
            if self.kind(fs.filename) == USER:
                out.append((fs.filename, fs.lineno or 0, fs.name))
        return out


def source_line(site: tuple[str, int] | None) -> dict[str, Any] | None:
    if site is None:
        return None
    filename, lineno = site
    return {"file": filename, "line": lineno, "code": linecache.getline(filename, lineno).strip()[:200]}


# ---- the recorder --------------------------------------------------------------------------------------

class Recorder:
    """Everything the instruments count. Hot paths touch plain dicts and ints only; the summary is built
    from copies, so the watchdog thread can take one while the script runs."""

    def __init__(self, torch: Any, sites: Sites, steps_limit: int | None, seconds_limit: float | None) -> None:
        self.torch = torch
        self.sites = sites
        self.steps_limit = steps_limit
        self.seconds_limit = seconds_limit
        self.pid = os.getpid()
        self.main_ident = threading.get_ident()  # set-up runs on the thread that runs the script
        self.foreign = False  # True in a forked child (DataLoader worker): record nothing there
        self.t0 = time.perf_counter()
        self.last_activity = self.t0
        # operators
        self.ops: dict[tuple[Any, Any], int] = {}  # (OpOverload, device) → count, outside data loading
        self.dev_ops: dict[Any, int] = {}  # device → count, outside data loading
        self.data_ops: dict[Any, int] = {}  # device → count, inside DataLoader.__next__
        self.compute: dict[tuple[Any, Any, Any], int] = {}  # (OpOverload, device, dtype) → count
        self.conv_shapes: dict[Any, set[tuple[int, ...]]] = {}
        self.copies: dict[str, list[int]] = {}  # direction → [count, bytes, pinned source, non_blocking]
        self.site_counts: dict[tuple[Any, ...], list[Any]] = {}  # (kind, device, user, lib) → [n, steps, last, bytes]
        self.n_sync = 0
        self.in_data = 0
        # steps
        self.optimizer_created = False
        self.optimizers: dict[str, int] = {}
        self.clock: Any = None  # the optimizer whose step() is a step
        self.other_stepped: Any = None  # another optimizer that stepped since the clock last did
        self.steps = 0
        self.other_thread_steps = 0  # steps on another thread: the dispatch mode (main thread) did not see them
        self.step_kind: str | None = None
        # per step: (seconds, data wait, ops, accelerator ops, h2d, h2d bytes, d2h, d2h bytes, host waits)
        self.first_step: tuple[Any, ...] | None = None  # pays for start-up (workers, CUDA context, caches)
        self.step_records: Any = collections.deque(maxlen=MAX_STEP_RECORDS)  # the steps after it, latest kept
        self.loop_started: float | None = None
        self.top_module: Any = None
        self.processes: list[Any] = []  # multiprocessing processes the script started (not DataLoader workers)
        self.compile_calls = 0  # torch.compile(...) / module.compile() calls, and the first one's line
        self.compile_site: dict[str, Any] | None = None
        self.first_forward: dict[str, Any] | None = None
        self.autocast_seen = False
        # data loading
        self.loaders: dict[int, dict[str, Any]] = {}
        self.wait_total = 0.0
        self.startup_total = 0.0
        # stopping
        self.stop_reason: str | None = None
        self.stop_requested_at: float | None = None
        self.last_raise = 0.0
        self.stop_raises = 0  # more than one: the script caught StopRun (``except BaseException``, bare ``except:``)
        self.mode: Any = None  # the dispatch mode while the script runs (taken out again in forked children)
        self.step_mark = self._marks()

    # -- clock and stop ---------------------------------------------------------------------------------
    def elapsed(self) -> float:
        return time.perf_counter() - self.t0

    def request_stop(self, reason: str) -> None:
        if self.stop_reason is None:
            self.stop_reason = reason
            self.stop_requested_at = time.perf_counter()

    def maybe_stop(self, *, any_thread: bool = False) -> None:
        """Raise StopRun when a stop is pending (again at most twice a second if the script swallowed it). Only
        on the main thread, unless ``any_thread``: a step hook raises in the thread that trains, but a data
        thread running some module must not die of it while the main thread waits for its batches."""
        if self.stop_reason is None or self.foreign:
            return
        if not any_thread and threading.get_ident() != self.main_ident:
            return
        now = time.perf_counter()
        if now - self.last_raise >= 0.5:
            self.last_raise = now
            self.stop_raises += 1
            raise StopRun(self.stop_reason)

    # -- operators --------------------------------------------------------------------------------------
    def on_site(self, kind: str, device: Any, nbytes: int = 0) -> None:
        user, lib, internal = self.sites.locate_with_torch(sys._getframe(1))
        if internal.endswith(GRAD_SCALER_FILES):
            kind = "grad_scaler"  # scaler.step() reads found_inf every step: the price of float16 scaling
        key = (kind, device, user, lib)
        entry = self.site_counts.get(key)
        if entry is None:
            if len(self.site_counts) >= 4096:  # a pathological script: keep the ones already seen
                return
            entry = self.site_counts[key] = [0, 0, -1, 0]
        entry[0] += 1
        entry[3] += nbytes
        if entry[2] != self.steps:
            entry[1] += 1
            entry[2] = self.steps

    def on_copy(self, src: Any, dst: Any, non_blocking: bool) -> None:
        s, d = src.device, dst.device
        if s == d or s.type == "meta" or d.type == "meta":
            return
        if s.type == "cpu":
            direction = "h2d"
        elif d.type == "cpu":
            direction = "d2h"
        else:
            direction = "d2d"
        nbytes = int(dst.numel()) * int(dst.element_size())
        entry = self.copies.get(direction)
        if entry is None:
            entry = self.copies[direction] = [0, 0, 0, 0]
        entry[0] += 1
        entry[1] += nbytes
        if direction == "h2d":
            with contextlib.suppress(Exception):
                entry[2] += 1 if src.is_pinned() else 0
        entry[3] += 1 if non_blocking else 0
        if direction == "d2d":
            return
        device = d if direction == "h2d" else s
        self.on_site(direction if direction == "h2d" or non_blocking else "d2h_sync", device, nbytes)
        if direction == "d2h" and not non_blocking:
            self.n_sync += 1

    # -- steps ------------------------------------------------------------------------------------------
    def _marks(self) -> tuple[float, float, int, int, int, int, int, int, int]:
        h2d = self.copies.get("h2d") or [0, 0]
        d2h = self.copies.get("d2h") or [0, 0]
        accel = sum(n for dev, n in self.dev_ops.items() if dev is not None and dev.type not in ("cpu", "meta"))
        total = sum(self.dev_ops.values())
        return (time.perf_counter(), self.wait_total, total, accel, h2d[0], h2d[1], d2h[0], d2h[1], self.n_sync)

    def start_loop(self) -> None:
        if self.loop_started is None:
            self.loop_started = time.perf_counter()
            self.step_mark = self._marks()

    def end_step(self, kind: str) -> None:
        self.step_kind = kind
        now = self._marks()
        prev = self.step_mark
        record = tuple(now[i] - prev[i] for i in range(len(now)))
        if self.first_step is None:
            self.first_step = record
        else:
            self.step_records.append(record)
        self.step_mark = now
        self.steps += 1
        if threading.get_ident() != self.main_ident:
            self.other_thread_steps += 1
        self.last_activity = now[0]
        if self.steps_limit is not None and self.steps >= self.steps_limit:
            self.request_stop("steps")

    def on_optimizer_created(self, optimizer: Any) -> None:
        name = type(optimizer).__name__
        self.optimizers[name] = self.optimizers.get(name, 0) + 1
        if not self.optimizer_created and self.step_kind == "forward":
            # forward passes before the optimizer existed were set-up (a summary, a dry run): start over
            self.steps, self.step_kind, self.first_step = 0, None, None
            self.step_records.clear()
            self.loop_started = None
        self.optimizer_created = True

    def on_optimizer_step(self, optimizer: Any) -> None:
        if self.foreign:
            return
        if self.counts_as_step(optimizer):
            self.start_loop()
            self.end_step("optimizer")
        self.maybe_stop(any_thread=True)

    def counts_as_step(self, optimizer: Any) -> bool:
        """One step per iteration with several optimizers (a GAN's generator and discriminator): the first one
        that steps is the clock, the others' steps are part of its step. An optimizer that steps twice without
        the clock in between takes over (a second training phase with a new optimizer)."""
        if self.clock is None or optimizer is self.clock:
            self.clock, self.other_stepped = optimizer, None
            return True
        if optimizer is self.other_stepped:
            self.clock, self.other_stepped = optimizer, None
            return True
        self.other_stepped = optimizer
        return False

    def on_forward(self, module: Any, inputs: Any) -> None:
        if self.foreign:
            return
        self.maybe_stop()
        if self.top_module is None:
            self.top_module = module
            self.start_loop()
            self.record_first_forward(module, inputs)
        elif module is self.top_module:
            self.start_loop()
            if not self.autocast_seen:
                self.autocast_seen = autocast_enabled(self.torch)
            if not self.optimizer_created:
                self.end_step("forward")  # inference: a step is one forward of the model
                self.maybe_stop(any_thread=True)

    def record_first_forward(self, module: Any, inputs: Any) -> None:
        torch = self.torch
        params: dict[str, int] = {}
        dtypes: dict[str, int] = {}
        for p in module.parameters():
            params[str(p.device)] = params.get(str(p.device), 0) + int(p.numel())
            dtypes[str(p.dtype).replace("torch.", "")] = dtypes.get(str(p.dtype).replace("torch.", ""), 0) + 1
        buffers: dict[str, int] = {}
        for b in module.buffers():
            buffers[str(b.device)] = buffers.get(str(b.device), 0) + int(b.numel())
        tensors = []
        for x in _flat(inputs, torch.Tensor):
            tensors.append({"device": str(x.device), "shape": list(x.shape)[:8],
                            "dtype": str(x.dtype).replace("torch.", "")})
            if len(tensors) >= 8:
                break
        user, lib = self.sites.locate(sys._getframe(1))
        self.autocast_seen = autocast_enabled(torch)
        self.first_forward = {
            "module": type(module).__name__, "training": bool(getattr(module, "training", False)),
            "param_devices": params, "param_dtypes": dtypes, "buffer_devices": buffers, "inputs": tensors,
            "autocast": self.autocast_seen, "site": source_line(user), "via": source_line(lib),
            "seconds": round(self.elapsed(), 4),
        }

    def on_process(self, process: Any) -> None:
        target = getattr(process, "_target", None)
        if str(getattr(target, "__module__", "")).startswith("torch.utils.data"):
            return  # a DataLoader worker: its time is measured as waiting for batches
        if len(self.processes) < 256:
            self.processes.append(process)

    def processes_alive(self) -> int:
        """Processes the script started that still run: the work a main process waits for (torch.multiprocessing
        .spawn, a Pool) is done there, where the instruments are not."""
        alive = 0
        for process in list(self.processes):
            with contextlib.suppress(Exception):
                alive += 1 if process.is_alive() else 0
        return alive

    def on_compile(self) -> None:
        self.compile_calls += 1
        if self.compile_site is None:
            self.compile_site = source_line(self.sites.locate(sys._getframe(1))[0])

    def compile_summary(self) -> dict[str, Any] | None:
        """Whether the script used torch.compile and whether it really compiled under the instruments: a torch
        that does not know ``ignore_compile_internals`` runs compiled code eagerly while a dispatch mode is on."""
        if not self.compile_calls:
            return None
        from torch.utils._python_dispatch import TorchDispatchMode

        return {"calls": self.compile_calls, "site": self.compile_site,
                "compiles_under_audit": hasattr(TorchDispatchMode, "ignore_compile_internals")}

    # -- data loading -----------------------------------------------------------------------------------
    def on_loader(self, iterator: Any, loader: Any) -> None:
        """A new pass over a DataLoader: loaders iterated at the same line with the same settings are one
        entry (a script that builds its DataLoader inside the epoch loop has one loader, not one per epoch)."""
        user, _ = self.sites.locate(sys._getframe(1))
        workers = int(getattr(loader, "num_workers", 0) or 0)
        config = {
            "site": source_line(user), "dataset": type(getattr(loader, "dataset", None)).__name__,
            "batch_size": getattr(loader, "batch_size", None), "num_workers": workers,
            "pin_memory": bool(getattr(loader, "pin_memory", False)),
            "persistent_workers": bool(getattr(loader, "persistent_workers", False)),
            "prefetch_factor": getattr(loader, "prefetch_factor", None) if workers else None,
        }
        key = hash((user, *[v for k, v in config.items() if k != "site"]))
        entry = self.loaders.get(key)
        if entry is None:
            entry = self.loaders[key] = dict(config, epochs=0, batches=0, wait_seconds=0.0, startup_seconds=0.0,
                                             max_wait_seconds=0.0)
        entry["epochs"] += 1
        iterator._gpuassist_loader = key
        iterator._gpuassist_fresh = True

    def on_batch(self, iterator: Any, seconds: float, got: bool) -> None:
        entry = self.loaders.get(getattr(iterator, "_gpuassist_loader", -1))
        fresh = getattr(iterator, "_gpuassist_fresh", False)
        if fresh:
            iterator._gpuassist_fresh = False
            self.startup_total += seconds
        else:
            self.wait_total += seconds
        self.last_activity = time.perf_counter()
        if entry is None:
            return
        if fresh:
            entry["startup_seconds"] += seconds
        else:
            entry["wait_seconds"] += seconds
            entry["max_wait_seconds"] = max(entry["max_wait_seconds"], seconds)
        if got:
            entry["batches"] += 1

    # -- the summary --------------------------------------------------------------------------------------
    def summary(self, per_op_seconds: float) -> dict[str, Any]:
        """The fact values (``run.*``) for what has been seen so far."""
        ops = dict(self.ops)
        dev_ops = dict(self.dev_ops)
        by_device: dict[str, int] = {}
        for dev, n in dev_ops.items():
            by_device[_dev(dev)] = by_device.get(_dev(dev), 0) + n
        data_by_device: dict[str, int] = {}
        for dev, n in dict(self.data_ops).items():
            data_by_device[_dev(dev)] = data_by_device.get(_dev(dev), 0) + n
        top = sorted(ops.items(), key=lambda kv: -kv[1])[:25]
        compute = sorted(dict(self.compute).items(), key=lambda kv: -kv[1])[:40]
        shapes = {_dev(d): len(s) for d, s in dict(self.conv_shapes).items()}
        copies = {k: {"count": v[0], "bytes": v[1], "pinned": v[2], "non_blocking": v[3]}
                  for k, v in dict(self.copies).items()}
        sites = sorted(dict(self.site_counts).items(), key=lambda kv: -kv[1][0])
        syncs: list[dict[str, Any]] = []
        copy_sites: list[dict[str, Any]] = []
        for (kind, device, user, lib), (n, steps_seen, _, nbytes) in sites:
            entry = {"kind": kind, "device": _dev(device), "count": n, "steps": steps_seen,
                     "site": source_line(user), "via": source_line(lib)}
            if kind in ("h2d", "d2h"):
                entry["bytes"] = nbytes
                if len(copy_sites) < MAX_SITES:
                    copy_sites.append(entry)
            elif len(syncs) < MAX_SITES:
                if kind == "d2h_sync":
                    entry["bytes"] = nbytes
                syncs.append(entry)
        copies["sites"] = copy_sites  # type: ignore[assignment]
        first = self.first_step
        records = list(self.step_records)
        steady = records or ([first] if first else [])
        steps = {
            "kind": self.step_kind, "count": self.steps, "other_thread": self.other_thread_steps,
            "optimizers": dict(self.optimizers),
            "seconds": [round(r[0], 5) for r in records[-500:]],
            "data_wait": [round(r[1], 5) for r in records[-500:]],
            "per_step": _per_step(first, steady),
            "loop_started": None if self.loop_started is None else round(self.loop_started - self.t0, 4),
        }
        loaders = [dict(v, wait_seconds=round(v["wait_seconds"], 5), startup_seconds=round(v["startup_seconds"], 5),
                        max_wait_seconds=round(v["max_wait_seconds"], 5)) for v in list(self.loaders.values())]
        step_time = sum(r[0] for r in steady)
        wait = sum(r[1] for r in steady)
        overhead = sum(r[2] for r in steady) * per_op_seconds
        data = {
            "loaders": loaders, "wait_seconds": round(self.wait_total, 5),
            "startup_seconds": round(self.startup_total, 5), "batches": sum(v["batches"] for v in loaders),
            "steady_steps": len(steady), "steady_step_seconds": round(step_time, 5),
            "steady_wait_seconds": round(wait, 5), "steady_overhead_seconds": round(overhead, 5),
        }
        return {
            "run.ops": {
                "total": sum(dev_ops.values()), "by_device": by_device, "data_loading": data_by_device,
                "top": [{"op": _op(f), "device": _dev(d), "count": n} for (f, d), n in top],
                "compute": [{"op": _op(f), "device": _dev(d), "dtype": str(t).replace("torch.", ""), "count": n}
                            for (f, d, t), n in compute],
                "conv_shapes": shapes,
            },
            "run.copies": copies,
            "run.syncs": syncs,
            "run.steps": steps,
            "run.data": data,
            "run.first_forward": self.first_forward,
            "run.settings": dict(settings(self.torch, self.autocast_seen), compile=self.compile_summary()),
            "run.snapshot": {"seconds": round(self.elapsed(), 4), "final": False,
                             "idle_seconds": round(time.perf_counter() - self.last_activity, 4)},
        }


def _per_step(first: Any, steady: list[Any]) -> dict[str, Any] | None:
    """Medians over the steps after the first (the latest ones when there were many)."""
    if not steady:
        return None
    names = ("seconds", "data_wait", "ops", "accel_ops", "h2d", "h2d_bytes", "d2h", "d2h_bytes", "syncs")
    out: dict[str, Any] = {}
    for i, name in enumerate(names):
        values = sorted(r[i] for r in steady)
        half = len(values) // 2
        mid = values[half] if len(values) % 2 else (values[half - 1] + values[half]) / 2
        out[name] = round(mid, 6) if isinstance(mid, float) else mid
    out["first_step_seconds"] = round(first[0], 5) if first else None
    return out


def _dev(device: Any) -> str:
    return "none" if device is None else str(device)


def _op(func: Any) -> str:
    """``aten::add_.Tensor``: the schema name with its overload (none for the default one)."""
    try:
        return str(func.name())
    except Exception:
        return str(func)


def _flat(obj: Any, tensor_type: Any, depth: int = 0) -> list[Any]:
    if isinstance(obj, tensor_type):
        return [obj]
    if depth > 2:
        return []
    if isinstance(obj, (list, tuple)):
        return [t for x in obj[:16] for t in _flat(x, tensor_type, depth + 1)]
    if isinstance(obj, dict):
        return [t for x in list(obj.values())[:16] for t in _flat(x, tensor_type, depth + 1)]
    return []


def autocast_enabled(torch: Any) -> bool:
    for args in (("cuda",), ("cpu",), ("mps",), ()):
        with contextlib.suppress(Exception):
            if torch.is_autocast_enabled(*args):
                return True
    return False


def settings(torch: Any, autocast_seen: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"autocast_seen": autocast_seen}
    for key, read in (
        ("cudnn_benchmark", lambda: bool(torch.backends.cudnn.benchmark)),
        ("cudnn_enabled", lambda: bool(torch.backends.cudnn.enabled)),
        ("float32_matmul_precision", lambda: str(torch.get_float32_matmul_precision())),
        ("cuda_matmul_allow_tf32", lambda: bool(torch.backends.cuda.matmul.allow_tf32)),
        ("cudnn_allow_tf32", lambda: bool(torch.backends.cudnn.allow_tf32)),
        ("deterministic", lambda: bool(torch.are_deterministic_algorithms_enabled())),
    ):
        try:
            out[key] = read()
        except Exception:
            out[key] = None
    return out


# ---- the instruments -----------------------------------------------------------------------------------

def overloads(torch: Any, packets: Any) -> dict[Any, str]:
    """Every OpOverload of the named aten packets that this torch has → the packet name."""
    found: dict[Any, str] = {}
    for name in packets:
        packet = getattr(torch.ops.aten, name, None)
        if packet is None:
            continue
        with contextlib.suppress(Exception):
            for overload in packet.overloads():
                found[getattr(packet, overload)] = name
    return found


def make_mode(torch: Any, rec: Recorder) -> Any:
    """The dispatch mode: counts every operator; copies, host waits and matmul-class ops get a closer look."""
    from torch.utils._python_dispatch import TorchDispatchMode

    tensor = torch.Tensor
    copy_ops = overloads(torch, COPY_OPS)
    sync_ops = {f: SYNC_OPS[n] for f, n in overloads(torch, SYNC_OPS).items()}
    mask_ops = overloads(torch, MASK_INDEX_OPS)
    compute_ops = overloads(torch, COMPUTE_OPS)
    conv_ops = overloads(torch, CONV_OPS)
    special = set(copy_ops) | set(sync_ops) | set(mask_ops) | set(compute_ops)
    ops, dev_ops, data_ops = rec.ops, rec.dev_ops, rec.data_ops
    bool_dtype = torch.bool

    def device_of(out: Any, args: Any) -> Any:
        if isinstance(out, tensor):
            return out.device
        if isinstance(out, (tuple, list)):
            for o in out:
                if isinstance(o, tensor):
                    return o.device
        for a in args:
            if isinstance(a, tensor):
                return a.device
            if isinstance(a, (tuple, list)):
                for x in a:
                    if isinstance(x, tensor):
                        return x.device
        return None

    def look_closer(func: Any, args: Any, kwargs: Any, out: Any, dev: Any) -> None:
        name = copy_ops.get(func)
        if name is not None:
            if name == "_to_copy" and args and isinstance(out, tensor):
                rec.on_copy(args[0], out, bool(kwargs.get("non_blocking", False)))
            elif name == "copy_" and len(args) >= 2 and isinstance(args[1], tensor):
                rec.on_copy(args[1], args[0], bool(args[2] if len(args) > 2 else kwargs.get("non_blocking", False)))
            elif len(args) >= 2 and isinstance(args[1], tensor):  # _copy_from(self=src, dst)
                rec.on_copy(args[0], args[1], bool(args[2] if len(args) > 2 else kwargs.get("non_blocking", False)))
            return
        kind = sync_ops.get(func)
        if kind is None and func in mask_ops and len(args) >= 2:
            indices = args[1] if isinstance(args[1], (list, tuple)) else ()
            if any(isinstance(i, tensor) and i.dtype == bool_dtype for i in indices):
                kind = "mask_index"
        if kind is not None:
            rec.n_sync += 1 if dev is not None and dev.type not in ("cpu", "meta") else 0
            rec.on_site(kind, dev)
            return
        if func in compute_ops and isinstance(out, tensor):
            key = (func, dev, out.dtype)
            rec.compute[key] = rec.compute.get(key, 0) + 1
            if func in conv_ops and dev is not None and dev.type != "cpu" and args and isinstance(args[0], tensor):
                shapes = rec.conv_shapes.setdefault(dev, set())
                if len(shapes) < MAX_SHAPES:
                    shapes.add(tuple(args[0].shape))

    class AuditMode(TorchDispatchMode):  # type: ignore[no-untyped-call]
        @classmethod
        def ignore_compile_internals(cls) -> bool:
            """torch.compile compiles as without gpuassist (with any other mode on the stack it silently runs the
            model eagerly) and the mode sees what the compiled code runs. An older torch does not ask: the
            model then runs eagerly under the audit, which ``run.settings.compile`` says."""
            return True

        def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            if rec.stop_reason is not None:
                rec.maybe_stop()
            kwargs = kwargs or {}
            out = func(*args, **kwargs)
            if rec.foreign:
                return out
            dev = device_of(out, args)
            if dev is None:
                return out  # no tensor in or out (profiler markers): it ran on no device
            if rec.in_data:
                data_ops[dev] = data_ops.get(dev, 0) + 1
                if func in copy_ops:
                    look_closer(func, args, kwargs, out, dev)
                return out
            key = (func, dev)
            ops[key] = ops.get(key, 0) + 1
            dev_ops[dev] = dev_ops.get(dev, 0) + 1
            if func in special:
                look_closer(func, args, kwargs, out, dev)
            return out

    return AuditMode


def install_hooks(torch: Any, rec: Recorder) -> dict[str, str]:
    """Optimizer, module and DataLoader instruments; what could not be installed says why."""
    status: dict[str, str] = {}

    def attempt(name: str, install: Callable[[], None]) -> None:
        try:
            install()
            status[name] = "ok"
        except Exception as exc:
            status[name] = error_text(exc)[:300]

    def optimizer() -> None:
        from torch.optim.optimizer import Optimizer, register_optimizer_step_post_hook

        register_optimizer_step_post_hook(lambda opt, args, kwargs: rec.on_optimizer_step(opt))
        original = Optimizer.__init__

        def init(self: Any, *args: Any, **kwargs: Any) -> None:
            original(self, *args, **kwargs)
            if not rec.foreign:
                rec.on_optimizer_created(self)

        Optimizer.__init__ = init  # type: ignore[method-assign]

    def modules() -> None:
        from torch.nn.modules.module import register_module_forward_pre_hook

        compiler = getattr(torch, "compiler", None)
        compiling = getattr(compiler, "is_compiling", None) or (lambda: False)

        def pre_hook(module: Any, inputs: Any) -> None:
            if compiling():  # torch.compile tracing a module inside a compiled one: nothing of ours in its graph
                return
            rec.on_forward(module, inputs)

        register_module_forward_pre_hook(pre_hook)

    def dataloader() -> None:
        from torch.utils.data.dataloader import _BaseDataLoaderIter

        original_init = _BaseDataLoaderIter.__init__
        original_next = _BaseDataLoaderIter.__next__

        def init(self: Any, loader: Any, *args: Any, **kwargs: Any) -> None:
            rec.in_data += 1  # the sampler's seed, worker start-up: data loading, not the model
            try:
                original_init(self, loader, *args, **kwargs)
            finally:
                rec.in_data -= 1
            if not rec.foreign:
                rec.on_loader(self, loader)

        def next_batch(self: Any) -> Any:
            if rec.foreign:
                return original_next(self)
            rec.maybe_stop()
            rec.start_loop()
            started = time.perf_counter()
            rec.in_data += 1
            got = False
            try:
                batch = original_next(self)
                got = True
                return batch
            finally:
                rec.in_data -= 1
                rec.on_batch(self, time.perf_counter() - started, got)

        _BaseDataLoaderIter.__init__ = init  # type: ignore[method-assign]
        _BaseDataLoaderIter.__next__ = next_batch  # type: ignore[method-assign]

    def compile_calls() -> None:
        original = torch.compile

        @functools.wraps(original)
        def counted(*args: Any, **kwargs: Any) -> Any:
            if not rec.foreign:
                rec.on_compile()
            return original(*args, **kwargs)

        torch.compile = counted
        # the module hook is ours, and compiling around it is taken care of (see modules() above)
        warnings.filterwarnings("ignore", message=r"Using `torch\.compile\(module\)` when there are global hooks")

    def processes() -> None:
        from multiprocessing.process import BaseProcess

        original = BaseProcess.start

        def start(self: Any, *args: Any, **kwargs: Any) -> Any:
            result = original(self, *args, **kwargs)
            if not rec.foreign:
                rec.on_process(self)
            return result

        BaseProcess.start = start  # type: ignore[method-assign]

    def threads() -> None:
        previous = threading.excepthook

        def quiet_stop(args: Any) -> None:
            if args.exc_type is not StopRun:  # the bound ended a thread that trains: not the script's error
                previous(args)

        threading.excepthook = quiet_stop

    def synchronize() -> None:
        original = torch.cuda.synchronize

        def counted(*args: Any, **kwargs: Any) -> Any:
            if not rec.foreign:
                rec.n_sync += 1
                rec.on_site("synchronize", None)
            return original(*args, **kwargs)

        torch.cuda.synchronize = counted

    def forks() -> None:
        os.register_at_fork(after_in_child=lambda: leave_forked_child(torch, rec))

    attempt("optimizer", optimizer)
    attempt("modules", modules)
    attempt("dataloader", dataloader)
    attempt("synchronize", synchronize)
    attempt("compile", compile_calls)
    attempt("processes", processes)
    attempt("threads", threads)
    if hasattr(os, "register_at_fork"):
        attempt("forks", forks)
    return status


def leave_forked_child(torch: Any, rec: Recorder) -> None:
    """In a forked child (a DataLoader worker, a fork Pool): record nothing, and take the instruments out so
    the child runs as fast as without gpuassist (the dispatch mode would add a Python call to each of its
    operators and make the loader look slower than it is) and is terminated as quietly (no faulthandler
    stack dump on SIGTERM when the parent stops its workers)."""
    rec.foreign = True
    mode = rec.mode
    with contextlib.suppress(Exception):
        from torch.utils._python_dispatch import _get_current_dispatch_mode, _pop_mode

        if mode is not None and _get_current_dispatch_mode() is mode:
            _pop_mode()
    with contextlib.suppress(Exception):
        import faulthandler
        import signal

        faulthandler.unregister(signal.SIGTERM)


def calibrate(torch: Any, mode_class: Any, rec: Recorder, n: int = 2000) -> float:
    """Seconds the dispatch mode adds to one small operator: step times are corrected by it."""
    a = torch.ones(8)

    def loop() -> float:
        started = time.perf_counter()
        for _ in range(n):
            torch.add(a, a)
        return time.perf_counter() - started

    base = min(loop() for _ in range(3))
    saved = (dict(rec.ops), dict(rec.dev_ops))
    with mode_class():
        instrumented = min(loop() for _ in range(3))
    rec.ops.clear()
    rec.ops.update(saved[0])
    rec.dev_ops.clear()
    rec.dev_ops.update(saved[1])
    return max(0.0, (instrumented - base) / n)


# ---- the run ---------------------------------------------------------------------------------------------

class Audit:
    """One run: set-up, the script under the instruments, the watchdog, and exactly one final report."""

    def __init__(self, channel: Any, args: Any) -> None:
        self.ch = channel
        self.args = args
        self.torch: Any = None
        self.rec: Recorder | None = None
        self.mode_class: Any = None
        self.per_op = 0.0
        self.finish_lock = threading.Lock()
        self.finished = False
        self.main_ident = threading.get_ident()

    def fact(self, key: str, value: Any) -> None:
        self.ch.send({"event": "fact", "key": key, "value": value})

    def stage(self, name: str, status: str, **extra: Any) -> None:
        event = {"event": "stage", "stage": name, "status": status, "t": self.ch.t()}
        event.update(extra)
        self.ch.send(event)

    # -- set-up ---------------------------------------------------------------------------------------
    def setup(self, target: str, module: str | None) -> bool:
        try:
            import torch
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
            self.fact("run.torch", {"import_error": {"type": type(exc).__name__, "message": str(exc)[:1000],
                                                     "traceback": "".join(lines)[-3000:]}})
            return False
        self.torch = torch
        self.fact("run.torch", {"version": str(torch.__version__), "file": getattr(torch, "__file__", None),
                                "cuda_build": getattr(torch.version, "cuda", None),
                                "hip_build": getattr(torch.version, "hip", None)})
        self.fact("run.accelerators", accelerators(torch))
        script_root = os.getcwd() if module else os.path.dirname(os.path.abspath(target))
        torch_root = os.path.dirname(os.path.abspath(torch.__file__))
        here = os.path.dirname(os.path.abspath(__file__))
        import sysconfig

        stdlib = sysconfig.get_paths().get("stdlib", "")
        sites = Sites([] if module else [target], script_root, [torch_root, here, stdlib])
        rec = Recorder(torch, sites, self.args.steps, self.args.seconds)
        self.rec = rec
        status = install_hooks(torch, rec)
        try:
            self.mode_class = make_mode(torch, rec)
            status["dispatch_mode"] = "ok"
            self.per_op = calibrate(torch, self.mode_class, rec)
        except Exception as exc:
            status["dispatch_mode"] = error_text(exc)[:300]
        self.fact("run.instrumentation", {"installed": status, "per_op_seconds": round(self.per_op, 9),
                                          "python": sys.executable, "pid": os.getpid()})
        return True

    # -- the script -----------------------------------------------------------------------------------
    def run_script(self, target: str, module: str | None, script_args: list[str]) -> None:
        import runpy

        rec = self.rec
        assert rec is not None
        sys.argv = [target if module is None else module, *script_args]
        here = os.path.dirname(os.path.abspath(__file__))
        if sys.path and os.path.abspath(sys.path[0] or os.curdir) == here:  # not with -P / -I: keep them so
            sys.path[0] = os.getcwd() if module else os.path.dirname(os.path.abspath(target))
        watchdog = threading.Thread(target=self.watch, name="gpuassist-audit-watchdog", daemon=True)
        rec.t0 = rec.last_activity = time.perf_counter()
        self.progress(0.0)  # the bar appears at once; the watchdog updates it, finish() completes it
        watchdog.start()
        mode = self.mode_class() if self.mode_class is not None else contextlib.nullcontext()
        os._exit = self.exit_now
        outcome: dict[str, Any] = {"reason": "finished"}
        exception = None
        try:
            with self.instrumented(mode):
                if module is None:  # an absolute path, as __main__.__file__ is for `python script.py` (3.9+)
                    runpy.run_path(os.path.abspath(target), run_name="__main__")
                else:
                    runpy.run_module(module, run_name="__main__", alter_sys=True)
            if rec.stop_raises:  # the stop ended a thread that trained; the script then ran to its end
                outcome = {"reason": rec.stop_reason}
        except StopRun:
            outcome = {"reason": rec.stop_reason or "seconds"}
        except SystemExit as exc:
            code = exc.code
            outcome = {"reason": "exit", "exit_code": code if isinstance(code, (int, type(None))) else str(code)}
            user = rec.sites.user_frames(exc.__traceback__)
            if user:
                outcome["site"] = source_line(user[-1][:2])
        except KeyboardInterrupt:
            outcome = {"reason": "interrupted"}
        except BaseException as exc:
            outcome = {"reason": "error"}
            exception = describe_exception(exc, rec.sites)
        self.finish(outcome, exception)

    def exit_now(self, status: int) -> NoReturn:
        """The script's os._exit(): the final summary first (in the script's process, not in a forked child)."""
        rec = self.rec
        if rec is not None and os.getpid() == rec.pid:
            site = source_line(rec.sites.locate(sys._getframe(1))[0])
            self.finish({"reason": "exit", "exit_code": status, "site": site, "function": "os._exit"}, None)
        EXIT(status)

    @contextlib.contextmanager
    def instrumented(self, mode: Any) -> Any:
        """The dispatch mode around the script. A child the script forked with os.fork() that returns through
        here has no mode left to leave (:func:`leave_forked_child` took it out)."""
        rec = self.rec
        assert rec is not None
        mode.__enter__()
        rec.mode = mode
        try:
            yield
        finally:
            if os.getpid() == rec.pid:
                mode.__exit__(None, None, None)

    def watch(self) -> None:
        """Progress, partial summaries, the time bound, and the last resort when the script will not stop."""
        rec = self.rec
        assert rec is not None
        parent = os.getppid()
        next_progress = next_snapshot = 0.0
        ops_seen = 0
        while not self.finished:
            time.sleep(0.1)
            if self.finished or os.getpid() != rec.pid:
                return
            if os.name != "nt" and os.getppid() != parent:
                leave_orphaned()
            ops_now = sum(dict(rec.dev_ops).values()) + sum(dict(rec.data_ops).values())
            if ops_now != ops_seen:  # operators ran since the last look: the script is doing something
                ops_seen = ops_now
                rec.last_activity = time.perf_counter()
            now = rec.elapsed()
            if rec.seconds_limit is not None and now >= rec.seconds_limit:
                rec.request_stop("seconds")
            with self.finish_lock:  # nothing partial may follow the final summary
                if self.finished:
                    return
                if now >= next_progress:
                    next_progress = now + PROGRESS_EVERY
                    self.progress(now)
                if now >= next_snapshot:
                    next_snapshot = now + SNAPSHOT_EVERY
                    with contextlib.suppress(Exception):
                        self.send_summary(final=False)
            asked = rec.stop_requested_at
            if asked is None:
                continue
            if time.perf_counter() - asked >= self.args.grace:
                stack = thread_stack(self.main_ident, rec.sites)
                self.finish({"reason": rec.stop_reason, "forced": True, "stuck_at": stack}, None)
                return

    def progress(self, seconds: float) -> None:
        rec = self.rec
        assert rec is not None
        if rec.steps_limit is not None:
            done, total = rec.steps, rec.steps_limit
        else:
            done, total = int(seconds), int(rec.seconds_limit or 0)
        kind = {"optimizer": "steps", "forward": "forward passes"}.get(rec.step_kind or "", "steps")
        self.ch.send({"event": "progress", "stage": "script", "done": min(done, total) if total else done,
                      "total": total, "steps": rec.steps, "seconds": round(seconds, 3),
                      "message": f"{rec.steps} {kind}, {seconds:.0f} s", "t": self.ch.t()})

    def send_summary(self, *, final: bool) -> None:
        rec = self.rec
        assert rec is not None
        for key, value in rec.summary(self.per_op).items():
            if key == "run.snapshot":
                value["final"] = final
            self.fact(key, value)

    def finish(self, outcome: dict[str, Any], exception: dict[str, Any] | None) -> None:
        """Exactly once, from the main thread or the watchdog: the summary, then leave at once (the run was
        bounded on purpose; the script's atexit handlers and DataLoader workers are not waited for)."""
        rec = self.rec
        assert rec is not None
        if os.getpid() != rec.pid:
            return  # a forked child that ran off the end of the script: not ours to report
        with self.finish_lock:
            if self.finished:
                return
            self.finished = True
        try:
            outcome["seconds"] = round(rec.elapsed(), 4)
            outcome["steps"] = rec.steps
            outcome["stop_raised"] = rec.stop_raises
            outcome["child_processes"] = rec.processes_alive()
            if rec.stop_requested_at is not None:
                outcome["requested_at"] = round(rec.stop_requested_at - rec.t0, 4)
            self.progress(outcome["seconds"])
            outcome.setdefault("forced", False)
            self.send_summary(final=True)
            self.fact("run.stop", outcome)
            self.fact("run.exception", exception)
            self.fact("run.devices", device_details(self.torch))
            self.stage("script", "end")
        except BaseException as exc:
            self.stage("script", "failed", error=error_text(exc)[:500],
                       traceback="".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-3000:])
        self.ch.send({"event": "done", "t": self.ch.t()})
        for stream in (sys.stdout, sys.stderr):  # what the script printed is still in Python's buffers
            with contextlib.suppress(Exception):
                stream.flush()
        EXIT(0)


def leave_orphaned() -> NoReturn:
    """gpuassist is gone (killed, or its terminal closed): nobody is listening and nobody will end the process
    group, so end it here, with the processes the script started (a worker looping forever would outlive us)."""
    import signal

    with contextlib.suppress(OSError):
        if os.getpgrp() == os.getpid():  # the runner made this process a group leader: the group is the run's
            os.killpg(os.getpid(), signal.SIGKILL)
    EXIT(1)


def accelerators(torch: Any) -> dict[str, Any]:
    """What the script could have used. No CUDA context is created here (device names come at the end,
    only if the script initialised CUDA itself), so forked DataLoader workers behave as without gpuassist."""
    out: dict[str, Any] = {"cuda_available": False, "cuda_device_count": 0, "mps_available": False,
                           "xpu_available": False, "xpu_device_count": 0}
    with contextlib.suppress(Exception):
        out["cuda_available"] = bool(torch.cuda.is_available())
        out["cuda_device_count"] = int(torch.cuda.device_count()) if out["cuda_available"] else 0
    with contextlib.suppress(Exception):
        out["mps_available"] = bool(torch.backends.mps.is_available())
    with contextlib.suppress(Exception):
        xpu = getattr(torch, "xpu", None)
        if xpu is not None and xpu.is_available():
            out["xpu_available"] = True
            out["xpu_device_count"] = int(xpu.device_count())
    out["devices"] = ([f"cuda:{i}" for i in range(out["cuda_device_count"])] + (["mps"] if out["mps_available"] else [])
                      + [f"xpu:{i}" for i in range(out["xpu_device_count"])])
    return out


def device_details(torch: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    try:
        if not torch.cuda.is_initialized():
            return found
        for i in range(torch.cuda.device_count()):
            p = torch.cuda.get_device_properties(i)
            found.append({"device": f"cuda:{i}", "name": p.name, "capability": f"{p.major}.{p.minor}",
                          "total_memory": int(p.total_memory)})
    except Exception as exc:
        found.append({"error": error_text(exc)[:300]})
    return found


def describe_exception(exc: BaseException, sites: Sites) -> dict[str, Any]:
    """The script's own error: where in the user's code, where it was raised, and the text."""
    tb = traceback.extract_tb(exc.__traceback__)
    user = sites.user_frames(exc.__traceback__)
    raised = tb[-1] if tb else None
    if isinstance(exc, SyntaxError) and exc.filename and sites.kind(exc.filename) == USER:
        user.append((exc.filename, exc.lineno or 0, "<module>"))  # compiling the script: no frame of its own
    lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
    return {
        "type": type(exc).__name__,
        "message": str(exc)[:2000],
        "site": source_line(user[-1][:2]) if user else None,
        "user_frames": [dict(source_line((f, n)) or {}, function=fn) for f, n, fn in user[-6:]],
        "raised_in": None if raised is None else {"file": raised.filename, "line": raised.lineno,
                                                 "function": raised.name},
        "traceback": "".join(lines)[-4000:],
    }


def thread_stack(ident: int, sites: Sites) -> list[dict[str, Any]]:
    """Where thread ``ident`` is now: its user frames (innermost last), else its innermost frames."""
    frame = sys._current_frames().get(ident)
    frames = []
    while frame is not None:
        frames.append((frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name))
        frame = frame.f_back
    frames.reverse()
    user = [f for f in frames if sites.kind(f[0]) == USER]
    chosen = user[-6:] if user else frames[-4:]
    return [dict(source_line((f, n)) or {}, function=fn) for f, n, fn in chosen]


# ---- command line ----------------------------------------------------------------------------------------

def parse_args(argv: list[str]) -> tuple[Any, list[str]]:
    import argparse

    if "--" not in argv:
        raise SystemExit("audit_script.py: missing '--' before the script")
    cut = argv.index("--")
    parser = argparse.ArgumentParser(prog="audit_script.py")
    parser.add_argument("--nonce", default="")
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--steps", type=int, default=None)
    parser.add_argument("--grace", type=float, default=STOP_GRACE, help="seconds to wait for the script to stop")
    parser.add_argument("--limit", action="append", default=[], metavar="STAGE=SECONDS")
    return parser.parse_args(argv[:cut]), argv[cut + 1:]


def main(argv: list[str] | None = None) -> None:
    args, command = parse_args(sys.argv[1:] if argv is None else argv)
    channel = Channel()
    guard_lifetime(with_group=True)  # the user's script starts processes: they go with the group
    dump_stacks_on_sigterm()
    limits = parse_limits(args.limit, DEFAULT_LIMITS)
    module = None
    if command[:1] == ["-m"] and len(command) >= 2:
        module, target, script_args = command[1], command[1], command[2:]
    elif command:
        target, script_args = command[0], command[1:]
    else:
        target, script_args = "", []
    audit = Audit(channel, args)
    channel.send({"event": "hello", "protocol": PROTOCOL, "nonce": args.nonce, "pid": os.getpid(),
                  "stages": list(STAGES), "t": channel.t()})
    audit.stage("setup", "start", limit=limits["setup"])
    ok = False
    try:
        ok = audit.setup(target, module)
        audit.stage("setup", "end" if ok else "failed", **({} if ok else {"error": "import torch failed"}))
    except Exception as exc:
        audit.stage("setup", "failed", error=error_text(exc)[:500],
                    traceback="".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-3000:])
    if not ok:
        audit.stage("script", "skipped", reason="the audit could not be set up")
        channel.send({"event": "done", "t": channel.t()})
        EXIT(0)
    audit.stage("script", "start", limit=limits["script"])
    audit.run_script(target, module, script_args)  # ends the process


if __name__ == "__main__":
    main()
