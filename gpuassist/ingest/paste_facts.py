"""Facts that tools other than collect_env print, read from a paste: nvidia-smi's driver and GPUs, a REPL's
``torch.__version__`` / ``torch.cuda.is_available()``, the one-line torch summaries of accelerate /
transformers / ultralytics, what a pip or conda session installed, Jetson and Windows markers.

Only what the text states is read (no guessing); the rules then judge these facts exactly as they judge a
live diagnosis, so a paste of ``>>> torch.__version__ '2.1.0+cpu'`` gets the same fix as the machine would.
"""

from __future__ import annotations

import re
from typing import Any

MAX_LINE = 2000

SMI_HEADER = re.compile(r"Driver Version:\s*(\d{3,}\.\d+(?:\.\d+)?)(?:.*?CUDA Version:\s*(\d+)\.(\d+))?")
SMI_Q_DRIVER = re.compile(r"^\s*Driver Version\s*:\s*(\d{3,}\.\d+(?:\.\d+)?)\s*$")
SMI_Q_CUDA = re.compile(r"^\s*CUDA Version\s*:\s*(\d+)\.(\d+)\s*$")
SMI_Q_PRODUCT = re.compile(r"^\s*Product Name\s*:\s*(.+?)\s*$")
SMI_ROW = re.compile(r"^\|\s+(\d+)\s+(.+?)\s+(?:On|Off)\s+\|\s+[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:")
SMI_LIST = re.compile(r"^GPU (\d+): (.+?) \(UUID: GPU-")
FORK_TORCH = re.compile(r"PyTorch version \((?:GPU|accelerator)\?\)\s*:\s*(\S+)\s*\((\w+)\)", re.IGNORECASE)
FORK_GPU = re.compile(r"^\s*-\s*GPU type\s*:\s*(.+?)\s*$", re.IGNORECASE)
ULTRALYTICS = re.compile(r"\btorch-(\d+\.\d+\S*)\s+(?:CUDA:(\d+)\s*\((.+?),\s*\d+\s*MiB\)|(CPU|MPS))")
REPL_IN = re.compile(r"^\s*(?:>>>|In \[\d+\]:)\s*(?:print\()?\s*(torch\.\S+?)\s*\)?\s*$")
REPL_OUT = re.compile(r"^\s*(?:Out\[\d+\]:\s*)?(.*?)\s*$")
INSTALLED = re.compile(r"Successfully installed .*?\btorch-(\d+\.\d+(?:\.\d+)?(?:\+\w+)?)\b")
CONDA_TORCH = re.compile(r"^\s*(?:\+\s*)?pytorch[\s=]+(\d+\.\d+(?:\.\d+)?)[\s=]+(\S+)")
JETSON_RELEASE = re.compile(r"# R(\d+) \(release\), REVISION: ([\d.]+)|\bL4T\s+R?(\d+\.\d+(?:\.\d+)?)|-tegra\b|"
                            r"tegrastats|GR3D_FREQ|\bJetson\b", re.IGNORECASE)
WINDOWS = re.compile(r"[A-Za-z]:\\(Users|Program|Python|ProgramData|Anaconda|miniconda)|^\s*PS [A-Za-z]:\\|"
                     r"\bWinError\b|Microsoft Windows \[Version", re.IGNORECASE)


def _cuda_int(major: str, minor: str) -> int:
    return int(major) * 1000 + int(minor) * 10


def nvidia_smi_facts(lines: list[str], skip: set[int]) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    gpus: list[dict[str, Any]] = []
    for no, raw in enumerate(lines, start=1):
        if no in skip:
            continue
        line = raw[:MAX_LINE]
        m = SMI_HEADER.search(line) or SMI_Q_DRIVER.match(line)
        if m and "driver.version" not in facts:
            facts["driver.version"] = m.group(1)
            facts["driver.version_source"] = "nvidia-smi (pasted)"
            if m.re is SMI_HEADER and m.group(2):
                facts["cuda.driver_version"] = _cuda_int(m.group(2), m.group(3))
        q = SMI_Q_CUDA.match(line)
        if q and "cuda.driver_version" not in facts:
            facts["cuda.driver_version"] = _cuda_int(q.group(1), q.group(2))
        row = SMI_ROW.match(line) or SMI_LIST.match(line)
        if row:
            gpus.append({"index": int(row.group(1)), "name": row.group(2).strip()})
        prod = SMI_Q_PRODUCT.match(line)
        if prod:
            gpus.append({"index": len(gpus), "name": prod.group(1)})
    if gpus:
        facts["reported.gpus"] = gpus
    return facts


