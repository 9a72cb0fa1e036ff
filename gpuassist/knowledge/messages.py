"""The authoritative message tables (``messages.json``): what CUDA, NVML, the NVIDIA kernel module and PyTorch
print when a GPU cannot be used, each row mapped to the catalogue ids it can mean.

Patterns written from pastes only know the wording of the pastes they came from; these tables list every
message of each family from its source (the CUDA and NVML headers, the driver's printk strings, NVIDIA's Xid
catalogue, PyTorch's own code), so the next thread's message is known even if no paste has shown it yet.

Each family turns its rows into symptom patterns the way its tool prints them:

- ``cuda_error``: the runtime and driver-API names (``cudaErrorNoDevice``, ``CUDA_ERROR_NO_DEVICE``), the message
  after ``CUDA error:``, the number alone after "error" for rows marked ``number_alone`` (``CUDA Error 804``),
  ``CUDA driver error:``, ``Error N:`` (torch's cudaGetDeviceCount warning), a CUresult name,
  ``cuda runtime error (N)`` (torch < 1.4), pycuda's ``cuInit failed: <name in words or message>``, CUDA's
  deviceQuery (``cudaGetDeviceCount returned N`` / ``-> <message>``), the numbers before CUDA 10.1 renumbered the
  enum (``cuda runtime error (30)``, ``THCudaCheck FAIL ... error=38 : ...``); a message that is distinctive on
  its own (``bare``) also alone, and one cut off by the paste from the leading words that identify it.
- ``nvml``: ``Failed to initialize NVML: <text>``, ``Unable to determine the device handle for GPU...: <text>``,
  nvidia-container-cli's ``nvml error: <text>``, pynvml's ``NVMLError_<Name>`` and ``NVML_ERROR_<NAME>``, go-nvml's
  ``Failed to initialize NVML: ERROR_<NAME>``.
- ``xid``: ``Xid (PCI:...): N`` and ``Xid N``; numbers the table does not list are a possible GPU fault.
- ``nvidia_smi``, ``nvrm``, ``kmod`` (modprobe, systemd-modules-load, DKMS), ``torch``, ``nccl`` and ``container``
  (nvidia-container-cli, the toolkit's hook, containerd): one regex per row (format arguments written as
  ``\\S+``/``\\d+``); ``cuda_loader`` (other programs failing to load libcuda) and ``framework`` (other
  frameworks refusing a GPU themselves, TensorFlow's minimum compute capability) and ``scheduler`` (Slurm refusing a
  job's GPU request) the same way.

A row's ``specific`` id is the cause it names outright (an error verdict); its other ids are possibilities
with their weights. A row with no ids is recognised (``lookup``) but blames nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Any

FAMILIES = (
    "cuda_error",
    "nvml",
    "nvidia_smi",
    "xid",
    "nvrm",
    "kmod",
    "torch",
    "nccl",
    "container",
    "cuda_loader",
    "framework",
    "scheduler",
)
# A message shorter than this (``out of memory``, ``unknown error``) only counts after its tool's prefix.
MIN_BARE = 20
# An Xid number the table does not list is a possible GPU fault (NVIDIA adds numbers with new GPUs).
UNLISTED_XID_WEIGHT = 0.5
# CUDA named earlier on the line: a CUDA API call (cuInit, cudaMalloc, THCudaCheck), "CUDA", a CUDA library. What a
# short message after a prefix any program prints needs to be CUDA's.
CUDA_ON_LINE = (
    r"(?:\b(?:cuda\w*|cu(?:Init|Ctx|Mem|Module|Launch|Device|Stream|Event|Driver|Graph|Func|Pointer)\w*|THCudaCheck|"
    r"cublas\w*|cudnn\w*|nvrtc\w*|pycuda\w*)\b[^\n]{0,200}?)"
)
# A CUDA message cut off by the paste is still read from this many leading words (with its tool's prefix).
MIN_CUT_WORDS = 4


@dataclass(frozen=True)
class MessageRow:
    """One message of one family and what it means."""

    family: str
    key: str  # the code or name that identifies the row within its family
    message: str
    ids: Mapping[str, float]  # every cause the message can mean, with its weight
    specific: str | None  # the one of them it names outright (an error verdict), if any
    gpu_in_use: bool
    regex: re.Pattern[str]  # every way the row is printed
    example: str  # a line the way the tool prints it (tests, docs)
    fields: Mapping[str, Any]  # the row as written in messages.json (code, names, aliases)


@dataclass(frozen=True)
class Family:
    name: str
    about: str
    sources: tuple[str, ...]
    rows: tuple[MessageRow, ...]


def _words(message: str) -> str:
    """The message as a regex: one literal, words single-spaced as the tools print them (the ingest joins a message
    wrapped over two lines with one space). A literal is also the needle the ingest's prefilter checks a line for
    (ingest/needles.py), so a long log is not scanned with every row's regex."""
    return re.escape(" ".join(message.split()))


