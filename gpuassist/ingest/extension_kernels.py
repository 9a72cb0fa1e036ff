"""A "no kernel image" raised by a third-party CUDA extension's own kernels, not by torch's.

CUDA's ``no kernel image is available for execution on the device`` (cudaErrorNoKernelImageForDevice, 209) says the
binary being launched holds no code for the GPU's architecture. Torch's arch list decides that only for torch's own
kernels; every extension that compiles CUDA code ships its own fatbinary with its own arch list, chosen when its
wheel was built (TORCH_CUDA_ARCH_LIST for torch.utils.cpp_extension builds, CMake's CUDA_ARCHITECTURES elsewhere):

- FlashInfer: its prebuilt wheels (flashinfer.ai/whl/cu121/torch2.4/...) carried no sm_75 kernels until 0.1.6
  (sgl-project/sglang#1233 "support sm75 with FlashInfer v0.1.6"); its errors name its headers
  (``.../flashinfer/attention/handler.cuh: line N``);
- xFormers, flash-attn, vLLM (``vllm/_C``), sgl-kernel, bitsandbytes (``csrc/ops.cu``), apex (``amp_C``,
  ``fused_layer_norm_cuda``), detectron2 (``detectron2/_C``), mmcv (``mmcv/_ext``), PyG's torch_scatter/torch_sparse,
  mamba_ssm / causal_conv1d, AutoGPTQ / exllama kernels: each is built for the GPUs its maintainers chose.

When the message names such an extension (its path or package on the same line) or the last traceback frame outside
torch's own files before it is inside one, the extension's wheel lacks the arch: torch's build, a second torch copy
and a source build without CUDA are not what failed, so those guesses from the message are dropped (the fix is a
build of that extension for this GPU, or its fallback). A reading stated outright elsewhere in the text stays.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

NO_KERNEL_IMAGE = re.compile(r"no kernel image is available for execution on the device", re.IGNORECASE)
# A third-party extension's kernel code, named by its package directory, compiled module or wheel name. Packages that
# are mostly Python around torch's own kernels (vLLM's model code, DeepSpeed's engine, mmcv's and detectron2's layers)
# count only through their compiled parts (vllm/_custom_ops.py and vllm._C, deepspeed/ops, mmcv/ops and mmcv._ext,
# detectron2._C): a frame in their Python code may well be calling torch's kernel.
EXTENSION = re.compile(
    r"(?<![\w-])(?:(?:flashinfer|xformers|flash[_-]attn|flash_attn_\w+|vllm_flash_attn|sgl[_-]kernel|bitsandbytes|"
    r"libbitsandbytes_cuda\d+|amp_C|fused_layer_norm_cuda|apex|torch_(?:scatter|sparse|cluster|spline_conv)|mamba_ssm|"
    r"causal_conv1d|selective_scan_cuda|auto_gptq|autogptq_cuda|exllama\w*|awq_inference_engine|llama_cpp|"
    r"ctransformers|tinycudann|nvdiffrast|pytorch3d|spconv|MinkowskiEngine)(?=[/\\._-]|$)|"
    r"vllm(?:[/\\]_custom_ops\b|[/\\._]+_C\b)|deepspeed[/\\]ops\b|mmcv(?:[/\\]ops\b|[/\\._]+_ext\b)|"
    r"detectron2[/\\._]+_C\b)",
    re.IGNORECASE,
)
# A Python traceback frame and the file it names.
FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)", line \d+')
# torch's own files (the frame that raises is often torch/_ops.py calling into the extension's operator).
TORCH_FILE = re.compile(r"[/\\]torch[/\\]|^<frozen|[/\\]triton[/\\]")
# How far back a traceback frame may be from the message.
FRAMES_BEFORE = 40
# The guesses "no kernel image" makes about torch's own build.
TORCH_BUILD_GUESSES = frozenset(
    {
        "gpu_arch_too_new_for_build",
        "gpu_arch_dropped_from_build",
        "stale_or_shadowed_torch",
        "source_build_without_cuda",
    }
)


def _name(found: str) -> str:
    """The package a match names ("vllm/_custom_ops" -> "vllm")."""
    return re.split(r"[/\\.]", found.strip("/\\._"), maxsplit=1)[0]


def extension_named(lines: list[str], at: int) -> str | None:
    """The extension a "no kernel image" on line ``at`` (1-based) comes from, or None when torch's own code (or
    nothing the text shows) raised it."""
    line = lines[at - 1][:MAX_LINE]
    named = EXTENSION.search(line)
    if named:
        return _name(named.group(0))
    for raw in reversed(lines[max(0, at - 1 - FRAMES_BEFORE) : at - 1]):
        frame = FRAME.match(raw[:MAX_LINE])
        if frame is None or TORCH_FILE.search(frame.group("path")):
            continue
        found = EXTENSION.search(frame.group("path"))
        return _name(found.group(0)) if found else None  # the nearest non-torch frame decides
    return None


def extension_kernel_matches(lines: list[str], matches: list[Match]) -> list[Match]:
    """Drop torch-build guesses read from a "no kernel image" line that an extension raised (module docstring)."""
    blamed = {m.line_no for m in matches if m.id in TORCH_BUILD_GUESSES and not m.specific}
    from_extension = {
        no for no in blamed if NO_KERNEL_IMAGE.search(lines[no - 1][:MAX_LINE]) and extension_named(lines, no)
    }
    if not from_extension:
        return matches
    return [m for m in matches if m.specific or m.id not in TORCH_BUILD_GUESSES or m.line_no not in from_extension]
