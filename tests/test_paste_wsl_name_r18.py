"""Round 18 (issue #14, system side): WSL 2's kernel name is a weak hint of WSL's GPU path only beside a failure;
dxgkrnl's "Ioctl failed" lines (the driver answering dxcore's probes) are not one. Synthetic texts."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


KERNEL = "$ uname -r\n5.15.167.4-microsoft-standard-WSL2\n"
DXG_PROBES = (
    "[    2.811204] misc dxg: dxgk: dxgkio_is_feature_enabled: Ioctl failed: -22\n"
    "[    2.815530] misc dxg: dxgk: dxgkio_query_adapter_info: Ioctl failed: -2\n"
)


@pytest.mark.parametrize(
    "text",
    [
        KERNEL,
        KERNEL + DXG_PROBES,
        "| Kernel | 6.6.87.2-microsoft-standard-WSL2 |\n" + DXG_PROBES,
        KERNEL + "$ nvidia-smi\nnvidia-smi: command not found\n>>> torch.cuda.is_available()\nTrue\n",
    ],
)
def test_wsl_kernel_name_without_a_failure_claims_nothing(text: str) -> None:
    assert _ids(text) == []


@pytest.mark.parametrize(
    "text",
    [
        KERNEL + ">>> torch.cuda.is_available()\nFalse\n",
        KERNEL + DXG_PROBES + "My GPU is not detected by PyTorch, CUDA does not work.\n",
        KERNEL + "failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n",
    ],
)
def test_wsl_kernel_name_beside_a_failure_keeps_wsl_path_first(text: str) -> None:
    assert _ids(text)[:1] == ["wsl_libcuda_problem"]
