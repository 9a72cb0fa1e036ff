"""The numbers of a script's instrumented run (``run.*`` facts) as display blocks, in words and tables.

Findings say what is wrong; these blocks are what the run measured, shown even when nothing is wrong: how it
ran and ended, where the operators ran, what crossed between devices, which lines made the host wait, how
a step split into waiting for data and computing, the first forward pass, and the last lines the script
printed. They are written once, here: the app's "Your script" page shows them, the exported reports carry
them, and ``gpuassist audit --run`` prints them (:func:`summary_text`) with the renderer every other step's
terminal tables use (:func:`gpuassist.report.blocks.print_blocks`).
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Mapping
from typing import Any

from gpuassist.audit.run_rules import SYNC_WORDS, _num, accelerators, is_accel, quoted, wait_share, where
from gpuassist.facts import Facts, NotCollected, from_jsonable
from gpuassist.report.blocks import (
    Absent,
    Block,
    Code,
    KeyValues,
    Table,
    fmt_bool,
    fmt_bytes,
    fmt_num,
    fmt_seconds,
    print_blocks,
    terminal_console,
)

OUTPUT_LINES = 12
TOP_OPERATORS = 8

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


def _get(facts: Facts, key: str) -> Any:
    value = from_jsonable(facts.get(key))
    return None if isinstance(value, NotCollected) else value


def _dict(facts: Facts, key: str) -> dict[str, Any]:
    value = _get(facts, key)
    return value if isinstance(value, dict) else {}


def _rows(value: Any) -> list[dict[str, Any]]:
    return [r for r in value if isinstance(r, dict)] if isinstance(value, list) else []


def _count(n: Any) -> str:
    return fmt_num(n, 0)


def _share(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f} %" if whole else "—"


def line_of(site: Any, facts: Facts) -> str:
    """``train.py:42`` for a site in the script's folder, the full path elsewhere."""

    return where(site, facts)


def code_of(site: Any) -> str:
    return str(site.get("code") or "") if isinstance(site, dict) else ""


# ---- how it ended, what it printed: in words ------------------------------------------------------------


def _kind(facts: Facts, n: Any) -> str:
    """``steps``/``forward passes`` (singular for one) as the run counted them."""
    forward = (_get(facts, "run.steps") or {}).get("kind") == "forward"
    if n == 1:
        return "forward pass" if forward else "step"
    return "forward passes" if forward else "steps"


def not_run_line(facts: Facts) -> str:
    """Why the script never started: torch could not be imported, or setting up the instruments failed."""
    error = (_get(facts, "run.torch") or {}).get("import_error")
    if isinstance(error, dict):
        return (
            f"not run: `import torch` fails in this interpreter ({error.get('type')}: "
            f"{str(error.get('message'))[:200]})"
        )
    stages = [s for s in _get(facts, "run.stages") or [] if isinstance(s, dict) and s.get("status") == "failed"]
    why = stages[0].get("error") if stages else None
    return f"not run: {why or facts.value('run.error') or facts.value('run.outcome')}"


def ending_lines(facts: Facts) -> list[str]:
    """How the run ended, in words: the first line says how, the others why and where (a stop the script
    did not heed, its processes, its exception)."""
    outcome = facts.value("run.outcome")
    stop = _get(facts, "run.stop") or {}
    if outcome == "crashed":
        return [
            f"the script crashed ({facts.value('run.signal')}); the numbers below are from the last "
            f"summary it sent ({(_get(facts, 'run.snapshot') or {}).get('seconds', '?')} s into the run)"
        ]
    if outcome == "timeout":
        return [f"killed after it stopped responding ({facts.value('run.error')})"]
    if outcome == "cancelled":
        return ["stopped by the user"]
    if outcome == "ok" and not stop:
        return [not_run_line(facts)]
    if outcome == "failed" and facts.value("run.failed_stage") == "script":
        code = facts.value("run.returncode")
        return [
            f"the script's process exited with status {code} without a Python exit (a native library "
            f"called exit()?), so the numbers below are from the last summary it sent "
            f"({(_get(facts, 'run.snapshot') or {}).get('seconds', '?')} s into the run)"
        ]
    if outcome != "ok":
        return [f"{facts.value('run.error') or outcome}"]
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
    lines = [text]
    if stop.get("forced"):
        caught = int(_num(stop.get("stop_raised")) or 0)
        why = (
            f"it caught gpuassist's stop request ({caught}×: an `except BaseException:` or a bare `except:` "
            "around its loop does that)"
            if caught
            else "it did not reach a point where it could stop (a torch operator, a step or a batch)"
        )
        later = f" {seconds - asked:.1f} s later" if forced and asked is not None else ""
        lines.append(f"{why}, so it was ended{later} where it was:")
        lines += [f"  {where(s, facts)} in {s.get('function')}{quoted(s)}" for s in stop.get("stuck_at") or []]
    children = int(_num(stop.get("child_processes")) or 0)
    if children:
        lines.append(
            f"{children} process{'es' if children > 1 else ''} the script started (multiprocessing, "
            "torch.multiprocessing.spawn) still ran: gpuassist measures the script's own process only, "
            "so the work done in them is not in these numbers"
        )
    exc = _get(facts, "run.exception")
    if isinstance(exc, dict):
        lines.append(
            f"exception at {where(exc.get('site'), facts)}{quoted(exc.get('site'))}: "
            f"{exc.get('type')}: {str(exc.get('message'))[:300]}"
        )
    return lines


