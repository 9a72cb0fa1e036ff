"""Parse the text printed by ``python -m torch.utils.collect_env`` (any torch version's layout) into facts.

The field names changed over the years ("Is CUDA available: Yes" in 1.x, "True" later; "CUDA used to
build PyTorch: Could not collect" for CPU builds in old scripts, "None" in newer ones), and other projects
(vLLM, ...) print extra sections. Unknown lines are ignored; a fact that is not in the text is listed as
missing rather than guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from gpuassist.facts import NotCollected
from gpuassist.ingest import torch_rows

# Field label (as printed, case-insensitive) → internal name. Several labels map to one name where
# collect_env renamed a field.
FIELDS: dict[str, str] = {
    "pytorch version": "torch_version",
    "is debug build": "debug",
    "cuda used to build pytorch": "cuda_build",
    "rocm used to build pytorch": "rocm_build",
    "os": "os",
    "gcc version": "gcc",
    "clang version": "clang",
    "cmake version": "cmake",
    "libc version": "libc",
    "python version": "python_version",
    "python platform": "python_platform",
    "is cuda available": "cuda_available",
    "cuda runtime version": "cuda_runtime",
    "cuda_module_loading set to": "cuda_module_loading",
    "gpu models and configuration": "gpus",
    "nvidia driver version": "driver",
    "cudnn version": "cudnn",
    "hip runtime version": "hip_runtime",
    "miopen runtime version": "miopen",
    "is xnnpack available": "xnnpack",
    "is xpu available": "xpu_available",
    "caching allocator config": "allocator",
    "is cuda available?": "cuda_available",
    # vLLM's collect_env.py prints these extra sections (and the torch fields in "Label   : value" form).
    "rocm version": "vllm_rocm",
    "neuron sdk version": "vllm_neuron",
    "vllm version": "vllm_version",
    "vllm build flags": "vllm_build_flags",
    "gpu topology": "vllm_topology",
}
# Fields that only collect_env prints: one of them makes a text "collect_env output".
DISTINCTIVE = {
    "torch_version",
    "cuda_build",
    "cuda_available",
    "gpus",
    "driver",
    "cudnn",
    "rocm_build",
    "debug",
    "hip_runtime",
    "miopen",
    "cuda_module_loading",
    "vllm_version",
    "vllm_neuron",
    "vllm_build_flags",
}
# Facts worth saying are missing when absent from a paste.
EXPECTED = {
    "torch_version": "PyTorch version",
    "cuda_build": "CUDA used to build PyTorch",
    "cuda_available": "Is CUDA available",
    "gpus": "GPU models and configuration",
    "driver": "Nvidia driver version",
    "os": "OS",
    "python_version": "Python version",
    "libraries": "Versions of relevant libraries",
}
NOT_COLLECTED = {"could not collect", "n/a", "na", "unknown", "", "no cuda"}
# Bounded label and gap: linear on any line (an unbounded lazy label followed by \s* rescans a long run of
# spaces from each of its positions: minutes for one line of 200,000 spaces).
LABEL = re.compile(r"^\s*(?:[-*]\s{1,8})?(?P<label>[A-Za-z][A-Za-z0-9_ ./?()-]{0,80}?)\s{0,16}:\s*(?P<value>.*)$")
# Hand-retyped pastes sometimes drop the colon: "PyTorch version 1.5.0".
NO_COLON = re.compile(
    r"^\s*(?P<label>PyTorch version|CUDA used to build PyTorch|Is CUDA available|"
    r"Nvidia driver version)\s+(?P<value>\S.*)$",
    re.IGNORECASE,
)
# Markdown emphasis and inline-code marks around a line ("**Is CUDA available: Yes", "`Collecting ...`").
EMPHASIS = re.compile(r"^[*_`]+|[*_`]+$")
# A whole collect_env a user emphasised label by label when formatting it as Markdown: "**PyTorch version:** 2.2.2".
# The marks after the colon belong to the label, not to the value ("** 2.2.2" is no version). Only this form: a
# bulleted "- **PyTorch Version:** 2.5.1" is a hand-written summary (the issue template's), read by user_words.
LABEL_EMPHASIS = re.compile(r"^(?P<open>\*\*|__|`)(?P<label>[A-Za-z][A-Za-z0-9_ ./?()-]{0,80}?):(?P=open)")
WARNING_LINE = re.compile(
    r"CUDA initialization:|is not compatible with the current PyTorch installation|found version \d+|"
    r"Found no NVIDIA driver|no kernel image is available|Torch not compiled with CUDA|Driver/library version mismatch",
    re.IGNORECASE,
)


# collect_env's labels as it prints them (torch/utils/collect_env.py env_info_fmt, 1.x to 2.13), its multi-line
# values' own line starts ("GPU 0: ...", "MIG 3g.20gb Device 0:", "[pip3] torch==...") and vLLM's section banners.
PRINTED_LABEL = re.compile(
    r"(?:PyTorch version|Is debug build|CUDA used to build PyTorch|ROCM used to build PyTorch|OS|GCC version|"
    r"Clang version|CMake version|Libc version|Python version|Python platform|Is CUDA available|CUDA runtime version|"
    r"CUDA_MODULE_LOADING set to|GPU models and configuration|Nvidia driver version|cuDNN version|Is XPU available|"
    r"HIP runtime version|MIOpen runtime version|Is XNNPACK available|Caching allocator config|"
    r"Versions of relevant libraries):"
)
SPLIT_AT = re.compile(
    rf"\s+(?={PRINTED_LABEL.pattern}|GPU \d{{1,3}}:\s|MIG \S{{1,20}} Device \d{{1,3}}:|"
    r"\[(?:pip\d?|conda)\]\s|CPU:\s)"
)
# A line is a flattened collect_env when it names this many distinct labels, or starts as collect_env starts a
# paragraph (with a label, after "Collecting environment information...") and names two fields or package rows:
# prose that mentions a label or two starts otherwise. How much of a line is looked at.
FLATTENED = 4
MAX_FLAT = 200_000
FLAT_START = re.compile(rf"^\s*(?:Collecting environment information\.\.\.\s+)?{PRINTED_LABEL.pattern}")
PACKAGE_ROW = re.compile(r"\[(?:pip\d?|conda)\]\s")


def _flattened(line: str) -> bool:
    if len(line) < 40:
        return False
    head = line[:MAX_FLAT]
    labels = {m.group(0) for m in PRINTED_LABEL.finditer(head)}
    if len(labels) >= FLATTENED:
        return True
    return bool(FLAT_START.match(head)) and len(labels) + len(PACKAGE_ROW.findall(head)) >= 2


# The same for the "- Label: value" bullets of accelerate / transformers / diffusers `env` (their commands/env.py
# print one bullet a line, torch's as "- PyTorch version (GPU?): 2.1.0+cu121 (True)" or "(accelerator?)").
FORK_MARK = re.compile(r"- PyTorch version \((?:GPU|accelerator)\?\)\s*:")
FORK_SPLIT = re.compile(r"\s+(?=- [^\s:-][^:]{0,60}:(?:\s|$))")


def unflatten(lines: list[str]) -> list[str]:
    """A collect_env (or an `env` report of accelerate, transformers, diffusers) whose line breaks a site's Markdown
    turned into spaces (Stack Overflow and Reddit join the lines of a paragraph), put back one field a line; every
    other line as it was."""
    out: list[str] = []
    for line in lines:
        if _flattened(line):
            out.extend(part for part in SPLIT_AT.split(line) if part)
        elif len(line) > 80 and FORK_MARK.search(line[:MAX_FLAT]) and len(FORK_SPLIT.findall(line[:MAX_FLAT])) >= 3:
            out.extend(part for part in FORK_SPLIT.split(line) if part)
        else:
            out.append(line)
    return out


@dataclass
class CollectEnvParse:
    fields: dict[str, str] = field(default_factory=dict)
    gpu_lines: list[str] = field(default_factory=list)
    libraries: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    cudnn_files: list[str] = field(default_factory=list)
    #: 1-based numbers of the lines that are collect_env fields (not prose, not a warning torch printed).
    field_lines: set[int] = field(default_factory=set)

    @property
    def recognised(self) -> bool:
        """One distinctive field with a value, or two of them: an issue template's empty "- GPU models and
        configuration:" bullet above a traceback is not collect_env output."""
        present = DISTINCTIVE & set(self.fields)
        if present == {"torch_version"} and len(self.fields) == 1 and not self.gpu_lines:
            return False  # "PyTorch version: 0.3.0" alone is how people state their version in prose, not a report
        return len(present) >= 2 or any(self.fields[k].strip() for k in present) or bool(self.gpu_lines)

    @property
    def missing(self) -> list[str]:
        """Facts the paste does not give: absent labels (truncated or trimmed pastes) by their bare label,
        then labels present whose value collect_env could not collect."""
        have = set(self.fields) | ({"libraries"} if self.libraries else set())
        out = [label for key, label in EXPECTED.items() if key not in have]
        if self.libraries and not any(
            re.match(r"^\[(pip\d?\]\s+torch==|conda\]\s+(py)?torch\s)", lib) for lib in self.libraries
        ):
            out.append("the torch line of 'Versions of relevant libraries' (list cut short or trimmed)")
        for key, label in EXPECTED.items():
            value = self.fields.get(key)
            if value is not None and value.strip().lower() in NOT_COLLECTED and not (key == "gpus" and self.gpu_lines):
                out.append(f"{label} (printed as '{value.strip() or 'empty'}')")
        return out


