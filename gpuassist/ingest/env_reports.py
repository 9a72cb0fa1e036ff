"""Diagnostic reports that libraries print about torch and CUDA, recognised by their layout and read for the facts
the generic readers miss.

Every layout below is taken from the tool's own source, not from one paste:

- ``python -m xformers.info`` (facebookresearch/xformers, xformers/info.py): "xFormers 0.0.28", then one
  ``"{:<40} {}".format(f"{name}:", status)`` line per feature, one space only after a name of 40 characters or
  more ("memory_efficient_attention.cutlassF-pt: available", "is_triton_available:        True"), then
  "pytorch.version:", "pytorch.cuda:", "gpu.name:", "build.*" (read by paste_facts.env_table_facts). A cut paste
  may hold only the feature lines, which name neither torch nor CUDA.
- DeepSpeed's ``ds_report`` (deepspeed/env_report.py): "DeepSpeed C++/CUDA extension op report", then
  "DeepSpeed general environment info:" and ``name, "." * (33 - len(name)), value`` lines: "torch version
  ....... 2.3.0+cu121", "torch cuda version ....... 12.1" (torch.version.cuda: "None" on a CPU build), "torch hip
  version ....", "nvcc version ....." (the toolkit's nvcc, not torch's CUDA), "deepspeed wheel compiled w. ...".
- ``python -m bitsandbytes`` (bitsandbytes/diagnostics/main.py and cuda.py): a "bitsandbytes v0.45.0" header,
  "PyTorch: 2.5.1+cu124" with "  CUDA: 12.4" / "  HIP: N/A" under it (torch.version.cuda, "N/A" when None), "PyTorch
  settings found: CUDA_VERSION=124, Highest Compute Capability: 8.6." (printed only when
  torch.cuda.is_available()), "PyTorch says CUDA is not available. Possible reasons:" followed by a numbered list
  of possibilities (not claims: the list is the same on every machine). Old releases (< 0.43) printed a "BUG
  REPORT" banner and "CUDA SETUP:" lines, among them "CUDA SETUP: PyTorch settings found: ..." when torch saw CUDA
  and "CUDA detection failed! Possible reasons:" with its own fixed list (bitsandbytes' library, not torch).
- sglang's ``python -m sglang.check_env`` (python/sglang/check_env.py): "Python:", "CUDA available: True",
  "GPU 0: NVIDIA ...", "GPU 0 Compute Capability: 8.0", "CUDA_HOME:", "NVCC:", "CUDA Driver Version:",
  "PyTorch: 2.5.1+cu124", "sglang: 0.4.1", one "name: version" line per package.
- ``torch.__config__.show()`` (torch/__config__.py): "PyTorch built with:" and "  - Build settings: ...,
  USE_CUDA=ON, ...".
- ``nvcc --version``: "nvcc: NVIDIA (R) Cuda compiler driver" and "Cuda compilation tools, release 12.1, V12.1.105".
- ``diffusers-cli env`` (src/diffusers/commands/env.py) names itself "- 🤗 Diffusers version: 0.25.0".
- ``vllm collect-env`` (vllm/collect_env.py) is torch's collect_env with "vLLM Version:" / "vLLM Build Flags:".
- ``pip show torch`` (pip/_internal/commands/show.py): "Name: torch", "Version: 2.1.0" (the distribution's metadata
  version: a wheel from PyPI carries no local tag, one from download.pytorch.org carries +cu121/+cpu), "Location:".

Recognising a report is never a verdict: its facts go to the rules like any other paste's.
"""

from __future__ import annotations

import re
from typing import Any

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE, Sources, note_source

