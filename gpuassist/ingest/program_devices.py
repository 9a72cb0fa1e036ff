"""GPU selection written by the program itself: a script that sets CUDA_VISIBLE_DEVICES from its own argument or
config (``os.environ["CUDA_VISIBLE_DEVICES"] = args.gpu_id`` with ``--gpu-id`` defaulting to a GPU the machine
lacks), and a device index beyond the GPUs the process sees (``torch.cuda.set_device(args.local_rank)``,
``device_ids=[0, 1]``, ``--gpu 3``, torchrun's ``--nproc_per_node`` larger than the GPU count).

The evidence space, from the programs' own source:

- Python's assignment of the variable from an expression, not a literal (os.environ[...] = / setdefault / putenv);
  the value is the argument's: the command line shown (``--gpu-id 7``, ``--gpu_id=7``), else argparse's
  ``add_argument("--gpu-id", default="7")``, else a config line naming it (``gpu_id: 7``).
- What CUDA and torch print when the selection names no GPU: "No CUDA GPUs are available" (every index hidden),
  "no CUDA-capable device is detected", "invalid device ordinal" (cudaErrorInvalidDevice, from cudaSetDevice with
  an index >= the visible count), torch's ``AssertionError: Invalid device id`` (torch/cuda/__init__.py
  get_device_properties, reached from DataParallel's device_ids), Lightning's ``You requested gpu: [1]`` / ``But
  your machine only has: [0]`` (lightning/fabric/utilities/device_parser.py _sanitize_gpu_ids).
- The GPUs present: the facts other readers took (nvidia-smi's table, collect_env's GPU lines, a device count).

Only the combination is read: a setting with no failure, or a failure with no selection in the text, says
nothing here (the message table's guesses stand).
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE, Sources, note_source
from gpuassist.ingest.usage_words import visible_devices_setting

# The variable assigned from an expression (the literal forms are usage_words.VISIBLE_PYTHON's).
PROGRAM_SETS = re.compile(
    r"os\.environ\[\s*[\"']CUDA_VISIBLE_DEVICES[\"']\s*\]\s*=(?!=)\s*(?P<expr>[^\n#]{1,200})|"
    r"os\.(?:environ\.setdefault|putenv)\(\s*[\"']CUDA_VISIBLE_DEVICES[\"']\s*,\s*(?P<expr2>[^\n#]{1,200})"
)
STRING_LITERAL = re.compile(r"\s*[rbu]?([\"'])[^\"'{}%]*\1\s*\)?\s*;?\s*")
# The argument or config key the expression reads: args.gpu_id, opt.gpu_ids, cfg.GPUS, config["gpus"], self.args.gpu.
ARG_NAME = re.compile(
    r"\b(?:args|arg|opt|opts|option|options|cfg|config|conf|hparams|params|flags|FLAGS|hp)"
    r"(?:\.(?P<attr>\w{1,40})|\[\s*[\"'](?P<key>[\w-]{1,40})[\"']\s*\])"
)
# torch's and CUDA's answers when the selected index names no GPU this process sees.
NO_SUCH_DEVICE = re.compile(
    r"No CUDA GPUs are available|no CUDA-capable device is detected|CUDA_ERROR_NO_DEVICE|invalid device ordinal|"
    r"cudaErrorInvalidDevice|CUDA_ERROR_INVALID_DEVICE|\bInvalid device id\b",
    re.IGNORECASE,
)
ORDINAL = re.compile(r"invalid device ordinal|cudaErrorInvalidDevice|CUDA_ERROR_INVALID_DEVICE|\bInvalid device id\b")
# Lightning's two lines (one line where the paste joined them): the request, then the GPUs torch enumerates.
LIGHTNING_REQUEST = re.compile(r"You requested (?:gpu|gpus|GPUs?):\s*\[(?P<req>[\d,\s]{0,200})\]")
LIGHTNING_HAS = re.compile(r"But your machine only has:\s*\[(?P<has>[\d,\s]{0,200})\]")
# An index the program selects: set_device(3), "cuda:3", device_ids=[0, 1], torchrun's process count per node.
# An index the program selects: set_device(3), cuda:3 (in code or in the line the program prints), device_ids=[0, 1],
# gpu_ids = (1, 3), a command-line --gpu/--gpu_id(s)/--device/--cuda N or list, torchrun's processes per node (a
# count: the highest index is one less). Lightning's --gpus N and accelerate's num_processes (its config, as
# `accelerate env` prints it, or --num_processes) are counts as well.
SELECTED = re.compile(
    r"set_device\(\s*(?P<set>\d{1,2})\s*\)|\bcuda:(?P<cuda>\d{1,2})\b|"
    r"\b(?:device_ids|gpu_ids|gpu_id|gpus_ids)\s*=\s*[\[(]?(?P<ids>\d{1,2}(?:\s*,\s*\d{1,2}){0,15})\s*[\])]?|"
    r"(?<![\w-])--(?:gpu|gpu[_-]ids?|gpus[_-]ids?|device[_-]ids?|device|cuda)(?:=|\s+)[\"'\[]?"
    r"(?P<arg>\d{1,2}(?:\s*,\s*\d{1,2}){0,15})\b|"
    r"(?:(?<![\w-])--(?:nproc[_-]per[_-]node|num[_-]gpus|gpus|ngpus?|num[_-]processes)(?:=|\s+)|"
    r"\bnum_processes\s*[:=]\s*)(?P<count>\d{1,2})\b"
)
# The user's count of the GPUs they have: "I have only one GPU", "ONLY 1 GPU", "a single GPU", "I have 2 GPUs".
NUMBERS = {"one": 1, "a single": 1, "single": 1, "two": 2, "three": 3, "four": 4}
STATED_COUNT = re.compile(
    r"\b(?:i|we)\s+(?:only\s+)?(?:have|has|got|use)\s+(?:only\s+|just\s+)?(?P<n>one|a single|two|three|four|\d)\s+"
    r"(?:\w+\s+)?gpus?\b|"
    r"\b(?:only|just)\s+(?:have\s+)?(?P<n2>one|1|a single|two|2)\s+(?:\w+\s+)?gpus?\b|"
    r"\b(?P<n3>single)[- ]gpu\s+(?:machine|computer|laptop|pc|server|setup|system)\b",
    re.IGNORECASE,
)


def stated_gpu_count(lines: list[str]) -> int | None:
    """The number of GPUs the user says the machine has, if a sentence states it."""
    for raw in lines:
        m = STATED_COUNT.search(raw[:MAX_LINE])
        if m:
            word = (m.group("n") or m.group("n2") or m.group("n3")).lower()
            return int(word) if word.isdigit() else NUMBERS.get(word)
    return None


def _argument_variants(name: str) -> str:
    """The argument's name as a regex that takes - and _ for each other (argparse maps --gpu-id to args.gpu_id)."""
    return "[-_]".join(re.escape(part) for part in re.split(r"[-_]", name))


