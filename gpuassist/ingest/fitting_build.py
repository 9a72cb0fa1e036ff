"""An environment report from a machine with no NVIDIA GPU in it, posted where nobody asked for CUDA.

Bug reports carry an environment report by template (``python -m torch.utils.collect_env``, ``yolo checks``,
``accelerate env``, vLLM's collect_env): from a CPU-only laptop, a Mac, an Intel XPU host. There a CPU, MPS or XPU
build of torch is what the machine calls for, and "no CUDA" is a description, not a fault. Told as an error it sends
the person after a GPU they do not have. Such a report is told as information (what the report shows, and what
to do if the machine does have an NVIDIA GPU after all) unless the text gives a reason to expect CUDA: an NVIDIA GPU
or driver shown, an error message about CUDA, or the user saying the GPU is not used or CUDA is unavailable.
"""

from __future__ import annotations

import re

from gpuassist.facts import Facts
from gpuassist.findings import Finding, Severity
from gpuassist.ingest.apple_words import MPS_WORKING
from gpuassist.ingest.lines import Sources, note_source, repl_answer
from gpuassist.report.model import Report, step_summaries
from gpuassist.rules import view
from gpuassist.rules.hardware import other_accelerator_works
from gpuassist.rules.ordering import order_findings

# The readings that describe a machine without an NVIDIA GPU. Any other claim means the text shows a problem.
DESCRIPTIVE = ("cpu_only_build", "macos_no_cuda_use_mps", "no_nvidia_gpu")

# What a CUDA build that cannot use CUDA is listed as possibly lacking (ingest.errors.unavailable_guesses): on a
# machine without an NVIDIA GPU each of them is simply true and none is a fault.
UNAVAILABLE_GUESSES = ("no_nvidia_driver", "no_nvidia_gpu", "nvidia_module_not_loaded", "docker_no_gpu_runtime")

# torch's accelerator availability as the reports print it: collect_env's "Is XPU available: True", vLLM's
# collect_env "Is XPU available             : True", a hand-written "XPU available: True".
AVAILABLE_FIELD = re.compile(
    r"^\s*(?:[-*]\s*)?(?:Is\s+)?(?P<what>XPU|MPS)\s+available\s*:\s*(?P<value>True|False)\b", re.I
)
# ... and as a REPL answers it: ">>> torch.xpu.is_available()" then "True" on the next line (lines.repl_answer).
AVAILABLE_CALL = re.compile(r"torch\.(?:(?P<xpu>xpu)|backends\.(?P<mps>mps))\.is_available\(\)\s*$")
# ... and as a device banner names the device it selected: Ultralytics' select_device prints "MPS (Apple M1 Pro)"
# (ultralytics/utils/torch_utils.py) only when MPS was chosen and is available.
MPS_SELECTED = re.compile(r"\btorch-\S+\s+MPS\s+\(")
# ... and as the device shows itself working (apple_words.MPS_WORKING: its allocator's out-of-memory error, a tensor
# printed on it): only an available MPS device allocates memory or holds a tensor.