def _alternation(parts: list[str]) -> str:
    return "(?:" + "|".join(parts) + ")"


def _cuda_row(raw: Mapping[str, Any]) -> tuple[str, str]:
    code = int(raw["code"])
    texts = [raw["message"], *raw.get("aliases", [])]
    message = _alternation([_words(t) for t in texts])
    names = [raw["name"], *([raw["driver_name"]] if raw.get("driver_name") else [])]
    parts = [rf"\b{_alternation(names)}\b"]
    codes = "|".join(str(c) for c in (code, raw.get("legacy_code")) if c is not None)
    # The prefixes that name CUDA themselves, and those any program prints ("Error 30:", "error=5", "->"): with a
    # short message ("unknown error", "out of memory") the latter are pip's, a game's or Steam's words too ("Update
    # failed: unknown error"), so there CUDA must be named earlier on the line (CUDA_ON_LINE; round 23).
    weak = r"Error (?:" + codes + r")|error=\d+\s*|(?:^|\n)->"
    short = len(raw["message"]) < MIN_BARE
    if short:
        weak = CUDA_ON_LINE + r"(?:" + weak + r")"
    prefix = (
        r"(?:CUDA (?:driver )?error|CUDA_ERROR_\w+|cudaError\w*|" + weak + r"|"
        r"cuda runtime error \(\d+\)\s*|"
        # glog's CHECK_EQ in Caffe's CUDA_CHECK (include/caffe/util/device_alternate.hpp) and its copies:
        # "Check failed: error == cudaSuccess (30 vs. 0)  unknown error" (the number, then cudaGetErrorString)
        r"==\s*cudaSuccess\s*\(\d+ vs\. 0\)\s*|"
        # nccl-tests' CUDACHECK (src/common.h): "<host>: Test CUDA failure common.cu:1045 'unknown error'"
        r"Test CUDA failure \S+?:\d+\s*'|"
        # CTranslate2's CUDA_CHECK (src/cuda/utils.h: "CUDA failed with error " + cudaGetErrorString(code); its
        # faster-whisper/whisperX users' pastes) and spconv/cumm's TV_CHECK_CUDA_ERR ("cuda failed with error 2 out
        # of memory": the number, then the string; round 28)
        r"CUDA failed with error(?: \d+)?\s*)\s*[:=]?\s*"
    )
    parts.append(prefix + message)
    cut = int(raw.get("cut_words", 0))
    if cut:  # a paste cut off inside the message: its first words after the prefix, as many as tell it apart
        parts.append(prefix + _words(" ".join(raw["message"].split()[:cut])))
    # Each number its own literal (``cuda runtime error (30)``): a selective needle for the ingest's prefilter.
    only = [str(c) for c in raw.get("code_only", (code,))]
    if only:  # the number alone, where it means this error in every CUDA version
        parts.append(_alternation([rf"cuda runtime error \({c}\)" for c in only]))
    # A row marked ``number_alone``: its number after "error" means this error in every CUDA version and nothing else
    # a GPU thread prints ("CUDA Error 804", "error code 804", "# Error 804" as a thread's title), so the number is
    # read where the message itself was cut off or paraphrased (onnxruntime's "CUDA failure 804" too). Only rows whose
    # number no other tool near CUDA uses.
    if only and raw.get("number_alone"):
        parts.append(
            _alternation([rf"\b(?:CUDA[ _])?(?:error|failure)(?:[ _]code)?\s*[:#=]?\s*{c}(?![\d.])" for c in only])
        )
        # The number before the word, in prose ("CUDA init fails with 802 system error", "torch.cuda.init() gives
        # an 804 error"): the same unique number, one optional word between it and "error", with CUDA named
        # earlier in the sentence; a bare "802 error" is any program's code (an API's status, "line 802 syntax
        # error"). A dot inside "torch.cuda.init()" is no sentence end.
        cuda_before = r"\b(?:cuda|cuInit)\w*\b(?:[^.\n]|\.(?=\w)){0,60}?"
        parts.append(_alternation([rf"{cuda_before}(?<![\w.-])(?<!line ){c} (?:\w+ )?error\b" for c in only]))
    # CUDA's deviceQuery sample: "cudaGetDeviceCount returned 100"
    if only:
        parts.append(_alternation([rf"\bcudaGetDeviceCount returned {c}(?!\d)" for c in only]))
    if raw.get("driver_name"):  # pycuda and its copies: "cuInit failed: unknown" (the name in words) or the message
        named = _words(raw["driver_name"].removeprefix("CUDA_ERROR_").lower().replace("_", " "))
        failed = rf"(?:failed: {message}|failed: {named}\b)"  # each a long literal: a selective needle
        parts.append(CUDA_ON_LINE + failed if short else failed)
    if raw.get("bare", len(raw["message"]) >= MIN_BARE):
        parts.append(rf"(?<![\w-]){message}")
    example = f"RuntimeError: CUDA error: {raw['message']}"
    return _alternation(parts), example


