"""Rules over runtime measurements (placement, DataLoader sweep, CNN benchmark): pure functions of facts.

The facts come from ``gpuassist.runtime`` (docs/facts.md, "Runtime facts"); none of these rules fires on
a plain ``gpuassist diagnose``, which does not measure. Every finding carries its numbers as evidence
and an exact fix (the ``DataLoader(...)`` line, the one setting, the code snippet). Thresholds are
deliberately conservative: a finding should survive the noise of a short measurement on a busy machine.
"""

from __future__ import annotations

import re
from typing import Any

from gpuassist.facts import Facts
from gpuassist.findings import Evidence, Finding, Severity
from gpuassist.knowledge.pcie import pcie_theoretical_gbps
from gpuassist.rules import view
from gpuassist.rules.make import DDP_FIX, finding, python
from gpuassist.rules.registry import rule

# NVML clock-event reasons that mean the hardware is protecting itself (not "idle" or "app clocks").
THROTTLE_BITS = {
    0x8: "HW slowdown",
    0x20: "SW thermal slowdown",
    0x40: "HW thermal slowdown",
    0x80: "HW power brake slowdown",
}
POWER_CAP_BIT = 0x4

PCIE_DEGRADED_RATIO = 0.5  # measured pinned H2D below half the link's theoretical rate
STARVED_RATIO = 0.8  # default loader delivers < 80 % of what the model step could consume
MIN_LOADER_SPEEDUP = 1.25
# Below this even the best DataLoader setting starves any accelerator (small images, gpuassist's test dataset).
MODEST_SAMPLES_PER_S = 1000.0
AMP_MIN_SPEEDUP = 1.25
CUDNN_MIN_SPEEDUP = 1.05
SYNC_MIN_COST = 0.10

AUTOCAST_SNIPPET = (
    "scaler = torch.amp.GradScaler('cuda')\n"
    "for inputs, targets in loader:\n"
    "    optimizer.zero_grad(set_to_none=True)\n"
    "    with torch.autocast('cuda', dtype=torch.float16):   # bfloat16 on sm_80+ needs no scaler\n"
    "        loss = loss_fn(model(inputs), targets)\n"
    "    scaler.scale(loss).backward()\n"
    "    scaler.step(optimizer)\n"
    "    scaler.update()\n"
    "and for the FP32 parts: torch.set_float32_matmul_precision('high')  # TF32 on sm_80+"
)
AUTOCAST_ACTIONS = [
    python(
        "Train with autocast (mixed precision)",
        AUTOCAST_SNIPPET.rsplit("\nand ", 1)[0],
        note="bfloat16 on sm_80+ needs no GradScaler.",
    ),
    python(
        "And for the parts left in FP32: TF32 matmuls",
        "torch.set_float32_matmul_precision('high')  # TF32 on sm_80+",
        option=1,
    ),
]