# An NVIDIA GPU or its driver in the text: then CUDA is what the machine is for. Model names, the vendor as lspci
# and nvidia-smi print it, ultralytics' "CUDA:0 (" device banner.
NVIDIA_SHOWN = re.compile(
    r"\b(?:geforce|quadro|tesla|titan|rtx|gtx|jetson|tegra|nvidia-smi|NVRM)\b|\bnvidia\s+(?:corporation|"
    r"[ahlptvkb]\d{1,4}\b|a\d{4})|\b10de:|\bCUDA:\d+\s*\(",
    re.I,
)
# The user's own check of CUDA, typed at a REPL (">>> torch.cuda.is_available()", "In [3]: ...", also inside a print or
# after "import torch;") or in a python -c one-liner, whose answer (False, on the next line or in the printed output)
# is the cuda.available fact: the same statement as "is_available() returns False" in words.
CUDA_CHECKED = re.compile(
    r"^\s*(?:>>>|In \[\d+\]:)[^\n]*\btorch\.cuda\.is_available\(\)|"
    r"-c\s+[\"'][^\"']*torch\.cuda\.is_available\(\)"
)
# ... unless the user says CUDA is not wanted there ("I don't need CUDA", "a CPU-only job", "this is a CPU partition",
# "no GPU needed", a job sent to a CPU partition, "just curious"): their check answering False is then what they
# expect, as on a CPU-only laptop or in a CPU job's log.
CUDA_DECLINED = re.compile(
    r"\b(?:do\s*n[o']?t|does\s*n[o']?t|never)\s+(?:need|want|require|use)s?\s+(?:the\s+|a\s+|any\s+)?(?:cuda|gpus?)\b|"
    r"\bno\s+need\s+(?:for|of)\s+(?:the\s+|a\s+)?(?:cuda|gpus?)\b|\bno\s+(?:cuda|gpus?)\s+(?:needed|required|wanted)\b|"
    r"\bcpu[- ]only\s+(?:on\s+purpose|job|partition|queue)\b|\b(?:a|the|this|my)\s+cpu\s+(?:job|partition|queue)\b|"
    # a Slurm job sent to a CPU partition: "#SBATCH --partition=cpu", "srun -p cpu-long ..."
    r"(?:--partition[= ]|\s-p\s*)[\w-]*\bcpu\b|"
    # asked out of curiosity ("just curious whether CUDA exists here", "out of interest")
    r"\bcurious\b|\bout\s+of\s+(?:curiosity|interest)\b",
    re.I,
)
# An issue template's question answered "no" (transformers' "Using GPU in script?: No"): no wish for the GPU.
TEMPLATE_DECLINED = re.compile(r"\bin script\?\s*:\s*(?:no|n/?a|none|false|<fill in>)\s*$", re.I)
# An error message about CUDA or the GPU (a matched message naming neither, "CPU: Apple M1", is no request).
CUDA_WORD = re.compile(r"cuda|nvidia|nccl|cudnn|cublas|\bgpus?\b|kernel image", re.I)
# collect_env's GPU fields, named in ``missing_facts`` when the paste was cut before them (not when printed empty).
GPU_FIELDS = ("GPU models and configuration", "Nvidia driver version")
# A report's field that only says CUDA is absent: "GPU models and configuration: No CUDA", "CUDA    None".
EMPTY_FIELD = re.compile(
    r"^\s*(?:[-*]\s*)?[A-Za-z][\w ()/.-]{0,60}?(?:\s*[:=]\s*|\s{2,})(?:No CUDA|None|N/?A|Could not collect|False)\s*$",
    re.I,
)
# The user asks for the GPU or CUDA, or says it is not used / not available.
CUDA_WANTED = re.compile(
    r"\b(?:use|using|run\s+on|train\s+on|enable|utili[sz]e)\s+(?:the\s+|my\s+|a\s+)?(?:gpu|cuda)\b|"
    r"\b(?:my|the)\s+(?:nvidia\s+)?(?:gpu|graphics\s+card)\b|"
    r"\bcuda\s+(?:is\s+)?(?:not\s+(?:available|found|detected|working)|unavailable)|"
    r"is_available\(\)[^\n]{0,12}\bfalse\b",
    re.I,
)


def accelerator_facts(lines: list[str], sources: Sources) -> dict[str, bool]:
    """XPU / MPS availability as a report's field or a REPL's answer states it (the first statement wins)."""
    facts: dict[str, bool] = {}
    for i, line in enumerate(lines[:5000]):
        head = line[:2000]
        key: str | None = None
        value: str | None = None
        if field := AVAILABLE_FIELD.match(head):
            key, value = f"{field.group('what').lower()}.available", field.group("value")
        elif MPS_SELECTED.search(head) or MPS_WORKING.search(head):
            key, value = "mps.available", "True"
        elif (call := AVAILABLE_CALL.search(head)) and i + 1 < len(lines):
            answer = repl_answer(lines[i + 1][:200])
            if answer is not None:
                key, value = ("xpu" if call.group("xpu") else "mps") + ".available", str(answer)
        if key and value and key not in facts:
            facts[key] = value.lower() == "true"
            note_source(sources, key, i + 1, line)
    return facts


def cuda_expected(facts: Facts, lines: list[str], said: list[str], *, unavailable_said: bool) -> bool:
    """Does the text give a reason to expect CUDA here? ``said``: the lines the known error messages matched. A
    report's own empty field ("Nvidia driver version: No CUDA", "CUDA  None") is no error, and a driver is seen
    through its version, not through that field's name."""
    if unavailable_said or any(CUDA_WORD.search(line) and not EMPTY_FIELD.match(line) for line in said):
        return True
    if view.nvidia_gpus(facts).count or facts.known("driver.version") or facts.value("cuda.available"):
        return True
    text = [line[:2000] for line in lines[:5000] if not TEMPLATE_DECLINED.search(line[:2000])]
    if (
        facts.value("cuda.available") is False
        and any(CUDA_CHECKED.search(line) for line in text)
        and not any(CUDA_DECLINED.search(line) for line in text)
    ):
        return True  # the user ran CUDA's check and shows its False: the REPL's or python -c's form of "it is False"
    return any(NVIDIA_SHOWN.search(line) or CUDA_WANTED.search(line) for line in text)


