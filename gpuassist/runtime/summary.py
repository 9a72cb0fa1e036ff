"""The measurements of a runtime test as plain-text tables (terminal, ``--format text``).

Findings say what is wrong; these tables are the numbers behind them, shown even when nothing is wrong
(a healthy machine's bandwidth and images/s are what a support engineer compares against).
"""

from __future__ import annotations

from typing import Any

from gpuassist.facts import Facts, NotCollected


def _table(headers: list[str], rows: list[list[Any]]) -> list[str]:
    cells = [[str(c) for c in headers]] + [["" if c is None else str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    out = ["  " + "  ".join(c.ljust(w) for c, w in zip(cells[0], widths, strict=True)).rstrip()]
    out += ["  " + "  ".join("-" * w for w in widths)]
    out += ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells[1:]]
    return out


def _size(n: Any) -> str:
    n = int(n)
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def _outcome(facts: Facts, test: str) -> list[str]:
    out = facts.value(f"{test}.outcome")
    why = facts.value(f"{test}.error")
    if out == "crashed":
        why = f"{facts.value(f'{test}.signal') or 'exit status ' + str(facts.value(f'{test}.returncode'))} in stage " \
              f"{facts.value(f'{test}.failed_stage')}"
    lines = [f"{test}: {out}" + (f" ({why})" if out != "ok" and why else "")]
    for s in facts.value(f"{test}.stages", []) or []:
        if s.get("status") not in ("ok", None):
            why = s.get("error") or s.get("reason") or ""
            lines.append(f"  stage {s.get('stage')}: {s.get('status')} {why}".rstrip())
    return lines


def placement_lines(facts: Facts) -> list[str]:
    lines = _outcome(facts, "placement")
    devices = facts.value("placement.devices") or []
    lines.append(f"cuda available: {facts.value('placement.cuda_available')}, devices: "
                 + ", ".join(f"{d.get('device')} ({d.get('name')})" for d in devices))
    dd = facts.value("placement.default_device")
    if isinstance(dd, dict):
        lines.append(f"a tensor created without device= lands on: {dd.get('tensor_device')}")
    checks = facts.value("placement.checks") or []
    if checks:
        lines += ["", "Results vs the CPU:"]
        lines += _table(["device", "tensor err", "model err", "ok"],
                        [[c.get("device"), (c.get("tensor") or {}).get("max_abs_err"),
                          (c.get("model") or {}).get("max_abs_err"), c.get("ok") if "error" not in c else c["error"]]
                         for c in checks])
    mm = facts.value("placement.mismatch")
    if isinstance(mm, dict) and mm.get("reproduced"):
        lines += ["", f"Device mismatch reproduced ({mm.get('operation')}):", f"  {mm.get('error_type')}: "
                  f"{mm.get('error_text')}"]
    rows = facts.value("bandwidth.rows") or []
    lines += ["", f"Host memcpy: {facts.value('bandwidth.host_memcpy_gbps')} GB/s"]
    if rows:
        lines.append("Copy bandwidth (GB/s, best of repeats):")
        lines += _table(["device", "direction", "memory", "size", "GB/s"],
                        [[r.get("device"), r.get("direction"), r.get("memory"), _size(r.get("bytes", 0)),
                          r.get("gbps", r.get("error"))] for r in rows])
    elif facts.value("bandwidth.skipped"):
        lines.append(f"Copy bandwidth: skipped ({facts.value('bandwidth.skipped')})")
    transfer = facts.get("placement.transfer")
    if isinstance(transfer, list) and transfer:
        lines += ["", "Moving every batch vs keeping it resident (ms per step):"]
        lines += _table(["device", "resident", "pageable", "pinned", "pinned+non_blocking", "move cost"],
                        [[t.get("device"), t.get("resident_ms"), t.get("pageable_ms"), t.get("pinned_ms"),
                          t.get("pinned_non_blocking_ms"), f"{t.get('move_overhead_pct')} %"] for t in transfer])
    elif isinstance(transfer, NotCollected):
        lines.append(f"Batch transfer cost: skipped ({transfer.reason})")
    return lines


def sweep_lines(facts: Facts) -> list[str]:
    lines = _outcome(facts, "sweep")
    cfg = facts.value("sweep.config") or {}
    if cfg:
        lines.append(f"device {cfg.get('device')}, batch {cfg.get('batch_size')}, {cfg.get('samples')} samples x "
                     f"{cfg.get('epochs')} epochs, {cfg.get('per_sample_cost_us')} us CPU work per sample, "
                     f"{cfg.get('cpu_count')} CPUs, start method {cfg.get('start_method')}")
    compute = facts.value("sweep.compute_seconds_per_batch")
    if compute:
        lines.append(f"model step alone: {compute * 1e3:.2f} ms/batch; loading alone (main process): "
                     f"{(facts.value('sweep.load_seconds_per_batch') or 0) * 1e3:.2f} ms/batch")
    trials = facts.value("sweep.trials") or []
    if trials:
        lines += ["", "Trials (samples/s over the whole run, worker start-up included):"]
        lines += _table(["num_workers", "pin_memory", "persistent", "prefetch", "samples/s", "start-up s", "note"],
                        [[t.get("num_workers"), t.get("pin_memory"), t.get("persistent_workers"),
                          t.get("prefetch_factor"), t.get("samples_per_s"), t.get("startup_s"),
                          "abandoned after 1 epoch" if t.get("aborted") else ""] for t in trials])
    search = facts.value("sweep.search") or {}
    for mode in ("grid", "adaptive"):
        if mode in search:
            s = search[mode]
            lines.append(f"{mode}: {s.get('trials')} trials in {s.get('seconds')} s, best "
                         f"{s.get('best_samples_per_s')} samples/s")
    if "adaptive_vs_grid_throughput" in search:
        lines.append(f"adaptive best / grid best = {search['adaptive_vs_grid_throughput']:.3f}; adaptive time / "
                     f"grid time = {search['adaptive_vs_grid_time']:.3f}")
    if facts.value("sweep.dataloader_line"):
        lines += ["", f"bound by: {facts.value('sweep.bound')}; speed-up over the default DataLoader: "
                  f"{facts.value('sweep.speedup_vs_default')}x", f"Use: {facts.value('sweep.dataloader_line')}"]
    return lines


def bench_lines(facts: Facts) -> list[str]:
    lines = _outcome(facts, "bench")
    rows = [*(facts.value("bench.results") or []), *(facts.value("bench.variants") or [])]
    if rows:
        lines += ["", "CNN training step (CIFAR-sized, fixed batch):"]
        lines += _table(["device", "variant", "batch", "ms/step", "images/s"],
                        [[r.get("device"), r.get("variant"), r.get("batch_size"), r.get("step_ms"),
                          r.get("images_per_s", r.get("error"))] for r in rows])
    scaling = facts.value("bench.scaling") or []
    if scaling:
        lines += ["", "Batch-size scaling:"]
        lines += _table(["device", "batch", "ms/step", "images/s"],
                        [[r.get("device"), r.get("batch_size"), r.get("step_ms"), r.get("images_per_s")]
                         for r in scaling])
    speedup = facts.value("bench.speedup") or {}
    for dev, s in speedup.items():
        lines.append(f"{dev} vs CPU: {s}x")
    prof = facts.value("bench.profile")
    if isinstance(prof, dict):
        lines += ["", f"Profiler ({prof.get('device')}, {prof.get('steps')} steps), heaviest CPU-side operators: "
                  + ", ".join(f"{o['name']} {o['self_cpu_ms']} ms" for o in (prof.get("top_cpu_ops") or [])[:5])]
        if prof.get("device") != "cpu":
            names = [o["name"] for o in prof.get("cpu_only_ops") or []]
            lines.append("Operators that ran on the CPU during the accelerator run: " + (", ".join(names) or "none"))
    return lines


def summary_text(facts: Facts, test: str) -> str:
    fn = {"placement": placement_lines, "sweep": sweep_lines, "bench": bench_lines}[test]
    return "\n".join(fn(facts)) + "\n"
