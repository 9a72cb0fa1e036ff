"""How a WORKING GPU is (not) used, read from what a paste shows: the GPU waiting for data, the work left on the CPU
by the program, memory kept by a program that has stopped.

These causes have no error message of their own: a real text shows them through numbers (a training log's
``data_time`` beside its ``time``, nvidia-smi's memory and utilisation cells), through a library's own start-up
line naming the device it chose, or through the user's account of what happened. Each reading here combines two
independent pieces of evidence (the symptom and what rules the install out), so a text that shows only one of them
is left undecided rather than blamed.

Where the words come from (read in the tools' sources):

- training logs: mmcv's TextLoggerHook and mmengine's LogProcessor (``time: 1.200, data_time: 0.950`` /
  ``time: 1.2000  data_time: 0.9500``), detectron2's CommonMetricPrinter (``time: 0.4061  data_time: 0.3120``), the
  classic ImageNet example's AverageMeter lines (``Time 0.512 (0.530)  Data 0.401 (0.420)``): ``data_time`` is
  the wait for the next batch inside the step's ``time``;
- the library's device line: sentence-transformers (``Use pytorch device_name: cpu``, older ``Use pytorch device:
  cpu``), transformers' pipelines (``Device set to use cpu``), openai-whisper's transcribe.py (``FP16 is not
  supported on CPU; using FP32 instead``), the Trainer's example scripts (``device: cpu, n_gpu: 0``);
- nvidia-smi's table: the memory cell ``8525MiB / 11019MiB`` and the utilisation cell ``0%`` of one GPU row.
"""

from __future__ import annotations

import re

from gpuassist.findings import Severity
from gpuassist.ingest.cuda_working import cuda_shown_working
from gpuassist.ingest.device_choice import card_unused_said
from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE, repl_answer
from gpuassist.report.model import Report, step_summaries
from gpuassist.rules import order_findings

# ------------------------------------------------------------------------- the GPU waits for the next batch

# "the GPU is idle 70-92% of the time", "GPU sits idle", "my GPUs are starving", "idle GPU", "GPU ... waiting for data".
GPU_IDLE = re.compile(
    r"\bgpus?\b[^.\n]{0,30}?\b(?:idl(?:e|es|ing)|starv\w*|waits?|waiting|stall\w*)\b|"
    r"\b(?:idle|starv\w*|stalled|underutili[sz]ed|under-utili[sz]ed)\s+gpus?\b",
    re.IGNORECASE,
)
# What it waits for: the data, the next batch, the input pipeline, the loader ("waiting for data", "waiting on I/O").
WAITS_FOR_DATA = re.compile(
    r"\bwait(?:s|ing|ed)?\s+(?:for|on)\s+(?:the\s+)?(?:next\s+)?(?:data|batch(?:es)?|input|samples?|i/?o|"
    r"data\s?loader\w*|data pipeline|loader)\b|"
    r"\b(?:data ?loader|data[- ]loading|input pipeline|data pipeline|i/?o)\b[^.\n]{0,40}?\bbottleneck|"
    r"\bbottleneck(?:ed)?\b[^.\n]{0,30}?\b(?:data ?loader|data[- ]loading|input pipeline|data pipeline|i/?o)\b|"
    r"\b(?:cannot|can ?not|can'?t|could ?not|couldn'?t|unable to|not able to|fails? to) (?:keep|catch) up\b|"
    r"\bfaster than (?:the )?(?:current )?(?:data|input)|"
    # "the dataloader is (quite) slow", "IO speed is very slow", "data loading is lagging / takes most of the time".
    r"\b(?:data ?loader\w*|data[- ]loading|loading (?:the )?data|i/?o(?: speed)?|input pipeline|data pipeline)\s+"
    r"(?:is|are|was|were|seems?|becomes?|has become)\s+(?:\w+\s+){0,2}?(?:slow|lagging|the bottleneck|bottleneck)|"
    # "stuck on IO" in Chinese (卡在io上), "data loading is the bottleneck" (数据加载是瓶颈).
    r"卡在\s?(?:io|IO|数据)|(?:数据加载|数据读取|dataloader)\S{0,6}瓶颈",
    re.IGNORECASE,
)
# GPU utilisation said to be low or unsteady ("GPU utilization is very low", "utility of GPU is relatively low",
# "GPU-Util is low and fluctuant", "GPU利用率很低").
GPU_UTIL_LOW = re.compile(
    r"(?:gpu[- ]?util\w*|gpu (?:usage|load|utility)|(?:utili[sz]ation|usage|utility|util|load) of (?:the |my )?gpus?)"
    r"\b[^.\n]{0,30}?\b(?:low|\d%|0|zero|fluctuat\w*|unstable|not stable|drops?)\b|"
    r"\b(?:low|poor|zero|unstable|fluctuating)\s+gpu[- ]?(?:util\w*|usage|load)\b|gpu\s*利用率\S{0,6}?(?:低|0)",
    re.IGNORECASE,
)
# The share of the run spent on data, stated in words: "60% of training time is consumed by DataLoader".
DATA_SHARE_WORDS = re.compile(
    r"\b(?P<share>\d{1,3})\s*%\s+of\s+(?:the\s+)?(?:training\s+|total\s+|running\s+|run\s+|step\s+)?time\b"
    r"[^.\n]{0,30}?\b(?:data ?loader\w*|data[- ]loading|loading (?:the )?data|i/?o)\b",
    re.IGNORECASE,
)
# GPU utilisation swinging between idle and full ("jumps between 0% and 100%", "fluctuates 0-100%").
SPIKY_UTIL = re.compile(
    r"(?:gpu[- ]?util\w*|gpu (?:usage|load)|utili[sz]ation)\b[^.\n]{0,40}?"
    r"\b(?:fluctuat|jump|oscillat|spik|bounc|swing|alternat|vari)\w*\b[^.\n]{0,25}?"
    r"\b\d{1,2}\s*%?\s*(?:and|to|-|~|–)\s*(?:100|9\d)\s*%",
    re.IGNORECASE,
)
# A training log's step time and its data wait, as mmcv/mmengine/detectron2 and the ImageNet example print them.
LOG_DATA_TIME = re.compile(r"\bdata(?:_time)?\W{0,3}[:=]?\s*(\d+(?:\.\d+)?)\b|\bData\s+(\d+(?:\.\d+)?)\s*\(")
LOG_STEP_TIME = re.compile(
    r"(?<![\w-])(?:(?:batch|iter|step)_?)?time\W{0,3}[:=]\s*(\d+(?:\.\d+)?)\b|(?<![\w-])Time\s+(\d+(?:\.\d+)?)\s*\(",
)
DATA_TIME_GATE = re.compile(r"data_time|\bData\s+\d", re.IGNORECASE)
# Most of the step spent waiting for data: at least half of it, in most logged steps.
WAIT_SHARE = 0.5
# A profiler that measured fetching the next batch at this share of the run or more: the loader bounds the run.
PROFILED_SHARE = 0.3
# The data side named (the loader, its workers, loading or preprocessing the data).
DATA_NAMED = re.compile(
    r"data ?loader|data[- ]loading|\bload(?:ing|s)?\s+(?:the\s+)?(?:data|batch|sample|images?|audio)|data pipeline|"
    r"input pipeline|num_workers|prefetch|\bpreprocess\w*|\bdata_time\b|数据加载|数据读取",
    re.IGNORECASE,
)
# Not the loader: the work itself on the CPU.
WORK_ON_CPU = re.compile(
    r"\bused: False\b|device\(type='cpu'\)|device=['\"]cpu['\"]|\b(?:model|training|inference) (?:runs?|is|are) on "
    r"(?:the )?cpu\b",
    re.IGNORECASE,
)