# One line that only such a report prints (used by kinds.py to name the input and keep it from being refused).
REPORT_MARK = (
    r"^xFormers \d+\.\d+\S*\s*$|"
    # "{:<40} {}": a name of 40 characters or more is followed by one space only.
    r"^(?:memory_efficient_attention|swiglu|sequence_parallel_fused|sp24|indexing|attn_bias)\.[\w@.+\-]{1,60}:\s+\S|"
    r"^(?:build|gpu)\.[\w@.+\-]{1,60}:\s{2,}\S|^is_(?:triton|functorch)_available:\s{2,}(?:True|False)\b|"
    r"DeepSpeed general environment info:|DeepSpeed C\+\+/CUDA extension op report|"
    r"^\s*(?:torch (?:version|cuda version|hip version|install path)|nvcc version|deepspeed info)\s+\.{3,}\s|"
    r"^=+\s*bitsandbytes v\d|^PyTorch settings found: (?:CUDA|ROCM)_VERSION=|"
    r"^PyTorch says (?:CUDA|ROCm|HIP|XPU) is not available\b|=+\s*BUG REPORT\s*=+|^CUDA SETUP: |"
    r"^sglang:\s+\d|^GPU [\d,]+ Compute Capability:\s+\d|"
    r"^PyTorch built with:\s*$|^\s*-\s*Build settings:.*\bUSE_CUDA=|"
    r"^nvcc: NVIDIA \(R\) Cuda compiler driver|Cuda compilation tools, release \d+\.\d+|"
    r"^\s*-\s*\W{0,3}\s*Diffusers version:\s*\d|^vLLM (?:Version|Build Flags):"
)
REPORT = re.compile(REPORT_MARK, re.IGNORECASE)

# Libraries and CUDA components whose name alone makes a text about the GPU stack (a cut xformers.info or a
# bitsandbytes banner may name neither torch nor CUDA).
TOOL_WORDS = (
    r"xformers|bitsandbytes|deepspeed|\bvllm\b|\bsglang\b|flash[_-]?attn|flash[_-]?attention|\bcutlass\b|"
    r"tensorrt|\bcublas(?:lt)?\b|\bcudart\b|memory_efficient_attention"
)

DS_LINE = re.compile(r"^\s*(torch version|torch cuda version|torch hip version)\s+\.{3,}\s+(\S.{0,200}?)\s*$")
BNB_HEADER = re.compile(r"^=+\s*bitsandbytes v\d")
BNB_TORCH = re.compile(r"^PyTorch:\s+(\d+\.\d+[\w.+]{0,40})\s*$")
BNB_SUB = re.compile(r"^\s{1,4}(CUDA|HIP):\s+(\S{1,20})\s*$")
# Printed only after torch.cuda.is_available() answered True; releases before 0.43 prefix it with "CUDA SETUP: "
# (bitsandbytes/cuda_setup/main.py evaluate_cuda_setup: "if not torch.cuda.is_available(): return ...cpu.so").
BNB_AVAILABLE = re.compile(r"^(?:CUDA SETUP:\s*)?PyTorch settings found: CUDA_VERSION=(\d{2,4})\b")
BNB_UNAVAILABLE = re.compile(r"^PyTorch says CUDA is not available\b")
# huggingface_hub's `huggingface-cli env` (src/huggingface_hub/utils/_runtime.py dump_environment_info): a
# "- huggingface_hub version: 0.26.2" header, later "- Torch: 2.5.1": importlib.metadata.version("torch"), the
# distribution's version as pip show prints it (no local tag for a wheel from PyPI), "N/A" when absent.
HUB_HEADER = re.compile(r"^\s*-\s*huggingface_hub version:\s*\d")
HUB_TORCH = re.compile(r"^\s*-\s*Torch:\s*(\d+\.\d+(?:\.\d+)?(?:(?:a|b|rc|\.dev|\.post)\d+)*(?:\+[\w.]+)?)\s*$")
PIP_SHOW_NAME = re.compile(r"^\s*Name:\s*torch\s*$", re.IGNORECASE)
PIP_SHOW_VERSION = re.compile(r"^\s*Version:\s*(\d+\.\d+(?:\.\d+)?(?:(?:a|b|rc|\.dev|\.post)\d+)*(?:\+[\w.]+)?)\s*$")


def pip_show_torch(lines: list[str]) -> tuple[int, str, str] | None:
    """torch's distribution version as ``pip show torch`` prints it (its "Version:" line right under "Name:
    torch") or ``huggingface-cli env`` does ("- Torch:" in that report): (line number, line, version)."""
    hub = False
    for no, raw in enumerate(lines, start=1):
        line = raw[:MAX_LINE]
        hub = hub or bool(HUB_HEADER.match(line))
        if hub and (t := HUB_TORCH.match(line)):
            return no, raw, t.group(1)
        if PIP_SHOW_NAME.match(line) and no < len(lines):
            m = PIP_SHOW_VERSION.match(lines[no][:MAX_LINE])
            if m:
                return no + 1, lines[no], m.group(1)
    return None


