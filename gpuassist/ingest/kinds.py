"""Say what kinds of text a paste is made of (collect_env, a kernel log, nvidia-smi, a pip session, ...).

A support ticket holds whatever the user copied: often several outputs one after the other. The report
names each kind it read, so the reader knows what the verdict rests on, and what was not in the text.
Detection is by the shape of lines each tool prints, never by the cause they show.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpuassist.ingest.env_reports import REPORT_MARK, TOOL_WORDS
from gpuassist.ingest.paste_facts import ENV_REPORT_MARK
from gpuassist.ingest.python_words import shows_python
from gpuassist.ingest.torch_log_words import shows_torch_log
from gpuassist.ingest.user_words import mentions_gpu

# Words that make a text about PyTorch/CUDA/the GPU at all; a text with none of them is refused.
TOPIC = re.compile(
    # NVRM, NVSwitch and nv-fabricmanager (the NVIDIA kernel module's and fabric's prefixes), Tegra's memory manager
    # (NvRmMem, nvmap, nvbuf_utils) and the "3D Video Controller" Windows names a GPU without its driver (round 13).
    r"python|torch|cuda|cudnn|nvidia|\bnvrm\b|\bnvswitch\b|\bnv-fabricmanager\b|NvRmMem|\bnvmap\b|nvbuf_utils|"
    r"\b3D Video Controller\b|nvcc|nvml|nccl|"
    # nouveau, the kernel's open-source driver for NVIDIA GPUs (drivers/gpu/drm/nouveau), in its kernel forms only
    # ("nouveau" alone is a French word): its device lines, its module's options, lsmod/lspci, "the nouveau driver"
    # ("un nouveau driver", "le nouveau module": French for "a new driver", after an article or possessive)
    r"(?<!\bun )(?<!\bune )(?<!\ble )(?<!\bla )(?<!\bmon )(?<!\bma )(?<!\bce )(?<!\bcet )(?<!\bdu )(?<!\bau )"
    r"\bnouveau(?:\s+[0-9a-f]{4}:[0-9a-f]{2}:|:|\.modeset\b|\s+(?:drivers?|module|kernel module|drm)\b)|"
    r"\bblacklist[- ]nouveau\b|driver in use:\s*nouveau\b|"
    r"\bgpus?\b|geforce|quadro|tesla|rocm|\bhip\b|\bmps\b|"
    r"jetson|tegra|(?<![a-z])orin(?![a-z])|jupyter|ipykernel|conda|\bpip3?\b|显卡|显存|"
    # GPU kernel libraries PyTorch programs load (OpenAI's Triton compiler, Meta's xFormers): their import
    # warnings are the whole of many pastes ("A matching Triton is not available", round 27)
    r"\btriton\b|\bxformers\b|"
    # an NVIDIA GPU by its model ("GTX 1060", "RTX3090") and a program's device choice ("Using device_type cpu",
    # "using device: cuda"): a text naming either is about the GPU even where no other word of the topic is
    r"\b(?:gtx|rtx)\s?\d{3,4}\b|\busing device(?:_type)?\s*[:=]?\s*[`'\"]?(?:cpu|cuda|mps)\b|" + TOOL_WORDS,
    re.IGNORECASE,
)


@dataclass(frozen=True)
class InputKind:
    id: str
    label: str
    line_no: int  # 1-based, the first line that shows it


# (id, label, line regex). Order is the order kinds are named in the report.
KIND_PATTERNS: tuple[tuple[str, str, re.Pattern[str]], ...] = tuple(
    (kid, label, re.compile(rx, re.IGNORECASE))
    for kid, label, rx in (
        (
            "env_fork",
            "an environment report (accelerate, transformers, diffusers, ultralytics, detectron2, mmcv, xformers, "
            "ds_report, bitsandbytes, sglang, torch.__config__, nvcc, a web UI's sysinfo)",
            r"^\s*-\s*`?(accelerate|transformers|diffusers|huggingface_hub|peft|trl)`?\s+version\s*:|"
            r"PyTorch version \((GPU|accelerator)\?\)\s*:|^Ultralytics\b.*\btorch-\S+\s+(CUDA|CPU|MPS)|"
            # then xFormers' import warning, detectron2 / mmcv collect_env, get_env_info() JSON, xformers.info
            r"^\*\s+(CUDA|Packages|System)\s*:\s*$|xFormers (can't load C\+\+/CUDA extensions|was built for:)|"
            + ENV_REPORT_MARK
            + "|"
            + REPORT_MARK,
        ),
        (
            "kernel_log",
            "a kernel/system log (dmesg, journalctl, syslog)",
            r"^\[\s*\+?\d+\.\d+\]\s|^\[[A-Z][a-z]{2} [A-Z][a-z]{2}\s+\d+ [\d:]+ \d{4}\]\s|"
            r"^[A-Z][a-z]{2}\s+\d+\s+\d\d:\d\d:\d\d\s+\S+\s+\S+?(\[\d+\])?:\s|\bNVRM:|"
            r"^-- (Logs|Journal) begin|\bkernel: \[",
        ),
        (
            "nvidia_smi",
            "nvidia-smi output",
            r"NVIDIA-SMI \d|\bDriver Version:\s*\d|=+\s*NVSMI LOG\s*=+|^\|\s+\d+\s+.+\s(On|Off)\s+\|\s|"
            r"NVIDIA-SMI has failed|^Failed to initialize NVML|^No devices were found|"
            r"Unable to determine the device handle|^GPU \d+: .+\(UUID: GPU-",
        ),
        (
            "container",
            "a container / Kubernetes error (Docker, nvidia-docker, Podman, Kubernetes)",
            r"\bdocker(-compose)?\s+(run|exec|compose|build|start)\b|docker: Error response from daemon|"
            r"nvidia-container-(cli|runtime|toolkit)|nvidia-docker|\bpodman\b|\bcrun:|OCI runtime|"
            r"\bkubectl\b|nvidia\.com/gpu|\bFailedScheduling\b|containerd|^FROM\s+\S+|"
            # Singularity/Apptainer --nv (cmd/internal/cli/actions_linux.go) and enroot/pyxis
            r"Could not find any nv files on this host|\b(?:singularity|apptainer)\s+(?:exec|run|shell)\b|\bpyxis:",
        ),
        (
            "jetson",
            "Jetson / L4T output",
            r"tegrastats|GR3D_FREQ|# R\d+ \(release\), REVISION|\bL4T\b|JetPack|nvidia-l4t|-tegra\b|\bJetson\b|"
            r"(?<![a-z])Orin(?![a-z])|\bXavier[ -]NX\b|\bAGX[ -]Xavier\b|\bjtop\b",
        ),
        (
            "install",
            "a pip / conda / mamba install session",
            # pip's "Collecting torch==..." (collect_env's own first line is "Collecting environment information...")
            r"^\s*(\S*[$#>]\s*)?(pip3?|python\d*(\.\d+)?\s+-m\s+pip|uv\s+pip|conda|mamba|micromamba)\s+install\b|"
            r"^\s*Collecting (?!environment information)\S|^\s*Successfully installed\s|"
            r"^\s*Requirement already satisfied:|"
            r"^\s*Looking in (indexes|links):|^\s*Downloading \S+\.whl|The following NEW packages will be INSTALLED|"
            r"^\s*Solving environment|^\s*## Package Plan ##|No matching distribution found|"
            r"Could not find a version that satisfies the requirement",
        ),
        (
            "scheduler",
            "a batch scheduler's job script or message (Slurm, PBS, LSF)",
            # job-script directives, and the lines Slurm's commands and daemons prefix with their own name
            # (src/common/log.c: "<program>: error: ..."; slurmd/slurmstepd in syslog): scheduler_facts.py reads the
            # request, the scheduler family of messages.json the refusals
            r"^\s*#(?:SBATCH|PBS|BSUB)\s+-|\b(?:sbatch|srun|salloc|slurmstepd|slurmd|sacct|squeue)(?:\[\d+\])?: "
            r"(?:error|fatal|warning|Job \d+|job \d+)\b|^\s*(?:\S*[$#>]\s*)?(?:sbatch|srun|salloc|qsub|bsub)\s+-",
        ),
        ("repl", "a Python interactive session (>>> / IPython)", r"^\s*>>>\s*\S|^\s*In \[\d+\]:\s*\S"),
        (
            "jupyter",
            "a Jupyter notebook traceback",
            # (IPython's rule of dashes is followed by its "XxxError   Traceback" line; a rule alone is any log's)
            r"Cell In\s*\[\d+\],? line \d+|<ipython-input-\d+|ipykernel_\d+|Traceback \(most recent call last\)\s*"
            r"(Cell|<ipython)|(?<=\w)Error\s{3,}Traceback \(most recent call last\)",
        ),
        (
            "windows",
            "Windows / PowerShell output",
            r"(?<![\w/])[A-Za-z]:\\[^\\\s:*?\"<>|]+\\|(?:^|\s)PS [A-Za-z]:\\|"
            r"\bWinError\b|Microsoft Windows \[Version",
        ),
        (
            "traceback",
            "a Python traceback or error message",
            r"Traceback \(most recent call last\)|(?:^|[\s:\[(`])\w+(\.\w+)*(Error|Exception|Warning):\s|"
            # nccl-tests' NCCLCHECK / CUDACHECK (src/common.h): "[host: Test ]NCCL failure common.cu:874 '...'"
            r"\b(?:NCCL|CUDA) failure \S+\.(?:cu|cc|cpp|h):\d+ '",
        ),
    )
)


def detect(lines: list[str], *, collect_env: bool = False, skip: set[int] | None = None) -> list[InputKind]:
    """Every kind of text present, in the order of KIND_PATTERNS; collect_env first when the parser took it.
    ``skip``: line numbers already read as collect_env fields (its GPU lines are nvidia-smi's, but they
    are collect_env's output here)."""
    found: dict[str, InputKind] = {}
    if collect_env:
        found["collect_env"] = InputKind("collect_env", "collect_env output", 1)
    skip = skip or set()
    for no, line in enumerate(lines, start=1):
        if no in skip or not line.strip():
            continue
        text = line[:2000]
        for kid, label, rx in KIND_PATTERNS:
            if kid not in found and rx.search(text):
                found[kid] = InputKind(kid, label, no)
    order = ["collect_env", *(k for k, _, _ in KIND_PATTERNS)]
    return sorted(found.values(), key=lambda k: order.index(k.id))


# Kinds whose marks any program prints (an "XxxError:" line, a Windows path, a syslog or dmesg prefix, a batch job
# script, which schedules CPU jobs as well): alone they
# do not make a text about Python, PyTorch, CUDA, NVIDIA or the GPU (issue #14, item 1). The other kinds are that
# topic by what they are (collect_env and its forks, nvidia-smi, Jetson tools, pip/conda, Python's REPL and
# notebooks) or, for container texts, are read as the GPU runtime's (a Singularity --nv line, an NVIDIA library).
GENERIC_KINDS = frozenset({"traceback", "windows", "kernel_log", "scheduler"})


def only_generic(kinds: list[InputKind]) -> bool:
    """Every kind read is one any program's output shows (or none was read)."""
    return all(k.id in GENERIC_KINDS for k in kinds)


def about_the_topic(text: str) -> bool:
    """Whether the text mentions Python, PyTorch, CUDA, NVIDIA or a GPU at all (a GPU also in other languages:
    "显卡", "Grafikkarte", "видеокарта"); Python also shown by its own forms, a script name or code (python_words),
    PyTorch by its C++ logger's lines (torch_log_words)."""
    return (
        TOPIC.search(text[:2_000_000]) is not None
        or mentions_gpu(text[:2_000_000])
        or shows_python(text)
        or shows_torch_log(text)  # torch's C++ logger: "[W NNPACK.cpp:80] ..." (round 28)
    )


# Facts about the machine any text may show: a Windows path (C:\\Users\\x\\notes.txt) says Windows, a kernel banner
# says Linux and its release. They are kept when the text is read, but alone they do not make a text about Python,
# PyTorch, CUDA, NVIDIA or a GPU (a Jetson is NVIDIA's board: platform.jetson is not one of them).
PLATFORM_FACTS = frozenset(
    {"host.os", "host.machine", "host.distro", "host.kernel", "platform.wsl", "platform.rosetta"}
)


def facts_about_the_topic(facts: dict[str, object]) -> bool:
    """Whether the facts read from a text include one beyond the platform it ran on (PLATFORM_FACTS)."""
    return any(key not in PLATFORM_FACTS for key in facts)


def describe(kinds: list[InputKind], *, messages_read: bool = False) -> str:
    """The kinds read, for the report's source line: "a kernel log + nvidia-smi output". With no kind, whether
    known messages were still read in it (a build log's modpost error, a message quoted in prose), so the line
    never says "no error message" above a finding that cites one."""
    if kinds:
        return " + ".join(k.label for k in kinds)
    if messages_read:
        return "a text about PyTorch/CUDA with known messages in it but no tool output gpuassist recognises as a whole"
    return "a text about PyTorch/CUDA with no tool output or error message in it"
