"""Robustness of the collect_env readers: the same situation as a corpus paste, pasted the way the next user would.

Each case takes a real paste from tests/data/pastes (its thread's verdict in index.json / index.d) and rewrites it
the way another user's paste of the same machine differs, by a rule taken from the printing program's own format,
never from what gpuassist's patterns happen to accept:

- ``md_quote``: GitHub's "Quote reply" prefixes every line with "> ".
- ``details``: pytorch's bug template asks for the output in a ``<details>`` block with a fenced code block.
- ``crlf``: copied from a Windows console: CRLF line ends.
- ``layout_1x``: torch/utils/collect_env.py before 1.7 (v1.4.0's env_info_fmt): "Is CUDA available: Yes/No",
  "Is debug build: No", no "ROCM used to build", "Python platform", "Libc version", "CUDA_MODULE_LOADING",
  "HIP/MIOpen runtime", "Is XNNPACK available", no CPU block, "[pip]" rows.
- ``layout_2x``: torch 2.5+ (v2.13.0's env_info_fmt): "True/False", "Is XPU available" after "cuDNN version",
  "Is XNNPACK available", "Caching allocator config: N/A", "[pip3]" rows.
- ``vllm_sections``: ``vllm collect-env`` since 0.9 (vllm/collect_env.py): "=====" section banners ("System Info",
  "PyTorch Info", "Python Environment", "CUDA / GPU Info", ...) and every label padded to one column before " : ".
- ``cut_libraries``: the paste stops inside "Versions of relevant libraries" (a message cut at a size limit).
- ``then_traceback``: the user's own, unrelated error pasted under the environment (a shape mismatch in their model).
- ``bold_labels``: the user formatted the paste as Markdown, "**PyTorch version:** 2.2.2" (before the fix the
  "**" after the colon became the value: torch "**", CUDA "** Could not collect", and driver_too_old was claimed).
- ``docker_logs_timestamps`` / ``github_actions_log`` / ``buildkit_plain`` / ``kubectl_prefix``: collect_env run in
  a container, a CI job, an image build or a pod, pasted from the collector with its per-line prefix (before the fix
  no field was read and nothing was found). An image build has no GPU: only its build facts (a +cpu or cpuonly torch)
  are kept as that situation.
- ``stackoverflow_flat``: each paragraph joined into one line, as Stack Overflow or Reddit render an unformatted
  paste (before the fix a whole block was one unreadable field: no finding).
- ``ansi_colours``: copied from a coloured terminal: "ESC[0m" resets at line ends (before the fix "10.1ESC[0m" was
  read as the CUDA build and driver_too_old was claimed on healthy machines).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.ingest.collect_env import parse, to_facts, unflatten
from gpuassist.ingest.corpus import entries
from gpuassist.ingest.log_prefixes import strip_log_prefixes
from gpuassist.ingest.text import clean_lines

PASTES = Path(__file__).parent / "data" / "pastes"
EXPECT = {e["file"]: e.get("expect_first") for e in entries(PASTES)}


def md_quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines())


def details(text: str) -> str:
    return f"### Versions\n\n<details><summary>collect_env output</summary>\n\n```\n{text.strip()}\n```\n\n</details>\n"


def crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


# Lines torch's collect_env did not print before 1.7 (v1.4.0 env_info_fmt).
_NEW_FIELDS = re.compile(
    r"^(ROCM used to build PyTorch|Python platform|Libc version|CUDA_MODULE_LOADING set to|HIP runtime version|"
    r"MIOpen runtime version|Is XNNPACK available|Is XPU available|Caching allocator config|Clang version):"
)


def layout_1x(text: str) -> str:
    out: list[str] = []
    in_cpu = False
    for line in text.splitlines():
        if line.strip() == "CPU:":
            in_cpu = True
            continue
        if in_cpu:
            if line.startswith("Versions of relevant libraries"):
                in_cpu = False
            else:
                continue
        if _NEW_FIELDS.match(line):
            continue
        line = re.sub(r"^(Is CUDA available|Is debug build): True\s*$", r"\1: Yes", line)
        line = re.sub(r"^(Is CUDA available|Is debug build): False\s*$", r"\1: No", line)
        line = re.sub(r"^(Python version: \d+\.\d+)\S*.*$", r"\1", line)
        line = re.sub(r"^\[pip3\] ", "[pip] ", line)
        out.append(line)
    return "\n".join(out) + "\n"


def layout_2x(text: str) -> str:
    out: list[str] = []
    for line in text.splitlines():
        line = re.sub(r"^(Is CUDA available|Is debug build): Yes\s*$", r"\1: True", line)
        line = re.sub(r"^(Is CUDA available|Is debug build): No\s*$", r"\1: False", line)
        line = re.sub(r"^\[pip\] ", "[pip3] ", line)
        if re.match(r"^(Is XNNPACK available|Caching allocator config|Is XPU available):", line):
            continue
        if line.startswith("Versions of relevant libraries"):
            out += ["Is XPU available: False", "Is XNNPACK available: True", "Caching allocator config: N/A", ""]
        out.append(line)
    return "\n".join(out) + "\n"


_SECTION_OF = {
    "OS": "System Info",
    "PyTorch version": "PyTorch Info",
    "Python version": "Python Environment",
    "CUDA runtime version": "CUDA / GPU Info",
    "Is CUDA available": "CUDA / GPU Info",
    "Versions of relevant libraries": "Versions of relevant libraries",
}


def vllm_sections(text: str) -> str:
    """torch's layout as vLLM's collect_env prints it: banners, and "{label:<29}: value"."""
    out: list[str] = []
    seen: set[str] = set()
    for line in text.splitlines():
        m = re.match(r"^([A-Za-z][A-Za-z0-9_ /.()?-]{0,40}?):(?: (.*))?$", line)
        if m and m.group(1) in _SECTION_OF and _SECTION_OF[m.group(1)] not in seen:
            name = _SECTION_OF[m.group(1)]
            seen.add(name)
            out += ["=" * 30, f"{name:^30}".rstrip(), "=" * 30]
            if name == "Versions of relevant libraries":
                continue
        if m and m.group(1) != "CPU" and not line.startswith(("[", "GPU ", "MIG ", "/")):
            out.append(f"{m.group(1):<29}: {m.group(2) or ''}".rstrip())
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def cut_libraries(text: str) -> str:
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.lstrip("> ").startswith("Versions of relevant libraries"):
            return "\n".join(lines[: i + 2]) + "\n"
    return text


UNRELATED = """
Traceback (most recent call last):
  File "/home/user/project/train.py", line 88, in <module>
    out = model(x)
  File "/home/user/project/model.py", line 41, in forward
    x = self.fc(x)
