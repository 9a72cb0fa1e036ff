"""A cloud machine type that has no NVIDIA GPU, named in a text where CUDA finds none.

People run on the cloud instance they have ("on an AWS c5.2xlarge", "Standard_D4s_v3", "e2-standard-8") and ask why
CUDA is not available. These families carry no NVIDIA GPU at all: AWS's general purpose, compute, memory and storage
families (t, m, c, r, x, i, z1d, a1), its Inferentia/Trainium/Gaudi/FPGA families (inf, trn, dl1, f1) and the AMD
g4ad; Azure's A/B/D/E/F/L/M series and the AMD NVv4; Google Cloud's E2, N2, N2D, C2, C2D, C3, C4, T2D, T2A, M1-M3
and N4 series, to which no GPU can be attached (GPUs attach to N1, A2, A3, A4, G2, G4). Sources: AWS EC2 instance
types (https://aws.amazon.com/ec2/instance-types/), Azure VM sizes overview
(https://learn.microsoft.com/azure/virtual-machines/sizes/overview), Google Cloud GPU machine types
(https://cloud.google.com/compute/docs/gpus).
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

_AWS_SIZE = r"\.(?:nano|micro|small|medium|large|\d*xlarge|metal(?:-\d+xl)?)\b"
NO_NVIDIA_INSTANCE = re.compile(
    # AWS: t2.micro, c5.2xlarge, m6i.large, r7g.4xlarge, inf2.xlarge, trn1.32xlarge, dl1.24xlarge, g4ad.xlarge
    r"\b(?:t[234]g?|[mcr][4-8][a-z]{0,4}|x[12][a-z]{0,3}|i[34][a-z]{0,3}|z1d|a1|inf[12]|trn[12]n?|dl1|f[12]|g4ad)"
    + _AWS_SIZE
    + r"|"
    # Azure: Standard_D4s_v3, Standard_B2ms, Standard_E8as_v5, Standard_F16s_v2; NVv4 is AMD
    r"\bStandard_(?:[ABDEFLM]\d+[a-z-]*(?:_v\d)?|NV\d+as_v4)\b|"
    # Google Cloud: e2-standard-8, n2-highmem-16, c2-standard-30, t2d-standard-4
    r"\b(?:e2|n2d?|c2d?|c3d?|c4a?|t2[ad]|m[123]|n4)-(?:standard|highmem|highcpu|megamem|ultramem|micro|small|"
    r"medium)(?:-\d+)?\b",
    re.IGNORECASE,
)
# An NVIDIA GPU in the text: nvidia-smi's table, a GPU model, a GPU family of the same clouds (p3, g5, NC, a2).
NVIDIA_SEEN = re.compile(
    r"NVIDIA-SMI\s+\d|Driver Version:|\b(?:geforce|quadro|tesla|titan|[ahlmvkt]\d{2,3}|[tl]4|rtx|gtx)\b|"
    r"\b(?:p[2-6][a-z]*|g[3-6][a-z]*)" + _AWS_SIZE + r"|\bStandard_N[CDV]\w*|\b(?:a[234]|g[24])-(?:highgpu|megagpu|"
    r"ultragpu|standard)",
    re.IGNORECASE,
)


def instance_without_gpu_match(lines: list[str], *, unavailable: bool) -> Match | None:
    """The text names a cloud machine type without an NVIDIA GPU, CUDA finds no GPU there (``unavailable``), and no
    NVIDIA GPU appears anywhere in it: there is no GPU to use."""
    if not unavailable:
        return None
    head = [line[:MAX_LINE] for line in lines[:5000]]
    named = next(((no, line) for no, line in enumerate(head, start=1) if NO_NVIDIA_INSTANCE.search(line)), None)
    if named is None or any(NVIDIA_SEEN.search(line) for line in head):
        return None
    return Match("no_nvidia_gpu", named[0], named[1].strip()[:500], True, 0.8)