def _normalise(value: str) -> str | None:
    """A selection value as CUDA_VISIBLE_DEVICES would hold it: '7', "0,1" from [0, 1] or (0,1); None when it is
    not a device list (None, a variable, a word)."""
    v = value.strip().strip("\"'").strip()
    v = re.sub(r"^[\[(]|[\])]$", "", v).replace(" ", "")
    return v if re.fullmatch(r"-?\d{1,2}(?:,-?\d{1,2}){0,15}", v) else None


def argument_value(lines: list[str], name: str) -> tuple[int, str, str] | None:
    """The value the program's argument ``name`` takes in the text: the command line shown wins over argparse's
    default, which wins over a config line. (line number, line, value) or None."""
    arg = _argument_variants(name)
    given = re.compile(rf"(?<![\w-])--{arg}(?:=|\s+)(?P<v>[\"']?[\d,\s]{{1,40}}[\"']?|\[[\d,\s]{{1,40}}\])(?=\s|$)")
    default = re.compile(
        rf"add_argument\(\s*(?:[\"']-\w[\"']\s*,\s*)?[\"']--{arg}[\"'][^\n]{{0,300}}?\bdefault\s*=\s*"
        rf"(?P<v>[\"'][^\"']{{0,40}}[\"']|\[[^\]]{{0,40}}\]|\([^)]{{0,40}}\)|-?\d{{1,2}})",
        re.IGNORECASE,
    )
    config = re.compile(rf"^\s*[\"']?{arg}[\"']?\s*[:=]\s*(?P<v>[\"']?[\d,\s\[\]()]{{1,40}}[\"']?)\s*,?\s*$", re.I)
    for rx in (given, default, config):
        for no, raw in enumerate(lines, start=1):
            line = raw[:MAX_LINE]
            m = rx.search(line)
            value = _normalise(m.group("v")) if m else None
            if value is not None:
                return no, line, value
    return None