def _log_wait_share(line: str) -> float | None:
    """The share of one logged step spent waiting for data, when the line prints both numbers."""
    if not DATA_TIME_GATE.search(line):
        return None
    data = LOG_DATA_TIME.search(line)
    step = next((m for m in LOG_STEP_TIME.finditer(line) if not line[: m.start()].lower().endswith("data_")), None)
    if data is None or step is None:
        return None
    wait, total = float(data.group(1) or data.group(2)), float(step.group(1) or step.group(2))
    return wait / total if total > 0 else None


# A profiler's row for fetching the next batch: Lightning's SimpleProfiler
# ("| [_TrainingEpochLoop].train_dataloader_next | 0.41 | 500 | 205.1 | 62.3 |", the last column the share of the run;
# "get_train_batch" before 1.6) and torch.profiler's key_averages table
# ("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__  48.12%  ...").
PROFILER_FETCH = re.compile(
    r"train_dataloader_next|\bget_train_batch\b|enumerate\(DataLoader\)#_\w*DataLoaderIter\.__next__"
)
PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*%")
LAST_NUMBER = re.compile(r"(\d+(?:\.\d+)?)\s*\|?\s*$")


def _profiler_wait_share(line: str) -> float | None:
    """The share of the profiled run spent fetching batches, from one profiler row (None: not such a row)."""
    if not PROFILER_FETCH.search(line):
        return None
    if "enumerate(DataLoader)" in line:
        shares = [float(x) for x in PERCENT.findall(line)]
        return max(shares) / 100 if shares else None
    last = LAST_NUMBER.search(line)
    return float(last.group(1)) / 100 if last and line.count("|") >= 4 else None


def gpu_waits_for_data(lines: list[str], said: Match | None = None) -> Match | None:
    """The GPU waits for its input: a profiler that measured fetching batches at a large share of the run, a
    training log whose steps are mostly data wait (``data_time`` at least half of ``time`` in most logged steps), or
    the text saying the GPU idles waiting for data / utilisation swings between idle and full, with the data side
    named. ``said`` is the reading of the user's words about low utilisation (user_words), which a profiler's
    measurement overrides either way. A likely cause (the fix is more loader workers, faster decoding), not when the
    text shows the work itself on the CPU (then the GPU is idle for another reason)."""
    cut = [line[:MAX_LINE] for line in lines]
    if any(WORK_ON_CPU.search(line) for line in cut):
        return None
    profiled = [(no, s) for no, line in enumerate(cut, start=1) if (s := _profiler_wait_share(line)) is not None]
    if profiled:
        no, measured = max(profiled, key=lambda p: p[1])
        if measured < PROFILED_SHARE:
            return None  # the profiler measured the fetch and it is a small part of the run: not the loader
        return Match("dataloader_starvation", no, lines[no - 1].strip()[:500], True, 0.85)
    shares = [(no, s) for no, line in enumerate(cut, start=1) if (s := _log_wait_share(line)) is not None]
    if shares and sum(s >= WAIT_SHARE for _, s in shares) * 2 > len(shares):
        no = next(no for no, s in shares if s >= WAIT_SHARE)
        return Match("dataloader_starvation", no, lines[no - 1].strip()[:500], False, 0.8)
    for no, line in enumerate(cut, start=1):
        stated = DATA_SHARE_WORDS.search(line)
        if stated and int(stated.group("share")) >= PROFILED_SHARE * 100:
            return Match("dataloader_starvation", no, line.strip()[:500], False, 0.8)
    # The GPU idle or its utilisation low/unsteady, and the data side said to be what it waits for or what is slow.
    waits = [no for no, line in enumerate(cut, start=1) if WAITS_FOR_DATA.search(line)]
    named = any(DATA_NAMED.search(line) for line in cut)
    for no, line in enumerate(cut, start=1):
        near = " ".join(cut[no - 1 : no + 1])
        if (GPU_IDLE.search(line) and WAITS_FOR_DATA.search(near)) or (SPIKY_UTIL.search(line) and named):
            return Match("dataloader_starvation", no, line.strip()[:500], False, 0.75)
        if GPU_UTIL_LOW.search(line) and waits:
            return Match("dataloader_starvation", no, line.strip()[:500], False, 0.75)
    return said