def _num(x: Any) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def _fmt(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def _accel(dev: Any) -> bool:
    return isinstance(dev, str) and dev != "cpu"


def _bus_tail(bus: Any) -> str | None:
    """``00000000:01:00.0`` and ``0000:01:00.0`` → ``01:00.0`` (NVML and torch pad the domain differently)."""
    if not isinstance(bus, str):
        return None
    m = re.search(r"([0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])$", bus)
    return m.group(1).lower() if m else None


def nvml_gpu_for(facts: Facts, device: str) -> dict[str, Any] | None:
    """The ``nvml.gpus`` entry of a torch device: by PCI bus id, else by index when torch and NVML agree
    on the number of GPUs (CUDA_VISIBLE_DEVICES and CUDA's ordering can make indices differ)."""
    gpus = facts.value("nvml.gpus")
    if not isinstance(gpus, list) or not device.startswith("cuda"):
        return None
    described = {d.get("device"): d for d in facts.value("placement.devices", []) or [] if isinstance(d, dict)}
    tail = _bus_tail((described.get(device) or {}).get("pci_bus_id"))
    if tail:
        for g in gpus:
            if _bus_tail(g.get("pci_bus_id")) == tail:
                return dict(g)
    cuda_count = sum(1 for d in described if str(d).startswith("cuda"))
    index = int(device.split(":")[1]) if ":" in device else 0
    if (cuda_count in (0, len(gpus))) and index < len(gpus):
        return dict(gpus[index])
    return None


# ---- placement ----------------------------------------------------------------------------------------


@rule("tensors_on_different_devices")
def tensors_on_different_devices(facts: Facts) -> Finding | None:
    mm = facts.value("placement.mismatch")
    checks = facts.value("placement.checks") or []
    failed = [c for c in checks if isinstance(c, dict) and "same device" in str(c.get("error", ""))]
    if failed:
        c = failed[0]
        return finding(
            "tensors_on_different_devices",
            Severity.ERROR,
            explanation=(
                f"Running a model on {c.get('device')} failed because its tensors were on different "
                f"devices: {c.get('error')}"
            ),
            fix=str((mm or {}).get("fix") or ""),
            evidence=view.ev(facts, "placement.checks"),
        )
    if not isinstance(mm, dict) or not mm.get("reproduced"):
        return None
    a, b = (mm.get("devices") or ["?", "cpu"])[:2]
    text = f"{mm.get('error_type')}: {mm.get('error_text')}"
    stand_in = (
        (
            f" There is no accelerator here, so the '{a}' device stood in; on a GPU the same mistake "
            f"reads: {mm.get('typical_text')}"
        )
        if mm.get("stand_in")
        else ""
    )
    return finding(
        "tensors_on_different_devices",
        Severity.INFO,
        title="What a device mismatch looks like (reproduced on purpose)",
        explanation=(
            f"gpuassist ran {mm.get('operation')} on purpose, the most common placement bug. "
            f"PyTorch said:\n  {text}\n{stand_in} Moving the input to the model's device made it work"
            f" (output on {mm.get('after_fix_device')}). This is a demonstration, not a fault of this "
            "machine: if your script prints this error, the fix below is the one."
        ),
        fix=str(mm.get("fix") or ""),
        evidence=[Evidence("placement.mismatch", {"devices": [a, b], "error_text": mm.get("error_text")})],
    )


@rule("workload_left_on_cpu")
def workload_left_on_cpu(facts: Facts) -> Finding | None:
    dd = facts.value("placement.default_device")
    speedup = facts.value("bench.speedup") or {}
    accels = list((dd or {}).get("accelerators") or []) if isinstance(dd, dict) else []
    accels += [d for d in speedup if _accel(d) and d not in accels]
    if not accels:
        return None
    dev = accels[0]
    parts = []
    keys = []
    if isinstance(dd, dict) and dd.get("tensor_device") == "cpu":
        parts.append(
            f"A tensor or model created without device= lands on {dd.get('tensor_device')} "
            f"(default device: {dd.get('default_device') or 'cpu'}), although {', '.join(accels)} "
            "is available: nothing moves to the GPU unless the code moves it."
        )
        keys.append("placement.default_device")
    s = _num(speedup.get(dev))
    if s is not None:
        parts.append(
            f"On the benchmark CNN, {dev} trains {s:.1f}x as fast as the CPU: work left on the CPU gives that up."
        )
        keys.append("bench.speedup")
    if not parts:
        return None
    kind = dev.split(":")[0]
    code = (
        f"device = torch.device('{kind}' if torch.{kind}.is_available() else 'cpu')\n"
        "model = model.to(device)\n"
        "inputs, targets = inputs.to(device, non_blocking=True), targets.to(device, non_blocking=True)"
        if dev.startswith(("cuda", "xpu"))
        else "device = torch.device('mps')\nmodel = model.to(device)\ninputs = inputs.to(device)"
    )
    return finding(
        "workload_left_on_cpu",
        Severity.INFO,
        title="Nothing runs on the GPU unless the code puts it there",
        explanation=" ".join(parts) + " Check with `print(next(model.parameters()).device, inputs.device)`.",
        fix=code + "\nCreate new tensors on it too: torch.zeros(shape, device=device).",
        actions=[
            python(
                "Put the model and each batch on the device",
                code,
                note="Create new tensors on it too: torch.zeros(shape, device=device).",
            )
        ],
        evidence=view.ev(facts, *keys),
    )


@rule("pcie_link_degraded")
def pcie_link_degraded(facts: Facts) -> list[Finding]:

    peak = facts.value("bandwidth.peak") or {}
    out = []
    for dev, entry in peak.items() if isinstance(peak, dict) else []:
        if not isinstance(entry, dict) or not str(dev).startswith("cuda"):
            continue
        measured = _num(entry.get("h2d_pinned")) or _num(entry.get("h2d_pageable"))
        gpu = nvml_gpu_for(facts, str(dev))
        if measured is None or gpu is None:
            continue
        gen_max, width_max = gpu.get("pcie_gen_max"), gpu.get("pcie_width_max")
        gen_cur, width_cur = gpu.get("pcie_gen_current"), gpu.get("pcie_width_current")
        capable = pcie_theoretical_gbps(gen_max, width_max) or pcie_theoretical_gbps(gen_cur, width_cur)
        if not capable:
            continue
        ratio = measured / capable
        if ratio >= PCIE_DEGRADED_RATIO:
            continue
        kind = "pinned" if _num(entry.get("h2d_pinned")) else "pageable"
        link_now = f"Gen{gen_cur} x{width_cur}" if gen_cur and width_cur else "unknown"
        cause = ""
        if isinstance(width_cur, int) and isinstance(width_max, int) and width_cur < width_max:
            cause = (
                f" The link trained at x{width_cur} although the card supports x{width_max}: a riser, "
                "a narrower slot or a badly seated card."
            )
        elif isinstance(gen_cur, int) and isinstance(gen_max, int) and gen_cur < gen_max:
            cause = f" NVML reports Gen{gen_cur} (the card supports Gen{gen_max})."
        out.append(
            finding(
                "pcie_link_degraded",
                Severity.WARNING,
                explanation=(
                    f"Copies to {dev} ({gpu.get('name')}) reach {measured:.2f} GB/s ({kind} memory, best over "
                    f"the size sweep), {ratio:.0%} of the {capable:.1f} GB/s a PCIe Gen{gen_max} x{width_max} "
                    f"link carries per direction (healthy links reach 70-90 %). Link now: {link_now}.{cause} "
                    "Every batch copied to the GPU pays for this."
                ),
                fix=(
                    "Reseat the card or move it to a full x16 slot; avoid x1 risers and Thunderbolt enclosures for "
                    "training; check `nvidia-smi -q -d PCIE` under load (Link Width / Generation Current vs Max) "
                    "and disable PCIe ASPM power saving (kernel parameter `pcie_aspm=off`) if it stays degraded.\n"
                    "Meanwhile keep data resident on the GPU and copy from pinned memory: "
                    "DataLoader(..., pin_memory=True) and .to(device, non_blocking=True)."
                ),
                evidence=[
                    Evidence("bandwidth.peak", {dev: entry}),
                    Evidence(
                        "nvml.gpus",
                        {
                            k: gpu.get(k)
                            for k in (
                                "index",
                                "name",
                                "pcie_gen_current",
                                "pcie_gen_max",
                                "pcie_width_current",
                                "pcie_width_max",
                            )
                        },
                    ),
                    Evidence("pcie.theoretical_gbps", capable),
                    Evidence("pcie.measured_ratio", round(ratio, 3)),
                ],
            )
        )
    return out


@rule("multi_gpu_unused")
def multi_gpu_unused(facts: Facts) -> Finding | None:
    count = facts.value("placement.device_count")
    if not isinstance(count, int) or count < 2:
        return None
    return finding(
        "multi_gpu_unused",
        Severity.INFO,
        explanation=(
            f"torch sees {count} CUDA devices. A plain training script (and these tests) use only "
            "cuda:0; nn.DataParallel drives the others from one Python thread and scales poorly."
        ),
        fix=DDP_FIX,
        evidence=view.ev(facts, "placement.device_count", "placement.devices"),
    )


@rule("wsl_pinned_memory_limit")
def wsl_pinned_memory_limit(facts: Facts) -> Finding | None:
    if facts.value("platform.wsl") != "wsl2":
        return None
    errors = [
        r
        for r in facts.value("bandwidth.rows", []) or []
        if isinstance(r, dict) and r.get("memory") == "pinned" and "out of memory" in str(r.get("error", "")).lower()
    ]
    if not errors:
        return None
    return finding(
        "wsl_pinned_memory_limit",
        Severity.WARNING,
        explanation=(
            f"Under WSL2, allocating pinned host memory for copies to {errors[0].get('device')} failed "
            f"({errors[0].get('error')}) while pageable copies worked: WSL2 caps page-locked memory."
        ),
        fix=(
            "Use pin_memory=False in the DataLoader under WSL2, or give WSL more memory in %UserProfile%\\.wslconfig "
            "([wsl2] memory=...), then `wsl --shutdown`."
        ),
        evidence=[Evidence("platform.wsl", "wsl2"), Evidence("bandwidth.rows", errors[:3])],
    )


# ---- DataLoader -----------------------------------------------------------------------------------------


def measured_speedup(default: Any, best: Any) -> float | None:
    """Best over default samples/s, from the same two rows the "Settings tried" table shows (one number
    everywhere, not a second rounding of another)."""
    d = _num(default.get("samples_per_s")) if isinstance(default, dict) else None
    b = _num(best.get("samples_per_s")) if isinstance(best, dict) else None
    return b / d if d and b else None


@rule("dataloader_starvation")
def dataloader_starvation(facts: Facts) -> Finding | None:
    """What the sweep measured is this machine's loading capacity on gpuassist's own test dataset: a
    measurement (info), not a verdict on the user's pipeline, unless the CPU cannot feed even a modest rate
    (then no DataLoader setting in the user's code can keep any accelerator busy)."""
    default, best = facts.value("sweep.default"), facts.value("sweep.best")
    compute = _num(facts.value("sweep.compute_seconds_per_batch"))
    config = facts.value("sweep.config") or {}
    speedup = measured_speedup(default, best)
    if not isinstance(default, dict) or not isinstance(best, dict) or not compute or speedup is None:
        return None
    batch = _num(config.get("batch_size")) or 1
    compute_rate = batch / compute
    d_rate = _num(default.get("samples_per_s")) or 0.0
    b_rate = _num(best.get("samples_per_s")) or 0.0
    starved = b_rate < MODEST_SAMPLES_PER_S
    if not starved and (d_rate >= STARVED_RATIO * compute_rate or speedup < MIN_LOADER_SPEEDUP):
        return None
    device = str(config.get("device") or "cpu")
    on_accel = _accel(device)
    workers = best.get("num_workers")
    line = str(facts.value("sweep.dataloader_line") or "")
    startup = [s for s in facts.value("sweep.worker_startup") or [] if isinstance(s, dict)]
    chosen = next((s for s in startup if s.get("num_workers") == workers), None)
    start_txt = (
        f" Starting its {workers} worker(s) costs {float(chosen.get('seconds') or 0):.2f} s per epoch "
        "unless they are persistent."
        if chosen and workers
        else ""
    )
    cost = _num(config.get("per_sample_cost_us"))
    dataset = (
        f"gpuassist's test dataset ({cost:g} µs of CPU work per sample, like decoding and augmenting a small image)"
        if cost
        else "gpuassist's test dataset"
    )
    measured = (
        f"Measured on {dataset}: the default DataLoader (num_workers=0) gives {_fmt(d_rate)} samples/s, "
        f"the best setting found ({line or f'num_workers={workers}'}) {_fmt(b_rate)} samples/s "
        f"({speedup:.2f}×)."
    )
    if on_accel:
        measured += (
            f" The model step on {device} alone could take {_fmt(compute_rate)} samples/s, so with the "
            f"default loader it waits for data {1 - d_rate / compute_rate:.0%} of the time."
        )
    else:
        measured += " No GPU was in use, so this is the CPU's loading capacity, not a GPU waiting for data."
    if starved:
        return finding(
            "dataloader_starvation",
            Severity.WARNING,
            title=f"This machine's CPU cannot feed even {_fmt(MODEST_SAMPLES_PER_S)} small images/s",
            explanation=(
                measured + start_txt + " Even the best setting stays below a modest rate, so loading "
                "will hold back training on this machine whatever the GPU: make per-sample work cheaper "
                "(decode once and cache, smaller images, GPU-side augmentation), read from faster "
                "storage, or use a machine with more CPU cores."
            ),
            fix=line or "Use num_workers > 0.",
            actions=[python("Use this DataLoader", line)] if line else [],
            evidence=view.ev(
                facts,
                "sweep.default",
                "sweep.best",
                "sweep.compute_seconds_per_batch",
                "sweep.bound",
                "sweep.dataloader_line",
                "sweep.worker_startup",
            ),
        )
    return finding(
        "dataloader_starvation",
        Severity.INFO,
        title=f"This machine can feed about {_fmt(b_rate)} samples/s with {workers} DataLoader worker(s)",
        explanation=(
            measured + start_txt + " This is a measurement of this machine, not of your pipeline: "
            "your own dataset's cost per sample decides; the Your script step measures that."
        ),
        fix=f"{line}\nand move each batch with .to(device, non_blocking=True)." if line else "Use num_workers > 0.",
        actions=[
            python(
                "Use this DataLoader" if on_accel else "Use this DataLoader (on a GPU machine, re-measure)",
                line,
                note="Move each batch with .to(device, non_blocking=True).",
            )
        ]
        if line
        else [],
        evidence=view.ev(
            facts,
            "sweep.default",
            "sweep.best",
            "sweep.compute_seconds_per_batch",
            "sweep.bound",
            "sweep.dataloader_line",
            "sweep.worker_startup",
        ),
    )


# ---- benchmark ------------------------------------------------------------------------------------------


def _variants(facts: Facts, device: str) -> dict[str, dict[str, Any]]:
    return {
        str(r.get("variant")): r
        for r in facts.value("bench.variants", []) or []
        if isinstance(r, dict) and r.get("device") == device and _num(r.get("images_per_s"))
    }


def _settings(facts: Facts, device: str) -> dict[str, Any]:
    return next(
        (s for s in facts.value("bench.settings", []) or [] if isinstance(s, dict) and s.get("device") == device), {}
    )


def _accel_devices(facts: Facts) -> list[str]:
    seen: dict[str, None] = {}
    for r in facts.value("bench.variants", []) or []:
        if isinstance(r, dict) and _accel(r.get("device")):
            seen.setdefault(str(r["device"]), None)
    return list(seen)


@rule("amp_tf32_not_used")
def amp_tf32_not_used(facts: Facts) -> Finding | None:
    for dev in _accel_devices(facts):
        if not dev.startswith("cuda"):
            continue
        v = _variants(facts, dev)
        fp32, amp = v.get("fp32"), v.get("amp")
        if not fp32 or not amp:
            continue
        gain = float(amp["images_per_s"]) / float(fp32["images_per_s"])
        st = _settings(facts, dev)
        if gain < AMP_MIN_SPEEDUP or st.get("float32_matmul_precision") not in (None, "highest"):
            continue
        return finding(
            "amp_tf32_not_used",
            Severity.INFO,  # measured on gpuassist's CNN: a measurement
            explanation=(
                f"On {dev} (compute capability {st.get('capability', '?')}) the benchmark CNN trains at "
                f"{_fmt(float(fp32['images_per_s']))} images/s in FP32 and {_fmt(float(amp['images_per_s']))} "
                f"images/s with autocast ({gain:.2f}x). FP32 matmul precision is "
                f"'{st.get('float32_matmul_precision', 'highest')}', so tensor cores sit idle in FP32 code."
            ),
            fix=AUTOCAST_SNIPPET,
            actions=AUTOCAST_ACTIONS,
            evidence=[Evidence("bench.variants", [fp32, amp]), Evidence("bench.settings", st)],
        )
    return None


@rule("cudnn_benchmark_off")
def cudnn_benchmark_off(facts: Facts) -> Finding | None:
    for dev in _accel_devices(facts):
        v = _variants(facts, dev)
        fp32, tuned = v.get("fp32"), v.get("cudnn_benchmark")
        st = _settings(facts, dev)
        if not fp32 or not tuned or st.get("cudnn_benchmark") is not False:
            continue
        gain = float(tuned["images_per_s"]) / float(fp32["images_per_s"])
        if gain < CUDNN_MIN_SPEEDUP:
            continue
        return finding(
            "cudnn_benchmark_off",
            Severity.INFO,  # measured on gpuassist's CNN: a measurement
            explanation=(
                f"torch.backends.cudnn.benchmark is False. With it on, the benchmark CNN on {dev} runs at "
                f"{_fmt(float(tuned['images_per_s']))} instead of {_fmt(float(fp32['images_per_s']))} "
                f"images/s ({gain:.2f}x): cuDNN picks the fastest convolution algorithm for fixed shapes."
            ),
            fix="torch.backends.cudnn.benchmark = True   # once at start-up; only when input shapes stay fixed",
            evidence=[Evidence("bench.variants", [fp32, tuned]), Evidence("bench.settings", st)],
        )
    return None


@rule("host_device_sync_in_loop")
def host_device_sync_in_loop(facts: Facts) -> Finding | None:
    for dev in _accel_devices(facts):
        v = _variants(facts, dev)
        fp32, synced = v.get("fp32"), v.get("sync_each_step")
        if not fp32 or not synced:
            continue
        cost = 1 - float(synced["images_per_s"]) / float(fp32["images_per_s"])
        if cost < SYNC_MIN_COST:
            continue
        return finding(
            "host_device_sync_in_loop",
            Severity.INFO,
            title="Reading a GPU value every step costs throughput here",
            explanation=(
                f"Measured on {dev}: calling loss.item() after every step (what per-step logging does) "
                f"drops the benchmark CNN from {_fmt(float(fp32['images_per_s']))} to "
                f"{_fmt(float(synced['images_per_s']))} images/s ({cost:.0%} slower): the CPU waits for the "
                "GPU, then the GPU waits for the CPU."
            ),
            fix=(
                "running = torch.zeros((), device=device)\n"
                "for step, (x, y) in enumerate(loader):\n"
                "    ...\n"
                "    running += loss.detach()\n"
                "    if step % 100 == 0:\n"
                "        print(running.item() / 100); running.zero_()\n"
                "Avoid print(tensor), .cpu(), .nonzero() and torch.cuda.synchronize() inside the loop."
            ),
            actions=[
                python(
                    "Add up the loss on the GPU; read it every 100 steps",
                    "running = torch.zeros((), device=device)\n"
                    "for step, (x, y) in enumerate(loader):\n"
                    "    loss = loss_fn(model(x), y)  # your step\n"
                    "    running += loss.detach()\n"
                    "    if step % 100 == 0:\n"
                    "        print(running.item() / 100)\n"
                    "        running.zero_()",
                    note="Avoid print(tensor), .cpu(), .nonzero() and torch.cuda.synchronize() inside the loop.",
                )
            ],
            evidence=[Evidence("bench.variants", [fp32, synced])],
        )
    return None


@rule("small_batch_launch_bound")
def small_batch_launch_bound(facts: Facts) -> Finding | None:
    rows = [
        r
        for r in facts.value("bench.scaling", []) or []
        if isinstance(r, dict) and _accel(r.get("device")) and _num(r.get("images_per_s")) and _num(r.get("step_ms"))
    ]
    for dev in dict.fromkeys(str(r["device"]) for r in rows):
        mine = sorted((r for r in rows if r["device"] == dev), key=lambda r: r["batch_size"])
        if len(mine) < 2:
            continue
        small, peak = mine[0], max(mine, key=lambda r: r["images_per_s"])
        nxt = mine[1]
        batch_ratio = nxt["batch_size"] / small["batch_size"]
        time_ratio = nxt["step_ms"] / small["step_ms"]
        if peak["images_per_s"] < 2.5 * small["images_per_s"] or time_ratio > 0.5 * batch_ratio:
            continue
        enough = next((r for r in mine if r["images_per_s"] >= 0.8 * peak["images_per_s"]), peak)
        return finding(
            "small_batch_launch_bound",
            Severity.INFO,
            explanation=(
                f"On {dev}, batch {small['batch_size']} takes {small['step_ms']:.2f} ms per step and batch "
                f"{nxt['batch_size']} {nxt['step_ms']:.2f} ms: {batch_ratio:.0f}x the work for "
                f"{time_ratio:.1f}x the time, so small batches are bound by launching kernels, not by the "
                f"GPU. Throughput rises from {_fmt(small['images_per_s'])} to "
                f"{_fmt(peak['images_per_s'])} images/s at batch {peak['batch_size']}."
            ),
            fix=(
                f"Use a batch of at least {enough['batch_size']} if memory allows (scale the learning rate with it), "
                "or cut launch overhead: model = torch.compile(model) (mode='reduce-overhead' uses CUDA graphs)."
            ),
            actions=[
                python(
                    f"Use a batch of at least {enough['batch_size']} if memory allows",
                    f"loader = DataLoader(dataset, batch_size={enough['batch_size']}, shuffle=True)",
                    note="Scale the learning rate with the batch size.",
                ),
                python(
                    "Or cut the launch overhead with CUDA graphs",
                    "model = torch.compile(model, mode='reduce-overhead')",
                    option=2,
                ),
            ],
            evidence=[Evidence("bench.scaling", mine)],
        )
    return None


@rule("thermal_power_throttling")
def thermal_power_throttling(facts: Facts) -> Finding | None:
    samples = facts.value("bench.gpu_samples") or []
    hits: dict[int, dict[str, Any]] = {}
    for s in samples:
        for g in (s.get("gpus") or []) if isinstance(s, dict) else []:
            reasons = g.get("throttle_reasons")
            if not isinstance(reasons, int):
                continue
            names = [n for bit, n in THROTTLE_BITS.items() if reasons & bit]
            if names:
                entry = hits.setdefault(
                    int(g.get("index", 0)),
                    {"reasons": set(), "temperature_c": None, "power_w": None, "power_limit_w": None},
                )
                entry["reasons"].update(names)
                for k in ("temperature_c", "power_w", "power_limit_w"):
                    if g.get(k) is not None:
                        entry[k] = g[k]
    if not hits:
        return None
    index, h = next(iter(hits.items()))
    speed = facts.value("bench.speedup") or {}
    sp = next((v for v in speed.values() if _num(v)), None)
    return finding(
        "thermal_power_throttling",
        Severity.WARNING,
        explanation=(
            f"While the benchmark ran, GPU {index} reported {', '.join(sorted(h['reasons']))} "
            f"(temperature {h['temperature_c']} °C, power {h['power_w']} W of {h['power_limit_w']} W): "
            "its clocks were cut to protect the hardware"
            + (f"; the measured speed-up over the CPU ({float(sp):.1f}x) is lower than it should be." if sp else ".")
        ),
        fix=(
            "Improve cooling and airflow (clean fans and heatsink, case airflow, room temperature), check the power "
            "cables and PSU, and watch `nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER` under load."
        ),
        evidence=[Evidence("bench.gpu_samples", samples[-3:])],
    )