def program_setting(lines: list[str]) -> tuple[int, str, str | None] | None:
    """The line where the program sets CUDA_VISIBLE_DEVICES from an expression, and the argument name it reads
    (None when the expression names none): (line number, line, name)."""
    for no, raw in enumerate(lines, start=1):
        line = raw[:MAX_LINE]
        if "CUDA_VISIBLE_DEVICES" not in line:
            continue
        m = PROGRAM_SETS.search(line)
        if m is None:
            continue
        expr = m.group("expr") if m.group("expr") is not None else m.group("expr2")
        if STRING_LITERAL.fullmatch(expr):
            continue
        name = ARG_NAME.search(expr)
        return no, line, (name.group("attr") or name.group("key")) if name else None
    return None


def program_visible_devices_facts(lines: list[str], sources: Sources) -> dict[str, object]:
    """``cuda.visible_devices`` as the program's own code sets it from an argument whose value the text shows, so
    the visibility rule compares it with the GPUs present like any other setting (a literal setting in the text,
    read by usage_words, wins)."""
    setting = program_setting(lines)
    if setting is None or setting[2] is None or visible_devices_setting(lines) is not None:
        return {}
    value = argument_value(lines, setting[2])
    if value is None:
        return {}
    note_source(sources, "cuda.visible_devices", value[0], value[1])
    return {"cuda.visible_devices": value[2]}


# A shell variable in the value: $GPU, ${GPU}, ${GPU:-0}; positional ($1) and special parameters too.
SHELL_REF = re.compile(r"\$\{(?P<braced>\w{1,40})(?::?-(?P<default>[^}]{0,40}))?\}|\$(?P<bare>\w{1,40})")


def _shell_assignment(lines: list[str], name: str, before: int) -> str | None:
    """The last value a script line assigns to ``name`` before line ``before`` (NAME=3, export NAME="0,1")."""
    rx = re.compile(rf"^\s*(?:export\s+|local\s+|declare\s+)?{re.escape(name)}=(?P<q>[\"']?)(?P<v>[^\s\"';]*)(?P=q)")
    found = None
    for raw in lines[: before - 1]:
        m = rx.match(raw[:MAX_LINE])
        if m:
            found = m.group("v")
    return found


def resolve_shell_value(facts: dict[str, object], lines: list[str], sources: Sources) -> None:
    """A CUDA_VISIBLE_DEVICES read from a script holds the value of its variables, not their names: "${GPU_ID}" with
    "GPU_ID=3" above it is "3". A reference the text does not resolve (a positional $1, a variable set elsewhere)
    says nothing about the value, so the fact goes rather than being judged as a malformed entry."""
    value = facts.get("cuda.visible_devices")
    if not isinstance(value, str) or "$" not in value:
        return
    line_no = sources.get("cuda.visible_devices", (len(lines) + 1, ""))[0]

    def one(m: re.Match[str]) -> str:
        name = m.group("braced") or m.group("bare")
        assigned = _shell_assignment(lines, name, line_no)
        if assigned is None and m.group("default") is not None:
            return m.group("default")
        if assigned is None or "$" in assigned:
            raise LookupError(name)
        return assigned

    try:
        facts["cuda.visible_devices"] = SHELL_REF.sub(one, value)
    except LookupError:
        facts.pop("cuda.visible_devices", None)
        sources.pop("cuda.visible_devices", None)


def _highest_selected(lines: list[str]) -> tuple[int, str, int] | None:
    """The highest device index the text's code or command selects: (line number, line, index)."""
    best: tuple[int, str, int] | None = None
    for no, raw in enumerate(lines, start=1):
        line = raw[:MAX_LINE]
        for m in SELECTED.finditer(line):
            if m.group("count"):
                index = int(m.group("count")) - 1
            else:
                listed = m.group("ids") or m.group("arg") or m.group("set") or m.group("cuda")
                index = max(int(x) for x in re.findall(r"\d+", listed))
            if index >= 0 and (best is None or index > best[2]):
                best = (no, line, index)
    return best