# ------------------------------------------------------------------------ the program left its work on the CPU

# A library's own line naming the device it chose: the CPU.
CPU_DEVICE_LINE = re.compile(
    r"\bUse pytorch device(?:_name)?:\s*cpu\b|\bDevice set to use cpu\b|"
    r"FP16 is not supported on CPU; using FP32 instead|"
    r"\bdevice:\s*cpu,\s*n_gpu:\s*0\b|"
    r"^\s*(?:\[?\w+\]?\s*)?(?:using|running on|selected|current)\s+device\s*[:=]?\s*['\"]?cpu['\"]?\s*$|"
    r"^\s*device\s*[:=]\s*['\"]?cpu['\"]?\s*$|"
    # ComfyUI's start-up lines (comfy/model_management.py) in its CPU mode.
    r"^\W*(?:\S+\s+){0,4}?Device: cpu\s*$|Set vram state to: DISABLED",
    re.IGNORECASE,
)


def cuda_shown_failing(lines: list[str]) -> bool:
    """is_available() answered False: inline, or on the line after a command that prints it."""
    cut = [line[:MAX_LINE] for line in lines]
    for no, line in enumerate(cut):
        if "is_available" not in line:
            continue
        if re.search(
            r"is_available\(\)\)?[`'\"]?\s*(?:returns?|returned|is|gives|gave|prints?|=+|->|:)\s*[`'\"]?False", line
        ):
            return True
        if no + 1 < len(cut) and repl_answer(cut[no + 1]) is False:
            return True
    return False


# The program told to use the CPU: a launch flag (ComfyUI's --cpu, AUTOMATIC1111's --use-cpu, a script's
# --device cpu, Lightning's --accelerator cpu, HF's --no_cuda / --use_cpu) or a literal argument in code
# (device="cpu", accelerator="cpu", no_cuda=True, use_cuda=False, gpus=0; CUDA_VISIBLE_DEVICES is another reading).
# Not ".to('cpu')": moving results back to the host is what working code does.
CPU_CHOSEN = re.compile(
    r"(?:^|\s)--(?:cpu|use[-_]cpu(?:\s+all)?|no[-_]cuda|device[= ]['\"]?cpu|accelerator[= ]['\"]?cpu)(?![\w-])|"
    r"\b(?:device|accelerator)\s*=\s*['\"]cpu['\"]|\bno_cuda\s*=\s*True\b|\buse_cuda\s*=\s*False\b|"
    r"\bgpus\s*=\s*0\b(?!\.)",
    re.IGNORECASE,
)


def work_left_on_cpu(lines: list[str], *, cuda_available: bool | None, gpu_unused_said: bool = False) -> Match | None:
    """A library says it runs on the CPU while the same text shows CUDA working: the program chose (or defaulted
    to) the CPU, and passing the device (``device="cuda"``, ``.to("cuda")``) is the fix. A CPU line alone is not
    enough: with CUDA broken the library falls back to the CPU for that reason, which the other readings name."""
    if cuda_available is False or cuda_shown_failing(lines):
        return None
    works = bool(cuda_available) or cuda_shown_working(lines)
    line = next(((no, x) for no, x in enumerate(lines, start=1) if CPU_DEVICE_LINE.search(x[:MAX_LINE])), None)
    if line is not None and works:
        return Match("workload_left_on_cpu", line[0], line[1].strip()[:500], False, 0.8)
    # The CPU asked for by a flag or argument: why the GPU is unused, when nothing in the text shows CUDA failing
    # (with CUDA broken, a --cpu flag is the user's workaround, not the cause).
    chosen = next(((no, x) for no, x in enumerate(lines, start=1) if CPU_CHOSEN.search(x[:MAX_LINE])), None)
    if (
        chosen is not None
        and (works or gpu_unused_said or card_unused_said(lines))
        and not CUDA_BROKEN_WORDS.search("\n".join(x[:MAX_LINE] for x in lines))
    ):
        return Match("workload_left_on_cpu", chosen[0], chosen[1].strip()[:500], False, 0.75)
    return None


# CUDA said to be broken in a tool's words: then a CPU flag or device line is a consequence, not the cause.
CUDA_BROKEN_WORDS = re.compile(
    r"not compiled with CUDA|No CUDA GPUs are available|Found no NVIDIA driver|CUDA driver|CUDA error|"
    r"Torch is not able to use GPU|is_available\(\)[^\n]{0,20}False|no CUDA-capable device|cudaGetDeviceCount|"
    r"NVIDIA-SMI has failed|CUDA initialization|CUDA_ERROR",
    re.IGNORECASE,
)


# ----------------------------------------------------------------- memory kept by a program that has stopped

