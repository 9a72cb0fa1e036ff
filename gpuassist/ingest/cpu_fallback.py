"""An application's own words that it ran on the CPU, read against the machine the text shows.

Libraries print a line when they end up on the CPU. What that line means depends on how the library picks its
device, read in each one's source:

- openai-whisper: ``load_model(device=None)`` takes ``"cuda" if torch.cuda.is_available() else "cpu"``
  (whisper/__init__.py); ``transcribe()`` on a CPU model warns ``FP16 is not supported on CPU; using FP32 instead``,
  and ``Performing inference on CPU when CUDA is available`` only when CUDA works (whisper/transcribe.py). The FP16
  warning alone therefore says torch saw no CUDA.
- sentence-transformers: ``SentenceTransformer(device=None)`` takes the best available device
  (``util.get_device_name``) and logs ``Use pytorch device_name: cpu`` (older: ``Use pytorch device: cpu``).
- transformers' pipelines: ``Pipeline.__init__`` with no device takes device 0, which is ``cuda:0`` when
  ``is_torch_cuda_available()`` (then the other accelerators, then the CPU), and logs ``Device set to use cpu``
  (transformers/pipelines/base.py, the versions that print that line).
- Ultralytics / YOLOv5: ``select_device('')`` takes CUDA when ``torch.cuda.is_available()`` and prints its banner
  ``Ultralytics 8.x 🚀 Python-3.x torch-2.x CPU (<cpu>)`` / ``YOLOv5 🚀 ... torch-1.x CPU``
  (ultralytics/utils/torch_utils.py, yolov5/utils/torch_utils.py).
- diffusers: a pipeline stays on the CPU until ``.to("cuda")``; ``DiffusionPipeline.to`` warns ``Pipelines loaded
  with `dtype=torch.float16` cannot run with `cpu` device`` (older: ``torch_dtype``) (diffusers/pipelines/
  pipeline_utils.py): the program placed it there.
- torch's CPU kernels without half precision (``"addmm_impl_cpu_" not implemented for 'Half'``,
  ``"LayerNormKernelImpl" not implemented for 'Half'``, ``"slow_conv2d_cpu" ...``; aten/src/ATen/Dispatch.h's
  ``"<kernel>" not implemented for '<dtype>'``): a float16 model ran on the CPU, whoever chose it.

A CPU asked for on purpose (``--device cpu``, ``device='cpu'``, ``CUDA_VISIBLE_DEVICES=""``, a config's ``device:
cpu``) makes the line the requested behaviour: nothing is claimed. A program whose device setting the text says is
GPU while the library reports the CPU left the work there (device_choice.py has the sources). Otherwise such a line
decides a cause only with the machine: on a Mac, CUDA does not exist (MPS is the answer); with an NVIDIA
GPU named and a library that picks CUDA by itself, torch could not use CUDA, whose commonest cause is a CPU-only build
(not when the text shows a CUDA build or CUDA working: other readings decide those); with a library that leaves the
device to the program, the program kept the work on the CPU. A text that names neither a Mac nor an NVIDIA GPU
(a laptop running a CPU build on purpose) is left undecided.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpuassist.facts import Facts
from gpuassist.ingest.cuda_working import cuda_shown_working
from gpuassist.ingest.device_choice import cpu_requested, gpu_setting_said
from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.ingest.named_gpu import named_nvidia_gpus
from gpuassist.ingest.usage_words import cuda_shown_failing


@dataclass(frozen=True)
class FallbackLine:
    """One library's CPU line and how that library chooses its device."""

    library: str
    regex: re.Pattern[str]
    picks_cuda_itself: bool | None  # True: CUDA when available; False: the program places it; None: unknown


FALLBACK_LINES = (
    FallbackLine("openai-whisper", re.compile(r"FP16 is not supported on CPU; using FP32 instead"), True),
    FallbackLine("sentence-transformers", re.compile(r"\bUse pytorch device(?:_name)?:\s*cpu\b"), True),
    FallbackLine("transformers", re.compile(r"\bDevice set to use cpu\b"), True),
    FallbackLine(
        "ultralytics",
        re.compile(r"\b(?:Ultralytics|YOLOv\d+)\b.{0,40}\bPython-\d\S*\s+torch-\d\S*\s+CPU\b"),
        True,
    ),
    FallbackLine(
        "diffusers",
        re.compile(r"Pipelines loaded with `?(?:torch_)?dtype=torch\.float16`? cannot run with `?cpu`? device"),
        False,
    ),
    FallbackLine(
        "torch",
        re.compile(r"\"(?:\w*_cpu\w*|LayerNormKernelImpl)\" not implemented for '(?:Half|BFloat16)'"),
        None,
    ),
)
CUDA_BUILD_TAG = re.compile(r"\btorch-\d[\w.]*\+cu\d{2,3}\b")


def app_on_cpu(lines: list[str]) -> tuple[int, str, FallbackLine] | None:
    """The first line where a library says it runs on the CPU."""
    for no, raw in enumerate(lines, start=1):
        line = raw[:MAX_LINE]
        low = line.lower()
        if "cpu" not in low and "not implemented for" not in low:
            continue
        for fallback in FALLBACK_LINES:
            if fallback.regex.search(line):
                return no, line.strip()[:500], fallback
    return None


def app_on_cpu_matches(lines: list[str], facts: Facts, matches: list[Match]) -> list[Match]:
    """What a library's CPU line means on the machine the text shows (see the module docstring); nothing when the
    text already has a reading, shows CUDA working or failing, or names neither a Mac nor an NVIDIA GPU."""
    if matches:
        return matches
    found = app_on_cpu(lines)
    if found is None:
        return matches
    no, line, fallback = found
    if cpu_requested(lines) is not None:
        return matches  # the CPU was asked for: the library's line is the requested behaviour (device_choice.py)
    if facts.value("host.os") == "Darwin" and facts.value("platform.rosetta") is not True:
        return [Match("macos_no_cuda_use_mps", no, line, True, 0.85)]
    if facts.value("cuda.available") is not None or cuda_shown_working(lines) or cuda_shown_failing(lines):
        return matches
    setting = gpu_setting_said(lines)
    if setting is not None:
        # The program's device setting says GPU and no error followed: torch raises on 'gpu' and on 'cuda' without
        # CUDA, so a quiet CPU run means the program did not pass the choice on (device_choice.py).
        return [Match("workload_left_on_cpu", setting[0], setting[1], False, 0.7)]
    if not (facts.known("reported.gpus") or named_nvidia_gpus(lines)):
        return matches
    cuda_build = bool(facts.value("torch.cuda_build")) or bool(CUDA_BUILD_TAG.search(line))
    if fallback.picks_cuda_itself:
        if cuda_build:
            return matches  # a CUDA build that saw no GPU: the driver/visibility readings, not this one
        return [Match("cpu_only_build", no, line, False, 0.7)]
    if fallback.picks_cuda_itself is False:
        out = [Match("workload_left_on_cpu", no, line, False, 0.7)]
        return out if cuda_build else [*out, Match("cpu_only_build", no, line, False, 0.4)]
    if cuda_build:
        return [Match("workload_left_on_cpu", no, line, False, 0.6)]
    return [Match("cpu_only_build", no, line, False, 0.6), Match("workload_left_on_cpu", no, line, False, 0.5)]