def _split_arch(os_text: str) -> tuple[str, str | None]:
    """ "Ubuntu 22.04.4 LTS (x86_64)" → ("Ubuntu 22.04.4 LTS", "x86_64"); by string operations, so a long
    run of spaces costs one pass."""
    text = os_text.rstrip()
    if text.endswith(")") and "(" in text:
        head, _, arch = text[:-1].rpartition("(")
        if re.fullmatch(r"\w+", arch):
            return head.rstrip(), arch
    return os_text, None


def _unemphasise(line: str) -> str:
    """ "**PyTorch version:** 2.2.2" → "PyTorch version: 2.2.2"; any other line unchanged."""
    m = LABEL_EMPHASIS.match(line)
    return f"{m.group('label')}:{line[m.end() :]}" if m else line


def _label(line: str) -> tuple[str, str] | None:
    m = LABEL.match(line) or NO_COLON.match(line)
    if not m:
        return None
    name = FIELDS.get(re.sub(r"\s+", " ", m.group("label").strip().lower()))
    return (name, m.group("value").strip()) if name else None


def field_name(line: str) -> str | None:
    """The internal name of the collect_env field on this line, or None."""
    labelled = _label(EMPHASIS.sub("", _unemphasise(line.strip())).strip())
    return labelled[0] if labelled else None