def printable(line: str) -> str:
    """A line the script printed, without terminal control (escape sequences dropped, other control bytes
    shown as ``?``)."""
    return CONTROL_CHARACTER.sub("?", ESCAPE_SEQUENCE.sub("", line))


def printed_lines(facts: Facts, limit: int) -> list[str]:
    """The end of the script's own output, at most ``limit`` lines of 160 characters. The stack dump the
    process left when gpuassist stopped it (faulthandler, on SIGTERM) is not the script's output: the
    findings quote it where it matters."""
    tail = facts.value("run.stderr_tail")
    if not isinstance(tail, str) or not tail.strip():
        return []
    lines = tail.splitlines()
    dump = facts.value("run.fault_traceback")
    if isinstance(dump, str) and dump.strip():  # the tail ends with the dump, often with its start cut off
        while lines and FAULT_DUMP_LINE.match(lines[-1]):
            lines.pop()
    return [text[:160] for text in (printable(line).rstrip() for line in lines) if text.strip()][-limit:]


# ---- the blocks ------------------------------------------------------------------------------------------


def run_blocks(facts: Mapping[str, Any]) -> list[Block]:
    """Every block of the run, each only when the run got that far (none without a run)."""
    f = facts if isinstance(facts, Facts) else Facts(dict(facts))
    if "run.command" not in f:
        return []
    out: list[Block] = [how_it_ran(f)]
    measured = [*operators(f), *copies(f), *host_waits(f), *steps(f), *first_forward(f), *settings(f)]
    if measured:
        out += measured
    else:
        out.append(
            Absent(
                "Measurements",
                "Nothing was measured: the script did not get to run any torch code (how it ended is above).",
            )
        )
    out += output(f)
    return out


def how_it_ran(facts: Facts) -> KeyValues:

    command = _dict(facts, "run.command")
    bound = _dict(facts, "run.bound")
    inst = _dict(facts, "run.instrumentation")
    torch = _dict(facts, "run.torch")
    python = inst.get("python") or command.get("resolved") or command.get("python")
    args = " ".join(str(a) for a in command.get("args") or []) or "none"
    steps, seconds = bound.get("steps"), bound.get("seconds")
    limit = (
        f"{steps:,} optimizer steps or {seconds:g} s, whichever comes first"
        if steps
        else f"{seconds:g} s"
        if isinstance(seconds, (int, float))
        else "—"
    )
    rows = [
        ("Script", os.path.basename(str(command.get("script") or "")) or "—"),
        ("Arguments", args),
        ("Interpreter", str(python or "—")),
        ("Working folder", str(command.get("cwd") or "—")),
        ("Stop after", limit),
    ]
    ending = ending_lines(facts)
    if ending:
        rows.append(("How it ended", "\n".join(ending)))
    if torch.get("version"):
        rows.append(("torch", str(torch["version"])))
        accels = accelerators(facts)
        rows.append(
            (
                "GPUs offered to the script",
                ", ".join(accels) if accels else "none: torch.cuda.is_available() is False in this interpreter",
            )
        )
    broken = {k: v for k, v in (inst.get("installed") or {}).items() if v != "ok"}
    if broken:
        rows.append(
            ("Not measured", "; ".join(f"{k} (the instrument could not be installed: {v})" for k, v in broken.items()))
        )
    note = ""
    if torch.get("version") and not accelerators(facts):
        note = (
            "No GPU was usable by the script, so nothing below is blamed on its code: the numbers say where "
            "the work ran. The Driver and Wheel type steps say why there is no GPU."
        )
    return KeyValues("How it ran", rows, note=note)


