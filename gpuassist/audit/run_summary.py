"""What an instrumented run saw, in plain text (``gpuassist audit --run``, ``--format text``).

Findings say what is wrong; these lines are the numbers behind them, shown even when nothing is wrong:
where the operators ran, what crossed between devices, which lines made the host wait, how a step split
into waiting for data and computing, and how the run ended.
"""

from __future__ import annotations

import re
from typing import Any

from gpuassist.audit.run_rules import SYNC_WORDS, _num, accelerators, is_accel, quoted, wait_share, where
from gpuassist.facts import Facts, NotCollected

STOP_WORDS = {
    "steps": "stopped after {steps} {kind}, as asked",
    "seconds": "stopped after {seconds:.1f} s, as asked ({steps} {kind} done)",
    "finished": "the script finished by itself after {seconds:.1f} s ({steps} {kind})",
    "exit": "the script called {function}({code}) after {seconds:.1f} s ({steps} {kind})",
    "error": "the script raised an exception after {seconds:.1f} s ({steps} {kind})",
    "interrupted": "the script was interrupted after {seconds:.1f} s",
}
# Terminal control in what the script printed (progress bars' cursor moves and colours, stray bytes): the
# report shows the text, it must not move the reader's cursor or clear their screen.
ESCAPE_SEQUENCE = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|[@-Z\\-_])")
CONTROL_CHARACTER = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# A faulthandler dump's lines (`  File "x.py", line 3 in f`: no comma before "in", unlike a traceback's).
FAULT_DUMP_LINE = re.compile(
    r'\s*$|\s*File ".*", line \d+ in |(Current thread|Thread) 0x[0-9a-fA-F]+ |'
    r"Fatal Python error: |Python runtime state: |Stack \(most recent call first\)|"
    r"Extension modules: |\s*<no Python frame>|\s*\.\.\.$"
)


def _ms(seconds: Any) -> str:
    s = float(seconds or 0.0)
    return f"{s * 1e3:.1f} ms" if s < 1 else f"{s:.2f} s"


def _size(n: Any) -> str:
    n = float(n or 0)
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n:.0f} B"


def _value(facts: Facts, key: str) -> Any:
    v = facts.get(key)
    return None if isinstance(v, NotCollected) else v


def header_lines(facts: Facts) -> list[str]:
    command = _value(facts, "run.command") or {}
    bound = _value(facts, "run.bound") or {}
    limit = (
        f"{bound.get('steps')} steps or {bound.get('seconds'):g} s"
        if bound.get("steps")
        else f"{bound.get('seconds', 0):g} s"
    )
    lines = [f"Audit run of `{command.get('display')}` (at most {limit})"]
    torch = _value(facts, "run.torch") or {}
    inst = _value(facts, "run.instrumentation") or {}
    if torch.get("version"):
        accels = accelerators(facts)
        offered = (
            ", ".join(accels)
            if accels
            else "none (torch.cuda.is_available() is False here; `gpuassist diagnose` says why)"
        )
        lines.append(
            f"  interpreter {inst.get('python') or command.get('resolved') or command.get('python')}, "
            f"torch {torch.get('version')}; accelerators offered to the script: {offered}"
        )
    broken = {k: v for k, v in (inst.get("installed") or {}).items() if v != "ok"}
    if broken:
        lines.append(
            "  not measured (instrument could not be installed in this torch): "
            + "; ".join(f"{k}: {v}" for k, v in broken.items())
        )
    return lines


def _kind(facts: Facts, n: Any) -> str:
    """``steps``/``forward passes`` (singular for one) as the run counted them."""
    forward = (_value(facts, "run.steps") or {}).get("kind") == "forward"
    if n == 1:
        return "forward pass" if forward else "step"
    return "forward passes" if forward else "steps"