def parse(lines: list[str]) -> CollectEnvParse:
    out = CollectEnvParse()
    section: str | None = None
    for no, line in enumerate(lines, start=1):
        stripped = EMPHASIS.sub("", _unemphasise(line.strip())).strip()
        if WARNING_LINE.search(stripped):
            out.warnings.append(stripped)
        if not stripped:
            section = None if section != "gpus" else section
            continue
        lib = re.match(r"^\[(pip\d?|conda)\]\s+(.*)$", stripped)
        if lib:
            out.libraries.append(f"[{lib.group(1)}] {lib.group(2).strip()}")
            out.field_lines.add(no)
            continue
        if section == "gpus" and re.match(r"^(GPU \d+|MIG \S+ Device \d+)\s*:", stripped):
            out.gpu_lines.append(stripped)
            out.field_lines.add(no)
            continue
        if section == "cudnn" and re.match(r"^(/|[A-Za-z]:\\)\S*cudnn", stripped, re.IGNORECASE):
            out.cudnn_files.append(stripped)
            out.field_lines.add(no)
            continue
        labelled = _label(stripped)
        if labelled:
            name, value = labelled
            out.field_lines.add(no)
            if name not in out.fields:  # first occurrence wins (vLLM repeats some labels in other sections)
                out.fields[name] = value
            section = name if name in ("gpus", "cudnn") else None
            if name == "gpus" and re.match(r"^(GPU \d+|MIG \S+ Device \d+)\s*:", value):
                out.gpu_lines.append(value)
            continue
        if section == "cudnn" or (section == "gpus" and not stripped.startswith(("GPU", "MIG"))):
            section = None
    return out