def _unavailable_guess(finding: Finding, facts: Facts) -> bool:
    """One of the possibilities listed for a report's "Is CUDA available: False" (a CUDA build that finds no driver
    or GPU): "Possible cause" guesses, not a reading of something the text shows."""
    return (
        finding.id in UNAVAILABLE_GUESSES
        and finding.title.startswith("Possible cause")
        and facts.value("cuda.available") is False
    )


def _fits(finding: Finding, facts: Facts) -> bool:
    """The reading describes a build that suits the machine as the report shows it."""
    if finding.id == "macos_no_cuda_use_mps":
        return facts.value("mps.available") is not False  # MPS said to be unavailable is a problem of its own
    return True


def _describe(finding: Finding, facts: Facts) -> None:
    """Turn the reading into information: what the report shows, and the fix for a machine that has the GPU."""
    if _unavailable_guess(finding, facts):
        finding.title = "If this machine has an NVIDIA GPU: " + finding.title.removeprefix("Possible cause: ")
        finding.explanation = (
            "Not claimed: this CUDA build finds no CUDA device, and the report shows no NVIDIA GPU or driver and "
            "nothing in it asks for CUDA; on a machine without an NVIDIA GPU that is expected. If the machine has "
            "one, this is a possible cause. " + finding.explanation
        )
        finding.severity = Severity.INFO
        return
    version = facts.value("torch.version")
    torch_is = f"torch {version}" if version else "torch"
    if finding.id == "cpu_only_build":
        finding.title = f"{torch_is} is a CPU-only build, and the report shows no NVIDIA GPU"
        finding.explanation = (
            f"{torch_is} has no CUDA support, so it runs on the CPU. Nothing in this report shows an NVIDIA GPU or "
            "a wish to use one, so this may be just what the machine calls for. If the machine does have an NVIDIA "
            "GPU, this build is why it is not used."
        )
        finding.fix = "Nothing to do on a machine without an NVIDIA GPU. If it has one:\n" + finding.fix
    elif finding.id == "macos_no_cuda_use_mps":
        shown = "MPS is available" if facts.value("mps.available") else "the report does not say whether MPS is"
        finding.title = "macOS: no CUDA here; the Apple GPU is used through MPS"
        finding.explanation = (
            f"CUDA does not exist on macOS, so 'No CUDA' in this report is expected, not a fault ({shown} "
            "available). The Apple GPU is used through the MPS backend."
        )
        finding.fix = (
            "Nothing to fix for CUDA on a Mac. To use the Apple GPU:\n"
            "  device = torch.device('mps' if torch.backends.mps.is_available() else 'cpu')"
        )
    else:
        other = (
            "torch uses the Intel XPU"
            if facts.value("xpu.available")
            else "torch uses the Apple GPU (MPS)"
            if facts.value("mps.available")
            else "torch runs on what the machine has"
        )
        finding.title = f"No NVIDIA GPU in this report: {other}"
        finding.explanation = (
            "The report shows no NVIDIA GPU, and nothing in it asks for CUDA: CUDA is not expected here. "
            + finding.explanation
        )
    finding.severity = Severity.INFO


def settle(report: Report, lines: list[str], said: list[str], *, unavailable_said: bool) -> None:
    """When every claim is one of the descriptive readings and the text gives no reason to expect CUDA, tell them
    as information (see the module docstring)."""
    if report.facts.value("mps.available") is True and not cuda_expected(
        report.facts, lines, said, unavailable_said=unavailable_said
    ):
        # A Mac whose MPS works, where nothing asks for CUDA: "use MPS" tells the person what they already do.
        report.findings[:] = [
            f for f in report.findings if not (f.id == "macos_no_cuda_use_mps" and f.severity is Severity.INFO)
        ]
    claims = [f for f in report.findings if f.severity in (Severity.ERROR, Severity.WARNING)]
    guesses = [f for f in claims if _unavailable_guess(f, report.facts)]
    readings = [f for f in claims if f not in guesses]
    if not claims or any(f.id not in DESCRIPTIVE or not _fits(f, report.facts) for f in readings):
        return
    if any(field in report.meta.get("missing_facts", []) for field in GPU_FIELDS):
        return  # the report was cut before the lines that would show a GPU: it does not show there is none
    if cuda_expected(report.facts, lines, said, unavailable_said=unavailable_said):
        return
    if not (view.torch_imported(report.facts) or other_accelerator_works(report.facts)):
        return  # no build to speak of: nothing says what the machine runs on
    for f in claims:
        _describe(f, report.facts)
    if readings:  # the guesses keep the order of their likelihood (ingest.errors.merge), all now information
        report.findings[:] = order_findings(report.findings)
    report.steps[:] = step_summaries(report.findings, set())