def not_run_line(facts: Facts) -> str:
    """Why the script never started: torch could not be imported, or setting up the instruments failed."""
    error = (_value(facts, "run.torch") or {}).get("import_error")
    if isinstance(error, dict):
        return (
            f"  ended: not run: `import torch` fails in this interpreter ({error.get('type')}: "
            f"{str(error.get('message'))[:200]})"
        )
    stages = [s for s in _value(facts, "run.stages") or [] if isinstance(s, dict) and s.get("status") == "failed"]
    why = stages[0].get("error") if stages else None
    return f"  ended: not run: {why or facts.value('run.error') or facts.value('run.outcome')}"


def ending_lines(facts: Facts) -> list[str]:
    outcome = facts.value("run.outcome")
    stop = _value(facts, "run.stop") or {}
    if outcome == "crashed":
        return [
            f"  ended: the script crashed ({facts.value('run.signal')}); the numbers below are from the last "
            f"summary it sent ({(_value(facts, 'run.snapshot') or {}).get('seconds', '?')} s into the run)"
        ]
    if outcome == "timeout":
        return [f"  ended: killed after it stopped responding ({facts.value('run.error')})"]
    if outcome == "cancelled":
        return ["  ended: stopped by the user"]
    if outcome == "ok" and not stop:
        return [not_run_line(facts)]
    if outcome == "failed" and facts.value("run.failed_stage") == "script":
        code = facts.value("run.returncode")
        return [
            f"  ended: the script's process exited with status {code} without a Python exit (a native library "
            f"called exit()?), so the numbers below are from the last summary it sent "
            f"({(_value(facts, 'run.snapshot') or {}).get('seconds', '?')} s into the run)"
        ]
    if outcome != "ok":
        return [f"  ended: {facts.value('run.error') or outcome}"]
    seconds = float(stop.get("seconds") or 0.0)
    asked = _num(stop.get("requested_at"))
    forced = bool(stop.get("forced")) and asked is not None
    code = stop.get("exit_code")
    text = STOP_WORDS.get(str(stop.get("reason")), "{reason}").format(
        steps=stop.get("steps", 0),
        kind=_kind(facts, stop.get("steps", 0)),
        seconds=asked if forced else seconds,
        code="" if code is None else code,
        function=stop.get("function") or "sys.exit",
        reason=stop.get("reason"),
    )
    lines = [f"  ended: {text}"]
    if stop.get("forced"):
        caught = int(_num(stop.get("stop_raised")) or 0)
        why = (
            f"it caught gpuassist's stop request ({caught}×: an `except BaseException:` or a bare `except:` "
            "around its loop does that)"
            if caught
            else "it did not reach a point where it could stop (a torch operator, a step or a batch)"
        )
        later = f" {seconds - asked:.1f} s later" if forced and asked is not None else ""
        lines.append(f"  {why}, so it was ended{later} where it was:")
        lines += [f"    {where(s, facts)} in {s.get('function')}{quoted(s)}" for s in stop.get("stuck_at") or []]
    children = int(_num(stop.get("child_processes")) or 0)
    if children:
        lines.append(
            f"  {children} process{'es' if children > 1 else ''} the script started (multiprocessing, "
            "torch.multiprocessing.spawn) still ran: gpuassist measures the script's own process only, "
            "so the work done in them is not in these numbers"
        )
    exc = _value(facts, "run.exception")
    if isinstance(exc, dict):
        lines.append(
            f"  exception at {where(exc.get('site'), facts)}{quoted(exc.get('site'))}: "
            f"{exc.get('type')}: {str(exc.get('message'))[:300]}"
        )
    return lines


def ops_lines(facts: Facts) -> list[str]:
    ops = _value(facts, "run.ops")
    if not isinstance(ops, dict):
        return []
    by_device = ops.get("by_device") or {}
    total = int(ops.get("total") or 0)
    shares = (
        ", ".join(f"{d} {n:,} ({n / total:.0%})" for d, n in sorted(by_device.items(), key=lambda kv: -kv[1]))
        if total
        else "none"
    )
    lines = ["", f"Operators (outside data loading): {total:,}: {shares}"]
    data = ops.get("data_loading") or {}
    if data:
        lines.append("  inside DataLoader: " + ", ".join(f"{d} {n:,}" for d, n in data.items()))
    top = ops.get("top") or []
    if top:
        lines.append("  most frequent: " + ", ".join(f"{t['op']} ×{t['count']:,} ({t['device']})" for t in top[:6]))
    compute = ops.get("compute") or []
    if compute:
        lines.append(
            "  matmul/convolution/attention: "
            + ", ".join(f"{c['op']} ×{c['count']:,} {c['dtype']} ({c['device']})" for c in compute[:6])
        )
    return lines