# One GPU row of nvidia-smi's table: "| 30%   28C    P8    22W / 250W |   8525MiB / 11019MiB |      0%      Default |".
SMI_ROW = re.compile(r"\|\s*(?P<used>\d+)\s*MiB\s*/\s*(?P<total>\d+)\s*MiB\s*\|\s*(?P<util>\d+|N/A)\s*%?\s+\S")
# The program that used the GPU is gone, or nothing is said to run: stopped, interrupted, killed, a connection lost.
STOPPED = re.compile(
    r"\b(?:was|got|been|is)\s+(?:interrupted|killed|stopped|terminated|cut off|disconnected)\b|"
    r"\b(?:after|when) (?:stopping|killing|interrupting|terminating|closing|exiting)\b|"
    r"\b(?:i|we|you) (?:stopped|killed|interrupted|terminated|closed|exited)\b|"
    r"\b(?:network|connection|ssh|session)\b[^.\n]{0,20}?\b(?:cut off|dropped|lost|disconnected|closed)\b|"
    r"ctrl[- +]?c\b|\bkernel (?:died|crashed|was restarted)\b|\b(?:crashed|exited|finished)\b|"
    r"\bno (?:other )?process(?:es)? (?:is |are )?(?:using|running on|on) (?:the |that |this |my )?(?:\w+ )?gpu\b|"
    r"\bnothing (?:else )?(?:is )?running on (?:it|the gpu|that gpu)\b",
    re.IGNORECASE,
)
# At least this much memory in use on an idle GPU is more than a driver's or display's own share.
HELD_MIB = 1024
HELD_SHARE = 0.25
HELD_LARGE_MIB = 4096


# gpustat's row: "[6] NVIDIA A100 80GB PCIe | 52'C, 100 % | 10151 / 81920 MB | alice(10140M)"; an empty process list
# or "(null)" means no process it can see holds the memory.
GPUSTAT_ROW = re.compile(
    r"^\s*\[\d+\]\s+[^|]+\|\s*\d+['°]C,\s*(?P<util>\d+)\s*%\s*\|\s*(?P<used>\d+)\s*/\s*(?P<total>\d+)\s*MB\s*\|"
    r"\s*(?P<procs>.*?)\s*$"
)
# The card's memory "not released" in Chinese: 显卡/显存不释放, 显存没有被释放, 无法释放显存.
NOT_RELEASED_ZH = re.compile(r"(?:显卡|显存|GPU)\S{0,6}(?:没有|未|不会?|无法)(?:被)?释放|无法释放\S{0,2}(?:显存|显卡)")
KILLED_ZH = re.compile(r"(?<![A-Za-z])kill(?![A-Za-z])|杀掉|杀死|中断|终止|结束|关闭|停止", re.IGNORECASE)


def _idle_row_holding_memory(line: str) -> bool:
    """An nvidia-smi row idle at 0 % with a large share of memory in use, or a gpustat row with memory in use and
    no process it can name."""
    m = SMI_ROW.search(line)
    if m and m.group("util") == "0":
        used, total = int(m.group("used")), int(m.group("total"))
        return _held(used, total)
    g = GPUSTAT_ROW.match(line)
    if g and g.group("procs") in ("", "(null)"):
        used, total = int(g.group("used")), int(g.group("total"))
        return _held(used, total)
    return False


def _held(used: int, total: int) -> bool:
    """More than a driver's or display's own share: a gigabyte and a quarter of the card, or several gigabytes."""
    return total > 0 and used >= HELD_MIB and (used >= HELD_SHARE * total or used >= HELD_LARGE_MIB)


def memory_kept_after_stop(lines: list[str], matches: list[Match]) -> Match | None:
    """nvidia-smi shows a GPU idle (0 % utilisation) with a large part of its memory in use, and the text says the
    program that used it stopped (interrupted, killed, a dropped connection) or that nothing runs: a process that
    is not shown (a notebook kernel that outlived its cell, a zombie, another user's job) still holds the memory.
    With an out-of-memory error in the text, that held memory is why the next run ran out (a verdict)."""
    if any(m.id == "gpu_memory_held_by_others" for m in matches):
        return None
    oom = any(m.id == "cuda_out_of_memory" for m in matches)
    cut = [line[:MAX_LINE] for line in lines]
    # In Chinese: "the card does not release its memory" after the process was killed or stopped.
    said = next((no for no, line in enumerate(cut, start=1) if NOT_RELEASED_ZH.search(line)), None)
    if said is not None and any(KILLED_ZH.search(line) for line in cut):
        return Match("gpu_memory_held_by_others", said, lines[said - 1].strip()[:500], True, 0.85)
    row = next((no for no, line in enumerate(cut, start=1) if _idle_row_holding_memory(line)), None)
    if row is None or not any(STOPPED.search(line) for line in cut):
        return None
    return Match("gpu_memory_held_by_others", row, lines[row - 1].strip()[:500], oom, 0.8)


# ----------------------------------------------------------------- CUDA_VISIBLE_DEVICES set in any form a text shows

# Every way a text sets the variable: a shell export/set/PowerShell $env:, an assignment before a command
# ("CUDA_VISIBLE_DEVICES=1 python train.py"), Jupyter's %env / %set_env, docker's -e/--env, a compose list item
# ("- CUDA_VISIBLE_DEVICES=0"), Python's os.environ[...] = "..." / os.environ.setdefault(...) / os.putenv(...).
# A comparison ("== 0", '"$CUDA_VISIBLE_DEVICES" == ...') or a read (os.environ.get) is not a setting. A sentence's
# full stop or comma after the value ("I have CUDA_VISIBLE_DEVICES=0. Perhaps ...") is not part of it.
VISIBLE_SHELL = re.compile(
    r"(?:^|[\s;&|(`])(?:export\s+|set\s+|\$env:|%env\s+|%set_env\s+|-e\s+|--env[= ]\s*|-\s+)?"
    r"CUDA_VISIBLE_DEVICES\s*=(?!=)\s*(?P<q>[\"']?)(?P<value>[^\s\"';`]*?)(?P=q)[.,]?(?=[\s;&|)`]|$)"
)
VISIBLE_PYTHON = re.compile(
    r"os\.environ\[\s*[\"']CUDA_VISIBLE_DEVICES[\"']\s*\]\s*=(?!=)\s*[rbf]?[\"'](?P<value>[^\"']*)[\"']|"
    r"os\.(?:environ\.setdefault|putenv)\(\s*[\"']CUDA_VISIBLE_DEVICES[\"']\s*,\s*[rbf]?[\"'](?P<value2>[^\"']*)[\"']"
)
# "echo $CUDA_VISIBLE_DEVICES" answered on the next line ("NoDevFiles", "-1"; an empty answer is not shown).
VISIBLE_ECHO = re.compile(r"\becho\s+[\"']?\$\{?CUDA_VISIBLE_DEVICES\}?[\"']?\s*$")
VISIBLE_ANSWER = re.compile(r"^\s*(?P<value>[\w,:/-]{1,200})\s*$")