NVML_HANDLE_PREFIX = r"Unable to determine the device handle for GPU\s*[\w:.]*"
NVML_HANDLE = NVML_HANDLE_PREFIX + r"\s*:\s*"


def _nvml_row(raw: Mapping[str, Any]) -> tuple[str, str]:
    texts = [raw["message"], *raw.get("aliases", [])]
    message = _alternation([_words(t) for t in texts])
    if raw.get("handle"):  # the device-handle form only (see _rows)
        return NVML_HANDLE + message, f"Unable to determine the device handle for GPU0000:01:00.0: {raw['message']}"
    prefix = (
        r"(?:Failed to initialize NVML|nvml error)\s*:\s*"
        if "handle_ids" in raw
        else (r"(?:Failed to initialize NVML|nvml error|" + NVML_HANDLE_PREFIX + r")\s*:\s*")
    )
    parts = [prefix + message, rf"\b{raw['pynvml']}\b", rf"\b{raw['name']}\b"]
    # go-nvml (nvidia-ctk, the device plugin, the toolkit's runtime) names the return code when it cannot ask the
    # library for its text, as when the library itself is missing: "failed to initialize NVML: ERROR_LIBRARY_NOT_FOUND".
    parts.append(prefix + rf"{raw['name'].removeprefix('NVML_')}\b")
    if raw.get("bare", len(raw["message"]) >= MIN_BARE):
        parts.append(rf"\b{message}")
    return _alternation(parts), f"Failed to initialize NVML: {raw['message']}"


def _xid_regex(codes: str) -> str:
    return rf"\bXid\s*(?:\([^)]{{0,40}}\))?\s*:?\s*{codes}(?!\d)"


def _xid_row(raw: Mapping[str, Any]) -> tuple[str, str]:
    code = int(raw["code"])
    return _xid_regex(str(code)), f"NVRM: Xid (PCI:0000:01:00): {code}, pid=1234, name=python, {raw['message']}"


def _regex_row(raw: Mapping[str, Any]) -> tuple[str, str]:
    return str(raw["regex"]), str(raw["example"])


_BUILDERS = {
    "cuda_error": _cuda_row,
    "nvml": _nvml_row,
    "nvidia_smi": _regex_row,
    "xid": _xid_row,
    "nvrm": _regex_row,
    "kmod": _regex_row,
    "torch": _regex_row,
    "nccl": _regex_row,
    "container": _regex_row,
    "cuda_loader": _regex_row,
    "framework": _regex_row,
    "scheduler": _regex_row,
}


