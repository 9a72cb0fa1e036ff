"""How facts read on a wizard page: numbers, tables and plain words, never raw JSON, "{}" or "[]".

Qt-free, so the pages stay thin and the wording is tested without a GUI. A page asks
:func:`step_blocks` for what to show under its findings and renders each block generically:

* :class:`KeyValues` — a label/value list ("What was found"),
* :class:`Table` — columns and rows of text, one row optionally highlighted (the chosen setting),
* :class:`Code` — a line to copy (the DataLoader(...) line, a fix),
* :class:`Absent` — what is not there and why ("variants are measured on accelerators only"),
* :class:`Series` — a small x/y plot (batch-size scaling), always paired with a table of the same numbers.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from gpuassist.audit.run_blocks import run_blocks
from gpuassist.audit.run_rules import SYNC_WORDS
from gpuassist.facts import NotCollected, from_jsonable
from gpuassist.knowledge.pcie import pcie_theoretical_gbps
from gpuassist.knowledge.wheels import cuda_int_to_str
from gpuassist.report.blocks import (
    Absent,
    Block,
    Code,
    KeyValues,
    Series,
    Table,
    as_number,
    fmt_bool,
    fmt_bytes,
    fmt_num,
    fmt_seconds,
)
from gpuassist.report.model import Report
from gpuassist.report.render import verdict
from gpuassist.report.tiers import tiers
from gpuassist.step_table import TABLE


def _plain(value: Any) -> str:
    """Any value in words: lists joined, dicts as "key: value" pairs; never JSON brackets."""
    value = from_jsonable(value)
    if isinstance(value, NotCollected):
        return str(value)
    if value is None:
        return "none"
    if isinstance(value, bool):
        return fmt_bool(value)
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(_plain(v) for v in value) if value else "none"
    if isinstance(value, Mapping):
        if not value:
            return "none"
        return "; ".join(f"{k}: {_plain(v)}" for k, v in value.items())
    text = str(value)
    return text if len(text) <= 600 else text[:599] + "…"


def _cuda(value: Any) -> str:

    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return cuda_int_to_str(value)
    if isinstance(value, str) and value:
        return value
    return "unknown"


def _cudnn(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        if value >= 10000:  # cuDNN 9+: major*10000 + minor*100 + patch
            return f"{value // 10000}.{(value % 10000) // 100}.{value % 100}"
        return f"{value // 1000}.{(value % 1000) // 100}.{value % 100}"
    return _plain(value)


def _status_words(value: Any) -> str:
    if value == "ok":
        return "ok"
    return str(value).replace("_", " ") if isinstance(value, str) else _plain(value)


def _times(value: Any) -> str:
    x = as_number(value)
    return f"{x:.2f}×" if x is not None else _plain(value)


def _bound(value: Any) -> str:
    return {
        "loader": "loader-bound: the model waits for data",
        "compute": "compute-bound: data arrives as fast as the model can use it",
    }.get(str(value), _plain(value))


# -- a script run's evidence (run.* facts on a finding card): the numbers in words


def _of_dict(words: Callable[[dict[str, Any]], str]) -> Callable[[Any], str]:
    """A formatter of a fact whose value is a dict; any other value (could not collect, an older layout) is
    shown in plain words."""

    def show_value(value: Any) -> str:
        return words(value) if isinstance(value, dict) else _plain(value)

    return show_value


def _site(site: Any) -> str:
    if not isinstance(site, dict) or not site.get("file"):
        return "an unknown line"
    return f"{site['file']}:{site.get('line')}"


def _site_with_code(site: Any) -> str:
    code = site.get("code") if isinstance(site, dict) else None
    return _site(site) + (f"  ({code})" if code else "")


def _by_device(value: Any) -> str:
    if not isinstance(value, dict) or not value:
        return _plain(value)
    total = sum(float(as_number(v) or 0) for v in value.values())
    return ", ".join(
        f"{d} {fmt_num(n, 0)}" + (f" ({100 * float(as_number(n) or 0) / total:.0f} %)" if total else "")
        for d, n in sorted(value.items(), key=lambda kv: -float(as_number(kv[1]) or 0))
    )


@_of_dict
def _first_forward(value: dict[str, Any]) -> str:
    params = ", ".join(f"{d} ({fmt_num(n, 0)} values)" for d, n in (value.get("param_devices") or {}).items())
    inputs = "; ".join(
        f"{i.get('device')} {'×'.join(map(str, i.get('shape') or []))} {i.get('dtype')}"
        for i in _rows(value.get("inputs"))
    )
    return (
        f"{value.get('module')} at {_site_with_code(value.get('site'))}: parameters on {params or 'none'}; "
        f"inputs {inputs or 'none'}"
    )


@_of_dict
def _exception(value: dict[str, Any]) -> str:
    at = f" at {_site_with_code(value.get('site'))}" if value.get("site") else ""
    return f"{value.get('type')}: {value.get('message')}{at}"


def _syncs(value: Any) -> str:

    return (
        "; ".join(
            f"{_site(s.get('site'))} {SYNC_WORDS.get(str(s.get('kind')), s.get('kind'))} on "
            f"{s.get('device')}: {fmt_num(s.get('count'), 0)} times in {fmt_num(s.get('steps'), 0)} steps"
            for s in _rows(value)
        )
        or "none"
    )


@_of_dict
def _loader(value: dict[str, Any]) -> str:
    return (
        f"{_site(value.get('site'))}: batch {value.get('batch_size')}, num_workers={value.get('num_workers')}, "
        f"pin_memory={value.get('pin_memory')}; waited {fmt_seconds(value.get('wait_seconds'))} in all, first "
        f"batch {fmt_seconds(value.get('startup_seconds'))}"
    )


@_of_dict
def _steady(value: dict[str, Any]) -> str:
    return (
        f"{fmt_num(value.get('steps'), 0)} steps took {fmt_seconds(value.get('step_seconds'))}: "
        f"{fmt_seconds(value.get('wait_seconds'))} waiting for data, "
        f"{fmt_seconds(value.get('instrumentation_seconds'))} gpuassist's instruments"
    )


@_of_dict
def _per_step(value: dict[str, Any]) -> str:
    return (
        f"{fmt_seconds(value.get('seconds'))} per step, {fmt_seconds(value.get('data_wait'))} of it waiting for "
        f"data; {fmt_num(value.get('ops'), 0)} operators ({fmt_num(value.get('accel_ops'), 0)} on a GPU); "
        f"{fmt_num(value.get('h2d'), 0)} copies to the device ({fmt_bytes(value.get('h2d_bytes'))}), "
        f"{fmt_num(value.get('d2h'), 0)} back; {fmt_num(value.get('syncs'), 0)} host waits; first step "
        f"{fmt_seconds(value.get('first_step_seconds'))}"
    )


def _compute(value: Any) -> str:
    rows = [value] if isinstance(value, dict) else _rows(value)  # one operator, or the list of them
    return (
        "; ".join(
            f"{c.get('op')} {c.get('dtype')} on {c.get('device')}: {fmt_num(c.get('count'), 0)} calls" for c in rows
        )
        or "none"
    )


def _torch_import(value: Any) -> str:
    error = value.get("import_error") if isinstance(value, dict) and "import_error" in value else value
    if isinstance(error, dict) and error.get("type"):
        return f"{error.get('type')}: {error.get('message')}"
    return _plain(value)


@_of_dict
def _run_settings(value: dict[str, Any]) -> str:
    text = (
        f"cudnn.benchmark {fmt_bool(value.get('cudnn_benchmark'))}, float32 matmul precision "
        f"{value.get('float32_matmul_precision')}, TF32 matmul {fmt_bool(value.get('cuda_matmul_allow_tf32'))} / "
        f"cuDNN {fmt_bool(value.get('cudnn_allow_tf32'))}, autocast {fmt_bool(value.get('autocast_seen'))}"
    )
    if isinstance(value.get("compile"), dict):
        text += ", torch.compile used"
    return text


def _per_op(value: Any) -> str:
    x = as_number(value)
    return "—" if x is None else f"{x * 1e6:.1f} µs added to each operator"


RUN_FORMATTERS: dict[str, Callable[[Any], str]] = {
    "run.location": _site,
    "run.data.wait_share": lambda v: f"{100 * x:.0f} % of each step" if (x := as_number(v)) is not None else _plain(v),
    "run.ops.by_device": _by_device,
    "run.first_forward": _first_forward,
    "run.exception": _exception,
    "run.syncs": _syncs,
    "run.data.loader": _loader,
    "run.data.steady": _steady,
    "run.steps.per_step": _per_step,
    "run.ops.compute": _compute,
    "run.torch": _torch_import,
    "run.instrumentation.per_op_seconds": _per_op,
    "run.settings": _run_settings,
}

# What None means for a key: "looked, found nothing" in the words of that fact.
NONE_WORDS = {
    "driver.version": "not found (no NVIDIA driver answered)",
    "driver.cuda_version": "unknown (no driver answered)",
    "cuda.driver_version": "unknown",
    "torch.cuda_build": "none: a CPU-only build",
    "torch.arch_list": "none: a CPU-only build",
    "torch.cudnn_version": "none",
    "torch.import_error": "no error",
    "cuda.init_error": "no error",
    "platform.container": "no",
    "platform.wsl": "no",
    "torch.version": "not installed",
}

FORMATTERS: dict[str, Callable[[Any], str]] = {
    "driver.cuda_version": _cuda,
    "cuda.driver_version": _cuda,
    "nvml.cuda_driver_version": _cuda,
    "torch.cudnn_version": _cudnn,
    "nvml.status": _status_words,
    "smi.status": _status_words,
    "probe.outcome": _status_words,
    "sweep.speedup_vs_default": _times,
    "sweep.bound": _bound,
    "sweep.load_seconds_per_batch": fmt_seconds,
    "sweep.compute_seconds_per_batch": fmt_seconds,
    "bandwidth.host_memcpy_gbps": lambda v: fmt_num(v, 1, "GB/s"),
    "torch.import_seconds": lambda v: fmt_num(v, 2, "s"),
    **RUN_FORMATTERS,
}


# What a fact is, in words, where a person reads evidence (the raw key stays in the JSON).
FACT_LABELS: dict[str, str] = {
    **{key: label for info in TABLE for label, key in info.key_facts},
    "nvml.status": "NVIDIA management library (NVML)",
    # the value already starts "line N: ...": the generic "<topic>: <name>" label would print "Pasted: line line N"
    "pasted.line": "Pasted text",
    "nvml.gpus": "GPUs NVML reports",
    "dev.nodes": "NVIDIA device files in /dev",
    "pci.display_devices": "Display devices on the PCI bus",
    "kernel.modules": "Loaded kernel modules",
    "cuda.init_warnings": "Warnings when torch initialised CUDA",
    "cuda.init_error": "CUDA initialisation error",
    "devices": "Devices torch sees",
    "env.CUDA_VISIBLE_DEVICES": "CUDA_VISIBLE_DEVICES",
    "env.LD_LIBRARY_PATH": "LD_LIBRARY_PATH",
    "torch.dists": "torch installations found",
    "host.cpu_count": "CPU cores",
    "sweep.default": "Default DataLoader (num_workers=0)",
    "sweep.best": "Best DataLoader setting",
    "sweep.worker_startup": "Worker start-up time",
    "bench.variants": "CNN benchmark variants",
    "bench.settings": "Settings during the benchmark",
    "placement.mismatch": "Device mismatch (reproduced on purpose)",
    "placement.checks": "Placement checks",
    "bandwidth.rows": "Copy bandwidth",
}
_PREFIX_WORDS = {
    "pci": "PCI",
    "nvml": "NVML",
    "dev": "/dev",
    "smi": "nvidia-smi",
    "torch": "torch",
    "cuda": "CUDA",
    "driver": "driver",
    "host": "host",
    "kernel": "kernel",
    "sweep": "DataLoader sweep",
    "bench": "CNN benchmark",
    "placement": "device placement",
    "python": "Python",
    "platform": "platform",
    "env": "environment",
    "run": "your script's run",
    "audit": "your script",
    "probe": "probe",
    "mps": "Apple MPS",
    "envs": "environments",
    "bandwidth": "copy bandwidth",
    "scheduler": "job scheduler",
    "container": "container",
    "wsl": "WSL",
}


def fact_label(key: str) -> str:
    """A fact's name in words: the pages' own label, else "<topic>: <name>" ("NVML: status")."""
    if key in FACT_LABELS:
        return FACT_LABELS[key]
    head, _, rest = key.partition(".")
    words = rest.replace("_", " ").replace(".", " ") if rest else ""
    topic = _PREFIX_WORDS.get(head, head)
    text = f"{topic}: {words}" if words else topic
    return text[:1].upper() + text[1:]


def show(key: str, value: Any) -> str:
    """The text a page shows for one fact: NotCollected as "could not collect (why)", booleans as yes/no,
    None in the words of that fact, versions decoded (12040 → "12.4")."""
    value = from_jsonable(value)
    if isinstance(value, NotCollected):
        return str(value)
    if value is None:
        return NONE_WORDS.get(key, "none")
    formatter = FORMATTERS.get(key)
    if formatter is not None:
        return formatter(value)
    return _plain(value)


# --------------------------------------------------------------------------------------------------------
# per-step views


def _get(facts: Mapping[str, Any], key: str) -> Any:
    return from_jsonable(facts[key]) if key in facts else None


def _rows(value: Any) -> list[dict[str, Any]]:
    return [r for r in value if isinstance(r, dict)] if isinstance(value, list) else []


def _outcome_block(facts: Mapping[str, Any], test: str) -> list[Block]:
    outcome = _get(facts, f"{test}.outcome")
    if outcome in (None, "ok"):
        return []
    words = _status_words(outcome)
    if outcome == "crashed":  # "crashed (SIGSEGV in stage import_torch)", as the finding says it
        how = _get(facts, f"{test}.signal") or f"exit status {_get(facts, f'{test}.returncode')}"
        words = f"crashed ({how} in stage {_get(facts, f'{test}.failed_stage')})"
    rows = [("Outcome", words)]
    for label, key in (
        ("Failed at stage", "failed_stage"),
        ("Error", "error"),
        ("Import error", "import_error"),
        ("Time limit (s)", "limit_seconds"),
    ):
        v = _get(facts, f"{test}.{key}")
        if v not in (None, "", []) and not isinstance(v, NotCollected):
            rows.append((label, _plain(v)))
    return [KeyValues("How the test ended", rows)]


def _norm_bus(bus: Any) -> str:
    """ "00000000:01:00.0" (NVML) and "0000:01:00.0" (torch) name the same device."""
    if not isinstance(bus, str) or ":" not in bus:
        return ""
    domain, rest = bus.lower().split(":", 1)
    return f"{int(domain, 16) if domain.strip() else 0:x}:{rest}"


def theoretical_gbps(facts: Mapping[str, Any]) -> dict[str, tuple[float, str]]:
    """{device: (theoretical GB/s per direction, "PCIe Gen4 x16")} from NVML's maximum link, matched by
    PCI bus id (evidence-only, as in the rules' ``pcie.theoretical_gbps``)."""

    gpus = _get(facts, "nvml.gpus")
    devices = _rows(_get(facts, "placement.devices"))
    by_bus = {_norm_bus(g.get("pci_bus_id")): g for g in _rows(gpus)}
    out: dict[str, tuple[float, str]] = {}
    for d in devices:
        g = by_bus.get(_norm_bus(d.get("pci_bus_id")))
        if g is None:
            continue
        gen, width = g.get("pcie_gen_max"), g.get("pcie_width_max")
        rate = pcie_theoretical_gbps(gen, width)
        if rate:
            out[str(d.get("device"))] = (rate, f"PCIe Gen{gen} x{width}")
    return out


def placement_blocks(facts: Mapping[str, Any]) -> list[Block]:
    out: list[Block] = _outcome_block(facts, "placement")
    checks = _rows(_get(facts, "placement.checks"))

    def check(c: Any) -> str:
        if not isinstance(c, dict):
            return "—"
        mark = "✔" if c.get("ok") else "✖"
        err = as_number(c.get("max_abs_err"))
        return f"{mark} on {c.get('device', '?')}" + (f", max error {err:.1g}" if err is not None else "")

    if checks:
        rows = [
            [
                str(c.get("device")),
                check(c.get("tensor")),
                check(c.get("model")),
                str(c.get("param_device") or "—"),
                fmt_num((as_number(c.get("seconds")) or 0) * 1000, 1),
                "✔ correct" if c.get("ok") else f"✖ {c.get('error') or 'wrong result'}",
            ]
            for c in checks
        ]
        out.append(
            Table(
                "Correctness on each device",
                ["Device", "Matrix multiply", "Small conv model", "Model parameters on", "Time (ms)", "Result"],
                rows,
                numeric=(4,),
                note="Each result is compared with the CPU's (tolerance 1 % relative).",
            )
        )
    elif "placement.checks" in facts:
        out.append(Absent("Correctness on each device", show("placement.checks", facts["placement.checks"])))
    default = _get(facts, "placement.default_device")
    if isinstance(default, dict):
        accel = default.get("accelerators") or []
        out.append(
            KeyValues(
                "Where new tensors land by default",
                [
                    ("torch.ones(2)", str(default.get("tensor_device") or "—")),
                    ("new nn.Linear parameters", str(default.get("model_param_device") or "—")),
                    ("torch default device", str(default.get("default_device") or "—")),
                    ("accelerators torch offers", ", ".join(map(str, accel)) if accel else "none"),
                ],
                note="Nothing moves to a GPU by itself: code must call .to(device)." if accel else "",
            )
        )

    rows_bw = _rows(_get(facts, "bandwidth.rows"))
    theo = theoretical_gbps(facts)
    if rows_bw:
        combos = [("h2d", "pageable"), ("h2d", "pinned"), ("d2h", "pageable"), ("d2h", "pinned")]
        cells: dict[tuple[str, int], dict[tuple[str, str], dict[str, Any]]] = {}
        for r in rows_bw:
            cells.setdefault((str(r.get("device")), int(as_number(r.get("bytes")) or 0)), {})[
                (str(r.get("direction")), str(r.get("memory")))
            ] = r
        table_rows = []
        for (dev, size), by in cells.items():
            rate = theo.get(dev)
            row = [dev, fmt_bytes(size)]
            for combo in combos:
                cr = by.get(combo)
                gbps = as_number(cr.get("gbps")) if cr else None
                if cr is None:
                    row.append("—")
                elif cr.get("error"):
                    row.append(f"✖ {cr.get('error')}")
                else:
                    row.append(fmt_num(gbps, 1) + (f"  ({100 * gbps / rate[0]:.0f} %)" if rate and gbps else ""))
            table_rows.append(row)
        links = "; ".join(f"{dev}: {name} = {rate:.1f} GB/s per direction" for dev, (rate, name) in theo.items())
        note = "GB/s, best of repeats" + (
            f"; (%) of the theoretical link rate — {links}."
            if links
            else "; theoretical rate unknown: NVML did not report the PCIe link."
        )
        memcpy = as_number(_get(facts, "bandwidth.host_memcpy_gbps"))
        if memcpy is not None:
            note += f" Host memcpy (CPU → CPU) for reference: {memcpy:.1f} GB/s."
        out.append(
            Table(
                "Host ↔ device copy bandwidth (GB/s)",
                [
                    "Device",
                    "Size",
                    "host → device pageable",
                    "host → device pinned",
                    "device → host pageable",
                    "device → host pinned",
                ],
                table_rows,
                numeric=(1, 2, 3, 4, 5),
                note=note,
            )
        )
    elif "bandwidth.rows" in facts or "bandwidth.skipped" in facts:
        why = _get(facts, "bandwidth.skipped") or "no accelerator was tested"
        memcpy = as_number(_get(facts, "bandwidth.host_memcpy_gbps"))
        text = f"No host ↔ device copies measured: {why}."
        if memcpy is not None:
            text += f" Host memcpy (CPU → CPU): {memcpy:.1f} GB/s."
        out.append(Absent("Host ↔ device copy bandwidth", text.replace("..", ".")))

    transfer = _get(facts, "placement.transfer")
    if isinstance(transfer, list) and _rows(transfer):
        rows = [
            [
                str(t.get("device")),
                "×".join(map(str, t.get("batch_shape") or [])) or "—",
                fmt_bytes(t.get("batch_bytes")),
                fmt_num(t.get("resident_ms"), 2),
                fmt_num(t.get("pageable_ms"), 2),
                fmt_num(t.get("pinned_ms"), 2),
                fmt_num(t.get("pinned_non_blocking_ms"), 2),
                fmt_num(t.get("move_overhead_pct"), 0, "%"),
            ]
            for t in _rows(transfer)
        ]
        out.append(
            Table(
                "Cost of copying each batch (ms per forward step)",
                [
                    "Device",
                    "Batch",
                    "Size",
                    "Already on device",
                    "Pageable copy",
                    "Pinned copy",
                    "Pinned, non_blocking",
                    "Copy overhead",
                ],
                rows,
                numeric=(2, 3, 4, 5, 6, 7),
            )
        )
    elif isinstance(transfer, NotCollected):
        out.append(Absent("Cost of copying each batch", f"Not measured: {transfer.reason}."))

    mismatch = _get(facts, "placement.mismatch")
    if isinstance(mismatch, dict):
        mm: list[tuple[str, str]] = [
            ("What was run", str(mismatch.get("operation") or "—")),
            ("Reproduced", fmt_bool(mismatch.get("reproduced"))),
        ]
        if mismatch.get("error_text"):
            mm.append(("Error raised here", f"{mismatch.get('error_type') or 'Error'}: {mismatch['error_text']}"))
        if mismatch.get("typical_text"):
            mm.append(("What it looks like on a GPU", str(mismatch["typical_text"])))
        if mismatch.get("after_fix_device"):
            mm.append(("After the fix, the output is on", str(mismatch["after_fix_device"])))
        note = (
            (
                "No accelerator here: PyTorch's 'meta' device stood in for the GPU, so the error text differs "
                "from what a GPU machine shows."
            )
            if mismatch.get("stand_in")
            else ""
        )
        out.append(KeyValues("The device-mismatch error, reproduced on purpose", mm, note=note))
        # its fix (with Copy) is on the tensors_on_different_devices finding card above
    return out


def _measured_speedup(facts: Mapping[str, Any]) -> float | None:
    """Best over default samples/s from the two rows the table shows, so the text, the line and the table
    say the same number (not a second rounding of ``sweep.speedup_vs_default``)."""
    default, best = _get(facts, "sweep.default"), _get(facts, "sweep.best")
    d = as_number(default.get("samples_per_s")) if isinstance(default, dict) else None
    b = as_number(best.get("samples_per_s")) if isinstance(best, dict) else None
    return b / d if d and b else as_number(_get(facts, "sweep.speedup_vs_default"))


def _ms(value: Any) -> str:
    """One unit in a column (0.14 s and 99.94 ms side by side read as a mistake)."""
    x = as_number(value)
    return "—" if x is None else f"{x * 1000:,.0f} ms" if x >= 0.01 else f"{x * 1000:.2f} ms"


def sweep_blocks(facts: Mapping[str, Any]) -> list[Block]:
    out: list[Block] = _outcome_block(facts, "sweep")
    line = _get(facts, "sweep.dataloader_line")
    speedup = _measured_speedup(facts)
    bound = _get(facts, "sweep.bound")
    load = as_number(_get(facts, "sweep.load_seconds_per_batch"))
    compute = as_number(_get(facts, "sweep.compute_seconds_per_batch"))
    if isinstance(line, str) and line:
        bits = []
        if speedup is not None:
            bits.append(
                f"{speedup:.2f}× the default DataLoader (num_workers=0)"
                + (": the default is already the fastest here" if speedup < 1.05 else "")
            )
        if bound in ("loader", "compute"):
            bits.append(_bound(bound))
        note = "; ".join(bits)
        out.append(Code("Use this DataLoader", line, note=note[:1].upper() + note[1:] + "." if note else ""))
    rows_kv = []
    if bound is not None:
        rows_kv.append(("Bottleneck", _bound(bound)))
    if load is not None:
        rows_kv.append(("Building one batch (main process)", fmt_seconds(load)))
    if compute is not None:
        rows_kv.append(("One model step (batch on the device)", fmt_seconds(compute)))
    if speedup is not None:
        rows_kv.append(("Speed-up over the default", f"{speedup:.2f}×"))
    if rows_kv:
        out.append(KeyValues("Loader or compute?", rows_kv))

    trials = _rows(_get(facts, "sweep.trials"))
    raw_config = _get(facts, "sweep.config")
    config: dict[str, Any] = raw_config if isinstance(raw_config, dict) else {}
    batch = as_number(config.get("batch_size"))
    best = _get(facts, "sweep.best")
    keys = ("num_workers", "pin_memory", "persistent_workers", "prefetch_factor")

    def same(a: Any, b: Any) -> bool:
        return isinstance(a, dict) and isinstance(b, dict) and all(a.get(k) == b.get(k) for k in keys)

    if trials:
        default = _get(facts, "sweep.default")
        base = as_number(default.get("samples_per_s")) if isinstance(default, dict) else None
        order = sorted(trials, key=lambda r: -(as_number(r.get("samples_per_s")) or 0))
        rows = []
        highlight = None
        for i, r in enumerate(order):
            rate = as_number(r.get("samples_per_s"))
            approx = "≈ " if r.get("aborted") else ""
            pf = r.get("prefetch_factor")
            rows.append(
                [
                    str(r.get("num_workers")),
                    fmt_bool(r.get("pin_memory")),
                    fmt_bool(r.get("persistent_workers")),
                    "—" if pf is None else str(pf),
                    approx + (fmt_num(rate / batch, 1) if rate is not None and batch else "—"),
                    approx + fmt_num(rate, 0),
                    _ms(r.get("first_batch_s")),
                    f"{rate / base:.2f}×" if rate is not None and base else "—",
                ]
            )
            if highlight is None and same(r, best):
                highlight = i
        note = "The highlighted row is the setting chosen (the fastest complete trial)."
        if any(r.get("aborted") for r in trials):
            note += " ≈ abandoned after one epoch because it was clearly slower (rate projected)."
        search = _get(facts, "sweep.search")
        if isinstance(search, dict) and search.get("mode") == "adaptive" and isinstance(search.get("adaptive"), dict):
            a = search["adaptive"]
            note += (
                f" Adaptive search: {a.get('trials')} of {search.get('grid_size')} settings tried in "
                f"{fmt_num(a.get('seconds'), 2)} s."
            )
        out.append(
            Table(
                "Settings tried",
                [
                    "num_workers",
                    "pin_memory",
                    "persistent_workers",
                    "prefetch_factor",
                    "batches/s",
                    "samples/s",
                    "first batch",
                    "vs default",
                ],
                rows,
                highlight=highlight,
                numeric=(0, 3, 4, 5, 6, 7),
                note=note,
            )
        )
    elif "sweep.trials" in facts:
        out.append(
            Absent(
                "Settings tried",
                show("sweep.trials", facts["sweep.trials"])
                if isinstance(_get(facts, "sweep.trials"), NotCollected)
                else "No trial finished.",
            )
        )
    if config:
        shape = config.get("sample_shape")
        out.append(
            KeyValues(
                "How it was measured",
                [
                    ("Device", str(config.get("device") or "—")),
                    (
                        "Dataset",
                        f"{config.get('samples')} samples of shape {'×'.join(map(str, shape or [])) or '—'}, "
                        f"batch size {config.get('batch_size')}",
                    ),
                    ("CPU cores / workers tried up to", f"{config.get('cpu_count')} / {config.get('max_workers')}"),
                    ("Worker start method", str(config.get("start_method") or "—")),
                ],
            )
        )
    return out


def _variant_name(v: Any) -> str:
    return {
        "fp32": "fp32",
        "channels_last": "channels_last",
        "amp": "AMP (fp16 autocast)",
        "cudnn_benchmark": "cudnn.benchmark",
        "sync_each_step": "loss.item() every step",
    }.get(str(v), str(v))


def bench_blocks(facts: Mapping[str, Any]) -> list[Block]:
    out: list[Block] = _outcome_block(facts, "bench")
    raw_config = _get(facts, "bench.config")
    config: dict[str, Any] = raw_config if isinstance(raw_config, dict) else {}
    results = _rows(_get(facts, "bench.results"))
    variants = _rows(_get(facts, "bench.variants"))
    devices = [str(d) for d in config.get("devices") or []]
    accelerators = [d for d in devices if d != "cpu"]
    cpu_rate = next((as_number(r.get("images_per_s")) for r in results if r.get("device") == "cpu"), None)
    rows_all = results + variants
    if rows_all:
        fastest = max(range(len(rows_all)), key=lambda i: as_number(rows_all[i].get("images_per_s")) or 0)
        rows = []
        vs_cpu = bool(variants)
        for r in rows_all:
            rate = as_number(r.get("images_per_s"))
            rows.append(
                [
                    str(r.get("device")),
                    _variant_name(r.get("variant", "fp32")),
                    str(r.get("batch_size")),
                    fmt_num(rate, 0),
                    fmt_num(r.get("step_ms"), 2),
                    f"± {fmt_num(r.get('spread_pct'), 0)} %",
                ]
                + ([f"{rate / cpu_rate:.2f}×" if rate is not None and cpu_rate else "—"] if vs_cpu else [])
            )
        note = "Median of block means after warm-up, with the device synchronised; the highlighted row is the fastest."
        out.append(
            Table(
                "Training step, per device and variant",
                ["Device", "Variant", "Batch", "images/s", "ms per step", "spread"] + (["vs CPU"] if vs_cpu else []),
                rows,
                highlight=fastest if len(rows) > 1 else None,
                numeric=(2, 3, 4, 5, 6),
                note=note,
            )
        )
    elif "bench.results" in facts:
        out.append(Absent("Training step", "No measurement finished."))

    speedup = _get(facts, "bench.speedup")
    why = (
        ("no accelerator was tested (devices: " + (", ".join(devices) or "cpu") + ")")
        if not accelerators
        else "the accelerator run did not finish"
    )
    measured = "bench.speedup" in facts or "bench.results" in facts
    if isinstance(speedup, dict) and speedup:
        out.append(
            KeyValues(
                "Accelerator vs CPU (fp32, same batch)",
                [
                    (str(dev), f"{x:.1f}× the CPU's images/s" if (x := as_number(v)) is not None else _plain(v))
                    for dev, v in speedup.items()
                ],
            )
        )
    elif measured and not variants:
        out.append(
            Absent(
                "Accelerator vs CPU, and the variants",
                f"Not measured: {why}. The speed-up over the CPU and the variants (channels_last, AMP, "
                "cudnn.benchmark, loss.item() every step) are measured on accelerators only.",
            )
        )
    elif measured:
        out.append(Absent("Accelerator vs CPU", f"Not measured: {why}."))
    if not variants and isinstance(speedup, dict) and speedup:
        out.append(
            Absent(
                "Variants (channels_last, AMP, cudnn.benchmark, loss.item() every step)",
                "Not measured: the accelerator's variant runs did not finish.",
            )
        )

    scaling = _rows(_get(facts, "bench.scaling"))
    if scaling:
        devs = list(dict.fromkeys(str(r.get("device")) for r in scaling))
        sizes = sorted({int(b) for r in scaling if (b := as_number(r.get("batch_size"))) is not None})
        cell = {(str(r.get("device")), int(as_number(r.get("batch_size")) or 0)): r for r in scaling}
        rows = []
        for b in sizes:
            row = [str(b)]
            for d in devs:
                cr = cell.get((d, b))
                row += [fmt_num(cr.get("images_per_s"), 0), fmt_num(cr.get("step_ms"), 2)] if cr else ["—", "—"]
            rows.append(row)
        columns = ["Batch size"] + [c for d in devs for c in (f"{d} images/s", f"{d} ms/step")]
        lines = {
            d: [(float(b), float(as_number(cell[(d, b)].get("images_per_s")) or 0)) for b in sizes if (d, b) in cell]
            for d in devs
        }
        out.append(Series("Batch-size scaling", "batch size", "images/s", lines, log_x=len(sizes) > 2))
        out.append(Table("Batch-size scaling", columns, rows, numeric=tuple(range(len(columns)))))
    elif "bench.scaling" in facts:
        out.append(Absent("Batch-size scaling", "Not measured."))

    profile = _get(facts, "bench.profile")
    if isinstance(profile, dict) and _rows(profile.get("top_cpu_ops")):
        dev = str(profile.get("device") or "?")
        on_accel = dev != "cpu"
        rows = [
            [str(o.get("name")), str(o.get("count")), fmt_num(o.get("self_cpu_ms"), 2)]
            + ([fmt_num(o.get("self_device_ms"), 2)] if on_accel else [])
            for o in _rows(profile.get("top_cpu_ops"))
        ]
        cpu_only = [str(x) for x in profile.get("cpu_only_ops") or []]
        syncs = _rows(profile.get("sync_ops"))
        notes = [
            f"torch.profiler over {profile.get('steps')} step(s) of batch {profile.get('batch_size')}; "
            f"total self CPU time {fmt_num(profile.get('self_cpu_ms_total'), 2)} ms."
        ]
        if on_accel:
            notes.append(
                "Compute operators that launched no device kernel: "
                + (", ".join(cpu_only) if cpu_only else "none")
                + "."
            )
            notes.append(
                "Synchronising calls per step: "
                + (", ".join(f"{s.get('name')} ×{fmt_num(s.get('per_step'), 1)}" for s in syncs) if syncs else "none")
                + "."
            )
        else:
            notes.append("No accelerator: profiled on the CPU, so there is no device time to compare.")
        title = f"CPU operators during the {dev} run" if on_accel else "CPU operators (profiled on the CPU)"
        columns = ["Operator", "Calls", "Self CPU (ms)"] + (["Self device (ms)"] if on_accel else [])
        out.append(Table(title, columns, rows, numeric=(1, 2, 3), note=" ".join(notes)))
    elif isinstance(profile, NotCollected):
        out.append(Absent("Profiler summary", str(profile).capitalize() + "."))

    settings = _rows(_get(facts, "bench.settings"))
    if settings:
        rows = [
            [
                str(s.get("device")),
                fmt_bool(s.get("cudnn_benchmark")),
                fmt_bool(s.get("cuda_matmul_allow_tf32")),
                fmt_bool(s.get("cudnn_allow_tf32")),
                str(s.get("float32_matmul_precision") or "—"),
            ]
            for s in settings
        ]
        out.append(
            Table(
                "Settings your code would start with",
                ["Device", "cudnn.benchmark", "TF32 matmul", "TF32 cuDNN", "float32 matmul precision"],
                rows,
            )
        )
    if config:
        shape = "×".join(map(str, config.get("input") or []))
        how = []
        if config.get("model"):
            how.append(
                (
                    "Model",
                    f"{config['model']}, {fmt_num(config.get('parameters'), 0)} parameters"
                    + (f", input {shape}" if shape else ""),
                )
            )
        if config.get("optimizer") or config.get("batch_size"):
            how.append(("Optimizer / batch", f"{config.get('optimizer') or '—'}, batch {config.get('batch_size')}"))
        if config.get("warmup") is not None:
            how.append(
                (
                    "Warm-up / minimum time",
                    f"{config.get('warmup')} step(s) / {fmt_num(config.get('min_seconds'), 2)} s per measurement",
                )
            )
        if config.get("cpu_threads") is not None:
            how.append(("CPU threads", str(config.get("cpu_threads"))))
        if how:
            out.append(KeyValues("How it was measured", how))
    return out


def script_blocks(facts: Mapping[str, Any]) -> list[Block]:
    """What the script audit read: the file, what it is, and what the reader should know about it; when the
    script was also run, what the run measured (:mod:`gpuassist.audit.run_blocks`)."""
    out: list[Block] = []
    summary = _get(facts, "audit.summary")
    for f in _rows(_get(facts, "audit.files")):
        rows = [
            ("File", str(f.get("path"))),
            ("Kind", "notebook" if f.get("kind") == "notebook" else "script"),
            ("Audited", "yes" if f.get("audited", True) else "no: " + "; ".join(map(str, f.get("notes") or []))),
        ]
        skipped = [c for c in f.get("skipped_cells") or [] if isinstance(c, dict)]
        if skipped:
            rows.append(("Cells not read", "; ".join(f"cell {c.get('cell')}: {c.get('reason')}" for c in skipped)))
        for note in f.get("notes") or []:
            if f.get("audited", True):
                rows.append(("Note", str(note)))
        if isinstance(summary, dict):
            found = [f"{n} {sev}" for sev, n in summary.items() if n]
            rows.append(("Found by reading it", ", ".join(found) if found else "nothing that keeps work off the GPU"))
        note = (
            "Read, not run: the audit follows models, loaders, batches and devices through the code."
            if "run.command" not in facts
            else "Read first (the code itself); then run: what it did is below."
        )
        out.append(KeyValues("What was read", rows, note=note))

    return out + run_blocks(facts)


STEP_VIEWS: dict[str, Callable[[Mapping[str, Any]], list[Block]]] = {
    "placement": placement_blocks,
    "dataloader": sweep_blocks,
    "benchmark": bench_blocks,
    "script": script_blocks,
}


def step_blocks(step_id: str, facts: Mapping[str, Any], key_facts: list[tuple[str, str]]) -> list[Block]:
    """What a step's page shows under its findings: the detailed view when the step has one (runtime tests),
    else the "What was found" list of its key facts."""
    view = STEP_VIEWS.get(step_id)
    if view is not None:
        blocks = view(facts)
        if blocks:
            return blocks
    if step_id == "driver" and key_facts:  # the GPU by name, not only "NVIDIA GPUs on the PCI bus: 1"
        names = gpu_names(facts)
        if names:
            key_facts = [("GPU", names), *key_facts]
    return [KeyValues("What was found", key_facts)] if key_facts else []


def gpu_names(facts: Mapping[str, Any]) -> str:
    """The GPUs by name, from what torch saw, else NVML (counted: "2 × NVIDIA A100"); "" when unknown."""
    for key in ("devices", "nvml.gpus"):
        rows = _rows(_get(facts, key))
        names = [str(r.get("name")) for r in rows if r.get("name")]
        if names:
            counted = {n: names.count(n) for n in dict.fromkeys(names)}
            return ", ".join(f"{k} × {n}" if k > 1 else n for n, k in counted.items())
    return ""


def looks_raw(text: str) -> bool:
    """True for text that is raw JSON or an empty container ("{}", "[]", '[{"device": …')."""
    t = text.strip()
    if t in ("{}", "[]", "None", "null"):
        return True
    if t[:1] in "[{" and t[-1:] in "]}":
        try:
            json.loads(t)
            return True
        except ValueError:
            return False
    return '{"' in t or "[{" in t


# --------------------------------------------------------------------------------------------------------
# the summary's verdict

MEASURED_STEPS = ("placement", "dataloader", "benchmark")


def usable_line(report: Any) -> str | None:
    """When the verdict is about speed (its finding comes from a measured step) and the diagnosis itself
    found nothing wrong, the sentence that the GPU *is* usable ("PyTorch can use NVIDIA GeForce RTX 4090"),
    so the summary answers "is my GPU used?" before "how well?". None otherwise."""

    findings = list(report.findings)
    top = tiers(findings).problem
    if top is None or top.severity.rank > 1 or top.step not in MEASURED_STEPS:
        return None
    diagnosis = [f for f in findings if f.step not in MEASURED_STEPS]
    if any(f.severity.rank <= 1 for f in diagnosis):
        return None
    plain = verdict(Report(report.facts, diagnosis, [], {}, dict(report.meta)))
    if plain.severity != "ok" or "can use" not in plain.headline:
        return None
    return plain.headline