def visible_devices_setting(lines: list[str]) -> tuple[int, str, str] | None:
    """The last value the text sets CUDA_VISIBLE_DEVICES to, in any of the forms above: (line number, line, value)."""
    found: tuple[int, str, str] | None = None
    for no, raw in enumerate(lines, start=1):
        line = raw[:MAX_LINE]
        if "CUDA_VISIBLE_DEVICES" not in line:
            continue
        m = VISIBLE_PYTHON.search(line)
        value = (m.group("value") if m.group("value") is not None else m.group("value2")) if m else None
        if value is None and (s := VISIBLE_SHELL.search(line)):
            value = s.group("value")
        if value is None and VISIBLE_ECHO.search(line) and no < len(lines):
            answer = VISIBLE_ANSWER.match(lines[no][:MAX_LINE])
            value = answer.group("value") if answer else None
        if value is not None:
            found = (no, line, value)
    return found


def visible_devices_facts(lines: list[str], sources: dict[str, tuple[int, str]]) -> dict[str, object]:
    """``cuda.visible_devices`` as the text sets it, for the visibility rules (which compare it with the GPUs the
    text lists). The reader of env listings and exports wins over this one where both state it."""
    setting = visible_devices_setting(lines)
    if setting is None:
        return {}
    no, line, value = setting
    sources.setdefault("cuda.visible_devices", (no, line.strip()[:500]))
    return {"cuda.visible_devices": value}


# Values that hide every GPU whatever the machine: empty, -1 (any negative index ends the list), "none", "void";
# "NoDevFiles" is what Slurm's and other schedulers' GPU plugins set for a job that was allocated no GPU.
HIDES_ALL = re.compile(r"^(?:|-\d+(?:,.*)?|none|void)$", re.IGNORECASE)
SCHEDULER_NONE = "nodevfiles"
# The container toolkit's switch: NVIDIA_VISIBLE_DEVICES=void (or empty) runs the container like runc, with no GPU;
# "none" mounts the driver but no GPU (NVIDIA Container Toolkit docs, "GPU Enumeration").
CONTAINER_NONE = re.compile(
    r"(?:^|[\s;&|(])(?:export\s+|-e\s+|--env[= ]\s*|-\s+|ENV\s+)?NVIDIA_VISIBLE_DEVICES\s*[=\s]\s*[\"']?(?:void|none)?"
    r"[\"']?(?=[\s;&|)]|$)",
    re.IGNORECASE,
)


def visible_devices_hide_gpus(lines: list[str], *, unavailable: bool) -> Match | None:
    """CUDA sees no GPU and the text sets CUDA_VISIBLE_DEVICES (in any form) to a value that hides them all: that
    setting is the cause on any machine (a verdict). "NoDevFiles" is a scheduler's answer for a job without GPUs;
    NVIDIA_VISIBLE_DEVICES=void/none gives a container no GPU."""
    if not (unavailable or cuda_shown_failing(lines)):
        return None
    setting = visible_devices_setting(lines)
    if setting is not None:
        no, line, value = setting
        if value.strip().lower() == SCHEDULER_NONE:
            return Match("scheduler_no_gpu_allocated", no, line.strip()[:500], True, 0.9)
        if HIDES_ALL.match(value.strip()):
            return Match("cuda_visible_devices_hides_gpus", no, line.strip()[:500], True, 0.9)
    for no, raw in enumerate(lines, start=1):
        if "NVIDIA_VISIBLE_DEVICES" in raw[:MAX_LINE] and CONTAINER_NONE.search(raw[:MAX_LINE]):
            return Match("docker_no_gpu_runtime", no, raw.strip()[:500], True, 0.85)
    return None


# ------------------------------------------------------------------------- a compute mode that refuses processes

# nvidia-smi's table cell (GPU-Util, then Compute M.) and -q's "Compute Mode : Prohibited".
SMI_PROHIBITED = re.compile(r"\|\s*(?:\d+%|N/A)\s+Prohibited\s*\||^\s*Compute Mode\s*:\s*Prohibited\s*$")
# CUDA failing in the same text: no device, not available, busy, a failed context.
CUDA_FAILS = re.compile(
    r"is_available\(\)[^\n]{0,30}\bFalse\b|^\s*False\s*$|No CUDA GPUs are available|busy or unavailable|"
    r"no CUDA-capable device|CUDA error|cudaError\w+|CUDA_ERROR_\w+",
    re.IGNORECASE,
)


def compute_mode_prohibited(lines: list[str]) -> Match | None:
    """nvidia-smi shows a GPU in compute mode Prohibited: no process may create a CUDA context on it. With CUDA
    failing in the same text that is why (a verdict); alone, a likely cause."""
    row = next(((no, x) for no, x in enumerate(lines, start=1) if SMI_PROHIBITED.search(x[:MAX_LINE])), None)
    if row is None:
        return None
    fails = any(CUDA_FAILS.search(line[:MAX_LINE]) for line in lines)
    return Match("compute_mode_exclusive_or_prohibited", row[0], row[1].strip()[:500], fails, 0.8)


# ------------------------------------------------------------------ WSL's ldconfig complaint is not a failure