def _row(family: str, raw: Mapping[str, Any]) -> MessageRow:
    pattern, example = _BUILDERS[family](raw)
    ids = {str(k): float(v) for k, v in raw.get("ids", {}).items()}
    key = str(raw.get("name") or raw.get("code"))
    specific = raw.get("specific")
    if specific is not None and specific not in ids:
        raise ValueError(f"messages.json: {family} {key}: the specific cause {specific!r} is not one of its ids")
    return MessageRow(
        family=family,
        key=key,
        message=str(raw.get("message") or raw.get("name")),
        ids=MappingProxyType(ids),
        specific=str(specific) if specific is not None else None,
        gpu_in_use=bool(raw.get("gpu_in_use", False)),
        regex=re.compile(pattern, re.IGNORECASE),
        example=example,
        fields=MappingProxyType(dict(raw)),
    )


def _cut_words(message: str, others: list[str]) -> int:
    """How many leading words of ``message`` tell it apart from every other message (at least MIN_CUT_WORDS, and
    most of it); 0 when only the whole message does."""
    words = message.lower().split()
    for k in range(max(MIN_CUT_WORDS, -(-len(words) * 3 // 5)), len(words)):
        head = words[:k]
        if not any(o.lower().split()[:k] == head for o in others):
            return k
    return 0


def _expanded(raw_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An NVML row whose meaning differs after the device-handle prefix becomes two rows; a CUDA message gets the
    number of its leading words that identify it when a paste cuts it off."""
    out = []
    messages = [str(r.get("message", "")) for r in raw_rows]
    numbers: dict[int, set[str]] = {}
    for raw in raw_rows:
        if str(raw.get("name", "")).startswith("cudaError"):
            for c in (raw["code"], raw.get("legacy_code")):
                if c is not None:
                    numbers.setdefault(int(c), set()).add(raw["name"])
    for raw in raw_rows:
        if str(raw.get("name", "")).startswith("cudaError"):
            cut = _cut_words(raw["message"], [m for m in messages if m != raw["message"]])
            own = [c for c in dict.fromkeys((raw["code"], raw.get("legacy_code"))) if c is not None]
            raw = {**raw, "cut_words": cut, "code_only": [c for c in own if numbers[int(c)] == {raw["name"]}]}
        out.append(raw)
        if "handle_ids" in raw:
            handle = {k: v for k, v in raw.items() if k not in ("handle_ids", "specific")}
            out.append({**handle, "name": f"{raw['name']}@handle", "ids": raw["handle_ids"], "handle": True})
    return out


@cache
def families() -> Mapping[str, Family]:
    """Every family by name (read once; read-only)."""
    text = resources.files(__package__).joinpath("messages.json").read_text(encoding="utf-8")
    data = json.loads(text)
    out: dict[str, Family] = {}
    for raw in data["families"]:
        name = raw["family"]
        if name not in _BUILDERS:
            raise ValueError(f"messages.json: unknown family {name!r}")
        rows = tuple(_row(name, r) for r in _expanded(raw["rows"]))
        out[name] = Family(name, raw["about"], tuple(raw["sources"]), rows)
    return MappingProxyType(out)


def rows() -> tuple[MessageRow, ...]:
    return tuple(r for f in families().values() for r in f.rows)


def unlisted_xid_regex() -> str:
    """An Xid whose number the table does not list: a possible GPU fault."""
    listed = "|".join(sorted((r.key for r in families()["xid"].rows), key=len, reverse=True))
    return _xid_regex(rf"(?!(?:{listed})(?!\d))\d+")


def lookup(text: str) -> list[MessageRow]:
    """Every row whose message ``text`` (one line, or one message joined; compared stripped, as the ingest does)
    shows."""
    text = text.strip()
    return [r for r in rows() if r.regex.search(text)]


def symptom_rows() -> tuple[tuple[str, str, bool, float], ...]:
    """(id, regex, specific, weight) for every cause of every row, and the unlisted-Xid possibility."""
    out = [(fid, r.regex.pattern, fid == r.specific, w) for r in rows() for fid, w in r.ids.items()]
    out.append(("gpu_xid_fault", unlisted_xid_regex(), False, UNLISTED_XID_WEIGHT))
    return tuple(out)
