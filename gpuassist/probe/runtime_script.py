"""gpuassist runtime tests: measurements that run inside the interpreter being diagnosed (docs/architecture.md §1, §2).

Run as ``<python> -X faulthandler runtime_script.py --test placement|sweep|bench [--device D[,D]]
[--size default|small|tiny] [--sizes JSON] [--mode adaptive|grid|both] [--limit STAGE=SECONDS]
[--nonce TOKEN]``. Standard library + torch only, Python 3.8+; it never imports gpuassist (the target
interpreter does not have it), and gpuassist's own process never imports torch: all measuring happens
here, in a subprocess that can crash, hang or be cancelled without taking the app with it.

Protocol: the probe's JSON lines (see ``probe_script.py``: hello / stage / fact / done, on a private
duplicate of stdout) plus progress lines for long loops::

    {"event": "progress", "stage": NAME, "done": I, "total": N, "message": TEXT, "t": T}

Each test is a list of stages; each stage is a plain function ``stage_x(ctx, state)`` (Orange3-style:
``state.progress(i, n, msg)`` reports, ``state.should_stop()`` is checked wherever it loops and ends the
loop when the parent process is gone or the stage's own budget is spent). The host kills the whole
process group on a timeout or cancel, DataLoader workers included.

Tests (fact keys: docs/facts.md, "Runtime facts"):

- ``placement``: what torch offers and where tensors land; results on each device vs the CPU; the
  device-mismatch error reproduced on purpose; H2D/D2H bandwidth (pageable and pinned) over a size
  sweep; cost of moving every batch vs keeping it resident, and what non_blocking copies from pinned
  memory save. Without an accelerator the copy rows are skipped with a reason (a CPU tensor is already
  where a CPU model is); host memcpy bandwidth is still measured as the reference.
- ``sweep``: a synthetic dataset with a fixed amount of CPU work per sample (a stand-in for decoding and
  augmentation) feeds a model step on the device. Adaptive search over num_workers x pin_memory x
  persistent_workers x prefetch_factor (``--mode grid`` measures every combination, ``both`` does the
  grid and then the adaptive search so their cost and result can be compared in one process).
- ``bench``: a fixed CIFAR-sized CNN training step (forward, backward, SGD step) on the CPU and each
  accelerator: images/s with warm-up and device synchronisation at block boundaries, a batch-size
  scaling curve, AMP / channels_last / cudnn.benchmark / sync-every-step variants on accelerators, and a
  short torch.profiler summary naming operators that ran on the CPU during the accelerator run.
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import sys
import time
import traceback
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING or __package__:  # imported as part of gpuassist (host side, tests)
    from .channel import Channel, NullChannel, dump_stacks_on_sigterm, guard_lifetime, parse_limits, sync
else:  # run as a script in the target interpreter: channel.py next to this file, loaded by its path
    import runpy as _runpy

    _channel = _runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "channel.py"))
    guard_lifetime = _channel["guard_lifetime"]
    Channel, NullChannel = _channel["Channel"], _channel["NullChannel"]
    dump_stacks_on_sigterm, parse_limits = _channel["dump_stacks_on_sigterm"], _channel["parse_limits"]
    sync = _channel["sync"]

PROTOCOL = 1

TESTS: dict[str, tuple[str, ...]] = {
    "placement": ("import_torch", "devices", "default_device", "correctness", "mismatch", "bandwidth", "transfer"),
    "sweep": ("import_torch", "setup", "search"),
    "bench": ("import_torch", "cpu", "scaling", "accelerators", "profile"),
}

# Per-stage limits (seconds) for the default sizes; the host may pass its own with --limit.
DEFAULT_LIMITS: dict[str, float] = {
    "import_torch": 90.0, "devices": 60.0, "default_device": 30.0, "correctness": 90.0, "mismatch": 30.0,
    "bandwidth": 180.0, "transfer": 120.0, "setup": 90.0, "search": 900.0, "cpu": 240.0, "scaling": 400.0,
    "accelerators": 400.0, "profile": 120.0,
}

# The fact keys each stage delivers; the host marks those of a stage that did not finish NotCollected.
STAGE_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    "placement": {
        "import_torch": ("placement.torch", "placement.import_error"),
        "devices": ("placement.cuda_available", "placement.device_count", "placement.current_device",
                    "placement.devices", "placement.tested_devices"),
        "default_device": ("placement.default_device",),
        "correctness": ("placement.checks",),
        "mismatch": ("placement.mismatch",),
        "bandwidth": ("bandwidth.rows", "bandwidth.peak", "bandwidth.host_memcpy_gbps", "bandwidth.skipped"),
        "transfer": ("placement.transfer",),
    },
    "sweep": {
        "import_torch": ("sweep.torch", "sweep.import_error"),
        "setup": ("sweep.config", "sweep.compute_seconds_per_batch", "sweep.load_seconds_per_batch"),
        "search": ("sweep.trials", "sweep.search", "sweep.default", "sweep.best", "sweep.speedup_vs_default",
                   "sweep.bound", "sweep.worker_startup", "sweep.dataloader_line"),
    },
    "bench": {
        "import_torch": ("bench.torch", "bench.import_error"),
        "cpu": ("bench.config", "bench.results"),
        "scaling": ("bench.scaling",),
        "accelerators": ("bench.variants", "bench.settings", "bench.speedup"),
        "profile": ("bench.profile",),
    },
}

# Sizes: "default" is what a user runs; "small" for a quick look; "tiny" keeps the test suite fast.
SIZES: dict[str, dict[str, dict[str, Any]]] = {
    "placement": {
        "default": {"copy_bytes": [1 << 16, 1 << 20, 1 << 24, 1 << 26], "copy_repeats": 5,
                    "batch_shape": [128, 3, 64, 64], "transfer_steps": 20, "tolerance": 1e-3},
        "small": {"copy_bytes": [1 << 16, 1 << 20, 1 << 24], "copy_repeats": 3,
                  "batch_shape": [64, 3, 64, 64], "transfer_steps": 10, "tolerance": 1e-3},
        "tiny": {"copy_bytes": [1 << 12, 1 << 16], "copy_repeats": 2,
                 "batch_shape": [8, 3, 16, 16], "transfer_steps": 3, "tolerance": 1e-3},
    },
    "sweep": {
        "default": {"samples": 1024, "batch_size": 32, "sample_shape": [3, 32, 32], "cost_us": 250.0,
                    "model_width": 128, "epochs": 3, "max_workers": None, "prefetch": [2, 4]},
        "small": {"samples": 512, "batch_size": 32, "sample_shape": [3, 32, 32], "cost_us": 250.0,
                  "model_width": 128, "epochs": 2, "max_workers": None, "prefetch": [2, 4]},
        "tiny": {"samples": 48, "batch_size": 8, "sample_shape": [3, 8, 8], "cost_us": 50.0,
                 "model_width": 16, "epochs": 2, "max_workers": 2, "prefetch": [2]},
    },
    "bench": {
        "default": {"batch_size": 64, "warmup": 3, "min_seconds": 1.5, "min_blocks": 5,
                    "scaling": [8, 32, 128, 512], "cpu_scaling": [8, 32, 128], "profile_steps": 3},
        "small": {"batch_size": 32, "warmup": 2, "min_seconds": 0.6, "min_blocks": 4,
                  "scaling": [8, 64, 256], "cpu_scaling": [8, 32], "profile_steps": 2},
        "tiny": {"batch_size": 4, "warmup": 1, "min_seconds": 0.02, "min_blocks": 2,
                 "scaling": [2, 4], "cpu_scaling": [2, 4], "profile_steps": 1},
    },
}

MISMATCH_FIX = (
    "Put the model and every tensor it sees on one device:\n"
    "    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
    "    model = model.to(device)\n"
    "    for inputs, targets in loader:\n"
    "        inputs, targets = inputs.to(device, non_blocking=True), targets.to(device, non_blocking=True)\n"
    "Create sub-modules in __init__ (not in forward()) and new tensors with device=x.device."
)


def not_collected(reason: str) -> dict[str, str]:
    return {"$not_collected": reason}


def error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


class Stopped(Exception):
    """Raised inside a loop when ``State.should_stop()`` says so."""


class State:
    """What a stage function gets (Orange3's TaskState): progress, facts, and the stop check."""

    def __init__(self, channel: Channel, stage: str, budget: float | None = None) -> None:
        self.ch = channel
        self.stage = stage
        self.ppid = os.getppid()
        self.deadline = time.perf_counter() + budget if budget else None
        self.last_progress = 0.0

    def fact(self, key: str, value: Any) -> None:
        self.ch.send({"event": "fact", "key": key, "value": value})

    def progress(self, done: int, total: int, message: str = "") -> None:
        now = time.perf_counter()
        if done < total and now - self.last_progress < 0.1:
            return  # at most ten lines a second; the last one always goes out
        self.last_progress = now
        self.ch.send({"event": "progress", "stage": self.stage, "done": done, "total": total,
                      "message": message, "t": self.ch.t()})

    def should_stop(self) -> bool:
        """True when nobody is listening any more (parent gone) or this stage's budget is spent."""
        if os.name != "nt" and os.getppid() != self.ppid:
            return True
        return self.deadline is not None and time.perf_counter() > self.deadline

    def check(self) -> None:
        if self.should_stop():
            raise Stopped("stopped: the host went away or the stage ran out of time")


class Context:
    """What the stages of one test share: torch, the devices, the sizes, earlier results."""

    def __init__(self, test: str, sizes: dict[str, Any], devices: list[str] | None, mode: str = "adaptive"):
        self.test = test
        self.sizes = sizes
        self.requested_devices = devices
        self.mode = mode
        self.torch: Any = None
        self.accelerators: list[str] = []  # usable accelerator devices (cuda:N, mps, xpu:N), filtered
        self.devices: list[str] = []  # what this test runs on: accelerators, then cpu
        self.results: dict[str, Any] = {}


# ---- device helpers ----------------------------------------------------------------------------------


def device_type(device: str) -> str:
    return device.split(":", 1)[0]


def find_accelerators(torch: Any) -> list[str]:
    found: list[str] = []
    with contextlib.suppress(Exception):
        if torch.cuda.is_available():
            found += [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    with contextlib.suppress(Exception):
        if torch.backends.mps.is_available():
            found.append("mps")
    with contextlib.suppress(Exception):
        xpu = getattr(torch, "xpu", None)
        if xpu is not None and xpu.is_available():
            found += [f"xpu:{i}" for i in range(xpu.device_count())]
    return found


def select_devices(ctx: Context) -> None:
    accel = find_accelerators(ctx.torch)
    wanted = ctx.requested_devices
    if wanted:
        norm = [w if ":" in w or w in ("cpu", "mps") else f"{w}:0" for w in wanted]
        ctx.accelerators = [d for d in accel if d in norm]
    else:
        ctx.accelerators = accel
    ctx.devices = [*ctx.accelerators, "cpu"]


def max_abs_err(out: Any, ref: Any) -> float:
    return float((out.detach().to("cpu").float() - ref.detach().float()).abs().max().item())


# ---- placement -----------------------------------------------------------------------------------------

def stage_devices(ctx: Context, state: State) -> None:
    torch = ctx.torch
    try:
        available = bool(torch.cuda.is_available())
    except Exception as exc:
        available = False
        state.fact("placement.cuda_available", not_collected(error_text(exc)))
    else:
        state.fact("placement.cuda_available", available)
    count = 0
    with contextlib.suppress(Exception):
        count = int(torch.cuda.device_count()) if available else 0
    state.fact("placement.device_count", count)
    current = None
    with contextlib.suppress(Exception):
        current = f"cuda:{torch.cuda.current_device()}" if available else None
    state.fact("placement.current_device", current)
    select_devices(ctx)
    described: list[dict[str, Any]] = []
    for dev in find_accelerators(torch):
        entry: dict[str, Any] = {"device": dev, "kind": device_type(dev), "name": None, "capability": None,
                                 "total_memory": None, "pci_bus_id": None}
        try:
            if dev.startswith("cuda"):
                p = torch.cuda.get_device_properties(int(dev.split(":")[1]))
                entry.update(name=p.name, capability=f"{p.major}.{p.minor}", total_memory=int(p.total_memory))
                bus = getattr(p, "pci_bus_id", None)
                if bus is not None:
                    domain, slot = int(getattr(p, "pci_domain_id", 0)), int(getattr(p, "pci_device_id", 0))
                    entry["pci_bus_id"] = f"{domain:04x}:{int(bus):02x}:{slot:02x}.0"
            elif dev == "mps":
                entry["name"] = "Apple MPS"
            elif dev.startswith("xpu"):
                p = torch.xpu.get_device_properties(int(dev.split(":")[1]))
                entry.update(name=getattr(p, "name", None), total_memory=getattr(p, "total_memory", None))
        except Exception as exc:
            entry["error"] = error_text(exc)[:300]
        described.append(entry)
    described.append({"device": "cpu", "kind": "cpu", "name": "CPU", "capability": None,
                      "total_memory": None, "pci_bus_id": None})
    state.fact("placement.devices", described)
    state.fact("placement.tested_devices", ctx.devices)


def stage_default_device(ctx: Context, state: State) -> None:
    torch = ctx.torch
    t = torch.ones(2)
    model = torch.nn.Linear(2, 2)
    default = None
    getter = getattr(torch, "get_default_device", None)
    if getter is not None:
        with contextlib.suppress(Exception):
            default = str(getter())
    state.fact("placement.default_device", {
        "tensor_device": str(t.device),
        "model_param_device": str(next(model.parameters()).device),
        "default_device": default,
        "accelerators": ctx.accelerators,
    })


def small_model(torch: Any) -> Any:
    nn = torch.nn
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(4), nn.Flatten(),
                         nn.Linear(128, 10))


def check_device(torch: Any, device: str, tolerance: float) -> dict[str, Any]:
    """Tensors and a small model on ``device``, compared with the CPU result."""
    entry: dict[str, Any] = {"device": device}
    gen = torch.Generator().manual_seed(0)
    a = torch.randn(128, 128, generator=gen)
    b = torch.randn(128, 128, generator=gen)
    x = torch.randn(4, 3, 16, 16, generator=gen)
    torch.manual_seed(0)
    model = small_model(torch).eval()
    started = time.perf_counter()
    try:
        with torch.no_grad():
            ref = a @ b + a.sum()
            out = a.to(device) @ b.to(device) + a.to(device).sum()
            sync(torch, device)
            err = max_abs_err(out, ref)
            scale = max(1.0, float(ref.abs().max().item()))
            entry["tensor"] = {"ok": err <= tolerance * scale * 10, "max_abs_err": err,
                               "device": str(out.device)}
            ref_m = model(x)
            on_dev = small_model(torch).eval()
            on_dev.load_state_dict(model.state_dict())
            on_dev = on_dev.to(device)
            out_m = on_dev(x.to(device))
            sync(torch, device)
            err_m = max_abs_err(out_m, ref_m)
            entry["model"] = {"ok": err_m <= tolerance * max(1.0, float(ref_m.abs().max().item())) * 10,
                              "max_abs_err": err_m, "device": str(out_m.device)}
            entry["param_device"] = str(next(on_dev.parameters()).device)
    except Exception as exc:
        entry["error"] = error_text(exc)[:500]
    entry["seconds"] = round(time.perf_counter() - started, 4)
    entry["ok"] = "error" not in entry and all(entry.get(k, {}).get("ok") for k in ("tensor", "model"))
    return entry


def stage_correctness(ctx: Context, state: State) -> None:
    out = []
    for i, dev in enumerate(ctx.devices):
        state.progress(i, len(ctx.devices), f"checking {dev} against the CPU")
        state.check()
        out.append(check_device(ctx.torch, dev, float(ctx.sizes.get("tolerance", 1e-3))))
    state.progress(len(ctx.devices), len(ctx.devices), "done")
    state.fact("placement.checks", out)


def reproduce_mismatch(torch: Any, accelerator: str | None) -> dict[str, Any]:
    """Run a model on one device with its input on the CPU, as the classic bug does, and keep the text.

    Without an accelerator the "meta" device stands in (same code path, same kind of error; the text
    differs from the CUDA one, which is given as ``typical_text``)."""
    other = accelerator or "meta"
    model = torch.nn.Linear(4, 2).to(other)
    x = torch.ones(1, 4)  # created without device=: on the CPU
    result: dict[str, Any] = {"devices": [other, "cpu"], "stand_in": accelerator is None,
                              "operation": f"model(x) with the model on {other} and x on cpu",
                              "reproduced": False, "error_type": None, "error_text": None,
                              "typical_text": "RuntimeError: Expected all tensors to be on the same device, but "
                                              "found at least two devices, cuda:0 and cpu!",
                              "fix": MISMATCH_FIX}
    try:
        model(x)
    except Exception as exc:
        result.update(reproduced=True, error_type=type(exc).__name__, error_text=str(exc).splitlines()[0][:500])
    try:
        out = model(x.to(other))
        result["after_fix_device"] = str(out.device)
    except Exception as exc:
        result["after_fix_error"] = error_text(exc)[:300]
    return result


def stage_mismatch(ctx: Context, state: State) -> None:
    state.fact("placement.mismatch", reproduce_mismatch(ctx.torch, ctx.accelerators[0] if ctx.accelerators else None))


def measure_copy(torch: Any, src_device: str, dst_device: str, nbytes: int, *, pinned: bool, repeats: int,
                 state: State | None = None) -> dict[str, Any]:
    """Copy ``nbytes`` from one device to another ``repeats`` times (after one warm-up copy) and return
    the best and median bandwidth in GB/s (1e9 bytes/s). Host buffers are pinned when ``pinned``."""
    row: dict[str, Any] = {"src": src_device, "dst": dst_device, "bytes": nbytes,
                           "memory": "pinned" if pinned else "pageable"}
    try:
        src = torch.empty(nbytes, dtype=torch.uint8, device=src_device)
        dst = torch.empty(nbytes, dtype=torch.uint8, device=dst_device)
        src.fill_(1)
        if pinned:
            src = src.pin_memory() if src_device == "cpu" else src
            dst = dst.pin_memory() if dst_device == "cpu" else dst
        accel = dst_device if dst_device != "cpu" else src_device
        times = []
        for i in range(repeats + 1):
            if state is not None:
                state.check()
            sync(torch, accel)
            t0 = time.perf_counter()
            dst.copy_(src, non_blocking=pinned)
            sync(torch, accel)
            if i:  # the first copy pays for lazy allocation and page faults
                times.append(time.perf_counter() - t0)
        times.sort()
        row["seconds_best"] = times[0]
        row["gbps"] = round(nbytes / times[0] / 1e9, 3)
        row["gbps_median"] = round(nbytes / times[len(times) // 2] / 1e9, 3)
    except Stopped:
        raise
    except Exception as exc:
        row["error"] = error_text(exc)[:300]
    return row


def stage_bandwidth(ctx: Context, state: State) -> None:
    torch = ctx.torch
    sizes = [int(s) for s in ctx.sizes["copy_bytes"]]
    repeats = int(ctx.sizes["copy_repeats"])
    host = measure_copy(torch, "cpu", "cpu", max(sizes), pinned=False, repeats=repeats, state=state)
    state.fact("bandwidth.host_memcpy_gbps", host.get("gbps"))
    rows: list[dict[str, Any]] = []
    plan = [(dev, direction, pinned, n) for dev in ctx.accelerators for direction in ("h2d", "d2h")
            for pinned in (False, True) for n in sizes]
    for i, (dev, direction, pinned, n) in enumerate(plan):
        state.progress(i, len(plan), f"{direction} {'pinned' if pinned else 'pageable'} {n >> 10} KiB on {dev}")
        src, dst = ("cpu", dev) if direction == "h2d" else (dev, "cpu")
        row = measure_copy(torch, src, dst, n, pinned=pinned and dev != "mps", repeats=repeats, state=state)
        row.update(device=dev, direction=direction)
        rows.append(row)
    state.progress(len(plan), len(plan), "done")
    peak: dict[str, dict[str, float | None]] = {}
    for dev in ctx.accelerators:
        entry: dict[str, float | None] = {}
        for direction in ("h2d", "d2h"):
            for memory in ("pageable", "pinned"):
                vals = [r["gbps"] for r in rows if r["device"] == dev and r["direction"] == direction
                        and r["memory"] == memory and r.get("gbps")]
                entry[f"{direction}_{memory}"] = max(vals) if vals else None
        peak[dev] = entry
    state.fact("bandwidth.rows", rows)
    state.fact("bandwidth.peak", peak)
    state.fact("bandwidth.skipped", None if ctx.accelerators else
               "no accelerator: there is no host-to-device link to measure (host memcpy measured instead)")


def transfer_cost(torch: Any, device: str, shape: list[int], steps: int, state: State | None = None
                  ) -> dict[str, Any]:
    """Seconds per step of a small forward pass when the batch stays on the device vs when it is copied
    every step from pageable memory, from pinned memory, and from pinned memory with non_blocking."""
    model = torch.nn.Sequential(torch.nn.Conv2d(shape[1], 16, 3, padding=1), torch.nn.ReLU(),
                                torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(16, 10))
    model = model.to(device).eval()
    host = torch.randn(*shape)
    pin_ok = device_type(device) == "cuda" or device_type(device) == "xpu"
    pinned = host.pin_memory() if pin_ok else host
    resident = host.to(device)
    variants: dict[str, Callable[[], Any]] = {
        "resident": lambda: resident,
        "pageable": lambda: host.to(device),
        "pinned": lambda: pinned.to(device),
        "pinned_non_blocking": lambda: pinned.to(device, non_blocking=True),
    }
    out: dict[str, Any] = {"device": device, "batch_shape": list(shape),
                           "batch_bytes": int(host.numel() * host.element_size()), "steps": steps,
                           "pinned_available": pin_ok}
    with torch.no_grad():
        for name, get in variants.items():
            if state is not None:
                state.check()
            for _ in range(2):
                model(get())
            sync(torch, device)
            t0 = time.perf_counter()
            for _ in range(steps):
                model(get())
            sync(torch, device)
            out[f"{name}_ms"] = round((time.perf_counter() - t0) / steps * 1e3, 4)
    res = out["resident_ms"]
    out["move_overhead_pct"] = round((out["pageable_ms"] / res - 1) * 100, 1) if res else None
    pin = out["pinned_ms"]
    out["non_blocking_saving_pct"] = round((1 - out["pinned_non_blocking_ms"] / pin) * 100, 1) if pin else None
    return out


def stage_transfer(ctx: Context, state: State) -> None:
    if not ctx.accelerators:
        state.fact("placement.transfer", not_collected(
            "no accelerator: a batch on the CPU is already where a CPU model is, nothing to move"))
        return
    out = []
    for i, dev in enumerate(ctx.accelerators):
        state.progress(i, len(ctx.accelerators), f"moving batches to {dev}")
        try:
            out.append(transfer_cost(ctx.torch, dev, list(ctx.sizes["batch_shape"]),
                                     int(ctx.sizes["transfer_steps"]), state))
        except Stopped:
            raise
        except Exception as exc:
            out.append({"device": dev, "error": error_text(exc)[:300]})
    state.progress(len(ctx.accelerators), len(ctx.accelerators), "done")
    state.fact("placement.transfer", out)


# ---- DataLoader sweep ----------------------------------------------------------------------------------

def burn(iterations: int) -> int:
    """Fixed CPU work that holds the GIL, like decoding: a spin-wait would not compete for cores."""
    acc = 0
    for i in range(iterations):
        acc = (acc * 31 + i) & 0xFFFFF
    return acc


def calibrate_burn(seconds: float = 0.05) -> float:
    """Iterations of :func:`burn` per microsecond on this machine (best of three)."""
    best = 0.0
    n = 20000
    for _ in range(3):
        t0 = time.perf_counter()
        burn(n)
        dt = time.perf_counter() - t0
        best = max(best, n / (dt * 1e6))
        n = max(n, int(n * seconds / max(dt, 1e-6)))
    return best


class SyntheticDataset:
    """``samples`` items of shape ``shape``; each ``__getitem__`` does ``work`` iterations of burn()."""

    def __init__(self, samples: int, shape: list[int], work: int) -> None:
        self.samples = samples
        self.shape = list(shape)
        self.work = work

    def __len__(self) -> int:
        return self.samples

    def __getitem__(self, index: int) -> Any:
        import torch

        burn(self.work)
        return torch.full(self.shape, float(index % 7) / 7.0), index % 10


class Trainer:
    """A small model step on the device that the loader has to feed."""

    def __init__(self, torch: Any, device: str, shape: list[int], width: int) -> None:
        nn = torch.nn
        features = 1
        for s in shape:
            features *= int(s)
        torch.manual_seed(0)
        self.torch = torch
        self.device = device
        self.model = nn.Sequential(nn.Flatten(), nn.Linear(features, width), nn.ReLU(), nn.Linear(width, width),
                                   nn.ReLU(), nn.Linear(width, 10)).to(device)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.01)

    def step(self, x: Any, y: Any) -> None:
        self.opt.zero_grad(set_to_none=True)
        loss = self.torch.nn.functional.cross_entropy(self.model(x), y)
        loss.backward()
        self.opt.step()


def loader_line(cfg: dict[str, Any], batch_size: int) -> str:
    parts = ["dataset", f"batch_size={batch_size}", "shuffle=True", f"num_workers={cfg['num_workers']}"]
    if cfg.get("pin_memory"):
        parts.append("pin_memory=True")
    if cfg["num_workers"] > 0:
        if cfg.get("persistent_workers"):
            parts.append("persistent_workers=True")
        if cfg.get("prefetch_factor") not in (None, 2):
            parts.append(f"prefetch_factor={cfg['prefetch_factor']}")
    return f"DataLoader({', '.join(parts)})"


def cfg_key(cfg: dict[str, Any]) -> tuple[Any, ...]:
    return (cfg["num_workers"], bool(cfg.get("pin_memory")), bool(cfg.get("persistent_workers")),
            cfg.get("prefetch_factor"))


def normal_cfg(workers: int, pin: bool, persistent: bool, prefetch: int | None) -> dict[str, Any]:
    if workers == 0:  # DataLoader rejects both options without workers
        persistent, prefetch = False, None
    return {"num_workers": workers, "pin_memory": pin, "persistent_workers": persistent,
            "prefetch_factor": prefetch}


class SweepBench:
    """One measurement harness shared by the grid and the adaptive search (same dataset, model, window)."""

    def __init__(self, torch: Any, device: str, sizes: dict[str, Any], work: int,
                 state: State | None = None) -> None:
        self.torch = torch
        self.device = device
        self.sizes = sizes
        self.batch = int(sizes["batch_size"])
        self.epochs = int(sizes["epochs"])
        self.dataset = SyntheticDataset(int(sizes["samples"]), list(sizes["sample_shape"]), work)
        self.trainer = Trainer(torch, device, list(sizes["sample_shape"]), int(sizes["model_width"]))
        self.state = state
        self.seconds = 0.0  # time spent measuring, including aborted trials
        self.trials: list[dict[str, Any]] = []

    def measure(self, cfg: dict[str, Any], abort_below: float | None = None) -> dict[str, Any]:
        """Run ``epochs`` epochs through the model; samples/s over the whole run, worker start-up included.

        ``abort_below``: after the first epoch, stop if the projected rate is below it (racing): a
        clearly worse setting need not be measured to the end."""
        torch = self.torch
        kw: dict[str, Any] = {"batch_size": self.batch, "shuffle": False, "drop_last": True,
                              "num_workers": cfg["num_workers"], "pin_memory": bool(cfg.get("pin_memory"))}
        if cfg["num_workers"] > 0:
            kw["persistent_workers"] = bool(cfg.get("persistent_workers"))
            kw["prefetch_factor"] = cfg.get("prefetch_factor") or 2
        non_blocking = bool(cfg.get("pin_memory")) and self.device != "cpu"
        started = time.perf_counter()
        result = dict(cfg)
        epoch_times: list[float] = []
        first_batch: list[float] = []
        batches = 0
        loader = torch.utils.data.DataLoader(self.dataset, **kw)
        try:
            for epoch in range(self.epochs):
                e0 = time.perf_counter()
                first = None
                for x, y in loader:
                    if first is None:
                        first = time.perf_counter() - e0
                    x = x.to(self.device, non_blocking=non_blocking)
                    y = y.to(self.device, non_blocking=non_blocking)
                    self.trainer.step(x, y)
                    batches += 1
                    if self.state is not None:
                        self.state.check()
                sync(torch, self.device)
                epoch_times.append(time.perf_counter() - e0)
                first_batch.append(first or 0.0)
                if epoch == 0 and abort_below is not None and self.epochs > 1:
                    steady = epoch_times[0] - (first or 0.0) if cfg.get("persistent_workers") else epoch_times[0]
                    projected = epoch_times[0] + steady * (self.epochs - 1)
                    rate = len(loader) * self.batch * self.epochs / projected
                    if rate < abort_below:
                        result["aborted"] = True
                        break
        finally:
            del loader  # shuts persistent workers down
        wall = time.perf_counter() - started
        self.seconds += wall
        n_batches = len(epoch_times) and batches
        per_epoch_batches = max(1, n_batches // max(1, len(epoch_times)))
        total = sum(epoch_times)
        if result.get("aborted"):
            e = epoch_times[0]
            steady = e - first_batch[0] if cfg.get("persistent_workers") else e
            total = e + steady * (self.epochs - 1)
        result["samples_per_s"] = round(per_epoch_batches * self.batch * self.epochs / total, 2) if total else 0.0
        result["first_batch_s"] = round(first_batch[0], 5) if first_batch else None
        steady_batch = (epoch_times[0] - first_batch[0]) / max(1, per_epoch_batches - 1) if epoch_times else 0.0
        result["startup_s"] = round(max(0.0, first_batch[0] - steady_batch), 5) if first_batch else None
        result["epoch_s"] = [round(e, 4) for e in epoch_times]
        result["seconds"] = round(wall, 4)
        self.trials.append(result)
        return result


def grid_configs(workers: list[int], pins: list[bool], prefetch: list[int]) -> list[dict[str, Any]]:
    seen: dict[tuple[Any, ...], dict[str, Any]] = {}
    for w in workers:
        for pin in pins:
            for persistent in (False, True):
                for pf in prefetch:
                    cfg = normal_cfg(w, pin, persistent, pf)
                    seen.setdefault(cfg_key(cfg), cfg)
    return list(seen.values())


def worker_candidates(max_workers: int) -> list[int]:
    out = [0, 1, 2, 3, 4]
    w = 6
    while w <= max_workers:
        out.append(w)
        w = w + 2 if w < 8 else w * 2
    return [x for x in out if x <= max(max_workers, 1)]


def run_grid(bench: SweepBench, configs: list[dict[str, Any]], state: State | None) -> list[dict[str, Any]]:
    out = []
    for i, cfg in enumerate(configs):
        if state is not None:
            state.progress(i, len(configs), f"grid {i + 1}/{len(configs)}: num_workers={cfg['num_workers']}")
        out.append(bench.measure(cfg))
    return out


def run_adaptive(bench: SweepBench, workers: list[int], pins: list[bool], prefetch: list[int],
                 compute_rate: float | None, state: State | None) -> list[dict[str, Any]]:
    """Coarse-to-fine search with reuse and racing.

    1. num_workers along 1, 0, 2, 4, 8 ... (doubling; pinned memory on when there is a device to pin
       for, except at 0 workers, which is DataLoader's default as users meet it; persistent workers on,
       prefetch 2) while each step keeps at least 95 % of the previous one's
       throughput. Measuring 1 before 0 lets the default (0 workers) be raced: a trial projected after
       its first epoch to fall below 80 % of the best so far is abandoned (60 % for more workers).
    2. The untested neighbours of the best num_workers that lie between tested points (e.g. 3 between
       2 and 4).
    3. At the best num_workers only: pin_memory off (accelerators), and a deeper prefetch when still
       loader-bound. persistent_workers stays on: it can only remove the measured per-epoch worker
       start-up (reported in ``sweep.worker_startup``), so measuring it off is spent time.
    Every measurement is cached by setting and reused.
    """
    cache: dict[tuple[Any, ...], dict[str, Any]] = {}
    plan_total = 6
    count = [0]

    def best() -> dict[str, Any]:
        done = [r for r in cache.values() if not r.get("aborted")]
        return max(done, key=lambda r: r["samples_per_s"])

    def trial(cfg: dict[str, Any], race: float = 0.8) -> dict[str, Any]:
        key = cfg_key(cfg)
        if key in cache:
            return cache[key]
        done = [r for r in cache.values() if not r.get("aborted")]
        floor = max(r["samples_per_s"] for r in done) * race if done else None
        if state is not None:
            state.progress(min(count[0], plan_total - 1), plan_total,
                           f"adaptive: num_workers={cfg['num_workers']}")
        count[0] += 1
        r = bench.measure(cfg, abort_below=floor)
        cache[key] = r
        return r

    pin0 = pins[-1]
    pf0 = prefetch[0]
    doubling = [w for w in workers if w >= 2 and (w & (w - 1)) == 0]
    previous: dict[str, Any] | None = None
    for w in [w for w in (1, 0) if w in workers] + doubling:
        # the default is raced hard; more workers only when clearly worse (noise on a busy machine). The
        # 0-worker trial is DataLoader's real default, pin_memory=False, so the speed-up over it is measured.
        r = trial(normal_cfg(w, pin0 and w > 0, True, pf0), race=0.8 if w == 0 else 0.6)
        if w == 0:
            continue
        if r.get("aborted") or (previous is not None and r["samples_per_s"] < 0.95 * previous["samples_per_s"]):
            break
        previous = r
    tested = sorted({r["num_workers"] for r in cache.values()})
    bw = best()["num_workers"]
    for nb in (bw - 1, bw + 1):
        if nb in workers and nb not in tested and tested[0] < nb < tested[-1]:
            trial(normal_cfg(nb, pin0, True, pf0), race=0.9)
    b = best()
    bw = b["num_workers"]
    if bw > 0:
        if len(pins) > 1:
            trial(normal_cfg(bw, not pin0, True, pf0), race=0.9)
            b = best()
        loader_bound = compute_rate is not None and b["samples_per_s"] < 0.9 * compute_rate
        if loader_bound and len(prefetch) > 1:
            trial(normal_cfg(bw, b["pin_memory"], True, prefetch[-1]), race=0.9)
    return list(cache.values())


def stage_setup(ctx: Context, state: State) -> None:
    torch = ctx.torch
    select_devices(ctx)
    device = ctx.devices[0]
    sizes = ctx.sizes
    per_us = calibrate_burn()
    work = max(1, int(float(sizes["cost_us"]) * per_us))
    import multiprocessing

    cpu = os.cpu_count() or 1
    max_workers = int(sizes.get("max_workers") or max(4, cpu))
    ctx.results["work"] = work
    ctx.results["device"] = device
    ctx.results["max_workers"] = max_workers
    shape = list(sizes["sample_shape"])
    batch = int(sizes["batch_size"])
    # compute alone: the model step with the batch already on the device
    trainer = Trainer(torch, device, shape, int(sizes["model_width"]))
    x = torch.rand(batch, *shape, device=device)
    y = torch.zeros(batch, dtype=torch.long, device=device)
    for _ in range(3):
        trainer.step(x, y)
    sync(torch, device)
    n = max(5, int(sizes["samples"]) // batch)
    t0 = time.perf_counter()
    for _ in range(n):
        trainer.step(x, y)
        state.check()
    sync(torch, device)
    compute = (time.perf_counter() - t0) / n
    # loading alone: the main process builds batches as num_workers=0 would
    ds = SyntheticDataset(batch * 4, shape, work)
    t0 = time.perf_counter()
    for i in range(len(ds)):
        ds[i]
    load = (time.perf_counter() - t0) / 4
    ctx.results["compute_rate"] = batch / compute if compute > 0 else None
    state.fact("sweep.config", {
        "device": device, "samples": int(sizes["samples"]), "batch_size": batch, "sample_shape": shape,
        "per_sample_cost_us": float(sizes["cost_us"]), "model_width": int(sizes["model_width"]),
        "epochs": int(sizes["epochs"]), "cpu_count": cpu, "max_workers": max_workers,
        "start_method": multiprocessing.get_start_method(allow_none=True) or
        ("fork" if sys.platform.startswith("linux") else "spawn"),
        "mode": ctx.mode, "torch_threads": torch.get_num_threads(),
    })
    state.fact("sweep.compute_seconds_per_batch", round(compute, 6))
    state.fact("sweep.load_seconds_per_batch", round(load, 6))


def summarise_sweep(trials: list[dict[str, Any]], batch: int, compute_rate: float | None) -> dict[str, Any]:
    complete = [t for t in trials if not t.get("aborted")]
    best = max(complete, key=lambda t: t["samples_per_s"])
    default = next((t for t in trials if t["num_workers"] == 0 and not t.get("pin_memory")), None)
    out: dict[str, Any] = {"best": best, "default": default}
    out["speedup"] = round(best["samples_per_s"] / default["samples_per_s"], 3) if default and \
        default["samples_per_s"] else None
    if compute_rate:
        out["bound"] = "compute" if best["samples_per_s"] >= 0.9 * compute_rate else "loader"
    else:
        out["bound"] = None
    startup: dict[int, float] = {}
    for t in trials:
        if t["num_workers"] > 0 and t.get("startup_s") is not None:
            startup[t["num_workers"]] = min(startup.get(t["num_workers"], 1e9), t["startup_s"])
    out["startup"] = [{"num_workers": w, "seconds": s} for w, s in sorted(startup.items())]
    out["line"] = loader_line(best, batch)
    return out


CONFIRM_ROUNDS = 3


def confirm_finalists(bench: Any, grid_best: dict[str, Any], adaptive_best: dict[str, Any],
                      rounds: int = CONFIRM_ROUNDS, state: State | None = None) -> dict[str, Any]:
    """Measure the two searches' chosen settings again, alternately, and compare their medians.

    Why: one trial's throughput varies by 10-20 % on a busy machine, and the grid's best is the maximum of
    many such trials (biased upward), so comparing the searches' own best trials measures luck as much as
    the settings. Used by ``--mode both`` (the benchmark); this time counts against neither search."""
    settings = {"grid": grid_best, "adaptive": adaptive_best}
    same = cfg_key(grid_best) == cfg_key(adaptive_best)
    rates: dict[str, list[float]] = {"grid": [], "adaptive": []}
    for r in range(rounds):
        for name in ("grid",) if same else ("grid", "adaptive"):
            if state is not None:
                state.progress(r, rounds, f"confirming the {name} search's setting")
            cfg = settings[name]
            measured = bench.measure(normal_cfg(int(cfg["num_workers"]), bool(cfg.get("pin_memory")),
                                                bool(cfg.get("persistent_workers")), cfg.get("prefetch_factor")))
            rates[name].append(float(measured["samples_per_s"]))
    if same:
        rates["adaptive"] = list(rates["grid"])
    grid_rate, adaptive_rate = (statistics.median(rates[n]) for n in ("grid", "adaptive"))
    return {"rounds": rounds, "same_setting": same, "grid_samples_per_s": round(grid_rate, 1),
            "adaptive_samples_per_s": round(adaptive_rate, 1),
            "adaptive_vs_grid_throughput": round(adaptive_rate / grid_rate, 4) if grid_rate else None}


def stage_search(ctx: Context, state: State) -> None:
    torch = ctx.torch
    sizes = ctx.sizes
    device = ctx.results["device"]
    pins = [False, True] if device != "cpu" and device != "mps" else [False]
    prefetch = [int(p) for p in sizes.get("prefetch") or [2]]
    workers = worker_candidates(int(ctx.results["max_workers"]))
    compute_rate = ctx.results.get("compute_rate")
    search: dict[str, Any] = {"grid_size": len(grid_configs(workers, pins, prefetch))}
    chosen: list[dict[str, Any]] = []
    if ctx.mode in ("grid", "both"):
        bench = SweepBench(torch, device, sizes, ctx.results["work"], state)
        grid = run_grid(bench, grid_configs(workers, pins, prefetch), state)
        g = summarise_sweep(grid, bench.batch, compute_rate)
        search["grid"] = {"trials": len(grid), "seconds": round(bench.seconds, 3),
                          "best_samples_per_s": g["best"]["samples_per_s"], "best": g["best"]}
        chosen = grid
    if ctx.mode in ("adaptive", "both"):
        bench = SweepBench(torch, device, sizes, ctx.results["work"], state)
        adaptive = run_adaptive(bench, workers, pins, prefetch, compute_rate, state)
        a = summarise_sweep(adaptive, bench.batch, compute_rate)
        search["adaptive"] = {"trials": len(adaptive), "seconds": round(bench.seconds, 3),
                              "aborted": sum(1 for t in adaptive if t.get("aborted")),
                              "best_samples_per_s": a["best"]["samples_per_s"], "best": a["best"]}
        chosen = adaptive
    if "grid" in search and "adaptive" in search:
        g_best = search["grid"]["best_samples_per_s"]
        search["adaptive_vs_grid_throughput"] = round(search["adaptive"]["best_samples_per_s"] / g_best, 4)
        search["adaptive_vs_grid_time"] = round(search["adaptive"]["seconds"] / search["grid"]["seconds"], 4)
        bench = SweepBench(torch, device, sizes, ctx.results["work"], state)
        search["confirm"] = confirm_finalists(bench, search["grid"]["best"], search["adaptive"]["best"], state=state)
    state.progress(1, 1, "done")
    summary = summarise_sweep(chosen, int(sizes["batch_size"]), compute_rate)
    search["mode"] = ctx.mode
    state.fact("sweep.trials", chosen)
    state.fact("sweep.search", search)
    state.fact("sweep.default", summary["default"])
    state.fact("sweep.best", summary["best"])
    state.fact("sweep.speedup_vs_default", summary["speedup"])
    state.fact("sweep.bound", summary["bound"])
    state.fact("sweep.worker_startup", summary["startup"])
    state.fact("sweep.dataloader_line", summary["line"])


# ---- CNN benchmark -------------------------------------------------------------------------------------

def cifar_cnn(torch: Any) -> Any:
    """The fixed benchmark network: 4 conv blocks (16-32-64-64 channels) + linear, for 3x32x32 inputs."""
    nn = torch.nn

    def block(cin: int, cout: int, pool: bool) -> list[Any]:
        layers = [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]
        return [*layers, nn.MaxPool2d(2)] if pool else layers

    return nn.Sequential(*block(3, 16, False), *block(16, 32, True), *block(32, 64, True), *block(64, 64, False),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10))


def make_train_step(torch: Any, device: str, batch: int, *, amp: bool = False, channels_last: bool = False,
                    sync_each_step: bool = False) -> Callable[[], None]:
    """One training step of :func:`cifar_cnn` on a fixed batch already on ``device`` (so the benchmark
    measures the device, not the input pipeline).

    Denormal floats are flushed to zero for this process: the first steps of a freshly initialised
    network produce denormals that make a CPU step ~15x slower until training moves past them, which
    would make the CPU figure depend on how many steps were measured rather than on the hardware."""
    with contextlib.suppress(Exception):
        torch.set_flush_denormal(True)
    torch.manual_seed(0)
    model = cifar_cnn(torch).to(device)
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(batch, 3, 32, 32, generator=gen).to(device)
    y = torch.randint(0, 10, (batch,), generator=gen).to(device)
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
        x = x.contiguous(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    kind = device_type(device)
    dtype = torch.float16 if kind in ("cuda", "mps") else torch.bfloat16
    scaler = None
    if amp and kind == "cuda":
        scaler = torch.amp.GradScaler("cuda") if hasattr(torch, "amp") and hasattr(torch.amp, "GradScaler") \
            else torch.cuda.amp.GradScaler()
    loss_fn = torch.nn.functional.cross_entropy

    def step() -> None:
        opt.zero_grad(set_to_none=True)
        if amp:
            with torch.autocast(kind, dtype=dtype):
                loss = loss_fn(model(x), y)
        else:
            loss = loss_fn(model(x), y)
        if scaler is not None:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        else:
            loss.backward()
            opt.step()
        if sync_each_step:
            loss.item()  # what a per-step `print(loss.item())` does

    return step


def time_step(torch: Any, step: Callable[[], None], device: str, *, warmup: int, min_seconds: float,
              min_blocks: int, state: State | None = None) -> dict[str, Any]:
    """Time ``step`` the way torch.utils.benchmark does: warm up, then blocks of several steps with the
    device synchronised at block boundaries only; the result is the median of the per-step block means.

    The block length is chosen from a synchronised pilot step so a block lasts >= ~1/min_blocks of
    ``min_seconds`` (timer and sync overhead stay negligible), and at least ``min_blocks`` blocks run."""
    for _ in range(max(1, warmup)):
        step()
    sync(torch, device)
    t0 = time.perf_counter()
    step()
    sync(torch, device)
    pilot = max(time.perf_counter() - t0, 1e-6)
    per_block = max(1, int(min_seconds / min_blocks / pilot))
    per_step: list[float] = []
    spent = 0.0
    while len(per_step) < min_blocks or spent < min_seconds:
        if state is not None:
            state.check()
        sync(torch, device)
        t0 = time.perf_counter()
        for _ in range(per_block):
            step()
        sync(torch, device)
        dt = time.perf_counter() - t0
        spent += dt
        per_step.append(dt / per_block)
        if len(per_step) >= 1000:
            break
    per_step.sort()
    n = len(per_step)
    median = per_step[n // 2] if n % 2 else (per_step[n // 2 - 1] + per_step[n // 2]) / 2
    return {"step_s": median, "step_s_min": per_step[0], "step_s_max": per_step[-1], "blocks": n,
            "steps_per_block": per_block, "steps": n * per_block + 1 + max(1, warmup)}


def bench_one(torch: Any, device: str, batch: int, sizes: dict[str, Any], variant: str = "fp32",
              state: State | None = None) -> dict[str, Any]:
    row: dict[str, Any] = {"device": device, "variant": variant, "batch_size": batch}
    cudnn = getattr(torch.backends, "cudnn", None)
    saved = getattr(cudnn, "benchmark", None)
    try:
        if variant == "cudnn_benchmark" and cudnn is not None:
            cudnn.benchmark = True
        step = make_train_step(torch, device, batch, amp=variant == "amp", channels_last=variant == "channels_last",
                               sync_each_step=variant == "sync_each_step")
        t = time_step(torch, step, device, warmup=int(sizes["warmup"]), min_seconds=float(sizes["min_seconds"]),
                      min_blocks=int(sizes["min_blocks"]), state=state)
        row.update(step_ms=round(t["step_s"] * 1e3, 4), images_per_s=round(batch / t["step_s"], 2),
                   blocks=t["blocks"], steps=t["steps"],
                   spread_pct=round((t["step_s_max"] / t["step_s_min"] - 1) * 100, 1))
    except Stopped:
        raise
    except Exception as exc:
        row["error"] = error_text(exc)[:400]
    finally:
        if variant == "cudnn_benchmark" and cudnn is not None and saved is not None:
            cudnn.benchmark = saved
    return row


def stage_bench_cpu(ctx: Context, state: State) -> None:
    torch = ctx.torch
    select_devices(ctx)
    sizes = ctx.sizes
    batch = int(sizes["batch_size"])
    model = cifar_cnn(torch)
    state.fact("bench.config", {
        "model": "cifar_cnn (conv 16-32-64-64 + BN + ReLU, linear 10)", "input": [3, 32, 32],
        "parameters": int(sum(p.numel() for p in model.parameters())), "batch_size": batch,
        "optimizer": "SGD(momentum=0.9)", "warmup": int(sizes["warmup"]), "min_seconds": float(sizes["min_seconds"]),
        "cpu_threads": torch.get_num_threads(), "devices": ctx.devices, "flush_denormal": True,
    })
    state.progress(0, 1, "cpu fp32")
    row = bench_one(torch, "cpu", batch, sizes, state=state)
    ctx.results["rows"] = [row]
    state.progress(1, 1, "done")
    state.fact("bench.results", [row])


def stage_scaling(ctx: Context, state: State) -> None:
    plan = [(dev, int(b)) for dev in ctx.accelerators for b in ctx.sizes["scaling"]]
    plan += [("cpu", int(b)) for b in ctx.sizes["cpu_scaling"]]
    rows = []
    for i, (dev, b) in enumerate(plan):
        state.progress(i, len(plan), f"{dev} batch {b}")
        rows.append(bench_one(ctx.torch, dev, b, ctx.sizes, state=state))
    state.progress(len(plan), len(plan), "done")
    state.fact("bench.scaling", rows)


def backend_settings(torch: Any, device: str) -> dict[str, Any]:
    out: dict[str, Any] = {"device": device}
    cudnn = getattr(torch.backends, "cudnn", None)
    out["cudnn_benchmark"] = bool(getattr(cudnn, "benchmark", False))
    with contextlib.suppress(Exception):
        out["cudnn_available"] = bool(cudnn.is_available()) if cudnn is not None else False
    with contextlib.suppress(Exception):
        out["float32_matmul_precision"] = torch.get_float32_matmul_precision()
    with contextlib.suppress(Exception):
        out["cuda_matmul_allow_tf32"] = bool(torch.backends.cuda.matmul.allow_tf32)
    with contextlib.suppress(Exception):
        out["cudnn_allow_tf32"] = bool(cudnn.allow_tf32) if cudnn is not None else None
    if device.startswith("cuda"):
        with contextlib.suppress(Exception):
            major, minor = torch.cuda.get_device_capability(int(device.split(":")[1]))
            out["capability"] = f"{major}.{minor}"
    return out


VARIANTS = ("fp32", "channels_last", "amp", "cudnn_benchmark", "sync_each_step")


def stage_accelerators(ctx: Context, state: State) -> None:
    torch = ctx.torch
    batch = int(ctx.sizes["batch_size"])
    settings = [backend_settings(torch, dev) for dev in ctx.devices]
    rows: list[dict[str, Any]] = []
    variants = [v for v in VARIANTS if v != "cudnn_benchmark"] if not ctx.accelerators else list(VARIANTS)
    plan = [(dev, v) for dev in ctx.accelerators for v in variants]
    for i, (dev, v) in enumerate(plan):
        state.progress(i, len(plan), f"{dev} {v}")
        if v == "cudnn_benchmark" and not dev.startswith("cuda"):
            continue
        rows.append(bench_one(torch, dev, batch, ctx.sizes, variant=v, state=state))
    state.progress(len(plan), len(plan), "done")
    cpu = next((r for r in ctx.results.get("rows", []) if r.get("images_per_s")), None)
    speedup: dict[str, float | None] = {}
    for dev in ctx.accelerators:
        fp32 = next((r for r in rows if r["device"] == dev and r["variant"] == "fp32" and r.get("images_per_s")), None)
        speedup[dev] = round(fp32["images_per_s"] / cpu["images_per_s"], 3) if fp32 and cpu else None
    state.fact("bench.variants", rows)
    state.fact("bench.settings", settings)
    state.fact("bench.speedup", speedup)


# Operators that do no arithmetic (views, allocation, bookkeeping): not worth naming as "ran on the CPU".
NOT_COMPUTE = ("aten::empty", "aten::view", "aten::t", "aten::as_strided", "aten::reshape", "aten::_unsafe_view",
               "aten::detach", "aten::expand", "aten::transpose", "aten::resize_", "aten::empty_like",
               "aten::empty_strided", "aten::zeros", "aten::set_", "aten::alias", "aten::result_type",
               "aten::is_nonzero", "aten::lift_fresh", "aten::slice", "aten::select", "aten::unsqueeze",
               "aten::squeeze", "aten::flatten", "aten::contiguous", "aten::permute", "aten::to", "aten::_to_copy",
               "aten::zero_", "aten::fill_", "detach", "aten::new_empty", "aten::new_empty_strided",
               "aten::_reshape_alias", "aten::chunk", "aten::split", "aten::narrow", "aten::stride")
SYNC_OPS = ("aten::item", "aten::_local_scalar_dense", "cudaStreamSynchronize", "cudaDeviceSynchronize",
            "cudaMemcpy", "aten::nonzero")


def profile_summary(torch: Any, device: str, batch: int, steps: int, top: int = 8) -> dict[str, Any]:
    """Profile a few training steps; name the heaviest operators and, on an accelerator, the compute
    operators that launched no device kernel (they ran on the CPU), plus host-sync operators."""
    from torch.profiler import ProfilerActivity, profile

    step = make_train_step(torch, device, batch)
    step()
    sync(torch, device)
    activities = [ProfilerActivity.CPU]
    if device.startswith("cuda"):
        activities.append(ProfilerActivity.CUDA)
    elif device.startswith("xpu") and hasattr(ProfilerActivity, "XPU"):
        activities.append(ProfilerActivity.XPU)
    with profile(activities=activities) as prof:
        for _ in range(steps):
            step()
        sync(torch, device)
    ops = []
    for e in prof.key_averages():
        dev_t = getattr(e, "self_device_time_total", None)
        if dev_t is None:
            dev_t = getattr(e, "self_cuda_time_total", 0.0)
        ops.append({"name": e.key, "count": int(e.count), "self_cpu_ms": round(e.self_cpu_time_total / 1e3, 4),
                    "self_device_ms": round(float(dev_t or 0.0) / 1e3, 4)})
    total_cpu = sum(o["self_cpu_ms"] for o in ops) or 1.0
    ops.sort(key=lambda o: -o["self_cpu_ms"])
    accel = device != "cpu"
    on_cpu = []
    if accel and len(activities) > 1:
        on_cpu = [o for o in ops if o["name"].startswith("aten::") and o["name"] not in NOT_COMPUTE
                  and o["self_device_ms"] == 0.0 and o["self_cpu_ms"] >= 0.02 * total_cpu]
    syncs = [o for o in ops if o["name"] in SYNC_OPS]
    return {"device": device, "steps": steps, "batch_size": batch, "device_activity": len(activities) > 1,
            "top_cpu_ops": ops[:top], "cpu_only_ops": on_cpu[:top],
            "sync_ops": [{"name": o["name"], "per_step": round(o["count"] / steps, 2)} for o in syncs],
            "self_cpu_ms_total": round(total_cpu, 3)}


def stage_profile(ctx: Context, state: State) -> None:
    dev = ctx.accelerators[0] if ctx.accelerators else "cpu"
    state.progress(0, 1, f"profiling {dev}")
    try:
        summary = profile_summary(ctx.torch, dev, int(ctx.sizes["batch_size"]), int(ctx.sizes["profile_steps"]))
    except Exception as exc:
        summary = not_collected(error_text(exc)[:300])
    state.progress(1, 1, "done")
    state.fact("bench.profile", summary)


# ---- driver --------------------------------------------------------------------------------------------

STAGE_FUNCS: dict[str, dict[str, Callable[[Context, State], None]]] = {
    "placement": {"devices": stage_devices, "default_device": stage_default_device,
                  "correctness": stage_correctness, "mismatch": stage_mismatch, "bandwidth": stage_bandwidth,
                  "transfer": stage_transfer},
    "sweep": {"setup": stage_setup, "search": stage_search},
    "bench": {"cpu": stage_bench_cpu, "scaling": stage_scaling, "accelerators": stage_accelerators,
              "profile": stage_profile},
}


def import_torch(ctx: Context, state: State) -> bool:
    try:
        import torch
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        state.fact(f"{ctx.test}.import_error", error_text(exc)[:1000])
        return False
    ctx.torch = torch
    state.fact(f"{ctx.test}.torch", {"version": str(torch.__version__), "cuda": torch.version.cuda,
                                     "hip": getattr(torch.version, "hip", None), "threads": torch.get_num_threads()})
    state.fact(f"{ctx.test}.import_error", None)
    return True


def run_test(channel: Channel, ctx: Context, limits: dict[str, float], nonce: str) -> None:
    stages = list(TESTS[ctx.test])
    channel.send({"event": "hello", "protocol": PROTOCOL, "nonce": nonce, "pid": os.getpid(), "stages": stages,
                  "test": ctx.test, "t": channel.t()})
    skip: str | None = None
    for stage in stages:
        if skip is not None:
            channel.send({"event": "stage", "stage": stage, "status": "skipped", "reason": skip, "t": channel.t()})
            continue
        limit = limits.get(stage, DEFAULT_LIMITS.get(stage, 60.0))
        channel.send({"event": "stage", "stage": stage, "status": "start", "limit": limit, "t": channel.t()})
        state = State(channel, stage, budget=limit * 0.95)
        end: dict[str, Any] = {"event": "stage", "stage": stage, "status": "end"}
        try:
            if stage == "import_torch":
                if not import_torch(ctx, state):
                    end.update(status="failed", error="import torch failed")
                    skip = "import torch failed"
            else:
                STAGE_FUNCS[ctx.test][stage](ctx, state)
        except Exception as exc:
            end.update(status="failed", error=error_text(exc)[:500],
                       traceback="".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-3000:])
            if isinstance(exc, Stopped):
                skip = "an earlier stage was stopped"
        end["t"] = channel.t()
        channel.send(end)
    channel.send({"event": "done", "t": channel.t()})


def sizes_for(test: str, preset: str, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    sizes = dict(SIZES[test].get(preset) or SIZES[test]["default"])
    sizes.update(overrides or {})
    return sizes


def parse_args(argv: list[str]) -> Any:
    import argparse

    parser = argparse.ArgumentParser(prog="runtime_script.py")
    parser.add_argument("--test", required=True, choices=sorted(TESTS))
    parser.add_argument("--device", default="", help="comma-separated devices (default: every accelerator)")
    parser.add_argument("--size", default="default", choices=["default", "small", "tiny"])
    parser.add_argument("--sizes", default="", help="JSON object overriding single sizes")
    parser.add_argument("--mode", default="adaptive", choices=["adaptive", "grid", "both"])
    parser.add_argument("--limit", action="append", default=[], metavar="STAGE=SECONDS")
    parser.add_argument("--nonce", default="")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or os.curdir) == here:
        del sys.path[0]  # this directory is not part of the user's environment
    args = parse_args(sys.argv[1:] if argv is None else argv)
    channel = Channel()
    guard_lifetime()
    dump_stacks_on_sigterm()
    limits = parse_limits(args.limit)
    overrides = json.loads(args.sizes) if args.sizes else {}
    devices = [d.strip() for d in args.device.split(",") if d.strip()] or None
    ctx = Context(args.test, sizes_for(args.test, args.size, overrides), devices, args.mode)
    run_test(channel, ctx, limits, args.nonce)
    with contextlib.suppress(Exception):
        sys.stderr.flush()
    os._exit(0)  # skip teardown: driver atexit handlers can hang, and everything has been reported


if __name__ == "__main__":
    main()