RuntimeError: mat1 and mat2 shapes cannot be multiplied (64x512 and 1024x10)
"""


def bold_labels(text: str) -> str:
    """Each "Label: value" of collect_env turned into "**Label:** value" by a user formatting the paste."""
    return "\n".join(re.sub(r"^([A-Za-z][^:\n]{1,45}):( |$)", r"**\1:**\2", line) for line in text.splitlines())


def ansi_colours(text: str) -> str:
    """A copy from a coloured terminal (or a `script` capture): SGR resets at line ends, a bold prompt."""
    return "\x1b[1m$ python -m torch.utils.collect_env\x1b[0m\n" + text.replace("\n", "\x1b[0m\n")


def docker_logs_timestamps(text: str) -> str:
    """`docker logs --timestamps` of a container that ran collect_env (RFC 3339 nanoseconds, UTC, one space)."""
    return "\n".join(
        f"2024-05-01T12:00:{i % 60:02d}.{123456789 + i}Z {line}" for i, line in enumerate(text.splitlines())
    )


def github_actions_log(text: str) -> str:
    """A GitHub Actions raw job log of a step running collect_env (seven fractional digits, a group header)."""
    body = [f"2024-05-01T12:00:{i % 60:02d}.{1234567 + i}Z {line}" for i, line in enumerate(text.splitlines())]
    return "\n".join(["2024-05-01T11:59:59.9990000Z ##[group]Run python -m torch.utils.collect_env", *body])


def buildkit_plain(text: str) -> str:
    """`docker build --progress=plain` of a RUN step: "#N seconds line", the step header and DONE line bare."""
    body = [f"#12 {0.5 + i * 0.01:.3f} {line}" for i, line in enumerate(text.splitlines())]
    return "\n".join(["#12 [5/7] RUN python -m torch.utils.collect_env", *body, "#12 DONE 3.9s"])


def kubectl_prefix(text: str) -> str:
    """`kubectl logs --prefix` of the pod that ran collect_env."""
    return "\n".join(f"[pod/train-7d9f8c-xk2lq/trainer] {line}" for line in text.splitlines())


def stackoverflow_flat(text: str) -> str:
    """Pasted outside a code block where Markdown joins a paragraph's lines (Stack Overflow, Reddit), then copied
    back from the rendered page: each paragraph is one line."""
    return "\n\n".join(" ".join(p.split("\n")) for p in re.split(r"\n\s*\n", text.strip()))


def then_traceback(text: str) -> str:
    return text.rstrip() + "\n\n" + UNRELATED


Transform = Callable[[str], str]
TRANSFORMS: dict[str, Transform] = {
    "md_quote": md_quote,
    "details": details,
    "crlf": crlf,
    "layout_1x": layout_1x,
    "layout_2x": layout_2x,
    "vllm_sections": vllm_sections,
    "cut_libraries": cut_libraries,
    "then_traceback": then_traceback,
    "bold_labels": bold_labels,
    "ansi_colours": ansi_colours,
    "docker_logs_timestamps": docker_logs_timestamps,
    "github_actions_log": github_actions_log,
    "buildkit_plain": buildkit_plain,
    "kubectl_prefix": kubectl_prefix,
    "stackoverflow_flat": stackoverflow_flat,
}

# (corpus paste, transforms that keep its situation): a transform is left out where it would remove the evidence
# the thread's verdict rests on (a cut that drops the [conda] cpuonly row) or change the situation.
BASES: dict[str, tuple[str, ...]] = {
    "pytorch-122924-windows-pypi-2.2.2-rtx4080.txt": (
        "md_quote",
        "details",
        "crlf",
        "layout_1x",
        "vllm_sections",
        "bold_labels",
        "ansi_colours",
        "stackoverflow_flat",
    ),
    "pytorch-106565-conda-cpuonly-1.8.1-2x-rtx3090.txt": (
        "md_quote",
        "details",
        "layout_2x",
        "vllm_sections",
        "buildkit_plain",
        "github_actions_log",
        "stackoverflow_flat",
    ),
    "thuml-Time-Series-Library-10-terminal-true-run-py-no-cuda-gpus.txt": ("md_quote", "details", "crlf"),
    "ogx-ai-ogx-1798-docker-without-gpus-all-collect-env-host-h100.txt": ("md_quote", "details", "layout_1x"),
    "pytorch-45109-rtx2080ti-nvml-mismatch-prose.txt": ("md_quote", "crlf", "layout_2x"),
    "espnet-espnet-5629-collect-env-a100-driver-460-torch-2.1.0-cu121.txt": (
        "md_quote",
        "details",
        "layout_1x",
        "vllm_sections",
        "cut_libraries",
        "then_traceback",
        "docker_logs_timestamps",
        "kubectl_prefix",
        "github_actions_log",
        "stackoverflow_flat",
    ),
    "pytorch-43058-v100-driver-418-cu102.txt": (
        "md_quote",
        "layout_2x",
        "vllm_sections",
        "cut_libraries",
        "bold_labels",
        "stackoverflow_flat",
    ),
    "pytorch-pytorch-31876-collect-env-geforce-210-driver-342-torch-1.2.0.txt": (
        "md_quote",
        "details",
        "layout_2x",
        "stackoverflow_flat",
    ),
    "Comfy-Org-ComfyUI-9705-gtx-1070-torch-2.8.0-cu129-no-kernel-image-system-info.txt": ("md_quote", "crlf"),
    "pytorch-150733-rtx5090d-cu126-warning.txt": (
        "md_quote",
        "details",
        "layout_1x",
        "vllm_sections",
        "bold_labels",
        "ansi_colours",
        "docker_logs_timestamps",
        "kubectl_prefix",
    ),
    "pytorch-57922-a100-mig-torch181-cu102-sm80.txt": ("md_quote", "layout_2x", "vllm_sections", "stackoverflow_flat"),
    "pytorch-130112-macos-arm64-mps-curl-echo.txt": (
        "md_quote",
        "details",
        "layout_1x",
        "vllm_sections",
        "stackoverflow_flat",
    ),
    "pytorch-48145-macos-x86-anaconda-nightly.txt": ("md_quote", "layout_2x", "cut_libraries"),
    "edenaion-EZ-CorridorKey-137-amd-gpu-asked-torch-2.9.1-cpu-system-info.txt": ("md_quote", "details", "crlf"),
    "facebookresearch-maskrcnn-benchmark-75-collect-env-torch-041-and-nightly-both-installed.txt": (
        "md_quote",
        "details",
        "layout_2x",
    ),
    "pytorch-vision-9174-env-info-torch-2.6.0-loaded-conda-torch-2.8.0.txt": ("md_quote", "details", "crlf"),
    "pytorch-139875-collect-env-torch-na-conda-2.5.1.txt": (
        "md_quote",
        "details",
        "layout_1x",
        "vllm_sections",
        "bold_labels",
        "ansi_colours",
        "docker_logs_timestamps",
        "kubectl_prefix",
        "stackoverflow_flat",
    ),
    "pytorch-torchchat-1408-collect-env-torch-na-nightly-missing.txt": (
        "md_quote",
        "details",
        "vllm_sections",
        "stackoverflow_flat",
    ),
    "pytorch-88639-suspend-cu117-warning.txt": ("md_quote", "details", "crlf"),
    "oobabooga-textgen-645-collect-env-windows-2.0.0-cpu-rtx4090.txt": (
        "md_quote",
        "layout_1x",
        "vllm_sections",
        "bold_labels",
        "ansi_colours",
    ),
    "pytorch-40682-windows-cu101-healthy.txt": (
        "details",
        "layout_2x",
        "vllm_sections",
        "then_traceback",
        "bold_labels",
        "ansi_colours",
        "stackoverflow_flat",
    ),
    "huggingface-transformers-17093-conda-pytorch-gpu-env-rtx2080ti-collect-env-healthy.txt": (
        "md_quote",
        "layout_2x",
        "vllm_sections",
        "then_traceback",
        "ansi_colours",
        "docker_logs_timestamps",
        "kubectl_prefix",
        "github_actions_log",
        "stackoverflow_flat",
    ),
    "pytorch-145670-rocm-gfx1010-nightly.txt": ("md_quote", "details", "layout_2x", "vllm_sections"),
    "vllm-9293-wsl2-rtx4070-healthy.txt": ("md_quote", "details", "layout_1x", "docker_logs_timestamps"),
}

CASES = [
    pytest.param(base, name, id=f"{base.removesuffix('.txt')[:60]}-{name}")
    for base, names in BASES.items()
    for name in names
]


def _first_claim(text: str) -> tuple[str | None, list[str]]:
    report = load_text(text, label="variant")
    ids = [f.id for f in report.findings]
    errors = [f.id for f in report.findings if f.severity is Severity.ERROR]
    return (ids[0] if ids else None), errors


@pytest.mark.parametrize(("base", "transform"), CASES)
def test_variant_keeps_the_verdict(base: str, transform: str) -> None:
    text = TRANSFORMS[transform]((PASTES / base).read_text(encoding="utf-8", errors="replace"))
    first, errors = _first_claim(text)
    expected = EXPECT[base]
    if expected is None:
        assert not errors, f"{transform}: claims {errors} on a healthy paste"
    else:
        assert first == expected, f"{transform}: first finding {first}, expected {expected}"


# Hand-written pastes of the same situations as the corpus pastes named in each reason, printed by the programs that
# users run instead of collect_env (their layouts read from the programs' sources, named in each reason), or mixed
# with the nvidia-smi table / traceback the user added. (id, expected first finding or None for healthy, text).
SMI_460 = """+-----------------------------------------------------------------------------+
| NVIDIA-SMI 460.32.03    Driver Version: 460.32.03    CUDA Version: 11.2     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  A100-PCIE-40GB      Off  | 00000000:3B:00.0 Off |                    0 |
| N/A   33C    P0    35W / 250W |      0MiB / 40536MiB |      0%      Default |
|                               |                      |             Disabled |
+-------------------------------+----------------------+----------------------+
"""
SMI_535 = """+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 535.129.03             Driver Version: 535.129.03   CUDA Version: 12.2     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|                                         |                      |               MIG M. |
|=========================================+======================+======================|
|   0  NVIDIA A100-SXM4-80GB          On  | 00000000:07:00.0 Off |                    0 |
| N/A   31C    P0              62W / 400W |  71234MiB / 81920MiB |     97%      Default |
|                                         |                      |             Disabled |
+-----------------------------------------+----------------------+----------------------+
"""
ACCELERATE_HEAD = "Copy-and-paste the text below in your GitHub issue\n\n"
TRANSFORMERS_HEAD = "Copy-and-paste the text below in your GitHub issue and FILL OUT the two last points.\n\n"
SM120_WARNING = """/home/me/venv/lib/python3.12/site-packages/torch/cuda/__init__.py:235: UserWarning:
NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.
The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.
If you want to use the NVIDIA GeForce RTX 5090 GPU with PyTorch, please check the instructions at https://pytorch.org/get-started/locally/

  warnings.warn(
"""
NO_KERNEL = """Traceback (most recent call last):
  File "C:\\Users\\me\\app\\main.py", line 12, in <module>
    x = torch.ones(2, device="cuda") * 2
RuntimeError: CUDA error: no kernel image is available for execution on the device
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1
Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.
"""
OOM = (
    "Traceback (most recent call last):\n"
    '  File "/home/me/train.py", line 51, in <module>\n'
    "    loss.backward()\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB "
    "of which 1.12 GiB is free. Including non-PyTorch memory, this process has 78.01 GiB memory in use. Of the "
    "allocated memory 75.20 GiB is allocated by PyTorch, and 1.31 GiB is reserved by PyTorch but unallocated.\n"
)

HANDWRITTEN: list[tuple[str, str | None, str, str]] = [
    (
        "accelerate-env-windows-cpu-wheel",
        "cpu_only_build",
        "pytorch-122924's machine through `accelerate env` (accelerate/commands/env.py: '- PyTorch version (GPU?): "
        "{torch.__version__} ({is_cuda_available})')",
        ACCELERATE_HEAD + "- `Accelerate` version: 0.28.0\n- Platform: Windows-10-10.0.22631-SP0\n"
        "- Python version: 3.10.13\n- Numpy version: 1.26.4\n- PyTorch version (GPU?): 2.2.2+cpu (False)\n"
        "- PyTorch XPU available: False\n- PyTorch NPU available: False\n- System RAM: 31.69 GB\n"
        "- `Accelerate` default config:\n\tNot found\n",
    ),
    (
        "accelerate-env-windows-pypi-wheel-no-tag",
        None,
        "pytorch-122924 through accelerate env: its '2.2.2' is PyPI's CPU wheel there, but conda's Windows builds "
        "(CUDA ones too) print an untagged torch.__version__ as well and accelerate env does not say which: no claim",
        ACCELERATE_HEAD + "- `Accelerate` version: 0.28.0\n- Platform: Windows-10-10.0.22631-SP0\n"
        "- Python version: 3.10.13\n- Numpy version: 1.26.4\n- PyTorch version (GPU?): 2.2.2 (False)\n"
        "- PyTorch XPU available: False\n- System RAM: 31.69 GB\n- `Accelerate` default config:\n\tNot found\n",
    ),
    (
        "transformers-env-accelerator-form-cpu",
        "cpu_only_build",
        "oobabooga-645's situation through transformers >= 4.48 env (commands/env.py: 'PyTorch version "
        "(accelerator?)': f'{pt_version} ({pt_accelerator})', 'NA' when no accelerator)",
        TRANSFORMERS_HEAD + "- `transformers` version: 4.48.0\n- Platform: Windows-10-10.0.19045-SP0\n"
        "- Python version: 3.11.9\n- Huggingface_hub version: 0.27.1\n- Safetensors version: 0.5.2\n"
        "- Accelerate version: 1.2.1\n- Accelerate config: \tnot found\n- PyTorch version (accelerator?):"
        " 2.5.1+cpu (NA)\n"
        "- Tensorflow version (GPU?): not installed (NA)\n- Flax version (CPU?/GPU?/TPU?): not installed (NA)\n"
        "- Jax version: not installed\n- JaxLib version: not installed\n"
        "- Using distributed or parallel set-up in script?: <fill in>\n",
    ),
    (
        "diffusers-env-cpu-wheel-with-accelerator-line",
        "cpu_only_build",
        "pytorch-122924's RTX 4080 laptop through diffusers-cli env (src/diffusers/commands/env.py: 'Accelerator' from "
        "nvidia-smi --query-gpu=gpu_name,memory.total, as in corpus diffusers-10513)",
        "- 🤗 Diffusers version: 0.27.2\n- Platform: Windows-10-10.0.22631-SP0\n- Python version: 3.10.11\n"
        "- PyTorch version (GPU?): 2.2.2+cpu (False)\n- Flax version (CPU?/GPU?/TPU?): not installed (NA)\n"
        "- Jax version: not installed\n- JaxLib version: not installed\n- Huggingface_hub version: 0.22.2\n"
        "- Transformers version: 4.39.3\n- Accelerate version: 0.28.0\n- PEFT version: not installed\n"
        "- Bitsandbytes version: not installed\n- Safetensors version: 0.4.2\n- xFormers version: not installed\n"
        "- Accelerator: NVIDIA GeForce RTX 4080 Laptop GPU, 12282 MiB\n- Using GPU in script?: yes\n"
        "- Using distributed or parallel set-up in script?: no\n",
    ),
    (
        "pytorch-template-hand-filled-cpu",
        "cpu_only_build",
        "pytorch's pre-2021 bug-report.md template filled in by hand ('- PyTorch Version (e.g., 1.0):', "
        "'- How you installed PyTorch (`conda`, `pip`, source):'), a +cpu wheel on a GPU machine",
        "## Environment\n\n - PyTorch Version (e.g., 1.0): 1.13.1+cpu\n - OS (e.g., Linux): Windows 10\n"
        " - How you installed PyTorch (`conda`, `pip`, source): pip\n"
        " - Build command you used (if compiling from source):\n - Python version: 3.10\n"
        " - CUDA/cuDNN version: 11.7\n - GPU models and configuration: RTX 3060\n"
        " - Any other relevant information: torch.cuda.is_available() returns False\n",
    ),
    (
        "transformers-env-driver-warning-first",
        "driver_too_old",
        "espnet-5629's A100 on driver 460 through transformers env: torch's 'CUDA initialization: The NVIDIA driver "
        "on your system is too old (found version 11020)' warning printed on stderr above the report",
        "/opt/conda/lib/python3.8/site-packages/torch/cuda/__init__.py:138: UserWarning: CUDA initialization: The "
        "NVIDIA driver on your system is too old (found version 11020). Please update your GPU driver by downloading "
        "and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx Alternatively, go to: "
        "https://pytorch.org to install a PyTorch version that has been compiled with your version of the CUDA driver. "
        "(Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)\n  return torch._C._cuda_getDeviceCount() > 0\n\n"
        + TRANSFORMERS_HEAD
        + "- `transformers` version: 4.35.2\n- Platform: Linux-4.18.0-18-generic-x86_64-with-glibc2.17\n"
        "- Python version: 3.8.18\n- Huggingface_hub version: 0.19.4\n- Safetensors version: 0.4.1\n"
        "- Accelerate version: not installed\n- Accelerate config: not found\n"
        "- PyTorch version (GPU?): 2.1.0+cu121 (False)\n- Tensorflow version (GPU?): not installed (NA)\n"
        "- Flax version (CPU?/GPU?/TPU?): not installed (NA)\n- Jax version: not installed\n"
        "- JaxLib version: not installed\n- Using GPU in script?: <fill in>\n"
        "- Using distributed or parallel set-up in script?: <fill in>\n",
    ),
    (
        "accelerate-env-then-smi-driver-460",
        "driver_too_old",
        "espnet-5629's situation as accelerate env (no warning: it was cut) plus the nvidia-smi table (2021 layout)",
        ACCELERATE_HEAD + "- `Accelerate` version: 0.24.1\n- Platform: Linux-4.18.0-18-generic-x86_64-with-glibc2.17\n"
        "- Python version: 3.8.18\n- Numpy version: 1.24.4\n- PyTorch version (GPU?): 2.1.0+cu121 (False)\n"
        "- PyTorch XPU available: False\n- System RAM: 503.56 GB\n- `Accelerate` default config:\n\tNot found\n\n"
        "$ nvidia-smi\n" + SMI_460,
    ),
    (
        "collect-env-cuda-lines-only",
        "driver_too_old",
        "espnet-5629's paste trimmed by its user to the lines they thought relevant",
        "PyTorch version: 2.1.0\nCUDA used to build PyTorch: 12.1\n\nIs CUDA available: False\n"
        "CUDA runtime version: Could not collect\nGPU models and configuration: GPU 0: A100-PCIE-40GB\n"
        "Nvidia driver version: 460.32.03\n",
    ),
    (
        "smi-table-then-collect-env-1x",
        "driver_too_old",
        "pytorch-43058's V100 on driver 418 with cu102: nvidia-smi (2019 layout) pasted above a 1.x collect_env",
        SMI_460.replace("460.32.03", "418.87.01")
        .replace("CUDA Version: 11.2", "CUDA Version: 10.1")
        .replace("A100-PCIE-40GB  ", "Tesla V100-SXM2...")
        + "\nPyTorch version: 1.6.0\nIs debug build: No\nCUDA used to build PyTorch: 10.2\n\n"
        "OS: Ubuntu 18.04.4 LTS\nGCC version: (Ubuntu 7.5.0-3ubuntu1~18.04) 7.5.0\nCMake version: version 3.10.2\n\n"
        "Python version: 3.7\nIs CUDA available: No\nCUDA runtime version: 10.1.243\n"
        "GPU models and configuration: GPU 0: Tesla V100-SXM2-16GB\nNvidia driver version: 418.87.01\n"
        "cuDNN version: /usr/lib/x86_64-linux-gnu/libcudnn.so.7.6.5\n\nVersions of relevant libraries:\n"
        "[pip] numpy==1.19.1\n[pip] torch==1.6.0\n[conda] Could not collect\n",
    ),
    (
        "transformers-env-rtx5090-with-warning",
        "gpu_arch_too_new_for_build",
        "pytorch-150733's Blackwell card on a cu124 wheel through transformers >= 4.48 env: torch's sm_120 warning "
        "(torch/cuda/__init__.py _check_capability) printed when env asks for the device name",
        SM120_WARNING + "\n" + TRANSFORMERS_HEAD + "- `transformers` version: 4.49.0\n"
        "- Platform: Linux-6.8.0-52-generic-x86_64-with-glibc2.39\n- Python version: 3.12.3\n"
        "- Huggingface_hub version: 0.29.1\n- Safetensors version: 0.5.3\n- Accelerate version: 1.4.0\n"
        "- Accelerate config: \tnot found\n- DeepSpeed version: not installed\n"
        "- PyTorch version (accelerator?): 2.6.0+cu124 (CUDA)\n- Tensorflow version (GPU?): not installed (NA)\n"
        "- Flax version (CPU?/GPU?/TPU?): not installed (NA)\n- Jax version: not installed\n"
        "- JaxLib version: not installed\n- Using distributed or parallel set-up in script?: <fill in>\n"
        "- Using GPU in script?: <fill in>\n- GPU type: NVIDIA GeForce RTX 5090\n",
    ),
    (
        "transformers-env-rtx5090-no-warning",
        "gpu_arch_too_new_for_build",
        "the same report with the warning left out of the paste: the GPU type and the cu124 wheel still say it",
        TRANSFORMERS_HEAD + "- `transformers` version: 4.49.0\n"
        "- Platform: Linux-6.8.0-52-generic-x86_64-with-glibc2.39\n- Python version: 3.12.3\n"
        "- PyTorch version (accelerator?): 2.6.0+cu124 (CUDA)\n- Tensorflow version (GPU?): not installed (NA)\n"
        "- Using distributed or parallel set-up in script?: <fill in>\n- Using GPU in script?: <fill in>\n"
        "- GPU type: NVIDIA GeForce RTX 5090\n",
    ),
    (
        "accelerate-env-rtx5070ti-no-kernel-image",
        "gpu_arch_too_new_for_build",
        "ComfyUI-7126's RTX 5070 Ti on 2.6.0+cu126: accelerate env (>= 0.21 prints '- GPU type:') and the error",
        ACCELERATE_HEAD + "- `Accelerate` version: 1.3.0\n- Platform: Windows-10-10.0.26100-SP0\n"
        "- `accelerate` bash location: C:\\Users\\me\\venv\\Scripts\\accelerate.exe\n- Python version: 3.12.8\n"
        "- Numpy version: 2.2.2\n- PyTorch version (GPU?): 2.6.0+cu126 (True)\n- PyTorch XPU available: False\n"
        "- PyTorch NPU available: False\n- PyTorch MLU available: False\n- PyTorch MUSA available: False\n"
        "- System RAM: 63.85 GB\n- GPU type: NVIDIA GeForce RTX 5070 Ti\n- `Accelerate` default config:\n"
        "\tNot found\n\n" + NO_KERNEL,
    ),
    (
        "accelerate-env-rtx5090-cu128-healthy",
        None,
        "counter-example: the same report on a cu128 wheel, which has sm_120 kernels (wheels-2026-11.md)",
        ACCELERATE_HEAD + "- `Accelerate` version: 1.6.0\n- Platform: Linux-6.8.0-52-generic-x86_64-with-glibc2.39\n"
        "- Python version: 3.12.3\n- Numpy version: 2.2.4\n- PyTorch version (GPU?): 2.7.0+cu128 (True)\n"
        "- PyTorch XPU available: False\n- System RAM: 125.51 GB\n- GPU type: NVIDIA GeForce RTX 5090\n"
        "- `Accelerate` default config:\n\tNot found\n",
    ),
    (
        "collect-env-2.8-gtx1070-minimum-capability",
        "gpu_arch_dropped_from_build",
        "ComfyUI-9705's GTX 1070 on 2.8.0+cu129, torch's other capability warning ('Found GPU0 ... which is of cuda "
        "capability 6.1. Minimum and Maximum cuda capability supported by this version of PyTorch is (7.0) - (12.0)')",
        "C:\\ComfyUI\\python_embeded\\Lib\\site-packages\\torch\\cuda\\__init__.py:283: UserWarning:\n"
        "    Found GPU0 NVIDIA GeForce GTX 1070 which is of cuda capability 6.1.\n"
        "    Minimum and Maximum cuda capability supported by this version of PyTorch is\n    (7.0) - (12.0)\n\n"
        "  warnings.warn(\n"
        "PyTorch version: 2.8.0+cu129\nIs debug build: False\nCUDA used to build PyTorch: 12.9\n"
        "ROCM used to build PyTorch: N/A\n\nOS: Microsoft Windows 10 Pro (10.0.19045 64-bit)\n"
        "GCC version: Could not collect\nClang version: Could not collect\nCMake version: Could not collect\n"
        "Libc version: N/A\n\nPython version: 3.13.6 (tags/v3.13.6:4e66535, Aug  6 2025, 14:36:00) [MSC v.1944 64 bit "
        "(AMD64)] (64-bit runtime)\nPython platform: Windows-10-10.0.19045-SP0\nIs CUDA available: True\n"
        "CUDA runtime version: Could not collect\nCUDA_MODULE_LOADING set to: LAZY\n"
        "GPU models and configuration: GPU 0: NVIDIA GeForce GTX 1070\nNvidia driver version: 576.88\n"
        "cuDNN version: Could not collect\nIs XPU available: False\nHIP runtime version: N/A\n"
        "MIOpen runtime version: N/A\nIs XNNPACK available: True\n",
    ),
    (
        "accelerate-env-macos-torch-not-compiled-cuda",
        "macos_no_cuda_use_mps",
        "pytorch-130112's Apple-silicon Mac through accelerate env, then the error the user's script raised "
        "(torch/cuda/__init__.py _lazy_init: 'Torch not compiled with CUDA enabled')",
        ACCELERATE_HEAD + "- `Accelerate` version: 0.30.1\n- Platform: macOS-14.4.1-arm64-arm-64bit\n"
        "- `accelerate` bash location: /opt/homebrew/bin/accelerate\n- Python version: 3.11.9\n"
        "- Numpy version: 1.26.4\n- PyTorch version (GPU?): 2.3.0 (False)\n- PyTorch XPU available: False\n"
        "- PyTorch NPU available: False\n- PyTorch MLU available: False\n- System RAM: 16.00 GB\n"
        "- `Accelerate` default config:\n\tNot found\n\n"
        'Traceback (most recent call last):\n  File "/Users/me/proj/infer.py", line 9, in <module>\n'
        '    model.to("cuda")\n'
        '  File "/opt/homebrew/lib/python3.11/site-packages/torch/cuda/__init__.py", line 284, in _lazy_init\n'
        '    raise AssertionError("Torch not compiled with CUDA enabled")\n'
        "AssertionError: Torch not compiled with CUDA enabled\n",
    ),
    (
        "transformers-env-macos-healthy",
        None,
        "counter-example: the same Mac through transformers env, no CUDA asked for (corpus accelerate-1022 is None)",
        TRANSFORMERS_HEAD + "- `transformers` version: 4.48.0\n- Platform: macOS-14.4.1-arm64-arm-64bit\n"
        "- Python version: 3.11.9\n- PyTorch version (accelerator?): 2.3.0 (NA)\n"
        "- Tensorflow version (GPU?): not installed (NA)\n- Using distributed or parallel set-up in script?: no\n",
    ),
    (
        "collect-env-then-smi-nvml-mismatch",
        "driver_library_mismatch",
        "pytorch-45109's machine after the crash: collect_env (1.6 layout) then nvidia-smi's own failure lines "
        "(newer drivers add 'NVML library version: ...')",
        "PyTorch version: 1.6.0\nIs debug build: False\nCUDA used to build PyTorch: 10.2\n"
        "ROCM used to build PyTorch: N/A\n\nOS: Ubuntu 20.04.1 LTS (x86_64)\n"
        "GCC version: (Ubuntu 9.3.0-10ubuntu2) 9.3.0\nClang version: Could not collect\n"
        "CMake version: Could not collect\n\nPython version: 3.7 (64-bit runtime)\nIs CUDA available: False\n"
        "CUDA runtime version: Could not collect\nGPU models and configuration: Could not collect\n"
        "Nvidia driver version: Could not collect\ncuDNN version: Could not collect\nHIP runtime version: N/A\n"
        "MIOpen runtime version: N/A\n\n$ nvidia-smi\nFailed to initialize NVML: Driver/library version mismatch\n"
        "NVML library version: 440.100\n",
    ),
    (
        "transformers-env-healthy-a100",
        None,
        "counter-example: a healthy A100 through transformers env, GPU type printed",
        TRANSFORMERS_HEAD
        + "- `transformers` version: 4.48.0\n- Platform: Linux-5.15.0-91-generic-x86_64-with-glibc2.35\n"
        "- Python version: 3.10.12\n- Huggingface_hub version: 0.27.1\n- Safetensors version: 0.5.2\n"
        "- Accelerate version: 1.2.1\n- Accelerate config: \tnot found\n"
        "- PyTorch version (accelerator?): 2.5.1+cu124 (CUDA)\n- Tensorflow version (GPU?): not installed (NA)\n"
        "- Using distributed or parallel set-up in script?: no\n- Using GPU in script?: yes\n"
        "- GPU type: NVIDIA A100-SXM4-80GB\n",
    ),
    (
        "accelerate-env-healthy-then-smi-and-oom",
        None,
        "counter-example: a working A100 whose batch is too large: accelerate env, nvidia-smi (2023 layout), OOM",
        ACCELERATE_HEAD + "- `Accelerate` version: 0.25.0\n- Platform: Linux-5.15.0-91-generic-x86_64-with-glibc2.35\n"
        "- Python version: 3.10.12\n- Numpy version: 1.26.2\n- PyTorch version (GPU?): 2.1.2+cu121 (True)\n"
        "- PyTorch XPU available: False\n- System RAM: 1007.53 GB\n- GPU type: NVIDIA A100-SXM4-80GB\n"
        "- `Accelerate` default config:\n\tNot found\n\n" + SMI_535 + "\n" + OOM,
    ),
    (
        "pytorch-template-hand-filled-healthy",
        None,
        "counter-example: the hand-filled template of a working CUDA install (a question about speed)",
        "## Environment\n\n - PyTorch Version (e.g., 1.0): 2.0.1+cu118\n - OS (e.g., Linux): Ubuntu 22.04\n"
        " - How you installed PyTorch (`conda`, `pip`, source): pip\n - Python version: 3.10\n"
        " - CUDA/cuDNN version: 11.8 / 8.7\n - GPU models and configuration: RTX 3090\n"
        " - Any other relevant information: training works on the GPU but is slower than expected\n",
    ),
    (
        "diffusers-env-healthy-colab",
        None,
        "counter-example: diffusers-cli env on a Colab T4 that works ('Running on Google Colab?: Yes')",
        "- 🤗 Diffusers version: 0.31.0\n- Platform: Linux-6.1.85+-x86_64-with-glibc2.35\n"
        "- Running on Google Colab?: Yes\n- Python version: 3.10.12\n- PyTorch version (GPU?): 2.5.0+cu121 (True)\n"
        "- Flax version (CPU?/GPU?/TPU?): 0.8.5 (gpu)\n- Jax version: 0.4.33\n- JaxLib version: 0.4.33\n"
        "- Huggingface_hub version: 0.24.7\n- Transformers version: 4.44.2\n- Accelerate version: 0.34.2\n"
        "- PEFT version: 0.13.2\n- Bitsandbytes version: not installed\n- Safetensors version: 0.4.5\n"
        "- xFormers version: not installed\n- Accelerator: Tesla T4, 15360 MiB\n- Using GPU in script?: yes\n"
        "- Using distributed or parallel set-up in script?: no\n",
    ),
    (
        "detectron2-table-cpu-wheel",
        "cpu_only_build",
        "detectron2's collect_env table (detectron2/utils/collect_env.py: 'GPU available' = 'No: "
        "torch.cuda.is_available() == False' since 0.6) for a +cpu wheel",
        "----------------------  -------------------------------------------------------------------\n"
        "sys.platform            linux\nPython                  3.8.10 (default, Jun  4 2021, 15:09:15) [GCC 7.5.0]\n"
        "numpy                   1.21.2\ndetectron2              0.6 @/home/me/detectron2/detectron2\n"
        "Compiler                GCC 9.3\nCUDA compiler           not available\nDETECTRON2_ENV_MODULE   <not set>\n"
        "PyTorch                 1.10.0+cpu @/home/me/.local/lib/python3.8/site-packages/torch\n"
        "PyTorch debug build     False\nGPU available           No: torch.cuda.is_available() == False\n"
        "Pillow                  8.4.0\ntorchvision             0.11.1+cpu"
        " @/home/me/.local/lib/python3.8/site-packages/torchvision\n"
        "fvcore                  0.1.5.post20211023\niopath                  0.1.9\ncv2                     4.5.4\n"
        "----------------------  -------------------------------------------------------------------\n",
    ),
    (
        "detectron2-table-cu121-then-smi-460",
        "driver_too_old",
        "espnet-5629's A100 on driver 460 seen through detectron2's table (torch 2.1.0+cu121, GPU not available) "
        "with nvidia-smi pasted under it",
        "sys.platform                     linux\nPython                           3.8.18 (default, Sep 11"
        " 2023, 13:40:15) [GCC 11.2.0]\n"
        "numpy                            1.24.4\ndetectron2                       0.6 @/opt/detectron2/detectron2\n"
        "Compiler                         GCC 11.4\nCUDA compiler                    not available\n"
        "DETECTRON2_ENV_MODULE            <not set>\n"
        "PyTorch                          2.1.0+cu121 @/opt/conda/lib/python3.8/site-packages/torch\n"
        "PyTorch debug build              False\ntorch._C._GLIBCXX_USE_CXX11_ABI  False\n"
        "GPU available                    No: torch.cuda.is_available() == False\n"
        "torchvision                      0.16.0+cu121 @/opt/conda/lib/python3.8/site-packages/torchvision\n\n"
        + SMI_460,
    ),
    (
        "mmengine-system-environment-cpu-wheel",
        "cpu_only_build",
        "mmengine's log header (mmengine/utils/dl_utils/collect_env.py, as in corpus CGRSeg-12) for a +cpu wheel",
        "------------------------------------------------------------\nSystem environment:\n    sys.platform: linux\n"
        "    Python: 3.8.18 (default, Sep 11 2023, 13:40:15) [GCC 11.2.0]\n    CUDA available: False\n"
        "    MUSA available: False\n    numpy_random_seed: 1234\n"
        "    GCC: gcc (Ubuntu 9.4.0-1ubuntu1~20.04.2) 9.4.0\n    PyTorch: 2.1.0+cpu\n"
        "    PyTorch compiling details: PyTorch built with:\n  - GCC 9.3\n  - C++ Version: 201703\n\n"
        "    TorchVision: 0.16.0+cpu\n    OpenCV: 4.8.1\n    MMEngine: 0.10.1\n\nRuntime environment:\n"
        "    cudnn_benchmark: False\n    dist_cfg: {'backend': 'nccl'}\n    seed: 1234\n    Distributed"
        " launcher: none\n"
        "    Distributed training: False\n    GPU number: 1\n"
        "------------------------------------------------------------\n",
    ),
    (
        "ultralytics-yolo-checks-8.3-cpu",
        "cpu_only_build",
        "`yolo checks` of ultralytics 8.3 (ultralytics/utils/checks.py collect_system_info: 'GPU None', 'CUDA None') "
        "on a laptop with an NVIDIA GPU",
        "Ultralytics 8.3.40 🚀 Python-3.11.9 torch-2.5.1+cpu CPU (AMD Ryzen 7 5800H with Radeon Graphics)\n"
        "Setup complete ✅ (16 CPUs, 15.4 GB RAM, 310.2/476.3 GB disk)\n\nOS                 "
        " Windows-10-10.0.22631-SP0\n"
        "Environment         Windows\nPython              3.11.9\nInstall             pip\nRAM                "
        " 15.41 GB\n"
        "Disk                310.2/476.3 GB\nCPU                 AMD Ryzen 7 5800H with Radeon Graphics\n"
        "CPU count           16\nGPU                 None\nGPU count           None\nCUDA                None\n",
    ),
    (
        "ultralytics-banner-cuda-healthy",
        None,
        "counter-example: the same banner on a CUDA wheel that found the GPU",
        "Ultralytics 8.3.40 🚀 Python-3.11.9 torch-2.5.1+cu124 CUDA:0 (NVIDIA GeForce RTX 3060 Laptop GPU, 6144MiB)\n"
        "Setup complete ✅ (16 CPUs, 15.4 GB RAM, 310.2/476.3 GB disk)\n",
    ),
    (
        "collect-env-2.1-suspend-wake-prose",
        "uvm_wedged_after_suspend",
        "pytorch-88639's situation told by another user: torch 2.1's 'CUDA unknown error' warning and "
        "'after the laptop wakes from sleep' instead of 'after the system suspends'",
        "After my laptop wakes up from sleep, CUDA stops working until I reboot.\n\n"
        "/home/me/miniconda3/lib/python3.11/site-packages/torch/cuda/__init__.py:138: UserWarning: CUDA "
        "initialization: CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env "
        "variable CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be zero. (Triggered "
        "internally at ../c10/cuda/CUDAFunctions.cpp:108.)\n  return torch._C._cuda_getDeviceCount() > 0\n"
        "PyTorch version: 2.1.2+cu121\nIs debug build: False\nCUDA used to build PyTorch: 12.1\n"
        "ROCM used to build PyTorch: N/A\n\nOS: Ubuntu 22.04.3 LTS (x86_64)\n"
        "Python version: 3.11.5 (main, Sep 11 2023, 13:54:46) [GCC 11.2.0] (64-bit runtime)\n"
        "Python platform: Linux-6.5.0-14-generic-x86_64-with-glibc2.35\nIs CUDA available: False\n"
        "CUDA runtime version: No CUDA\nCUDA_MODULE_LOADING set to: N/A\n"
        "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 3070 Laptop GPU\n"
        "Nvidia driver version: 545.23.08\ncuDNN version: No CUDA\n",
    ),
    (
        "collect-env-docker-run-without-gpus",
        "docker_no_gpu_runtime",
        "ogx-1798's situation from inside the container: collect_env there sees no GPU, and the user shows the "
        "`docker run` they used (no --gpus)",
        "I start the container with\n\n```\ndocker run -it --rm -v $PWD:/app myimage:latest python app.py\n```\n\n"
        "and inside it:\n\n```\nPyTorch version: 2.6.0+cu124\nIs debug build: False\nCUDA used to build PyTorch: 12.4\n"
        "ROCM used to build PyTorch: N/A\n\nOS: Ubuntu 22.04.5 LTS (x86_64)\n"
        "Python version: 3.11.11 (main, Dec  4 2024, 08:55:07) [GCC 11.4.0] (64-bit runtime)\n"
        "Python platform: Linux-5.15.0-126-generic-x86_64-with-glibc2.35\nIs CUDA available: False\n"
        "CUDA runtime version: No CUDA\nCUDA_MODULE_LOADING set to: N/A\nGPU models and configuration: No CUDA\n"
        "Nvidia driver version: No CUDA\ncuDNN version: No CUDA\n```\n",
    ),
    (
        "collect-env-torch-na-pip-listed-winerror",
        "torch_import_error",
        "pytorch-139875's situation on Windows: collect_env prints N/A because `import torch` fails, pip lists "
        "torch, and the user pastes the import error (c10.dll / fbgemm.dll, WinError 126)",
        "Collecting environment information...\nPyTorch version: N/A\nIs debug build: N/A\n"
        "CUDA used to build PyTorch: N/A\nROCM used to build PyTorch: N/A\n\nOS: Microsoft Windows 11 Home\n"
        "GCC version: Could not collect\nClang version: Could not collect\nCMake version: Could not collect\n"
        "Libc version: N/A\n\nPython version: 3.12.7 (tags/v3.12.7:0b05ead, Oct  1 2024, 03:06:41) [MSC v.1941 64 bit "
        "(AMD64)] (64-bit runtime)\nPython platform: Windows-11-10.0.22631-SP0\nIs CUDA available: N/A\n"
        "CUDA runtime version: 12.4.131\nCUDA_MODULE_LOADING set to: N/A\n"
        "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 4070\nNvidia driver version: 560.94\n"
        "cuDNN version: Could not collect\nHIP runtime version: N/A\nMIOpen runtime version: N/A\n"
        "Is XNNPACK available: N/A\n\nVersions of relevant libraries:\n[pip3] numpy==2.1.3\n"
        "[pip3] torch==2.5.1+cu124\n[conda] Could not collect\n\n>>> import torch\nTraceback (most recent call last):\n"
        '  File "<stdin>", line 1, in <module>\n'
        '  File "C:\\Users\\me\\venv\\Lib\\site-packages\\torch\\__init__.py", line 148, in <module>\n'
        "    raise err\nOSError: [WinError 126] The specified module could not be found. Error loading "
        '"C:\\Users\\me\\venv\\Lib\\site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies.\n',
    ),
    (
        "collect-env-torch-na-pip-listed-no-traceback",
        "torch_import_error",
        "pytorch-139875's situation with pip's row and no traceback: collect_env prints N/A for every torch field when "
        "`import torch` raised (torch/utils/collect_env.py get_env_info: TORCH_AVAILABLE False); before the fix "
        "'CUDA used to build PyTorch: N/A' read as a CPU build and cpu_only_build was claimed",
        "PyTorch version: N/A\nIs debug build: N/A\nCUDA used to build PyTorch: N/A\n"
        "ROCM used to build PyTorch: N/A\n\n"
        "OS: Microsoft Windows 11 Home\nPython version: 3.12.7 (64-bit runtime)\n"
        "Python platform: Windows-11-10.0.22631-SP0\nIs CUDA available: N/A\nCUDA runtime version: 12.4.131\n"
        "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 4070\nNvidia driver version: 560.94\n"
        "cuDNN version: Could not collect\n\nVersions of relevant libraries:\n[pip3] numpy==2.1.3\n"
        "[pip3] torch==2.5.1+cu124\n[conda] Could not collect\n",
    ),
    (
        "collect-env-rocm-cuda-na-healthy",
        None,
        "counter-example: a ROCm build prints 'CUDA used to build PyTorch: N/A' with its version present (collect_env "
        "sets cuda_version_str = 'N/A' for HIP builds): not a torch that failed to import, not a CPU build",
        "PyTorch version: 2.4.1+rocm6.1\nIs debug build: False\nCUDA used to build PyTorch: N/A\n"
        "ROCM used to build PyTorch: 6.1.40091-a8dbc0c19\n\nOS: Ubuntu 22.04.4 LTS (x86_64)\n"
        "Python version: 3.10.12 (64-bit runtime)\nIs CUDA available: True\nCUDA runtime version: Could not collect\n"
        "GPU models and configuration: AMD Radeon RX 7900 XTX (gfx1100)\nNvidia driver version: Could not collect\n"
        "cuDNN version: Could not collect\nHIP runtime version: 6.1.40091\nMIOpen runtime version: 3.1.0\n",
    ),
    (
        "collect-env-torch-na-nothing-listed",
        "torch_not_installed",
        "torchchat-1408's situation in the 2.x layout: N/A everywhere and no torch row in pip's list",
        "PyTorch version: N/A\nIs debug build: N/A\nCUDA used to build PyTorch: N/A\nROCM used to build"
        " PyTorch: N/A\n\n"
        "OS: Ubuntu 22.04.4 LTS (x86_64)\n\nPython version: 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] "
        "(64-bit runtime)\nPython platform: Linux-6.5.0-41-generic-x86_64-with-glibc2.35\nIs CUDA available: N/A\n"
        "CUDA runtime version: 12.1.105\nCUDA_MODULE_LOADING set to: N/A\n"
        "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 4090\nNvidia driver version: 550.90.07\n"
        "cuDNN version: Could not collect\nIs XNNPACK available: N/A\n\nVersions of relevant libraries:\n"
        "[pip3] numpy==1.26.4\n[conda] Could not collect\n",
    ),
    (
        "collect-env-healthy-then-repl-true",
        None,
        "counter-example: a healthy 2.x collect_env with the user's REPL check under it",
        "PyTorch version: 2.1.2+cu121\nIs debug build: False\nCUDA used to build PyTorch: 12.1\n"
        "ROCM used to build PyTorch: N/A\n\nOS: Ubuntu 22.04.3 LTS (x86_64)\nPython version: 3.11.5 (64-bit runtime)\n"
        "Python platform: Linux-6.5.0-14-generic-x86_64-with-glibc2.35\nIs CUDA available: True\n"
        "CUDA runtime version: 12.1.105\nCUDA_MODULE_LOADING set to: LAZY\n"
        "GPU models and configuration: GPU 0: NVIDIA A100-SXM4-80GB\nNvidia driver version: 535.129.03\n"
        "cuDNN version: Could not collect\n\n>>> import torch\n>>> torch.cuda.is_available()\nTrue\n"
        ">>> torch.cuda.get_device_name(0)\n'NVIDIA A100-SXM4-80GB'\n",
    ),
]


@pytest.mark.parametrize(("case", "expected", "reason", "text"), HANDWRITTEN, ids=[c[0] for c in HANDWRITTEN])
def test_handwritten_paste(case: str, expected: str | None, reason: str, text: str) -> None:
    first, errors = _first_claim(text)
    if expected is None:
        assert not errors, f"{case} ({reason}): claims {errors}"
    else:
        assert first == expected, f"{case} ({reason}): first finding {first}, expected {expected}"


def test_bulleted_bold_summary_is_not_collect_env() -> None:
    """Counter-example to reading "**Label:** value": the issue template's hand-written bullets ("- **PyTorch
    Version:** 2.5.1", as in corpus error SWivid-F5-TTS-738) stay a user's summary, not collect_env output."""
    text = (
        "**Environment Details:**\n- **Device:** Jetson Orin Nano Super 8GB (Developer Kit)\n"
        "- **CUDA Version:** 12.6\n- **NVIDIA Driver Version:** 540.4.0\n- **PyTorch Version:** 2.5.1\n"
    )
    assert load_text(text).meta["source"] != "collect_env"


def test_a_value_that_is_no_version_states_nothing() -> None:
    """A field whose value is not a version (a retyped "see below", a reader's leftover marks) leaves the fact
    unknown instead of comparing as an impossible release."""
    facts = to_facts(parse(["PyTorch version: ** 2.0.0", "CUDA used to build PyTorch: see below", "OS: Ubuntu"]))
    assert "torch.version" not in facts and "torch.cuda_build" not in facts
    facts = to_facts(parse(["**PyTorch version:** 2.0.0+cu118", "**CUDA used to build PyTorch:** 11.8"]))
    assert facts["torch.version"] == "2.0.0+cu118" and facts["torch.cuda_build"] == "11.8"


def test_terminal_colour_codes_are_dropped_text_kept() -> None:
    lines = clean_lines(
        "\x1b[1;32mPyTorch version: 2.1.0\x1b[0m\n\x1b]0;title\x07CUDA used to build PyTorch: 12.1\x1b[K"
    )
    assert lines == ["PyTorch version: 2.1.0", "CUDA used to build PyTorch: 12.1"]


@pytest.mark.parametrize(
    ("text", "stripped"),
    [
        # A log relayed by a collector: every line carries the prefix, it goes.
        ("#7 0.101 PyTorch version: 2.1.0+cpu\n#7 0.102 Is CUDA available: False\n#7 0.103 OS: Ubuntu", True),
        # Counter-example: one timestamped line quoted in a message is the message's.
        ("My job failed:\n2024-05-01T12:00:01.1234567Z Error: CUDA error\nAny idea?\nThanks", False),
        # Counter-example: dmesg's "[seconds]" and journalctl's short-iso stamps are the kernel readers', not ours.
        ("[ 12.345] NVRM: loading\n[ 12.346] NVRM: API mismatch\n[ 12.347] nvidia: probe", False),
        ("2024-05-01T12:00:01+0000 host kernel: NVRM: a\n2024-05-01T12:00:02+0000 host kernel: b\nc", False),
    ],
)
def test_log_prefix_taken_off_only_where_most_lines_carry_it(text: str, stripped: bool) -> None:
    lines = text.split("\n")
    assert (strip_log_prefixes(lines) != lines) is stripped


def test_prose_naming_fields_is_not_split() -> None:
    """Counter-example to unflattening: a sentence naming a few collect_env labels stays one line."""
    line = (
        "In the output, Is CUDA available: False while Nvidia driver version: 535 looks fine and "
        "GPU models and configuration: lists my card, so why?"
    )
    assert unflatten([line]) == [line]
    flat = (
        "PyTorch version: 2.1.0 Is debug build: False CUDA used to build PyTorch: 12.1 OS: Ubuntu 22.04.3 LTS (x86_64)"
    )
    assert unflatten([flat])[:3] == [
        "PyTorch version: 2.1.0",
        "Is debug build: False",
        "CUDA used to build PyTorch: 12.1",
    ]


# How the hand-written pastes arrive as well: quoted, in <details>, from Windows, coloured, flattened, from a container.
PASTED_AS = ("md_quote", "details", "crlf", "ansi_colours", "stackoverflow_flat", "docker_logs_timestamps")


@pytest.mark.parametrize(
    ("case", "expected", "text", "transform"),
    [pytest.param(c[0], c[1], c[3], t, id=f"{c[0]}-{t}") for c in HANDWRITTEN for t in PASTED_AS],
)
def test_handwritten_paste_pasted_otherwise(case: str, expected: str | None, text: str, transform: str) -> None:
    first, errors = _first_claim(TRANSFORMS[transform](text))
    if expected is None:
        assert not errors, f"{case} {transform}: claims {errors}"
    else:
        assert first == expected, f"{case} {transform}: first finding {first}, expected {expected}"


def test_fork_bullets_split_only_in_a_flattened_report() -> None:
    """Counter-example: prose with dashes and colons (no `env` report's torch bullet) stays one line."""
    prose = "Setup - OS: Ubuntu - GPU: RTX 3090 - driver: 535 - note: training is slow, any idea what to check first?"
    assert unflatten([prose]) == [prose]
    flat = (
        "- `Accelerate` version: 0.28.0 - Platform: Linux-6.5.0-x86_64-with-glibc2.35 - Python version: 3.10.13 "
        "- PyTorch version (GPU?): 2.2.2+cu121 (True) - GPU type: NVIDIA A100-SXM4-80GB"
    )
    assert unflatten([flat])[-2:] == [
        "- PyTorch version (GPU?): 2.2.2+cu121 (True)",
        "- GPU type: NVIDIA A100-SXM4-80GB",
    ]