def operators(facts: Facts) -> list[Block]:
    ops = _dict(facts, "run.ops")
    if not ops:
        return []
    by_device = {str(k): v for k, v in (ops.get("by_device") or {}).items()}
    data = {str(k): v for k, v in (ops.get("data_loading") or {}).items()}
    total = float(ops.get("total") or 0)
    out: list[Block] = []
    if by_device or data:
        devices = sorted(set(by_device) | set(data), key=lambda d: -float(by_device.get(d) or 0))
        rows = [
            [d, _count(by_device.get(d, 0)), _share(float(by_device.get(d) or 0), total), _count(data.get(d, 0))]
            for d in devices
        ]
        out.append(
            Table(
                "Where the operators ran",
                ["Device", "Operators", "Share", "Inside DataLoader"],
                rows,
                numeric=(1, 2, 3),
                note="Every torch operator the script ran, by the device it ran on; "
                "those run while fetching batches from a DataLoader are counted "
                "apart.",
            )
        )
    else:
        out.append(Absent("Where the operators ran", "The script ran no torch operator."))
    compute = _rows(ops.get("compute"))
    if compute:
        out.append(
            Table(
                "Matrix multiplications, convolutions, attention",
                ["Operator", "Device", "dtype", "Calls"],
                [
                    [str(c.get("op")), str(c.get("device")), str(c.get("dtype")), _count(c.get("count"))]
                    for c in compute
                ],
                numeric=(3,),
            )
        )
    top = _rows(ops.get("top"))[:TOP_OPERATORS]
    if top:
        out.append(
            Table(
                "Most frequent operators",
                ["Operator", "Device", "Calls"],
                [[str(t.get("op")), str(t.get("device")), _count(t.get("count"))] for t in top],
                numeric=(2,),
            )
        )
    return out


COPY_NAMES = {"h2d": "host → device", "d2h": "device → host", "d2d": "device → device"}


def copies(facts: Facts) -> list[Block]:
    found = _get(facts, "run.copies")
    if not isinstance(found, dict):
        return []
    rows = []
    for key, name in COPY_NAMES.items():
        c = found.get(key)
        if isinstance(c, dict) and c.get("count"):
            rows.append(
                [
                    name,
                    _count(c.get("count")),
                    fmt_bytes(c.get("bytes")),
                    _count(c.get("pinned")) if key == "h2d" else "—",
                    _count(c.get("non_blocking")),
                ]
            )
    if not rows:
        return [Absent("Copies between devices", "None: no tensor crossed between the host and a device.")]
    per_step = _dict(facts, "run.steps").get("per_step") or {}
    note = ""
    if per_step:
        note = (
            f"Per step (median): {fmt_num(per_step.get('h2d'), 0)} cop{'y' if per_step.get('h2d') == 1 else 'ies'} "
            f"to the device ({fmt_bytes(per_step.get('h2d_bytes'))}), {fmt_num(per_step.get('d2h'), 0)} back "
            f"({fmt_bytes(per_step.get('d2h_bytes'))})."
        )
    out: list[Block] = [
        Table(
            "Copies between devices",
            ["Direction", "Copies", "Size", "From pinned memory", "non_blocking"],
            rows,
            numeric=(1, 2, 3, 4),
            note=note,
        )
    ]
    sites = _rows(found.get("sites"))
    if sites:
        out.append(
            Table(
                "Where the copies are made",
                ["Line", "Direction", "Copies", "In steps", "Size", "Code"],
                [
                    [
                        line_of(s.get("site"), facts),
                        COPY_NAMES.get(str(s.get("kind")), str(s.get("kind"))),
                        _count(s.get("count")),
                        _count(s.get("steps")),
                        fmt_bytes(s.get("bytes")),
                        code_of(s.get("site")),
                    ]
                    for s in sites
                ],
                numeric=(2, 3, 4),
            )
        )
    return out


