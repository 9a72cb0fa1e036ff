"""A Jetson container started without the NVIDIA runtime: its board libraries are empty placeholders or absent.

On Jetson (L4T), the NVIDIA container runtime does not copy the GPU stack into containers: it bind-mounts the board's
own driver libraries (libcuda, libnvrm*, libnvos, ...) and, on L4T r32 (JetPack 4), CUDA, cuDNN, TensorRT
(libnvinfer, libnvonnxparser, libnvparsers) and VisionWorks too, from the lists in
/etc/nvidia-container-runtime/host-files-for-container.d/*.csv (NVIDIA/nvidia-container-runtime "Jetson" docs,
libnvidia-container's csv mode; dusty-nv/jetson-containers docs). An image built with the runtime as Docker's
default keeps the mount points as empty files in its layers; run without `--runtime nvidia` (or without
"default-runtime": "nvidia" in /etc/docker/daemon.json, which `docker build` and plain `docker run` use), nothing is
mounted over them and the loader finds a zero-byte library: "error while loading shared libraries: <lib>: file too
short". An image without the placeholders shows the same cause as the driver's library not found ("libcuda.so.1:
cannot open shared object file"; libcuda is never part of an image on Jetson). On L4T r32 the CUDA toolkit itself is
mounted (/usr/local/cuda-10.2 from the board), so a container of that release without the runtime has no
/usr/local/cuda at all; from r34 (JetPack 5) l4t-base carries no CUDA by design (CUDA comes in l4t-cuda/l4t-jetpack
images), so there a missing /usr/local/cuda is the image's choice and is not read.

The same empty placeholders appear WITH the runtime when the board itself lacks what the CSV lists (CUDA, cuDNN or
TensorRT not installed on the device, e.g. a board flashed without the SDK components: dusty-nv's answer in
dusty-nv/jetson-inference#1733, where the container ran through docker/run.sh, which passes --runtime nvidia): so a
text that shows the runtime in use (--runtime nvidia, jetson-inference's docker/run.sh, jetson-containers' run, a
daemon.json making nvidia the default) is not read as the container without it; the catalogue has no id for the
board's missing components, so nothing is claimed there.

Read only on a Jetson text that shows a container (an image, docker, a container), so that a corrupted library on
the board itself (a truncated copy, an interrupted install) is not read as a container's.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

# The board's libraries the runtime mounts (driver, Tegra, and on r32 CUDA/cuDNN/TensorRT/VisionWorks/NPP).
MOUNTED_LIBRARY = (
    r"lib(?:cuda|cudart|cudnn\w*|cublas(?:Lt)?|cufft|curand|cusparse|cusolver|nvrtc|nvToolsExt|npp\w*|"
    r"nvinfer\w*|nvonnxparser|nvparsers|nvcaffe_parser|visionworks\w*|vpi|nvrm\w*|nvos|nvdla\w*|nvbuf\w*|"
    r"nvmedia\w*|nvidia-\w+|nvll|nvdc|nvimp|nvgov\w*|tegra\w*)\.so[\d.]*"
)
EMPTY_LIBRARY = re.compile(rf"\b{MOUNTED_LIBRARY}\W{{0,3}}:?\s*file too short", re.IGNORECASE)
# The driver library itself not found (on Jetson it only ever comes from the board).
DRIVER_LIBRARY_ABSENT = re.compile(
    r"\blib(?:cuda|nvrm\w*|nvos)\.so[\d.]*:\s*cannot open shared object file", re.IGNORECASE
)
# The CUDA directory absent in the container (ls, cd, a build's path check).
CUDA_DIR_ABSENT = re.compile(r"/usr/local/cuda[\w.-]*/?[\w./-]*['\"`]?:\s*No such file or directory", re.IGNORECASE)
# L4T r32 (JetPack 4): the release whose runtime mounts CUDA, cuDNN and TensorRT from the board.
L4T_R32 = re.compile(
    r"\bL4T\s*R?32\.\d|\bR32 \(release\)|\bl4t[\w.-]*[:-]r32\.\d|:r32\.\d|\bJetPack\s*4\.\d", re.IGNORECASE
)
JETSON_BOARD = re.compile(r"\bJetson\b|\bl4t\b|-tegra\b|\bTegra\b|\bJetPack\b|\bL4T\s*R?\d{2}\.\d", re.IGNORECASE)
IN_CONTAINER = re.compile(
    r"\b(?:docker|podman|containers?|nvidia-docker)\b|\bdustynv/|\bnvcr\.io/nvidia/l4t|\bl4t-(?:base|ml|pytorch|"
    r"tensorflow|jetpack|cuda|tensorrt)\b|\bdocker image\b",
    re.IGNORECASE,
)


# The container was started with the NVIDIA runtime.
RUNTIME_USED = re.compile(
    r"--runtime[= ]+nvidia\b|\bdocker/run\.sh\b|\bjetson-containers\s+run\b|"
    r"[\"']default-runtime[\"']\s*:\s*[\"']nvidia[\"']",
    re.IGNORECASE,
)


def jetson_container_without_runtime(lines: list[str]) -> Match | None:
    """A Jetson container whose board library is an empty placeholder (or libcuda absent): the NVIDIA runtime did not
    mount the board's libraries (docker_no_gpu_runtime, a verdict citing the loader's line)."""
    head = lines[:5000]
    found = next((no for no, line in enumerate(head, start=1) if EMPTY_LIBRARY.search(line[:MAX_LINE])), None)
    if found is None:
        found = next(
            (no for no, line in enumerate(head, start=1) if DRIVER_LIBRARY_ABSENT.search(line[:MAX_LINE])), None
        )
    if found is None and any(L4T_R32.search(line[:MAX_LINE]) for line in head):
        found = next((no for no, line in enumerate(head, start=1) if CUDA_DIR_ABSENT.search(line[:MAX_LINE])), None)
    if found is None:
        return None
    if not any(JETSON_BOARD.search(line[:MAX_LINE]) for line in head):
        return None
    if not any(IN_CONTAINER.search(line[:MAX_LINE]) for line in head):
        return None
    if any(RUNTIME_USED.search(line[:MAX_LINE]) for line in head):
        return None  # the runtime ran: the board lacks what it mounts (no catalogue id), not this cause
    return Match("docker_no_gpu_runtime", found, lines[found - 1].strip()[:500], True, 0.9)
