"""The device a program was TOLD to use, read from the command, code or configuration a text quotes, and from the
user's account of the program's device setting.

A library's line that it runs on the CPU (cpu_fallback.py) means different things by who chose the CPU:

- the user, on purpose: ``--device cpu`` / ``--device=cpu`` (whisper, whispering, most argparse scripts), ``--cpu``
  (ComfyUI), ``--use-cpu all`` (AUTOMATIC1111), ``--accelerator cpu`` (Lightning), ``--no_cuda`` / ``--use_cpu``
  (transformers' TrainingArguments), ``device='cpu'`` / ``device=torch.device("cpu")`` in code, ``device: cpu`` /
  ``"device": "cpu"`` in a YAML/JSON config, ``CUDA_VISIBLE_DEVICES=""`` / ``=-1`` (CUDA hides every GPU: the
  CUDA Programming Guide's environment variables, an empty or invalid first index enumerates no device). Then the
  CPU line is the requested behaviour, not a fault: nothing may be claimed from it (openai-whisper's own
  transcribe.py warns ``FP16 is not supported on CPU`` on every CPU run, whispering's maintainer: "That is not an
  error. With --device cpu, FP32 is used.").
- the program, against its own setting: the user set the app's device option to GPU/CUDA and the library still
  says CPU. torch accepts ``cuda`` / ``cuda:N`` (and ``cpu``, ``mps``, ...), never ``gpu``: ``torch.device("gpu")``
  raises "Expected one of cpu, cuda, ... device type at start of device string: gpu" (c10/core/Device.cpp), and
  ``device="cuda"`` on a build without CUDA raises "Torch not compiled with CUDA enabled" (torch/cuda/__init__.py
  _lazy_init) rather than running on the CPU. openai-whisper's ``load_model(device=...)`` passes the string to
  ``torch.load(map_location=device)`` / ``model.to(device)`` (whisper/__init__.py), transformers' pipelines to
  ``torch.device`` (pipelines/base.py): both raise on a bad or unusable device. A run that silently lands on the
  CPU after the user chose GPU therefore means the program did not pass that choice on (a 'gpu' value mapped to
  the CPU, a default left in place): the work was left on the CPU (workload_left_on_cpu). An app that checks
  ``is_available()`` itself and falls back quietly would hide a CPU-only build the same way; nothing in such a text
  shows the build, so that reading is not claimed (the fix's first step, checking ``is_available()``, tells).
"""

from __future__ import annotations

import re

from gpuassist.ingest.lines import MAX_LINE

# The CPU asked for in a command, code or config. Not ".to('cpu')" / ".cpu()": moving results back to the host is
# what working GPU code does; not "map_location='cpu'": loading a checkpoint onto the host first is routine.
CPU_REQUESTED = re.compile(
    r"(?:^|\s)--(?:cpu|use[-_]cpu(?:\s+all)?|no[-_]cuda|device[= ]['\"]?cpu|accelerator[= ]['\"]?cpu)(?![\w-])|"
    r"(?<![\w.])(?:device|accelerator)\s*=\s*(?:torch\.device\(\s*)?['\"]cpu['\"]|"
    r"\bno_cuda\s*=\s*True\b|\buse_cuda\s*=\s*False\b|\buse_cpu\s*=\s*True\b|"
    # transformers' pipeline(device=-1) is its CPU (pipelines/base.py: "-1 ... will leverage CPU"); the pix2pix /
    # CycleGAN options' "--gpu_ids -1" ("use -1 for CPU"). Not Lightning's devices=-1 / gpus=-1 (every GPU).
    r"(?<![\w.])device\s*=\s*-1\b|(?:^|\s)--gpu_ids[= ]-1\b|"
    # A config's key: "device: cpu" (YAML), "\"device\": \"cpu\"" (JSON), "device = cpu" (INI/TOML without quotes).
    r"^\s*['\"]?device['\"]?\s*[:=]\s*['\"]?cpu['\"]?\s*,?\s*$|"
    # Every GPU hidden on purpose: export CUDA_VISIBLE_DEVICES="" / =-1, os.environ["CUDA_VISIBLE_DEVICES"] = "".
    r"\bCUDA_VISIBLE_DEVICES\s*=\s*(?:''|\"\"|-1\b|'-1'|\"-1\")|"
    r"\[['\"]CUDA_VISIBLE_DEVICES['\"]\]\s*=\s*(?:''|\"\"|'-1'|\"-1\")",
    re.IGNORECASE | re.MULTILINE,
)
# Words that make the CPU flag a workaround for a broken CUDA rather than a choice ("had to use --cpu because ...").
WORKAROUND = re.compile(
    r"\b(?:had to|have to|forced to|only works? with|only runs? with|otherwise|else it|"
    r"because (?:the )?(?:gpu|cuda))\b",
    re.IGNORECASE,
)