def host_waits(facts: Facts) -> list[Block]:

    syncs = _get(facts, "run.syncs")
    if not isinstance(syncs, list):
        return []
    rows = _rows(syncs)
    if not rows:
        return [
            Absent("Lines that make the host wait for the device", "None: no line read a tensor's value on the host.")
        ]
    total_steps = int(_dict(facts, "run.steps").get("count") or 0)
    table = []
    for s in rows:
        waits = is_accel(s.get("device")) or s.get("kind") == "synchronize"
        table.append(
            [
                line_of(s.get("site"), facts),
                SYNC_WORDS.get(str(s.get("kind")), str(s.get("kind"))),
                str(s.get("device") or "—"),
                _count(s.get("count")),
                f"{_count(s.get('steps'))} of {total_steps:,}" if total_steps else "no step counted",
                "yes" if waits else "no (a CPU tensor)",
                code_of(s.get("site")),
            ]
        )
    return [
        Table(
            "Lines that make the host wait for the device",
            ["Line", "What it does", "Tensor on", "Times", "In steps", "Waits", "Code"],
            table,
            numeric=(3, 4),
            note="Reading a GPU tensor's value on the host (.item(), printing it, "
            "nonzero(), …) waits until the GPU has finished everything queued before "
            "it; on a CPU tensor it is a plain read.",
        )
    ]


def steps(facts: Facts) -> list[Block]:

    found = _dict(facts, "run.steps")
    if not found:
        return []
    if not found.get("count"):
        return [Absent("Steps", "The script completed no optimizer step and no forward pass of a model.")]
    per = found.get("per_step") or {}
    optimizers = ", ".join(f"{k}" + (f" ×{v}" if v != 1 else "") for k, v in (found.get("optimizers") or {}).items())
    kind = (
        "forward passes of the model (no optimizer)"
        if found.get("kind") == "forward"
        else f"optimizer steps ({optimizers or 'optimizer'})"
    )
    rows = [("Steps done", f"{_count(found.get('count'))} {kind}")]
    elsewhere = int(_num(found.get("other_thread")) or 0)
    if elsewhere:
        rows.append(
            (
                "On another thread",
                f"{_count(elsewhere)} of them ran on another thread than the script's main one: gpuassist counts "
                "operators, copies and waits on the main thread only, so their work is not in those numbers",
            )
        )
    out: list[Block] = []
    note = ""
    if per:
        inst = _dict(facts, "run.instrumentation")
        step_s = float(per.get("seconds") or 0.0)
        wait_s = float(per.get("data_wait") or 0.0)
        overhead = float(per.get("ops") or 0.0) * float(inst.get("per_op_seconds") or 0.0)
        if found.get("count") == 1:  # no step after the first: nothing but start-up was timed
            rows += [
                ("The one step (start-up included)", fmt_seconds(per.get("first_step_seconds"))),
                ("… waiting for the batch", fmt_seconds(wait_s)),
                ("… gpuassist's instruments (estimate)", fmt_seconds(overhead)),
            ]
        else:
            rows += [
                ("First step (start-up)", fmt_seconds(per.get("first_step_seconds"))),
                ("Each later step (median)", fmt_seconds(step_s)),
                ("… waiting for the next batch", fmt_seconds(wait_s)),
                ("… computing", fmt_seconds(max(0.0, step_s - wait_s - overhead))),
                ("… gpuassist's instruments (estimate)", fmt_seconds(overhead)),
            ]
            note = (
                "Medians over the steps after the first, which includes start-up (workers, cuDNN autotuning, "
                "the first allocations)."
            )
        share = wait_share(facts)
        if share is not None:
            rows.append(("Share of a step spent waiting for data", f"{100 * share:.0f} %"))
    out.append(KeyValues("Steps: waiting for data vs computing", rows, note=note))
    loaders = _rows(_dict(facts, "run.data").get("loaders"))
    if loaders:
        out.append(
            Table(
                "DataLoaders",
                [
                    "Line",
                    "Dataset",
                    "Batch",
                    "num_workers",
                    "pin_memory",
                    "Batches",
                    "Epochs",
                    "Waited in all",
                    "First batches",
                ],
                [
                    [
                        line_of(d.get("site"), facts),
                        str(d.get("dataset") or "—"),
                        str(d.get("batch_size")),
                        str(d.get("num_workers")),
                        fmt_bool(d.get("pin_memory")),
                        _count(d.get("batches")),
                        _count(d.get("epochs")),
                        fmt_seconds(d.get("wait_seconds")),
                        fmt_seconds(d.get("startup_seconds")),
                    ]
                    for d in loaders
                ],
                numeric=(2, 3, 5, 6, 7, 8),
                note="First batches: the wait for the first batch of each epoch, in all (the workers start).",
            )
        )
    return out