def _available(word: str) -> bool | None:
    w = word.strip().lower()
    if w in ("true", "cuda", "yes"):
        return True
    if w in ("false", "na", "no", "none"):
        return False
    return None


def fork_facts(lines: list[str]) -> dict[str, Any]:
    """accelerate / transformers / diffusers `env` and ultralytics' banner: torch version and whether CUDA worked."""
    facts: dict[str, Any] = {}
    for raw in lines:
        line = raw[:MAX_LINE]
        m = FORK_TORCH.search(line)
        if m and "torch.version" not in facts:
            facts["torch.version"] = m.group(1)
            available = _available(m.group(2))
            if available is not None:
                facts["cuda.available"] = available
        g = FORK_GPU.match(line)
        if g and "reported.gpus" not in facts:
            facts["reported.gpus"] = [{"index": 0, "name": g.group(1)}]
        u = ULTRALYTICS.search(line)
        if u and "torch.version" not in facts:
            facts["torch.version"] = u.group(1)
            if u.group(3):
                facts["cuda.available"] = True
                facts["reported.gpus"] = [{"index": int(u.group(2)), "name": u.group(3)}]
    _local_build(facts)
    return facts


def _local_build(facts: dict[str, Any]) -> None:
    """A local version tag states the build: +cpu has no CUDA, +cu121 is CUDA 12.1."""
    version = str(facts.get("torch.version") or "")
    tag = version.partition("+")[2]
    if tag == "cpu":
        facts.setdefault("torch.cuda_build", None)
    elif re.fullmatch(r"cu\d{3,4}", tag):
        facts.setdefault("torch.cuda_build", f"{tag[2:-1]}.{tag[-1]}")


def repl_facts(lines: list[str]) -> dict[str, Any]:
    """`>>> torch.__version__` and friends, with the line(s) the interpreter printed after them."""
    facts: dict[str, Any] = {}
    for i, raw in enumerate(lines):
        m = REPL_IN.match(raw[:MAX_LINE])
        if not m:
            continue
        expr = m.group(1)
        nxt = lines[i + 1][:MAX_LINE] if i + 1 < len(lines) else ""
        out_m = REPL_OUT.match(nxt)
        out = out_m.group(1) if out_m and not REPL_IN.match(nxt) and not nxt.lstrip().startswith(">>>") else ""
        value = out.strip().strip("'\"")
        if expr == "torch.__version__" and re.match(r"^\d+\.\d+", value):
            facts["torch.version"] = value
        elif expr == "torch.version.cuda":
            # The REPL prints nothing for None.
            facts["torch.cuda_build"] = value if re.match(r"^\d+\.\d+", value) else None
        elif expr == "torch.cuda.is_available()" and _available(value) is not None:
            facts["cuda.available"] = _available(value)
        elif expr == "torch.cuda.device_count()" and value.isdigit():
            facts["cuda.device_count"] = int(value)
        elif expr == "torch.cuda.get_arch_list()" and value.startswith("["):
            facts["torch.arch_list"] = re.findall(r"(?:sm|compute)_\d+a?", value)
    _local_build(facts)
    return facts


def install_facts(lines: list[str]) -> dict[str, Any]:
    """What a pip or conda session says it installed (the last torch it names)."""
    facts: dict[str, Any] = {}
    for raw in lines:
        line = raw[:MAX_LINE]
        m = INSTALLED.search(line)
        if m:
            facts["torch.version"] = m.group(1)
        c = CONDA_TORCH.match(line)
        if c and re.search(r"cpu|cuda|py\d", c.group(2)):
            facts["torch.conda_build"] = c.group(2)
            facts.setdefault("torch.version", c.group(1))
            if "cpu" in c.group(2):
                facts["torch.cuda_build"] = None
    _local_build(facts)
    return facts


def platform_facts(lines: list[str]) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    for raw in lines:
        line = raw[:MAX_LINE]
        if "host.os" not in facts and WINDOWS.search(line):
            facts["host.os"] = "Windows"
        j = JETSON_RELEASE.search(line)
        if j and "platform.jetson" not in facts:
            facts["platform.jetson"] = line.strip()[:200]
    if "platform.jetson" in facts:
        facts.setdefault("host.machine", "aarch64")
    return facts


def gather(lines: list[str], skip: set[int]) -> dict[str, Any]:
    """Every fact the non-collect_env parts of a paste state; the first source to state a fact wins."""
    facts: dict[str, Any] = {}
    for part in (repl_facts(lines), fork_facts(lines), install_facts(lines), nvidia_smi_facts(lines, skip),
                 platform_facts(lines)):
        for key, value in part.items():
            facts.setdefault(key, value)
    return facts
