"""Round 27 (issue #14): a ROCm torch's device-count warning (c10/hip/HIPFunctions.cpp, hipified from CUDA's
"CUDA initialization: Unexpected error from cudaGetDeviceCount()") is the ROCm class, whatever hipError it names;
CUDA's own warning keeps its NVIDIA readings. Synthetic texts."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text

ROCM = "rocm_gpu_unsupported_or_no_access"


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


@pytest.mark.parametrize("error", ["Error 101: hipErrorInvalidDevice", "Error 100: hipErrorNoDevice"])
def test_hip_device_count_warning_is_rocm(error: str) -> None:
    text = (
        ">>> torch.cuda.is_available()\n"
        "/opt/venv/lib/python3.10/site-packages/torch/cuda/__init__.py:107: UserWarning: HIP initialization: "
        "Unexpected error from hipGetDeviceCount(). Did you run some cuda functions before calling NumHipDevices() "
        f"that might have already set an error? {error} (Triggered internally at ../c10/hip/HIPFunctions.cpp:110.)\n"
        "False\n"
    )
    ids = _ids(text)
    assert ids[:1] == [ROCM]
    assert "no_nvidia_driver" not in ids


def test_cuda_device_count_warning_is_not_rocm() -> None:
    text = (
        "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda "
        "functions before calling NumCudaDevices() that might have already set an error? Error 804: forward "
        "compatibility was attempted on non supported HW\n"
    )
    assert ROCM not in _ids(text)