def first_forward(facts: Facts) -> list[Block]:
    ff = _dict(facts, "run.first_forward")
    if not ff:
        return []
    params = ", ".join(f"{d} ({fmt_num(n, 0)} values)" for d, n in (ff.get("param_devices") or {}).items())
    inputs = "; ".join(
        f"{i.get('device')}, shape {'×'.join(map(str, i.get('shape') or [])) or 'scalar'}, {i.get('dtype')}"
        for i in _rows(ff.get("inputs"))
    )
    rows = [
        ("Model", str(ff.get("module") or "—")),
        (
            "Called at",
            line_of(ff.get("site"), facts) + (f"   {code_of(ff.get('site'))}" if code_of(ff.get("site")) else ""),
        ),
        ("Parameters on", params or "none (a module without parameters)"),
        ("Inputs", inputs or "none that are tensors"),
        ("Autocast (mixed precision)", "on" if ff.get("autocast") else "off"),
    ]
    return [
        KeyValues(
            "First forward pass",
            rows,
            note="Where the model and its first batch were when the model "
            "first ran: both must be on the GPU for the work to be.",
        )
    ]


def settings(facts: Facts) -> list[Block]:
    st = _dict(facts, "run.settings")
    if not st:
        return []
    rows = [
        ("cudnn.benchmark", fmt_bool(st.get("cudnn_benchmark"))),
        ("float32 matmul precision", str(st.get("float32_matmul_precision") or "—")),
        (
            "TF32 matmul / cuDNN",
            f"{fmt_bool(st.get('cuda_matmul_allow_tf32'))} / {fmt_bool(st.get('cudnn_allow_tf32'))}",
        ),
        ("Autocast used", fmt_bool(st.get("autocast_seen"))),
    ]
    if "compile" in st:
        rows.append(("torch.compile", compiled(st.get("compile"), facts)))
    return [KeyValues("Settings at the end of the run", rows)]


def compiled(value: Any, facts: Facts) -> str:
    if not isinstance(value, dict):
        return "not used"
    calls = value.get("calls")
    text = f"called {fmt_num(calls, 0)} time{'s' if calls != 1 else ''}" if isinstance(calls, int) else "called"
    if value.get("site"):
        text += f", first at {line_of(value.get('site'), facts)}"
    graphs = value.get("graphs")
    if isinstance(graphs, int):
        text += f"; {graphs:,} graph{'s' if graphs != 1 else ''} compiled"
    if value.get("compiles_under_audit") is False:
        text += (
            "; this torch runs compiled code uncompiled while gpuassist's instruments are on, so these "
            "numbers are those of the uncompiled model"
        )
    return text


def output(facts: Facts) -> list[Block]:
    """The end of what the script printed, cleaned as ``audit --run`` prints it (no terminal control, no
    stack dump of the stop)."""

    lines = printed_lines(facts, OUTPUT_LINES)
    if not lines:
        return []
    return [
        Code(
            "What the script printed (last lines)",
            "\n".join(lines),
            note="Its standard output and error, as it ran under gpuassist.",
        )
    ]


def summary_text(facts: Mapping[str, Any], *, width: int | None = None, colour: bool | None = None) -> str:
    """The run as terminal text (``gpuassist audit --run``, ``--format text``): the blocks the app shows,
    under a line naming the command, each only when the run got that far."""
    # Start-up: rich (~40 ms) loads only for the text format.
    from rich.text import Text

    f = facts if isinstance(facts, Facts) else Facts(dict(facts))
    buf = io.StringIO()
    console = terminal_console(buf, width=width, colour=colour)
    console.print(Text(f"Audit run of `{_dict(f, 'run.command').get('display')}`", style="bold underline"))
    print_blocks(console, run_blocks(f))
    return buf.getvalue()