def first_forward_lines(facts: Facts) -> list[str]:
    ff = _value(facts, "run.first_forward")
    if not isinstance(ff, dict):
        return []
    params = ", ".join(f"{d} ({n:,} values)" for d, n in (ff.get("param_devices") or {}).items()) or "none"
    inputs = ", ".join(f"{i.get('device')} {i.get('shape')} {i.get('dtype')}" for i in ff.get("inputs") or []) or "none"
    return [
        "",
        f"First forward: {ff.get('module')} at {where(ff.get('site'), facts)}{quoted(ff.get('site'))}",
        f"  parameters on {params}; inputs: {inputs}; autocast {'on' if ff.get('autocast') else 'off'}",
    ]


def copy_lines(facts: Facts) -> list[str]:
    copies = _value(facts, "run.copies")
    if not isinstance(copies, dict):
        return []
    rows = []
    names = {"h2d": "host → device", "d2h": "device → host", "d2d": "device → device"}
    for key, name in names.items():
        c = copies.get(key)
        if isinstance(c, dict) and c.get("count"):
            extra = f", {c.get('pinned')} from pinned memory" if key == "h2d" else ""
            rows.append(
                f"  {name}: {c['count']:,} copies, {_size(c.get('bytes'))}{extra}, {c.get('non_blocking')} non_blocking"
            )
    per_step = (_value(facts, "run.steps") or {}).get("per_step") or {}
    if rows and per_step:
        rows.append(
            f"  per step (median): {per_step.get('h2d', 0):g} to the device "
            f"({_size(per_step.get('h2d_bytes'))}), {per_step.get('d2h', 0):g} back "
            f"({_size(per_step.get('d2h_bytes'))})"
        )
    for s in copies.get("sites") or []:
        rows.append(
            f"    {where(s.get('site'), facts)}: {s.get('kind')} ×{s.get('count')} "
            f"({_size(s.get('bytes'))}){quoted(s.get('site'))}"
        )
    return ["", "Copies between devices:", *rows] if rows else ["", "Copies between devices: none"]


def sync_lines(facts: Facts) -> list[str]:
    syncs = _value(facts, "run.syncs")
    if not isinstance(syncs, list) or not syncs:
        return []
    steps = int((_value(facts, "run.steps") or {}).get("count") or 0)
    lines = ["", "Lines that read tensor values on the host (on a GPU, each waits for it):"]
    for s in syncs[:10]:
        note = "" if is_accel(s.get("device")) or s.get("kind") == "synchronize" else " (CPU tensor: no wait)"
        lines.append(
            f"  {where(s.get('site'), facts)}: {SYNC_WORDS.get(str(s.get('kind')), s.get('kind'))} "
            f"×{s.get('count')} in {s.get('steps')} of {steps} steps{note}{quoted(s.get('site'))}"
        )
    return lines