# glibc's ldconfig prints "<file> is not a symbolic link" for WSL's /usr/lib/wsl/lib/libcuda.so.1 on every package
# install (the Windows driver ships copies, not links): cosmetic, CUDA works (microsoft/WSL#5548, #5663, #11229).
# The warning is ldconfig's whatever prefix survives the paste: "/sbin/ldconfig.real: ", "ldconfig: ", none when
# quoted in a sentence or a wrapped line; nothing else prints "<WSL library> is not a symbolic link".
LDCONFIG_NOT_LINK = re.compile(r"\S*/wsl/lib/\S+ is not a symbolic link")


# A load failure told on the same line as the warning ("I get 'libcuda.so: cannot open shared object file' and
# ldconfig says ... is not a symbolic link"): that line is about more than the warning.
LOAD_FAILS = re.compile(
    r"cannot open shared object file|could not load|couldn'?t load|failed to load|no such file", re.IGNORECASE
)


def harmless_wsl_ldconfig(lines: list[str], matches: list[Match]) -> list[Match]:
    """Readings of WSL's libcuda that rest only on ldconfig's "is not a symbolic link" lines go: that warning says
    nothing about whether CUDA loads."""
    cosmetic = {
        no
        for no, line in enumerate(lines, start=1)
        if LDCONFIG_NOT_LINK.search(line[:MAX_LINE])
        and not LOAD_FAILS.search(LDCONFIG_NOT_LINK.sub(" ", line[:MAX_LINE]))
    }
    if not cosmetic:
        return matches
    return [m for m in matches if not (m.id == "wsl_libcuda_problem" and m.line_no in cosmetic)]


# ------------------------------------------------------------------ a hosted notebook (Colab, Kaggle) runtime

# The text runs in Google Colab or a Kaggle notebook: named, or shown by their paths (/content/, /kaggle/).
HOSTED_NOTEBOOK = re.compile(
    r"\bgoogle\.colab\b|colab\.research\.google\.com|\bcolab\b|(?:^|[\s\"'(])/content/\S|/kaggle/(?:working|input)\b|"
    r"\bkaggle (?:notebook|kernel)s?\b",
    re.IGNORECASE,
)
# ... unless the text compares it with the user's own machine, where every local cause is possible again.
LOCAL_MACHINE = re.compile(
    r"\blocal(?:ly| machine| computer| pc| gpu| install\w*)\b|\bon my (?:own )?(?:pc|laptop|computer|machine|desktop|"
    r"workstation|server)\b|\b(?:docker|wsl|container)\b",
    re.IGNORECASE,
)
# Causes a hosted runtime rules out: its VM comes with the driver loaded when it has a GPU, and the user runs no
# container, WSL or scheduler of their own. What remains for "no GPU" there is a runtime without a GPU
# (no_nvidia_gpu) or a CUDA_VISIBLE_DEVICES the notebook sets.
NOT_IN_HOSTED_RUNTIME = frozenset(
    {
        "docker_no_gpu_runtime",
        "wsl_libcuda_problem",
        "nvidia_module_not_loaded",
        "scheduler_no_gpu_allocated",
        "no_nvidia_driver",
        "uvm_wedged_after_suspend",
        "driver_does_not_support_gpu",
    }
)


def hosted_notebook_guesses(lines: list[str], matches: list[Match]) -> list[Match]:
    """In a Colab or Kaggle runtime the generic readings of "no GPU" that need the user's own machine (a container
    without the toolkit, WSL, a driver module, a scheduler) go: guesses the text rules out are not offered."""
    cut = [line[:MAX_LINE] for line in lines]
    if not any(HOSTED_NOTEBOOK.search(line) for line in cut) or any(LOCAL_MACHINE.search(line) for line in cut):
        return matches
    return [m for m in matches if m.specific or m.id not in NOT_IN_HOSTED_RUNTIME]


HOSTED_FIX = (
    "In a hosted notebook the GPU comes with the runtime: in Colab, Runtime → Change runtime type → a GPU "
    "accelerator (then run the cells again); in Kaggle, Settings → Accelerator → GPU. A cell that sets "
    "os.environ['CUDA_VISIBLE_DEVICES'] to anything but '0' hides the runtime's one GPU.\n"
)


def hosted_notebook_fix(report: Report, lines: list[str]) -> None:
    """A hosted runtime without a GPU is fixed in the notebook's settings, not by new hardware: that step leads the
    fix of the no-GPU reading there."""
    cut = [line[:MAX_LINE] for line in lines]
    if not any(HOSTED_NOTEBOOK.search(line) for line in cut) or any(LOCAL_MACHINE.search(line) for line in cut):
        return
    for f in report.findings:
        if f.id == "no_nvidia_gpu" and HOSTED_FIX not in f.fix:
            f.fix = HOSTED_FIX + f.fix


# --------------------------------------------------------------- a container that had the GPU and lost it

# The text says GPU access worked in this container and stopped later: after hours or days, "randomly", "after a
# while", or after the host's systemd reloaded its units (NVIDIA/nvidia-container-toolkit#48: with the systemd cgroup
# driver, `systemctl daemon-reload` rewrites the container's device rules and drops the GPU).
LOST_LATER = re.compile(
    r"\bdaemon[- ]reload\b|\bafter (?:a (?:few|couple of) |some |several |many |\d+\s*)(?:hours?|days?|minutes?|weeks?|"
    r"time|while)\b|\bafter a while\b|\brandom(?:ly)?\b[^.\n]{0,40}?\b(?:fails?|lost|stops?|breaks?)\b|"
    r"\b(?:worked|was working|works|ran|runs) (?:fine |well |normally )?(?:at first|initially|"
    r"when (?:the container|it) starts?|for (?:a (?:few|while)|some|several|\d+)|yesterday|before)\b|"
    r"\bstops? working after\b|"
    r"\b(?:suddenly|after some time)\b[^.\n]{0,40}?\b(?:nvml|nvidia-smi|gpu|cuda)\b",
    re.IGNORECASE,
)


