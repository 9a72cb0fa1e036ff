"""NGC's "not yet supported in this version of the container" beside a GPU shown computing: the check, not a cause.

The NGC containers' start-up check (messages.json, framework rows ``ngc_gpu_*``) compares the GPU's compute
capability major with the newest the image was built for; it does not run anything. A framework built with PTX for
its newest architecture still runs on a newer GPU by JIT compilation, and threads show the banner with the workload
running (fauxpilot#173, GB10 notes that 'ComfyUI works correctly' under the same warning). So when the text shows a
CUDA tensor computed (a tensor's repr with device='cuda:N') or the user says it works, and no kernel-image failure
(``no kernel image is available``, torch's ``is not compatible with the current PyTorch installation``), the
too-new reading of the banner is dropped. The "not supported by this container" side (below the oldest build) is
kept: a GPU older than every build has no code to run.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match

LINE = 2000
ABOVE_BUILD = re.compile(r"which is not yet supported in this version of the container", re.IGNORECASE)
COMPUTED = re.compile(r"device='cuda(?::\d+)?'")
NEGATION = r"(?<!\bnot )(?<!n't )(?<!\bnever )"
WORKS_SAID = re.compile(
    NEGATION + r"\b(?:works?|working|runs?|running)\s+(?:fine|well|normally|correctly|ok(?:ay)?)\b|"
    r"\b(?:can I|safe to|is it safe to)\s+(?:safely\s+)?ignore\b",
    re.IGNORECASE,
)
KERNEL_FAILURE = re.compile(
    r"no kernel image is available|is not compatible with the current PyTorch installation|"
    r"CUDA_ERROR_NO_BINARY_FOR_GPU|cudaErrorNoKernelImageForDevice",
    re.IGNORECASE,
)


def banner_beside_working_gpu(lines: list[str], matches: list[Match]) -> list[Match]:
    """Drop gpu_arch_too_new_for_build read from NGC's banner when the text shows the GPU computing and no kernel
    image failure."""
    if not any(m.id == "gpu_arch_too_new_for_build" and ABOVE_BUILD.search(m.line[:LINE]) for m in matches):
        return matches
    cut = [line[:LINE] for line in lines]
    if any(KERNEL_FAILURE.search(line) for line in cut):
        return matches
    if not any(COMPUTED.search(line) or WORKS_SAID.search(line) for line in cut):
        return matches
    return [m for m in matches if not (m.id == "gpu_arch_too_new_for_build" and ABOVE_BUILD.search(m.line[:LINE]))]