def _bool(text: str) -> bool | None:
    t = text.strip().lower()
    if t in ("true", "yes", "1"):
        return True
    if t in ("false", "no", "0"):
        return False
    return None


def _missing(label: str) -> NotCollected:
    return NotCollected(f"'{label}' is not in the pasted text")


def _missing_value(label: str, value: str) -> NotCollected:
    return NotCollected(f"collect_env printed '{label}: {value.strip()}' (it could not find out)")


def to_facts(p: CollectEnvParse) -> dict[str, Any]:
    f = p.fields
    facts: dict[str, Any] = {}
    version = f.get("torch_version", "")
    # Only a value that is a version becomes one: a label the reader half-understood ("** 2.0.0", "10.1<ESC>[0m")
    # must stay unknown rather than compare as a CUDA release no driver supports.
    if version and version.lower() not in NOT_COLLECTED and re.match(r"\d+\.\d+", version):
        facts["torch.version"] = version.split()[0]
    if "cuda_build" in f:
        v = f["cuda_build"].strip()
        # "N/A" is what collect_env prints for every torch field when `import torch` failed (TORCH_AVAILABLE is
        # False). With no torch in its package list that is no torch at all (no build, read as None); with one
        # listed ("[pip3] torch==2.5.1+cu124") torch is installed and failed to import: its build is unknown, not
        # a CPU build. A torch it imported prints "None" (before 1.5 replaced None by it, "Could not collect").
        torch_unimported = (
            v.lower() == "n/a" and "torch.version" not in facts and bool(torch_rows.torch_dists(p.libraries))
        )
        if v.lower() in ("none", "could not collect", "n/a") and not torch_unimported:
            tag = facts.get("torch.version", "").partition("+")[2]
            facts["torch.cuda_build"] = f"{tag[2:-1]}.{tag[-1]}" if re.fullmatch(r"cu\d{3,4}", tag) else None
        elif re.fullmatch(r"\d+\.\d+(?:\.\d+)*", v):
            facts["torch.cuda_build"] = v
    rocm = f.get("rocm_build", "")
    if rocm:
        facts["torch.hip_build"] = None if rocm.lower() in NOT_COLLECTED | {"none"} else rocm
    if "debug" in f:
        facts["torch.debug"] = _bool(f["debug"])
    if "cuda_available" in f:
        facts["cuda.available"] = _bool(f["cuda_available"])
    if "xpu_available" in f:
        facts["xpu.available"] = _bool(f["xpu_available"])
    os_text = f.get("os", "")
    if os_text and os_text.lower() not in NOT_COLLECTED:
        distro, arch = _split_arch(os_text)
        facts["host.distro"] = distro
        if arch:
            facts["host.machine"] = arch
        low = distro.lower()
        facts["host.os"] = "Windows" if "windows" in low else "Darwin" if ("mac" in low or "darwin" in low) else "Linux"
    plat = f.get("python_platform", "")
    if plat:
        if "microsoft" in plat.lower() or "wsl" in plat.lower():
            facts["platform.wsl"] = "wsl2" if "wsl2" in plat.lower() else "wsl1"
        m = re.match(r"^(Linux|macOS|Windows)-([^-]+(?:-[^-]+)*?)-(x86_64|aarch64|arm64|AMD64)", plat)
        if m:
            facts["host.kernel"] = m.group(2)
            facts["python.machine"] = m.group(3)
        if plat.startswith("macOS"):
            facts["python.platform"] = "darwin"
            if m:  # platform.platform() on macOS: "macOS-<mac_ver()[0]>-<machine()>-..." (CPython Lib/platform.py)
                facts["python.mac_ver"] = m.group(2)
    pyv = f.get("python_version", "")
    if pyv:
        m = re.match(r"^(\d+\.\d+(?:\.\d+)?)", pyv)
        if m:
            facts["python.version"] = m.group(1)
    driver = f.get("driver", "")
    if driver:
        m = re.search(r"\d{3,}\.\d+(?:\.\d+)?", driver)
        # "Could not collect" / "No CUDA" / "N/A": nvidia-smi gave no answer. That is not proof of no driver
        # (nvidia-smi may be off PATH, or fail for another reason), so it stays "could not look".
        facts["driver.version"] = m.group(0) if m else _missing_value("Nvidia driver version", driver)
        if m:
            facts["driver.version_source"] = "collect_env"
    if p.gpu_lines:
        gpus = []
        for line in p.gpu_lines:
            m = re.match(r"^GPU (\d+)\s*:\s*(.+)$", line)
            if m:
                name = m.group(2).split("(UUID:", 1)[0].strip()
                gpus.append({"index": int(m.group(1)), "name": name or m.group(2).strip()})
        facts["reported.gpus"] = gpus
        mig = [line for line in p.gpu_lines if line.startswith("MIG")]
        if mig:
            facts["reported.mig_devices"] = mig
    # collect_env's cuDNN line lists the *system* libcudnn it found (ldconfig / CUDA_PATH), not the one torch
    # loads, so it is kept as reported text and never becomes torch.cudnn_version.
    cudnn = f.get("cudnn", "")
    if p.cudnn_files:
        facts["reported.cudnn"] = p.cudnn_files
    elif cudnn and cudnn.lower() not in NOT_COLLECTED and not cudnn.lower().startswith("probably"):
        facts["reported.cudnn"] = [cudnn]
    gpu_text = f.get("gpus", "")
    if gpu_text and not p.gpu_lines and gpu_text.lower() not in NOT_COLLECTED:
        facts["reported.gpu_models"] = gpu_text  # e.g. "AMD Instinct MI100 (gfx908:sramecc+:xnack-)"
    elif gpu_text.lower() in NOT_COLLECTED and "gpus" in f and not p.gpu_lines:
        facts["reported.gpus"] = _missing_value("GPU models and configuration", gpu_text)
    for key, name in (("vllm_version", "reported.vllm_version"), ("vllm_rocm", "reported.vllm_rocm_version")):
        if f.get(key):
            facts[name] = f[key]
    if p.libraries:
        conda_build = None
        for lib in p.libraries:
            cm = re.match(r"^\[conda\]\s+(pytorch|torch)\s+(\S+)\s+(\S+)(?:\s+(\S+))?", lib)
            # "<pip>" / "pypi_0 pypi" / "dev_0 <develop>" rows are conda listing a pip (or `setup.py develop`)
            # install, not a conda build (torch_rows reads them as that copy where the pip rows do not show it).
            if (
                cm
                and cm.group(3) not in ("pypi_0", "<pip>", "<develop>")
                and (cm.group(4) or "") not in ("pypi", "<develop>", "<pip>")
                and not cm.group(3).startswith("dev_")
            ):
                conda_build = cm.group(3)
            if re.match(r"^\[conda\]\s+(cpuonly|pytorch-mutex\s+\S+\s+cpu)", lib):
                conda_build = conda_build or "cpu (cpuonly / pytorch-mutex cpu)"
        dists = torch_rows.torch_dists(p.libraries)
        facts["torch.dists"] = dists
        facts["reported.libraries"] = p.libraries
        if conda_build:
            facts["torch.conda_build"] = conda_build
    if p.warnings:
        facts["cuda.init_warnings"] = p.warnings
        for w in p.warnings:
            m = re.search(r"found version (\d+)", w)
            if m:
                facts["cuda.driver_version"] = int(m.group(1))
    return facts