def _lightning_request(lines: list[str]) -> Match | None:
    """Lightning's own check: the GPUs requested against those torch enumerates. A non-empty list that lacks a
    requested index is the program's selection (its argument, or a CUDA_VISIBLE_DEVICES that leaves fewer): a
    verdict. An empty list is torch seeing no GPU at all, which the message table's row reads."""
    for no, raw in enumerate(lines, start=1):
        line = raw[:MAX_LINE]
        has = LIGHTNING_HAS.search(line)
        if has is None:
            continue
        request = LIGHTNING_REQUEST.search(line) or (
            LIGHTNING_REQUEST.search(lines[no - 2][:MAX_LINE]) if no > 1 else None
        )
        present = {int(x) for x in re.findall(r"\d+", has.group("has"))}
        wanted = {int(x) for x in re.findall(r"\d+", request.group("req"))} if request else set()
        if present and wanted - present:
            return Match("cuda_visible_devices_hides_gpus", no, line.strip()[:500], True, 0.9)
    return None


def _first_entry_beyond(lines: list[str], gpu_count: int | None) -> Match | None:
    """CUDA_VISIBLE_DEVICES (a literal, or the program's argument resolved) whose first entry is an index at or
    beyond the GPU count: CUDA stops at the first invalid entry, so no GPU is left (a verdict with CUDA finding
    none). The count is the one the text states in words; the visibility rule does the same from listed GPUs."""
    if not gpu_count:
        return None
    found = visible_devices_setting(lines)
    if found is None and (setting := program_setting(lines)) is not None and setting[2]:
        found = argument_value(lines, setting[2])
    if found is None:
        return None
    first = found[2].strip().strip("\"'").split(",")[0].strip()
    if not first.isdigit() or int(first) < gpu_count:
        return None
    return Match("cuda_visible_devices_hides_gpus", found[0], found[1].strip()[:500], True, 0.9)


def program_selection_matches(lines: list[str], matches: list[Match], *, gpu_count: int | None) -> list[Match]:
    """The program's own device selection read against its failure and the GPUs present.

    - Lightning says which requested index the machine lacks: a verdict.
    - An index the code or command selects at or beyond the GPU count the text shows (or the user states), with
      torch or CUDA refusing the device ("invalid device ordinal", "Invalid device id"): a verdict.
    - CUDA_VISIBLE_DEVICES (literal or the argument's value) starting at an index beyond that count, with CUDA
      finding no device: a verdict.
    - CUDA_VISIBLE_DEVICES written from the program's argument or config, with CUDA finding no device: the
      likeliest reading (the argument's value is the program's, whatever the machine has), ahead of the
      message's hardware guesses, which stay as possibilities (the text does not show the machine)."""
    lightning = _lightning_request(lines)
    if lightning is not None:
        return [*matches, lightning]
    cut = [line[:MAX_LINE] for line in lines]
    failure = next((no for no, line in enumerate(cut, start=1) if NO_SUCH_DEVICE.search(line)), None)
    if failure is None:
        return matches
    ordinal = any(ORDINAL.search(line) for line in cut)
    selected = _highest_selected(lines)
    gpu_count = gpu_count or stated_gpu_count(lines)
    if ordinal and selected is not None and gpu_count and selected[2] >= gpu_count:
        return [*matches, Match("cuda_visible_devices_hides_gpus", selected[0], selected[1].strip()[:500], True, 0.9)]
    hides = _first_entry_beyond(lines, gpu_count)
    if hides is not None and not ordinal:
        return [*matches, hides]
    setting = program_setting(lines)
    if setting is None or any(m.id == "cuda_visible_devices_hides_gpus" and m.specific for m in matches):
        return matches
    value = argument_value(lines, setting[2]) if setting[2] else None
    if value is not None and value[2].split(",")[0] == "0":
        # The argument keeps GPU 0 visible: on a machine with a GPU it hides nothing, so the guess that the
        # variable hides them goes too (unless the text sets it elsewhere as well).
        if visible_devices_setting(lines) is not None:
            return matches
        return [m for m in matches if m.specific or m.id != "cuda_visible_devices_hides_gpus"]
    kept = [m for m in matches if m.specific or m.id != "cuda_visible_devices_hides_gpus"]
    return [*kept, Match("cuda_visible_devices_hides_gpus", setting[0], setting[1].strip()[:500], False, 0.95)]
