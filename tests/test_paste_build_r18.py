"""Round 18 (issue #14): a conda variant selector row (_pytorch_select, pytorch-mutex, cpuonly) naming the CPU build
of pytorch, read as the build the environment holds; synthetic texts and counter-examples."""

from __future__ import annotations

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text

NO_GPU_SEEN = (
    "Traceback (most recent call last):\n"
    '  File "fit.py", line 9, in <module>\n'
    "    trainer = Trainer(gpus=2)\n"
    "MisconfigurationException: You requested GPUs: [0, 1]\n"
    "But your machine only has: []\n"
)


@pytest.mark.parametrize(
    "rows",
    [
        "# Name                    Version                   Build  Channel\n"
        "_pytorch_select           0.2                       cpu_0\n"
        "blas                      1.0                         mkl\n",
        "pytorch-mutex             1.0                         cpu    pytorch\n",
        "[conda] pytorch-mutex             1.0                        cpu    pytorch\n",
    ],
)
def test_cpu_selector_row_is_the_build(rows: str) -> None:
    report = load_text(NO_GPU_SEEN + "```\n" + rows)
    first = report.findings[0]
    assert (first.id, first.severity) == ("cpu_only_build", Severity.ERROR)
    assert not {"no_nvidia_gpu", "cuda_visible_devices_hides_gpus"} & {f.id for f in report.findings}


@pytest.mark.parametrize(
    "rows",
    [
        # the GPU variants of the same selectors
        "_pytorch_select           0.2                       gpu_0\n",
        "pytorch-mutex             1.0                        cuda    pytorch\n",
        # a CPU selector beside a CUDA pytorch row: the text cannot tell which environment ran
        "_pytorch_select           0.1                       cpu_0\n"
        "pytorch                   1.3.1           py3.7_cuda10.1.243_cudnn7.6.3_0    pytorch\n",
        # a CPU selector beside collect_env's CUDA build line, or conda's GPU metapackage
        "[conda] cpuonly                   1.0               0    pytorch\nCUDA used to build PyTorch: 10.1\n",
        "_pytorch_select           0.1               cpu_0\npytorch-gpu               1.3.1             0\n",
        # a selector name in prose is not a row
        "I removed _pytorch_select 0.1 cpu_0 and it still fails\n",
    ],
)
def test_gpu_or_contradicted_selector_claims_no_cpu_build(rows: str) -> None:
    report = load_text(NO_GPU_SEEN + rows)
    assert not any(f.id == "cpu_only_build" and f.severity is Severity.ERROR for f in report.findings)