def step_lines(facts: Facts) -> list[str]:
    steps = _value(facts, "run.steps")
    data = _value(facts, "run.data") or {}
    if not isinstance(steps, dict) or not steps.get("count"):
        return []
    per = steps.get("per_step") or {}
    kind = (
        "forward passes of the model (no optimizer)"
        if steps.get("kind") == "forward"
        else f"optimizer steps ({', '.join(steps.get('optimizers') or {}) or 'optimizer'})"
    )
    inst = _value(facts, "run.instrumentation") or {}
    overhead = float(per.get("ops") or 0) * float(inst.get("per_op_seconds") or 0)
    lines = ["", f"Steps: {steps['count']:,} {kind}"]
    elsewhere = int(_num(steps.get("other_thread")) or 0)
    if elsewhere:
        lines.append(
            f"  {elsewhere:,} of them ran on another thread than the script's main one: gpuassist counts "
            "operators, copies and waits on the main thread only, so their work is not in those numbers"
        )
    if per and steps["count"] == 1:  # no step after the first: nothing but start-up was timed
        lines.append(
            f"  it took {_ms(per.get('first_step_seconds'))}, start-up included: waiting for data "
            f"{_ms(per.get('data_wait'))}, gpuassist's instruments about {_ms(overhead)}"
        )
    elif per:
        lines.append(
            f"  first {_ms(per.get('first_step_seconds'))} (start-up), then {_ms(per.get('seconds'))} "
            f"each (median): waiting for data {_ms(per.get('data_wait'))}, gpuassist's instruments about "
            f"{_ms(overhead)}"
        )
        share = wait_share(facts)
        if share is not None:
            lines.append(f"  waiting for data: {share:.0%} of the step time (instruments' cost taken out)")
    for loader in data.get("loaders") or []:
        lines.append(
            f"  DataLoader at {where(loader.get('site'), facts)}: {loader.get('dataset')}, batch "
            f"{loader.get('batch_size')}, num_workers={loader.get('num_workers')}, "
            f"pin_memory={loader.get('pin_memory')}: {loader.get('batches')} batches, waited "
            f"{_ms(loader.get('wait_seconds'))}, first batch of {loader.get('epochs')} epoch(s) "
            f"{_ms(loader.get('startup_seconds'))}"
        )
    return lines


def settings_lines(facts: Facts) -> list[str]:
    st = _value(facts, "run.settings")
    if not isinstance(st, dict):
        return []
    lines = [
        "",
        f"Settings at the end: cudnn.benchmark={st.get('cudnn_benchmark')}, float32 matmul precision "
        f"'{st.get('float32_matmul_precision')}', autocast seen: {'yes' if st.get('autocast_seen') else 'no'}",
    ]
    compiled = st.get("compile")
    if isinstance(compiled, dict):
        at = f"torch.compile at {where(compiled.get('site'), facts)}{quoted(compiled.get('site'))}"
        if compiled.get("compiles_under_audit") is False:
            lines.append(
                f"  {at}: this torch does not compile while gpuassist's instruments are on, so the model "
                "ran uncompiled here: the numbers are those of eager mode"
            )
        else:
            lines.append(
                f"  {at}: compiled as without gpuassist (the operators above are those the compiled code runs)"
            )
    return lines


def printable(line: str) -> str:
    """A line the script printed, without terminal control (escape sequences dropped, other control bytes
    shown as ``?``)."""
    return CONTROL_CHARACTER.sub("?", ESCAPE_SEQUENCE.sub("", line))


def output_lines(facts: Facts, limit: int = 8) -> list[str]:
    """The end of the script's own output. The stack dump the process left when gpuassist stopped it
    (faulthandler, on SIGTERM) is not the script's output: the findings quote it where it matters."""
    tail = facts.value("run.stderr_tail")
    if not isinstance(tail, str) or not tail.strip():
        return []
    lines = tail.splitlines()
    dump = facts.value("run.fault_traceback")
    if isinstance(dump, str) and dump.strip():  # the tail ends with the dump, often with its start cut off
        while lines and FAULT_DUMP_LINE.match(lines[-1]):
            lines.pop()
    lines = [text for text in (printable(line).rstrip() for line in lines) if text.strip()][-limit:]
    if not lines:
        return []
    return [
        "",
        f"Last lines the script printed (stdout and stderr, {len(lines)} shown):",
        *[f"  | {line[:160]}" for line in lines],
    ]


def summary_text(facts: Facts) -> str:
    """The run as text: header, how it ended, then the numbers (each section only when there is data)."""
    lines = [
        *header_lines(facts),
        *ending_lines(facts),
        *ops_lines(facts),
        *first_forward_lines(facts),
        *copy_lines(facts),
        *sync_lines(facts),
        *step_lines(facts),
        *settings_lines(facts),
        *output_lines(facts),
    ]
    return "\n".join(lines) + "\n"