def access_lost_in_container(lines: list[str], matches: list[Match]) -> list[Match]:
    """NVML's "Unknown Error" in a container is the container losing its GPU devices; when the text says access
    worked first and went later (hours on, after a daemon-reload), that is the cause outright (a verdict)."""
    lost = next((m for m in matches if m.id == "container_gpu_access_lost" and not m.specific), None)
    if lost is None or not any(LOST_LATER.search(line[:MAX_LINE]) for line in lines):
        return matches
    return [*(m for m in matches if m is not lost), Match(lost.id, lost.line_no, lost.line, True, 0.9)]


# ---------------------------------------------------------------- the processes that hold the GPU, listed

# `fuser -v /dev/nvidia*` rows ("/dev/nvidia0:  alice  12345 F...m python"; ACCESS "m" = the device mapped), and
# `ps` rows of a Python process left as a zombie ("<defunct>").
FUSER_ROW = re.compile(r"^\s*(?:/dev/nvidia[\w-]*:)?\s+\S+\s+(?P<pid>\d+)\s+[Ffrcem.]{4,5}\s+(?P<cmd>\S+)\s*$")
FUSER_COMMAND = re.compile(r"\bfuser\b[^\n]*?/dev/nvidia|^\s*/dev/nvidia[\w-]*:\s+\S+\s+\d+\s+[Ffrcem.]{4,5}\s+\S+")
DEFUNCT_PYTHON = re.compile(r"\bpython[\d.]*\b[^\n]{0,40}<defunct>|<defunct>[^\n]{0,40}\bpython", re.IGNORECASE)
# The memory problem the listing answers: out of memory, memory still in use, nvidia-smi listing no process.
MEMORY_TROUBLE = re.compile(
    r"out of memory|OutOfMemoryError|memory (?:is )?(?:still )?(?:used|occupied|in use|full|not (?:released|freed))|"
    r"No running processes found|\d+\s*MiB\s*/\s*\d+\s*MiB",
    re.IGNORECASE,
)


def holders_listed(lines: list[str], matches: list[Match]) -> Match | None:
    """The text lists the processes that have the GPU's device files open (fuser on /dev/nvidia*) or a Python
    zombie, beside a memory problem: those processes hold the memory nvidia-smi may not attribute to anyone
    (another PID namespace, a zombie), and killing them frees it."""
    if any(m.id == "gpu_memory_held_by_others" and m.specific for m in matches):
        return None
    cut = [line[:MAX_LINE] for line in lines]
    if not any(MEMORY_TROUBLE.search(line) for line in cut):
        return None
    fuser = any(FUSER_COMMAND.search(line) for line in cut)
    for no, line in enumerate(cut, start=1):
        if (fuser and FUSER_ROW.match(line) and "python" in line.lower()) or DEFUNCT_PYTHON.search(line):
            return Match("gpu_memory_held_by_others", no, line.strip()[:500], True, 0.85)
    return None


# ------------------------------------------------------- a Kubernetes pod or SGE job that asked for no GPU

# A Kubernetes workload spec ("kind: Pod", a "containers:" list with an image) and its GPU request: the NVIDIA
# device plugin gives a container GPUs only for an "nvidia.com/gpu" limit (Kubernetes docs, "Schedule GPUs");
# a GPU operator's runtime class or a MIG resource ("nvidia.com/mig-1g.5gb") is a request too.
K8S_SPEC = re.compile(
    r"^\s*kind:\s*(?:Pod|Deployment|Job|StatefulSet|DaemonSet|CronJob|ReplicaSet)\s*$|^\s*containers:\s*$"
)
K8S_GPU_REQUEST = re.compile(r"nvidia\.com/(?:gpu|mig-\S+)|amd\.com/gpu|runtimeClassName:\s*nvidia", re.IGNORECASE)
# The user's words that the pod asks for no GPU: "no resources.limits for nvidia.com/gpu", "I didn't set
# nvidia.com/gpu", "without requesting nvidia.com/gpu" (the request named only as missing). A node listing no
# nvidia.com/gpu ("Capacity shows no nvidia.com/gpu") is the device plugin's side, not this.
K8S_REQUEST_DENIED = re.compile(
    r"\b(?:no|without|missing)\s+(?:a |any |the )?`?(?:resources\.)?(?:limits?|requests?)`?\s+"
    r"(?:for |of |on |with )?[`'\"]?nvidia\.com/gpu\b|"
    r"\b(?:without (?:requesting|asking for)|forgot to (?:add|set|request)|"
    r"(?:didn'?t|did not|don'?t|do not|never) (?:add|set|request|specify|ask for))\s+(?:a |any |the )?[`'\"]?"
    r"nvidia\.com/gpu\b",
    re.IGNORECASE,
)
# Grid Engine's job-script directives ("#$ -l h_vmem=16G") and their GPU request ("-l gpu=1", a site's "-l gpus=").
SGE_DIRECTIVE = re.compile(r"^\s*#\$\s+-\w")
SGE_GPU_REQUEST = re.compile(r"-l\s+\S*\bgpus?\b|-l\s+\S*\bcuda\b|\bngpus\b", re.IGNORECASE)


