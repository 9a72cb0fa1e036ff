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
# On L4T r32 the runtime mounts the board's CUDA 10.x, cuDNN 7/8 and TensorRT 6-8 (JetPack 4.x's versions); one of
# those absent in a container of that release is the runtime's mount missing. Another major (libcudart.so.11.0,
# libcudnn.so.9) is a wheel built for another JetPack, which the wheel readers decide.
R32_MOUNTED_ABSENT = re.compile(
    r"\blib(?:cudart|cublas(?:Lt)?|cufft|curand|cusparse|cusolver|nvrtc|nvToolsExt|npp\w*)\.so(?:\.10(?:\.\d+)*)?:|"
    r"\blibcudnn\w*\.so(?:\.[78](?:\.\d+)*)?:|\blib(?:nvinfer\w*|nvonnxparser|nvparsers)\.so(?:\.[678](?:\.\d+)*)?:",
    re.IGNORECASE,
)
CANNOT_OPEN = re.compile(r"cannot open shared object file", re.IGNORECASE)
# The board's memory manager (nvmap) refused the process: the container has no /dev/nvmap or no right to it
# (NVIDIA's Tegra libnvrm_mem prints it when opening /dev/nvmap fails; the runtime adds the Tegra device nodes).
NVMAP_REFUSED = re.compile(r"\bNvRmMemInitNvmap failed(?: with)?\b|\bNvRmMemMgrInit failed\b", re.IGNORECASE)
# The CUDA directory absent in the container (ls, cd, a build's path check).
CUDA_DIR_ABSENT = re.compile(r"/usr/local/cuda[\w.-]*/?[\w./-]*['\"`]?:\s*No such file or directory", re.IGNORECASE)
# L4T r32 (JetPack 4): the release whose runtime mounts CUDA, cuDNN and TensorRT from the board.
L4T_R32 = re.compile(
    r"\bL4T\s*R?32\.\d|\bR32 \(release\)|\bl4t[\w.-]*[:-]r32\.\d|:r32\.\d|\bJetPack\s*4\.\d", re.IGNORECASE
)
# The JetPack meta-package's own version, as NVIDIA's JetPack docs tell users to check it (`sudo apt show
# nvidia-jetpack` / `dpkg -s`: "Package: nvidia-jetpack" with "Version: 4.6-b199" a few lines below; `dpkg -l` /
# `apt list` on one line: "nvidia-jetpack  4.6-b199  arm64"). JetPack 4.x is L4T r32.
JETPACK_PACKAGE = re.compile(r"^\s*Package:\s*nvidia-jetpack\s*$", re.IGNORECASE)
PACKAGE_VERSION = re.compile(r"^\s*Version:\s*(\S+)", re.IGNORECASE)
PACKAGE_VERSION_4 = re.compile(r"4\.\d")
STANZA_END = re.compile(r"^\s*(?:Package:|$)", re.IGNORECASE)
# dpkg -s prints Status, Priority, Section, Installed-Size, Maintainer, Architecture and Source before Version.
STANZA_LINES = 20
JETPACK_4_LISTED = re.compile(r"\bnvidia-jetpack(?:/\S+)?\s+4\.\d+(?:\.\d+)*-b\d+", re.IGNORECASE)


def jetpack_4_shown(lines: list[str]) -> bool:
    """The text shows L4T r32 / JetPack 4.x: in words, an image tag, or the nvidia-jetpack package's version."""
    for no, line in enumerate(lines):
        text = line[:MAX_LINE]
        if L4T_R32.search(text) or JETPACK_4_LISTED.search(text):
            return True
        if JETPACK_PACKAGE.match(text) and _stanza_version_is_4(lines[no + 1 : no + 1 + STANZA_LINES]):
            return True
    return False


def _stanza_version_is_4(after: list[str]) -> bool:
    """The Version field of the package's own stanza (up to the next Package: or blank line) is 4.x: another
    package's version below it, in a paste with its blank lines lost, is not JetPack's."""
    for line in after:
        text = line[:MAX_LINE]
        if STANZA_END.match(text):
            return False
        version = PACKAGE_VERSION.match(text)
        if version is not None:
            return PACKAGE_VERSION_4.match(version.group(1)) is not None
    return False


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
    if found is None and jetpack_4_shown(head):
        found = next((no for no, line in enumerate(head, start=1) if CUDA_DIR_ABSENT.search(line[:MAX_LINE])), None)
        if found is None:
            found = next(
                (
                    no
                    for no, line in enumerate(head, start=1)
                    if CANNOT_OPEN.search(line[:MAX_LINE]) and R32_MOUNTED_ABSENT.search(line[:MAX_LINE])
                ),
                None,
            )
    if found is None:
        found = next((no for no, line in enumerate(head, start=1) if NVMAP_REFUSED.search(line[:MAX_LINE])), None)
    if found is None:
        return None
    if not any(JETSON_BOARD.search(line[:MAX_LINE]) for line in head):
        return None
    if not any(IN_CONTAINER.search(line[:MAX_LINE]) for line in head):
        return None
    if any(RUNTIME_USED.search(line[:MAX_LINE]) for line in head):
        return None  # the runtime ran: the board lacks what it mounts (no catalogue id), not this cause
    return Match("docker_no_gpu_runtime", found, lines[found - 1].strip()[:500], True, 0.9)


def runtime_mount_explains(matches: list[Match]) -> list[Match]:
    """The Jetson container without the runtime (read above) explains the library the loader could not find: the
    readings of that same failure as a wrong wheel or a broken torch are dropped (the board's library was never
    mounted, so any wheel fails the same way)."""
    mount = next((m for m in matches if m.id == "docker_no_gpu_runtime" and m.specific), None)
    if mount is None or not (CANNOT_OPEN.search(mount.line) or NVMAP_REFUSED.search(mount.line)):
        return matches
    return [m for m in matches if m.id not in ("jetson_needs_nvidia_wheel", "torch_import_error")]