# The program's device setting said to be the GPU: "when i set the device to GPU", "device is set to cuda",
# "selected GPU as the device", "--device gpu", "device='gpu'", "device option: GPU".
GPU_SETTING = re.compile(
    r"\b(?:set|setting|select(?:ed)?|selecting|chose|choose|choosing|picked|switched)\s+(?:the\s+|my\s+|its\s+)?"
    r"(?:device|processor|compute device|hardware)\s+(?:option\s+|setting\s+)?(?:to|as|=)\s+['\"]?(?:gpu|cuda)\b|"
    r"\b(?:device|processor)\s+(?:option\s+|setting\s+)?(?:is|was)\s+(?:set\s+to|already\s+set\s+to|on)\s+"
    r"['\"]?(?:gpu|cuda)\b|"
    r"\b(?:select(?:ed)?|chose|picked|choosing|selecting)\s+['\"]?(?:gpu|cuda)['\"]?\s+(?:as|for)\s+(?:the\s+)?device\b|"
    r"\b(?:even (?:if|though|when)|although|though)\s+(?:i|we|you)\s*(?:have\s+|had\s+)?(?:set|selected|chose|picked)"
    r"\s+(?:the\s+)?(?:device\s+to\s+)?['\"]?(?:gpu|cuda)\b|"
    r"(?:^|\s)--device[= ]['\"]?(?:gpu|cuda)(?![\w-])|(?<![\w.])device\s*=\s*['\"](?:gpu|cuda)['\"]|"
    # Chinese: "设备设置为GPU", "选择了GPU", "已经选了cuda".
    r"(?:设置|设为|设成|选择|选了|选的)\S{0,6}?(?:gpu|cuda|显卡)",
    re.IGNORECASE,
)


# The GPU said to be unused by its model or kind of card ("it does not use my RTX 3060", "not using the graphics
# card"): the complaint that makes a CPU flag the answer rather than the user's plan.
CARD_UNUSED = re.compile(
    r"\b(?:does\s*n[o']t|doesn't|don'?t|do\s+not|does\s+not|not|never|isn't|is\s+not)\s+"
    r"(?:use|using|utili[sz]e|utili[sz]ing|touch|touching)\s+(?:the\s+|my\s+|any\s+)?(?:nvidia\s+)?"
    r"(?:(?:geforce\s+)?(?:rtx|gtx)\s*\d{3,4}\w*|quadro\b|tesla\b|graphics\s+card|video\s+card|gpus?\b)",
    re.IGNORECASE,
)


def card_unused_said(lines: list[str]) -> bool:
    """The text says the GPU (by model or kind of card) is not used."""
    return any(CARD_UNUSED.search(line[:MAX_LINE]) for line in lines)


def cpu_requested(lines: list[str]) -> tuple[int, str] | None:
    """The first line that asks for the CPU on purpose (a flag, an argument, a config key, every GPU hidden), unless
    the text says the CPU was a workaround."""
    text = "\n".join(line[:MAX_LINE] for line in lines)
    if WORKAROUND.search(text):
        return None
    for no, line in enumerate(lines, start=1):
        if CPU_REQUESTED.search(line[:MAX_LINE]):
            return no, line.strip()[:500]
    return None


def gpu_setting_said(lines: list[str]) -> tuple[int, str] | None:
    """The first line that says the program's device setting is the GPU (in words, a flag or an argument)."""
    for no, line in enumerate(lines, start=1):
        if GPU_SETTING.search(line[:MAX_LINE]):
            return no, line.strip()[:500]
    return None
