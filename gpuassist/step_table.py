"""The wizard's steps as one table: id, title, the question each answers, what it does, and the facts its
verdict rests on. The app's pages, the reports, the CLI and the catalogue all read their step words from
here (docs/architecture.md §8, "Add a wizard step"); what each step *runs* is wired in ``wizard/steps.py``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StepInfo:
    """One step. ``reported``: a report has a row for it and catalogue findings belong to it (the optional
    script audit and the summary are not judged steps of their own). ``key_facts``: (label, fact key)
    pairs listed under "What was found" on its page."""

    id: str
    title: str
    question: str
    explanation: str
    key_facts: tuple[tuple[str, str], ...] = ()
    reported: bool = True


SUMMARY = "summary"

TABLE: tuple[StepInfo, ...] = (
    StepInfo(
        "environment",
        "Environment",
        "Which Python and which torch does the target interpreter really use?",
        "Finds out which Python and which torch the target interpreter really uses, by running a "
        "small probe inside it — the app's own Python is often not the one your script runs.",
        key_facts=(
            ("Python", "python.executable"),
            ("Python version", "python.version"),
            ("Environment kind", "python.env_kind"),
            ("torch", "torch.version"),
            ("torch imported from", "torch.file"),
            ("import torch took (s)", "torch.import_seconds"),
            ("import error", "torch.import_error"),
            ("probe outcome", "probe.outcome"),
        ),
    ),
    StepInfo(
        "driver",
        "Driver",
        "Is there an NVIDIA GPU, and is its driver loaded and new enough?",
        "Checks that an NVIDIA GPU is present and that its driver is loaded, answering, and new "
        "enough: without a working driver no build of torch can use the GPU.",
        key_facts=(
            ("NVIDIA GPUs on the PCI bus", "pci.nvidia_gpu_count"),
            ("Driver version", "driver.version"),
            ("Driver supports CUDA up to", "driver.cuda_version"),
            ("NVML", "nvml.status"),
            ("nvidia-smi", "smi.status"),
            ("Operating system", "host.distro"),
            ("Kernel", "host.kernel"),
            ("Container", "platform.container"),
            ("WSL", "platform.wsl"),
        ),
    ),
    StepInfo(
        "wheel",
        "Wheel type",
        "Is the installed torch built for this GPU and driver, and does it work on it?",
        "Checks that the installed torch was built with CUDA for this GPU and driver, and that it "
        "initialises CUDA and runs a small test on every device.",
        key_facts=(
            ("torch", "torch.version"),
            ("Built for CUDA", "torch.cuda_build"),
            ("GPU architectures in the build", "torch.arch_list"),
            ("cuDNN", "torch.cudnn_version"),
            ("torch.cuda.is_available()", "cuda.available"),
            ("CUDA devices", "cuda.device_count"),
            ("CUDA init error", "cuda.init_error"),
            ("Apple MPS available", "mps.available"),
        ),
    ),
    StepInfo(
        "placement",
        "Device placement",
        "Do tensors and models land on the device, and how fast are copies?",
        "Moves tensors and a small model to the device and back, to confirm work really lands on the "
        "GPU and to measure how fast host↔device copies are.",
        key_facts=(
            ("Devices tested", "placement.tested_devices"),
            ("CUDA available", "placement.cuda_available"),
            ("Host→device copies", "placement.transfer"),
            ("Host memcpy (GB/s)", "bandwidth.host_memcpy_gbps"),
            ("Outcome", "placement.outcome"),
        ),
    ),
    StepInfo(
        "dataloader",
        "DataLoader sweep",
        "Which DataLoader settings keep the device fed?",
        "Tries DataLoader settings (workers, pinned memory, batch size) to find one that keeps the "
        "device busy instead of waiting for data.",
        key_facts=(
            ("Best setting found", "sweep.dataloader_line"),
            ("Bottleneck", "sweep.bound"),
            ("Speed-up over the default", "sweep.speedup_vs_default"),
            ("Loading per batch (s)", "sweep.load_seconds_per_batch"),
            ("Compute per batch (s)", "sweep.compute_seconds_per_batch"),
            ("Settings tried (→ best)", "sweep.trials"),
            ("Outcome", "sweep.outcome"),
        ),
    ),
    StepInfo(
        "benchmark",
        "CNN benchmark",
        "How fast is a small CNN training step on each device?",
        "Times a small CNN training step on each device, with warm-up and device synchronisation done "
        "right, so the numbers compare fairly.",
        key_facts=(
            ("Training step", "bench.results"),
            ("Batch-size scaling", "bench.scaling"),
            ("Speed-ups", "bench.speedup"),
            ("Outcome", "bench.outcome"),
        ),
    ),
    StepInfo(
        "script",
        "Your script",
        "Does your own code keep work off the GPU?",
        "Optional: reads your training script or notebook (without running it) for code that keeps "
        "work off the GPU — a model or batch never moved, a DataLoader without workers, a sync every "
        "step — and shows the line to change. If you allow it, it also runs the script for a few "
        "steps and measures what it really does.",
        reported=False,
    ),
    StepInfo(
        "summary",
        "Summary",
        "What stops PyTorch from using the GPU here, and what do I do about it?",
        "The verdict: the root cause first, with its fix, then everything found, ready to export as a "
        "report for yourself or a support ticket.",
        reported=False,
    ),
)

BY_ID: dict[str, StepInfo] = {s.id: s for s in TABLE}
#: The judged steps, in order: a report's step rows, the steps catalogue findings belong to.
REPORT_STEPS: tuple[StepInfo, ...] = tuple(s for s in TABLE if s.reported)
REPORT_STEP_IDS: tuple[str, ...] = tuple(s.id for s in REPORT_STEPS)


def title(step_id: str) -> str:
    """The step's title, or the id itself for a step this version does not know (an old report)."""
    info = BY_ID.get(step_id)
    return info.title if info else step_id