def _cuda_value(value: str) -> str | bool | None:
    """torch.version.cuda as a report prints it: "12.1" → "12.1", "None"/"N/A" → None (stated: no CUDA);
    False when the value says nothing."""
    if value.strip().lower() in ("none", "n/a", "null"):
        return None
    m = re.fullmatch(r"(\d+\.\d+)(?:\.\d+)*", value.strip())
    return m.group(1) if m else False


def report_facts(lines: list[str], sources: Sources) -> dict[str, Any]:
    """torch's version and CUDA build from ds_report's dotted lines, bitsandbytes' diagnostics and
    ``huggingface-cli env``'s "- Torch:" line, and whether CUDA worked from bitsandbytes' two mutually exclusive
    lines."""
    facts: dict[str, Any] = {}
    bnb = hub = False
    for no, raw in enumerate(lines, start=1):
        line = raw[:MAX_LINE]
        bnb = bnb or bool(BNB_HEADER.match(line))
        hub = hub or bool(HUB_HEADER.match(line))
        hub_torch = HUB_TORCH.match(line) if hub else None
        if hub_torch and "torch.version" not in facts:
            facts["torch.version"] = hub_torch.group(1)
            tag = hub_torch.group(1).partition("+")[2]
            if tag == "cpu" or re.fullmatch(r"cu\d{3,4}", tag):
                facts["torch.cuda_build"] = None if tag == "cpu" else f"{tag[2:-1]}.{tag[-1]}"
            note_source(sources, ("torch.version", "torch.cuda_build"), no, line)
            continue
        ds = DS_LINE.match(line)
        if ds:
            key, value = ds.group(1), ds.group(2)
            if key == "torch version" and "torch.version" not in facts:
                m = re.match(r"\d+\.\d+[\w.+]*", value)
                if m:
                    facts["torch.version"] = m.group(0)
                    note_source(sources, "torch.version", no, line)
            elif key == "torch cuda version" and "torch.cuda_build" not in facts:
                cuda = _cuda_value(value)
                if cuda is not False:
                    facts["torch.cuda_build"] = cuda
                    note_source(sources, "torch.cuda_build", no, line)
            continue
        torch_line = BNB_TORCH.match(line) if bnb else None
        if torch_line and "torch.version" not in facts:
            facts["torch.version"] = torch_line.group(1)
            note_source(sources, "torch.version", no, line)
            continue
        sub = BNB_SUB.match(line) if bnb else None
        if sub and sub.group(1) == "CUDA" and "torch.cuda_build" not in facts:
            cuda = _cuda_value(sub.group(2))
            if cuda is not False:
                facts["torch.cuda_build"] = cuda
                note_source(sources, "torch.cuda_build", no, line)
            continue
        if "cuda.available" not in facts and (BNB_AVAILABLE.match(line) or BNB_UNAVAILABLE.match(line)):
            facts["cuda.available"] = bool(BNB_AVAILABLE.match(line))
            note_source(sources, "cuda.available", no, line)
    return facts


# A report's own platform field ("- Platform: Linux-5.15.0-microsoft-standard-WSL2-x86_64-...", ultralytics' "OS
# Linux-...", detectron2's "sys.platform  linux"): it names the machine, it reports no failure.
PLATFORM_FIELD = re.compile(
    r"^\s*(?:[-*\u2022]\s*)?[`*]{0,2}(?:Platform|OS|Operating System|Kernel(?: version)?|sys\.platform)[`*]{0,2}"
    r"\s*(?::|\s{2,})\s*\S",
    re.IGNORECASE,
)


def platform_field_guesses(lines: list[str], matches: list[Match], *, cuda_works: bool) -> list[Match]:
    """A report that states CUDA working (accelerate's "(True)", transformers' "(CUDA)") on, say, a WSL2 kernel: the
    guesses read from its platform field go (they would blame the platform of a healthy machine); a specific
    match stays, and so do the guesses where the report does not say CUDA works."""
    if not cuda_works:
        return matches
    return [
        m
        for m in matches
        if m.specific or not (0 < m.line_no <= len(lines) and PLATFORM_FIELD.match(lines[m.line_no - 1][:MAX_LINE]))
    ]