def workload_without_gpu_request(lines: list[str], *, unavailable: bool) -> Match | None:
    """A Kubernetes workload spec or a Grid Engine job script shown without any GPU request (or the user saying the
    pod asks for none), while CUDA sees no GPU there: the scheduler gave the container/job none. A likely cause (a
    site may attach GPUs otherwise)."""
    if not (unavailable or cuda_shown_failing(lines)):
        return None
    cut = [line[:MAX_LINE] for line in lines]
    spec = next((no for no, line in enumerate(cut, start=1) if K8S_SPEC.match(line)), None)
    if spec is not None and any("image:" in line for line in cut) and not any(K8S_GPU_REQUEST.search(x) for x in cut):
        return Match("scheduler_no_gpu_allocated", spec, lines[spec - 1].strip()[:500], False, 0.8)
    denied = next((no for no, line in enumerate(cut, start=1) if K8S_REQUEST_DENIED.search(line)), None)
    if denied is not None:
        return Match("scheduler_no_gpu_allocated", denied, lines[denied - 1].strip()[:500], False, 0.7)
    sge = [no for no, line in enumerate(cut, start=1) if SGE_DIRECTIVE.match(line)]
    if sge and not any(SGE_GPU_REQUEST.search(cut[no - 1]) for no in sge):
        return Match("scheduler_no_gpu_allocated", sge[0], lines[sge[0] - 1].strip()[:500], False, 0.75)
    return None


# ------------------------------------------------ CUDA works for the user, the program still finds no GPU

# torch's "no device" messages, which a CUDA build prints when it enumerates no GPU.
NO_DEVICE = re.compile(
    r"No CUDA GPUs are available|no CUDA-capable device is detected|CUDA_ERROR_NO_DEVICE", re.IGNORECASE
)
# Readings of "no GPU" that a working torch.cuda on the same machine rules out.
RULED_OUT_BY_WORKING_CUDA = frozenset(
    {"no_nvidia_gpu", "no_nvidia_driver", "nvidia_module_not_loaded", "wsl_libcuda_problem", "driver_too_old"}
)


def program_hides_working_gpu(lines: list[str], matches: list[Match]) -> list[Match]:
    """The user's own check shows CUDA working (is_available() True) while the program fails with "No CUDA GPUs are
    available": the machine, driver and torch build are fine, and what differs is the program's environment, most
    often a CUDA_VISIBLE_DEVICES its script or code sets (an index the machine does not have). That reading leads;
    the hardware and driver guesses go. Not when the text shows the program in a container or a job of
    its own (then those readings stay, as other functions decide)."""
    cut = [line[:MAX_LINE] for line in lines]
    failure = next((no for no, line in enumerate(cut, start=1) if NO_DEVICE.search(line)), None)
    if failure is None or not cuda_shown_working(lines) or any(CONTAINER_OR_JOB.search(line) for line in cut):
        return matches
    # No container or job in the text either: the guesses that need one go too.
    dropped = RULED_OUT_BY_WORKING_CUDA | {"docker_no_gpu_runtime", "scheduler_no_gpu_allocated"}
    kept = [m for m in matches if m.specific or m.id not in dropped]
    if any(m.id == "cuda_visible_devices_hides_gpus" and m.specific for m in kept):
        return kept
    # The likeliest reading, not a verdict: the text shows the symptom's contrast, not the variable's value.
    kept = [m for m in kept if m.id != "cuda_visible_devices_hides_gpus"]
    return [*kept, Match("cuda_visible_devices_hides_gpus", failure, lines[failure - 1].strip()[:500], False, 0.95)]


CONTAINER_OR_JOB = re.compile(
    r"\bdocker\b|\bpodman\b|\bkubectl\b|\bsrun\b|\bsbatch\b|#SBATCH|\bqsub\b|\bcontainer\b|\bsingularity\b|\bapptainer\b",
    re.IGNORECASE,
)


# ------------------------------------------------------- an error that shows CUDA working contradicts install blames

# Errors that can only happen after CUDA initialised and ran work on the GPU: the caching allocator ran out, a kernel
# asserted, faulted or failed at launch. (NCCL and shape errors do not prove it: they come before or beside CUDA.)
PROVES_CUDA_WORKS = frozenset(
    {"cuda_out_of_memory", "gpu_memory_held_by_others", "cuda_device_side_assert", "cuda_illegal_memory_access"}
)
# Verdicts from facts that do not change while a machine runs (the build, the driver version against it, the
# hardware): CUDA could never have run with them, yet the error above shows it did. A state that can break later (a
# driver/library mismatch after an upgrade, a module that went away, a container that lost its devices) is not
# contradicted by an earlier working run, and stays.
CANNOT_RUN = frozenset(
    {"cpu_only_build", "source_build_without_cuda", "driver_too_old", "no_nvidia_gpu", "macos_no_cuda_use_mps"}
)


def working_gpu_overrides_install_blames(report: Report) -> None:
    """The text shows an error only a working CUDA can raise (out of memory from the allocator, a device-side assert,
    an illegal memory access) and also facts a rule reads as "CUDA cannot work here" (a CPU build tag, an old driver
    version): the two cannot both describe the run that failed, so the install verdict is not claimed. It stays as
    information, saying why, since those facts most likely come from another environment than the failing run."""
    proof = next(
        (f for f in report.findings if f.id in PROVES_CUDA_WORKS and any(e.fact == "pasted.line" for e in f.evidence)),
        None,
    )
    if proof is None:
        return
    demoted = []
    for f in report.findings:
        if f.id in CANNOT_RUN and f.severity is not Severity.INFO:
            f.severity = Severity.INFO
            f.explanation = (
                f"Not claimed: the pasted error ({proof.title}) shows CUDA running work on the GPU, which this cause "
                f"would prevent; the facts behind it probably come from another environment. {f.explanation}"
            )
            demoted.append(f)
    if demoted:  # the error the run actually hit leads; the contradicted readings follow it
        kept = order_findings([f for f in report.findings if f not in demoted])
        report.findings[:] = [*kept, *demoted]
        report.steps[:] = step_summaries(report.findings, set())
