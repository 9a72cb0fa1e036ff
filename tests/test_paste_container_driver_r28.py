"""Round 28 (issue #14): CUDA's insufficient-driver answer (35) inside a container given no driver libraries.

cudart reports a libcuda it cannot load as an insufficient driver; no image ships libcuda, so after a run with no GPU
request (or only /dev/nvidia* device nodes) and no driver mount, 35 is the runtime not used. Synthetic texts, each
with counter-examples that must keep reading the driver.
"""

from __future__ import annotations

from gpuassist.ingest import load_text


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


DEVICE_NODES_ONLY = (
    "Inside the container the sample fails:\n"
    "  cudaGetDeviceCount returned 35\n"
    "  -> CUDA driver version is insufficient for CUDA runtime version\n"
    "Host driver is 418.87. I started it with\n"
    "  docker run -ti --device /dev/nvidiactl --device /dev/nvidia0 \\\n"
    "    --device /dev/nvidia-uvm example/cuda-samples:10.0 sh\n"
)
PLAIN_RUN_THEN_ERROR = (
    "$ docker run --rm example/trainer:cu113 python -c 'import torch; torch.zeros(1).cuda()'\n"
    "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version\n"
)


def test_device_nodes_without_the_runtime_are_no_gpu_runtime_not_an_old_driver() -> None:
    ids = _ids(DEVICE_NODES_ONLY)
    assert ids[0] == "docker_no_gpu_runtime"
    assert "driver_too_old" not in ids


def test_plain_run_then_insufficient_driver_is_no_gpu_runtime() -> None:
    ids = _ids(PLAIN_RUN_THEN_ERROR)
    assert ids[0] == "docker_no_gpu_runtime"
    assert "driver_too_old" not in ids


def test_a_gpu_request_keeps_the_driver_reading() -> None:
    text = PLAIN_RUN_THEN_ERROR.replace("docker run --rm", "docker run --rm --gpus all")
    ids = _ids(text)
    assert ids[0] == "driver_too_old"
    assert "docker_no_gpu_runtime" not in ids


def test_driver_libraries_mounted_by_hand_keep_the_driver_reading() -> None:
    text = PLAIN_RUN_THEN_ERROR.replace(
        "docker run --rm",
        "docker run --rm --device /dev/nvidia0 -v /usr/lib/x86_64-linux-gnu/libcuda.so.1:/usr/lib/libcuda.so.1",
    )
    assert "driver_too_old" in _ids(text)


def test_a_host_error_before_a_non_interactive_run_is_not_placed_in_the_container() -> None:
    text = (
        "On the host: RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version\n"
        "Later I also tried: docker run --rm example/trainer:cu113 python train.py\n"
    )
    ids = _ids(text)
    assert "docker_no_gpu_runtime" not in ids[:1]
