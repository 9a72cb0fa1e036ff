"""Rules over an instrumented run of the user's script (``gpuassist audit --run``): pure functions of ``run.*`` facts.

The facts come from ``gpuassist/probe/audit_script.py`` through :mod:`gpuassist.audit.run` (docs/facts.md,
"Audit run facts"). These rules form a set of their own (:data:`RULES`, judged by
``evaluate(facts, RULES)``): a diagnosis never sees ``run.*`` facts, and a run is not a diagnosis of the
machine. Every finding says what the script really did, in numbers and at the line that did it.

Judging GPU use needs a GPU to have been usable: when torch in the script's interpreter had no accelerator
(``torch.cuda.is_available()`` False, no MPS/XPU), a script that ran on the CPU is not at fault, so none of
the GPU-use findings fire (the summary says so and points at ``gpuassist diagnose``). Timing shares are
corrected for what the instrumentation itself costs per operator (measured before the script starts).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from gpuassist.facts import Facts
from gpuassist.findings import Evidence, Finding, Severity
from gpuassist.ingest.errors import match_lines
from gpuassist.knowledge import catalogue
from gpuassist.rules.make import DDP_FIX, finding
from gpuassist.rules.registry import RuleFunc, rule

RULES: dict[str, RuleFunc] = {}

MIN_IDLE_SECONDS = 1.0  # a forced stop after at least this long (and half the run) without any torch activity
MIN_OPS = 50  # fewer operators than this say nothing about where a workload runs
CPU_SHARE_ERROR = 0.90  # ≥ 90 % of operators on the CPU while an accelerator was there: the work was left behind
CPU_COMPUTE_SHARE = 0.20  # the model ran on the GPU, yet ≥ 20 % of its matmuls/convolutions ran on the CPU
MIN_CPU_COMPUTE_OPS = 10
MIN_STEPS = 3  # per-step statements need a few steps
EVERY_STEP = 0.9  # a line seen in ≥ 90 % of the steps runs "every step"
SYNC_WARNING_PER_STEP = 2  # one read per step (logging the loss) is info; more is a warning
STARVED_SHARE = 0.25  # ≥ 25 % of each step spent waiting for the next batch
LAUNCH_BOUND_US = 20.0  # below ~20 µs of step time per accelerator operator the GPU mostly waits for launches
MIN_ACCEL_OPS_PER_STEP = 50
MIN_TENSOR_CORE_OPS = 20
FP32_SHARE = 0.8
MIN_CONV_OPS = 10
FIXED_SHAPES = 8  # at most this many distinct convolution input shapes: cudnn.benchmark pays off

SYNC_WORDS = {
    "item": "calls .item() (or float()/int()/bool() of a tensor)",
    "d2h_sync": "copies a tensor to the CPU",
    "nonzero": "calls nonzero()",
    "mask_index": "indexes with a boolean mask",
    "unique": "calls unique()",
    "masked_select": "calls masked_select()",
    "bool": "tests a tensor's truth value",
    "equal": "calls torch.equal()",
    "repeat_interleave": "calls repeat_interleave() without output_size",
    "synchronize": "calls torch.cuda.synchronize()",
    "grad_scaler": "steps a GradScaler (it checks the gradients for inf/NaN)",
}
UNAVOIDABLE_SYNCS = {"grad_scaler"}  # float16 loss scaling must look at found_inf every step


def run_rule(name: str) -> Callable[[RuleFunc], RuleFunc]:
    return rule(name, registry=RULES)


# ---- small views --------------------------------------------------------------------------------------


def _num(x: Any) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def _dict(facts: Facts, key: str) -> dict[str, Any]:
    value = facts.value(key)
    return value if isinstance(value, dict) else {}


def _list(facts: Facts, key: str) -> list[Any]:
    value = facts.value(key)
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def is_accel(device: Any) -> bool:
    return isinstance(device, str) and device.split(":")[0] not in ("cpu", "meta", "none", "")


def accelerators(facts: Facts) -> list[str]:
    """The accelerators torch offered the script (``cuda:0``, ``mps``...)."""
    return [str(d) for d in _dict(facts, "run.accelerators").get("devices") or []]


def where(site: Any, facts: Facts) -> str:
    """``train.py:42`` (relative to where the run was started when the file is below it)."""
    if not isinstance(site, dict) or not site.get("file"):
        return "an unknown line"
    path = str(site["file"])
    cwd = _dict(facts, "run.command").get("cwd")
    if isinstance(cwd, str) and os.path.isabs(path) and path.startswith(cwd.rstrip(os.sep) + os.sep):
        path = os.path.relpath(path, cwd)
    return f"{path}:{site.get('line')}"


def location(site: Any) -> list[Evidence]:
    """``run.location`` evidence: the line a finding is about (a static audit's finding there is the same one)."""
    if not isinstance(site, dict) or not site.get("file"):
        return []
    return [Evidence("run.location", {"file": site["file"], "line": site.get("line")})]


def quoted(site: Any) -> str:
    code = site.get("code") if isinstance(site, dict) else None
    return f" (`{code}`)" if code else ""


def _pct(x: float) -> str:
    return f"{x:.0%}" if x < 0.995 else f"{x:.1%}" if x < 1 else "100%"


def _count(n: float) -> str:
    return f"{n:,.0f}"


def accel_ops_share(facts: Facts) -> tuple[int, int, dict[str, int]]:
    """(operators on an accelerator, operators on a real device, by device) outside data loading."""
    by_device = {
        str(k): int(v) for k, v in (_dict(facts, "run.ops").get("by_device") or {}).items() if _num(v) is not None
    }
    real = {d: n for d, n in by_device.items() if d not in ("meta", "none")}
    return sum(n for d, n in real.items() if is_accel(d)), sum(real.values()), real


def steps_seen(facts: Facts) -> int:
    return int(_num(_dict(facts, "run.steps").get("count")) or 0)


def step_word(facts: Facts) -> str:
    return "forward passes" if _dict(facts, "run.steps").get("kind") == "forward" else "steps"


# ---- how the run ended ----------------------------------------------------------------------------------


def innermost_user_frame(text: Any, facts: Facts) -> str | None:
    """``train.py:12`` from a faulthandler dump: the innermost frame in the user's script directory."""
    if not isinstance(text, str):
        return None
    command = _dict(facts, "run.command")
    target = str(command.get("script") or "")
    root = command.get("cwd") if command.get("module") else os.path.dirname(target)
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith('File "'):
            continue
        path, _, rest = line[len('File "') :].partition('", line ')
        parts = path.split(os.sep)
        if (
            "site-packages" in parts
            or "dist-packages" in parts
            or parts[-3:] == ["gpuassist", "probe", "audit_script.py"]
        ):
            continue
        if root and (path == target or path.startswith(root + os.sep)):
            number = rest.split()[0] if rest.split() else "?"
            return where({"file": path, "line": number}, facts)
    return None


@run_rule("run:outcome")
def run_outcome(facts: Facts) -> Finding | None:
    outcome = facts.value("run.outcome")
    script = os.path.basename(str(_dict(facts, "run.command").get("script") or "the script"))
    if outcome == "crashed":
        sig = facts.value("run.signal")
        tb = facts.value("run.fault_traceback")
        at = innermost_user_frame(tb, facts)
        stage = facts.value("run.failed_stage")
        during = "while importing torch" if stage == "setup" else (f"at {at}" if at else "inside native code")
        return finding(
            "probe_crashed",
            Severity.ERROR,
            title=f"{script} crashed ({sig}) {during}",
            explanation=(
                f"The Python process running {script} was killed by {sig}: a native crash, not a Python "
                "exception. The faulthandler stack below names the Python line that was running."
                + (f"\n{tb}" if tb else "")
            ),
            fix=(
                f"Reproduce it outside gpuassist with `python -X faulthandler {script}`. A crash inside torch "
                "on a GPU usually means mismatched native libraries or driver (check `gpuassist diagnose`); "
                "inside your own extension or ctypes code, that code is at fault."
            ),
            evidence=[Evidence("run.signal", sig), Evidence("run.fault_traceback", tb)],
        )
    if outcome == "timeout":
        tb = facts.value("run.fault_traceback")
        at = innermost_user_frame(tb, facts)
        limit = facts.value("run.limit_seconds")
        return finding(
            "probe_timeout",
            Severity.ERROR,
            title=f"{script} stopped responding" + (f" at {at}" if at else "") + f" and was killed after {limit} s",
            explanation=(
                f"{script} neither finished nor reached the point where gpuassist stops it, and did not "
                "answer the stop request either: it was stuck in native code that never returns to "
                "Python (a hung CUDA call, a deadlocked library, a C extension holding the GIL). "
                "Its stack when it was killed:" + (f"\n{tb}" if tb else " (none was printed)")
            ),
            fix=(
                "Run it alone and, when it hangs, print its stack with `py-spy dump --pid PID` (or send SIGTERM with "
                "faulthandler enabled: `python -X faulthandler ...`). A hang in CUDA calls points at the driver "
                "(`gpuassist diagnose`, `nvidia-smi`, `dmesg | grep -i xid`)."
            ),
            evidence=[Evidence("run.limit_seconds", limit), Evidence("run.fault_traceback", tb)],
        )
    stop = _dict(facts, "run.stop")
    snap = _dict(facts, "run.snapshot")
    idle = _num(snap.get("idle_seconds")) or 0.0
    seconds = _num(stop.get("seconds")) or 0.0
    working_elsewhere = bool(_num(stop.get("child_processes")))  # it waited for its own worker processes
    if (
        stop.get("forced")
        and steps_seen(facts) == 0
        and idle >= max(MIN_IDLE_SECONDS, 0.5 * seconds)
        and not working_elsewhere
    ):
        stuck = [s for s in stop.get("stuck_at") or [] if isinstance(s, dict)]
        at = where(stuck[-1], facts) if stuck else None
        return finding(
            "probe_timeout",
            Severity.WARNING,
            title=f"{script} made no progress for {idle:.0f} s" + (f": it was waiting at {at}" if at else ""),
            explanation=(
                f"In {seconds:.0f} s the script completed no step, and for the last {idle:.0f} s it ran no "
                "torch operator and fetched no batch; when the time was up it did not reach any point "
                "where it could stop, so gpuassist ended it. It was at:\n"
                + "\n".join(f"  {where(s, facts)} in {s.get('function')}{quoted(s)}" for s in stuck)
            ),
            fix=(
                "If that line waits for something (a lock, a download, input, a subprocess), that is the hang. If "
                "it is slow but working (preprocessing before training), run longer: `gpuassist audit --run "
                "--seconds 300 -- ...`."
            ),
            evidence=[Evidence("run.stop", stop), Evidence("run.snapshot", snap)],
        )
    return None


@run_rule("run:torch_import")
def torch_import(facts: Facts) -> Finding | None:
    error = _dict(facts, "run.torch").get("import_error")
    if not isinstance(error, dict):
        return None
    python = _dict(facts, "run.command").get("resolved") or facts.value("run.python")
    missing = error.get("type") == "ModuleNotFoundError" and "torch" in str(error.get("message"))
    fid = "torch_not_installed" if missing else "torch_import_error"
    return finding(
        fid,
        Severity.ERROR,
        explanation=(
            f"The script was not run: `import torch` fails in {python} "
            f"({error.get('type')}: {error.get('message')}), so the script would fail the same way."
        ),
        fix=f"`gpuassist diagnose --python {python}` names the cause and the exact install command.",
        evidence=[Evidence("run.torch", error)],
    )


@run_rule("run:script_error_cause")
def script_error_cause(facts: Facts) -> list[Finding]:
    """The script's exception, when its text names a cause from the catalogue (a device mismatch, a CPU-only
    build asked for CUDA, a driver error...), at the user's line that raised it."""

    exc = _dict(facts, "run.exception")
    if not exc:
        return []
    text = f"{exc.get('type')}: {exc.get('message')}"
    matches = match_lines(text.splitlines())
    if any(m.specific for m in matches):
        matches = [m for m in matches if m.specific]
    at = where(exc.get("site"), facts)
    out = []
    for m in matches:
        if m.id == "tensors_on_different_devices":
            out.append(device_mismatch(facts, exc, text, at))
            continue
        entry = catalogue()[m.id]
        out.append(
            finding(
                m.id,
                Severity.ERROR if m.specific else Severity.WARNING,
                title=f"{at}: {entry.title}"
                if m.specific
                else f"{at}: possibly {entry.title[0].lower()}{entry.title[1:]}",
                explanation=f"The script stopped at {at}{quoted(exc.get('site'))} with\n  {text}\n{entry.explanation}",
                fix=entry.fix,
                evidence=[Evidence("run.exception", _short_exception(exc))],
            )
        )
    return out


def _short_exception(exc: dict[str, Any]) -> dict[str, Any]:
    return {k: exc.get(k) for k in ("type", "message", "site", "raised_in")}


def device_mismatch(facts: Facts, exc: dict[str, Any], text: str, at: str) -> Finding:
    ff = _dict(facts, "run.first_forward")
    params = {str(k): v for k, v in (ff.get("param_devices") or {}).items()}
    inputs = sorted({str(i.get("device")) for i in ff.get("inputs") or [] if isinstance(i, dict)})
    seen = ""
    forward = where(ff.get("site"), facts)
    if params or inputs:
        seen = (
            f"At the first forward of {ff.get('module')} ({forward}) its parameters were on "
            f"{', '.join(params) or 'no device'} and its inputs on {', '.join(inputs) or 'no tensor'}."
        )
    if "meta" in params:  # weights never loaded: moving the input to "meta" would only hide it
        fix_lines = [
            "The model's parameters are on the meta device: they have a shape but no values (built with "
            "device='meta' or under init_empty_weights/low_cpu_mem_usage). Give them real memory and "
            "weights before calling the model:",
            "model = model.to_empty(device=device); model.load_state_dict(state_dict)",
            "or load it with from_pretrained(..., device_map=None) / without init_empty_weights.",
        ]
    else:
        fix_lines = ["device = next(model.parameters()).device   # or torch.device('cuda')"]
        if inputs and params and set(inputs) != set(params):
            fix_lines.append(
                f"before {forward}: move every input, e.g. `inputs, targets = inputs.to(device), targets.to(device)`"
            )
        if len(params) > 1:
            fix_lines.append(
                f"the model itself is split over {', '.join(params)}: call model.to(device) after "
                "building it, and create sub-modules in __init__, not in forward()"
            )
        fix_lines.append("new tensors inside forward(): torch.zeros(..., device=x.device)")
    evidence = [Evidence("run.exception", _short_exception(exc)), *location(exc.get("site"))]
    if ff:
        evidence.append(
            Evidence("run.first_forward", {k: ff.get(k) for k in ("module", "param_devices", "inputs", "site")})
        )
    return finding(
        "tensors_on_different_devices",
        Severity.ERROR,
        title=f"{at} mixes tensors on different devices",
        explanation=f"The script stopped at {at}{quoted(exc.get('site'))} with\n  {text}\n{seen}".rstrip(),
        fix="\n".join(fix_lines),
        evidence=evidence,
    )


# ---- where the work ran ----------------------------------------------------------------------------------


@run_rule("run:workload_left_on_cpu")
def workload_left_on_cpu(facts: Facts) -> Finding | None:
    accels = accelerators(facts)
    if not accels:
        return None  # nothing to move to: not the script's fault (gpuassist diagnose says why)
    on_accel, total, by_device = accel_ops_share(facts)
    if total < MIN_OPS:
        return None
    cpu = by_device.get("cpu", 0)
    ff = _dict(facts, "run.first_forward")
    params = ff.get("param_devices") or {}
    dev = accels[0]
    fix = (
        f"device = torch.device('{dev.split(':')[0]}')\n"
        "model = model.to(device)            # once, after building it\n"
        "inputs, targets = inputs.to(device, non_blocking=True), targets.to(device, non_blocking=True)  "
        "# every batch\n"
        "new tensors: torch.zeros(..., device=device)"
    )
    compute = [c for c in (_dict(facts, "run.ops").get("compute") or []) if isinstance(c, dict)]
    cpu_compute = [c for c in compute if c.get("device") == "cpu"]
    n_cpu = sum(int(c.get("count") or 0) for c in cpu_compute)
    n_all = sum(int(c.get("count") or 0) for c in compute)
    # many small CPU operators (batching, bookkeeping) next to a model whose matmuls run on the GPU are not it
    model_on_cpu = not n_all or n_cpu / n_all >= CPU_SHARE_ERROR
    if cpu / total >= CPU_SHARE_ERROR and model_on_cpu:
        where_ff = ""
        if ff:
            where_ff = (
                f" At the first forward of {ff.get('module')} ({where(ff.get('site'), facts)}) its parameters "
                f"were on {', '.join(map(str, params)) or 'no device'}."
            )
        return finding(
            "workload_left_on_cpu",
            Severity.ERROR,
            title=f"{_pct(cpu / total)} of operators ran on the CPU while {', '.join(accels)} was available",
            explanation=(
                f"Of {_count(total)} torch operators the script ran (data loading not counted), "
                f"{_count(cpu)} ran on the CPU and {_count(on_accel)} on an accelerator, although torch "
                f"offered {', '.join(accels)}.{where_ff} Nothing moves to the GPU unless the code moves it."
            ),
            fix=fix,
            evidence=_placement_evidence(facts, by_device),
        )
    if on_accel == 0:
        return None
    if n_cpu < MIN_CPU_COMPUTE_OPS or not n_all or n_cpu / n_all < CPU_COMPUTE_SHARE:
        return None
    names = ", ".join(sorted({str(c.get("op")) for c in cpu_compute}))
    return finding(
        "workload_left_on_cpu",
        Severity.WARNING,
        title=f"Part of the model runs on the CPU: {_pct(n_cpu / n_all)} of matrix multiplications/convolutions",
        explanation=(
            f"Most operators ran on {', '.join(d for d in by_device if is_accel(d))}, but {_count(n_cpu)} of "
            f"{_count(n_all)} matrix multiplications/convolutions ({names}) ran on the CPU: a layer or a "
            "loss/metric computation was left behind, and every step copies its data back and forth."
        ),
        fix=fix,
        evidence=[*_placement_evidence(facts, by_device), Evidence("run.ops.compute", cpu_compute[:8])],
    )


def _placement_evidence(facts: Facts, by_device: dict[str, int]) -> list[Evidence]:
    ev = [Evidence("run.ops.by_device", by_device), Evidence("run.accelerators", accelerators(facts))]
    ff = _dict(facts, "run.first_forward")
    if ff:
        ev.append(Evidence("run.first_forward", {k: ff.get(k) for k in ("module", "param_devices", "inputs", "site")}))
    return ev


@run_rule("run:multi_gpu_unused")
def multi_gpu_unused(facts: Facts) -> Finding | None:
    count = _num(_dict(facts, "run.accelerators").get("cuda_device_count")) or 0
    _, _, by_device = accel_ops_share(facts)
    used = [d for d in by_device if d.startswith("cuda")]
    if count < 2 or len(used) != 1:
        return None
    return finding(
        "multi_gpu_unused",
        Severity.INFO,
        title=f"Only {used[0]} of {int(count)} GPUs did any work",
        explanation=(
            f"torch saw {int(count)} CUDA devices; all {_count(by_device[used[0]])} operators on a GPU ran on "
            f"{used[0]}. The other GPUs idled for the whole run (the monitor trace shows it)."
        ),
        fix=DDP_FIX,
        evidence=[Evidence("run.ops.by_device", by_device), Evidence("run.accelerators.cuda_device_count", int(count))],
    )


# ---- the training loop ----------------------------------------------------------------------------------


@run_rule("run:host_device_sync_in_loop")
def host_device_sync_in_loop(facts: Facts) -> Finding | None:
    steps = steps_seen(facts)
    if steps < MIN_STEPS:
        return None
    cuda_sync = is_accel(next(iter(accelerators(facts)), None))
    hot = []
    for s in _list(facts, "run.syncs"):
        accel = is_accel(s.get("device")) or (s.get("kind") == "synchronize" and cuda_sync)
        seen = int(_num(s.get("steps")) or 0)
        if accel and seen >= EVERY_STEP * steps and s.get("kind") not in UNAVOIDABLE_SYNCS:
            hot.append(s)
    if not hot:
        return None
    per_step = _num((_dict(facts, "run.steps").get("per_step") or {}).get("syncs")) or 0.0
    top = hot[0]
    n = int(top.get("count") or 0)
    word = step_word(facts)
    lines = [
        f"  {where(s.get('site'), facts)}: {SYNC_WORDS.get(str(s.get('kind')), s.get('kind'))} "
        f"{int(s.get('count') or 0)} times in {steps} {word}{quoted(s.get('site'))}"
        + (f" (inside {where(s.get('via'), facts)})" if s.get("via") else "")
        for s in hot[:6]
    ]
    return finding(
        "host_device_sync_in_loop",
        Severity.WARNING if per_step >= SYNC_WARNING_PER_STEP else Severity.INFO,
        title=(
            f"{where(top.get('site'), facts)} {SYNC_WORDS.get(str(top.get('kind')), top.get('kind'))} every step "
            f"({n} times in {steps} {word})"
        ),
        explanation=(
            "Each of these makes the CPU wait until the GPU has finished everything queued, then the GPU "
            "waits while the CPU queues the next work:\n"
            + "\n".join(lines)
            + f"\nThat is {per_step:g} waits per step (median)."
        ),
        fix=(
            "Keep values on the GPU and read them every N steps:\n"
            "running = torch.zeros((), device=device)\n"
            "    running += loss.detach()            # instead of loss.item() every step\n"
            "    if step % 100 == 0:\n"
            "        print(running.item() / 100); running.zero_()\n"
            "Avoid print(tensor), .cpu(), .numpy(), .tolist(), nonzero() and boolean-mask indexing inside the loop."
        ),
        evidence=[
            *location(top.get("site")),
            Evidence(
                "run.syncs", [{k: s.get(k) for k in ("kind", "device", "count", "steps", "site")} for s in hot[:6]]
            ),
            Evidence("run.steps.count", steps),
        ],
    )


def _steady(facts: Facts) -> tuple[float, float, float, int]:
    """(step seconds, data wait, instrumentation overhead, steps) over the steps after the first."""
    data = _dict(facts, "run.data")
    return (
        _num(data.get("steady_step_seconds")) or 0.0,
        _num(data.get("steady_wait_seconds")) or 0.0,
        _num(data.get("steady_overhead_seconds")) or 0.0,
        int(_num(data.get("steady_steps")) or 0),
    )


def wait_share(facts: Facts) -> float | None:
    """Share of the step time spent waiting for data, the instrumentation's own cost taken out."""
    step, wait, overhead, n = _steady(facts)
    real = step - overhead
    if n < MIN_STEPS - 1 or real <= 0:
        return None
    return min(1.0, wait / real)


@run_rule("run:dataloader_starvation")
def dataloader_starvation(facts: Facts) -> Finding | None:
    on_accel, total, _ = accel_ops_share(facts)
    if not accelerators(facts) or not total or on_accel / total < 0.5:
        return None  # the model did not run on the GPU: a CPU-bound loop is not "starving the GPU"
    share = wait_share(facts)
    if share is None or share < STARVED_SHARE:
        return None
    data = _dict(facts, "run.data")
    loaders = [x for x in data.get("loaders") or [] if isinstance(x, dict)]
    loader = max(loaders, key=lambda x: _num(x.get("wait_seconds")) or 0.0) if loaders else {}
    workers = loader.get("num_workers")
    step, wait, overhead, n = _steady(facts)
    startup = _num(loader.get("startup_seconds")) or 0.0
    epochs = int(_num(loader.get("epochs")) or 0)
    extra = ""
    if startup and epochs and workers and not loader.get("persistent_workers"):
        extra = f" Starting the {workers} workers cost {startup / epochs:.2f} s per epoch (not persistent)."
    copies = _dict(facts, "run.copies").get("h2d") or {}
    pinned = ""
    if isinstance(copies, dict) and copies.get("count") and not copies.get("pinned"):
        pinned = (
            f" None of the {copies.get('count')} copies to the GPU came from pinned memory, so none could "
            "overlap with compute."
        )
    suggested = max(2, min(8, (os.cpu_count() or 4) - 1))
    return finding(
        "dataloader_starvation",
        Severity.WARNING,
        title=f"The training loop waits for data {_pct(share)} of each step",
        explanation=(
            f"Over {n} steps the DataLoader at {where(loader.get('site'), facts)} kept the loop waiting "
            f"{wait:.2f} s of {step - overhead:.2f} s ({_pct(share)}), with num_workers={workers}, "
            f"pin_memory={loader.get('pin_memory')}, batch_size={loader.get('batch_size')}: the GPU idles "
            f"while the next batch is prepared.{extra}{pinned}"
        ),
        fix=(
            f"DataLoader(dataset, batch_size={loader.get('batch_size')}, num_workers={suggested}, pin_memory=True, "
            "persistent_workers=True, prefetch_factor=4)\n"
            "and move batches with .to(device, non_blocking=True). `gpuassist sweep` measures the best num_workers; "
            "if even many workers cannot keep up, make per-sample work cheaper (decode once, cache, GPU-side "
            "augmentation)."
        ),
        evidence=[
            Evidence("run.data.wait_share", round(share, 4)),
            Evidence(
                "run.data.loader",
                {
                    k: loader.get(k)
                    for k in (
                        "site",
                        "num_workers",
                        "pin_memory",
                        "persistent_workers",
                        "batch_size",
                        "wait_seconds",
                        "startup_seconds",
                    )
                },
            ),
            Evidence(
                "run.data.steady",
                {"steps": n, "step_seconds": step, "wait_seconds": wait, "instrumentation_seconds": overhead},
            ),
        ],
    )


@run_rule("run:small_batch_launch_bound")
def small_batch_launch_bound(facts: Facts) -> Finding | None:
    per_step = _dict(facts, "run.steps").get("per_step") or {}
    accel_ops = _num(per_step.get("accel_ops")) or 0.0
    seconds = _num(per_step.get("seconds")) or 0.0
    wait = _num(per_step.get("data_wait")) or 0.0
    per_op = _num(_dict(facts, "run.instrumentation").get("per_op_seconds")) or 0.0
    ops = _num(per_step.get("ops")) or 0.0
    if steps_seen(facts) < MIN_STEPS or accel_ops < MIN_ACCEL_OPS_PER_STEP:
        return None
    compute = seconds - wait - ops * per_op
    if compute <= 0:
        return None
    us = compute / accel_ops * 1e6
    if us >= LAUNCH_BOUND_US:
        return None
    ff = _dict(facts, "run.first_forward")
    shapes = [i.get("shape") for i in ff.get("inputs") or [] if isinstance(i, dict) and i.get("shape")]
    batch = shapes[0][0] if shapes and isinstance(shapes[0], list) and shapes[0] else None
    return finding(
        "small_batch_launch_bound",
        Severity.INFO,
        title=f"Each step launches {accel_ops:,.0f} GPU operators of {us:.0f} µs each on average",
        explanation=(
            f"A step takes {compute * 1e3:.1f} ms of compute (median, data wait and gpuassist's own cost "
            f"taken out) for {accel_ops:,.0f} operators on the GPU: {us:.1f} µs per operator, about what "
            "launching one costs, so the GPU mostly waits for the CPU to queue work"
            + (f" (batch size {batch} at the first forward)." if batch else ".")
        ),
        fix=(
            "Give the GPU more work per launch: a larger batch (scale the learning rate with it), or fuse operators "
            "with model = torch.compile(model) (mode='reduce-overhead' adds CUDA graphs)."
        ),
        evidence=[Evidence("run.steps.per_step", per_step), Evidence("run.instrumentation.per_op_seconds", per_op)],
    )


def _capability(facts: Facts, device: str) -> float | None:
    for d in _list(facts, "run.devices"):
        if d.get("device") == device:
            try:
                return float(str(d.get("capability")))
            except ValueError:
                return None
    return None


@run_rule("run:amp_tf32_not_used")
def amp_tf32_not_used(facts: Facts) -> Finding | None:
    settings = _dict(facts, "run.settings")
    if settings.get("autocast_seen") or settings.get("float32_matmul_precision") not in (None, "highest"):
        return None
    compute = [
        c
        for c in (_dict(facts, "run.ops").get("compute") or [])
        if isinstance(c, dict) and str(c.get("device", "")).startswith("cuda")
    ]
    for device in dict.fromkeys(str(c["device"]) for c in compute):
        mine = [c for c in compute if c["device"] == device]
        total = sum(int(c.get("count") or 0) for c in mine)
        fp32 = sum(int(c.get("count") or 0) for c in mine if c.get("dtype") == "float32")
        cap = _capability(facts, device)
        if total < MIN_TENSOR_CORE_OPS or fp32 / total < FP32_SHARE or cap is None or cap < 7.0:
            continue
        tf32 = " or allow TF32 (torch.set_float32_matmul_precision('high'))" if cap >= 8.0 else ""
        return finding(
            "amp_tf32_not_used",
            Severity.INFO,
            title=f"{_pct(fp32 / total)} of matrix multiplications/convolutions on {device} ran in full FP32",
            explanation=(
                f"{device} (compute capability {cap:g}) has tensor cores, but {fp32:,} of {total:,} matmul/"
                "convolution operators ran in float32 without autocast, and float32 matmul precision is "
                f"'{settings.get('float32_matmul_precision') or 'highest'}': the tensor cores sit idle. "
                f"Mixed precision{tf32} usually trains several times faster on such a GPU."
            ),
            fix=(
                "half = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16\n"
                "scaler = torch.amp.GradScaler('cuda')       # not needed with bfloat16\n"
                "with torch.autocast('cuda', dtype=half):\n"
                "    loss = loss_fn(model(inputs), targets)\n"
                "scaler.scale(loss).backward(); scaler.step(optimizer); scaler.update()\n"
                + ("and for the FP32 parts: torch.set_float32_matmul_precision('high')" if cap >= 8.0 else "")
            ),
            evidence=[
                Evidence("run.ops.compute", mine[:8]),
                Evidence("run.settings", settings),
                Evidence("run.devices.capability", {device: cap}),
            ],
        )
    return None


@run_rule("run:cudnn_benchmark_off")
def cudnn_benchmark_off(facts: Facts) -> Finding | None:
    settings = _dict(facts, "run.settings")
    if settings.get("cudnn_benchmark") is not False:
        return None
    ops = _dict(facts, "run.ops")
    shapes = ops.get("conv_shapes") or {}
    for c in ops.get("compute") or []:
        if not isinstance(c, dict) or "conv" not in str(c.get("op")) or not str(c.get("device")).startswith("cuda"):
            continue
        distinct = _num(shapes.get(c["device"]))
        if int(c.get("count") or 0) < MIN_CONV_OPS or distinct is None or distinct > FIXED_SHAPES:
            continue
        return finding(
            "cudnn_benchmark_off",
            Severity.INFO,
            title=f"Convolutions on {c['device']} run with cudnn.benchmark off and fixed input shapes",
            explanation=(
                f"{c.get('count'):,} convolutions ran on {c['device']} with only {int(distinct)} distinct "
                "input shape(s), and torch.backends.cudnn.benchmark is False: cuDNN uses a default "
                "algorithm instead of timing the candidates once and keeping the fastest."
            ),
            fix="torch.backends.cudnn.benchmark = True   # once at start-up; right when input shapes stay fixed",
            evidence=[
                Evidence("run.ops.compute", c),
                Evidence("run.ops.conv_shapes", shapes),
                Evidence("run.settings.cudnn_benchmark", False),
            ],
        )
    return None
