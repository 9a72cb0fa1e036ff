"""A CUDA library of another CUDA major than the installed torch build's: the torch imported is an older copy.

Each torch CUDA build links the CUDA libraries of its own CUDA release by soname (``readelf -d torch/lib/*.so``
NEEDED entries; NVIDIA's CUDA Toolkit release notes list each library's version per release). Up to CUDA 10.0 every
library's soname carried CUDA's X.Y (libcudart.so.8.0, libcurand.so.9.0, libcublas.so.10.0); from 10.1 on the math
libraries carry their own majors, so only some still name the CUDA major: libcudart.so.10.1/.10.2/.11.0/.12/.13 and
libnvrtc.so.* always follow CUDA, as do libcublas/libcublasLt from CUDA 11 (.so.11, .so.12, .so.13) and
libcusparse.so.11 (CUDA 11 only); libcusparse.so.12 (cuSPARSE 12.x ships with CUDA 12 and, as 12.6+, with CUDA 13.0:
NVIDIA's conda labels cuda-13.0.0 -> libcusparse 12.6.2.49), libcurand.so.10 (CUDA 10.1 to 13.x), libcufft.so.10
and libcusolver.so.11 span several CUDA majors and tell nothing.

The class: ``import torch`` fails on such a library ("libcurand.so.8.0: cannot open shared object file") while the
text shows the torch build that was installed (a download.pytorch.org/whl/cuXYZ URL, ``torch==X+cuXYZ``, a
torch-X+cuXYZ wheel, a listed ``torch X+cuXYZ``) for another CUDA major: that build never asks for the library, so
the torch Python imports is another, older install (pytorch/pytorch#20750: "you have an older pytorch install
somehow on your machine"). The same major (the right build missing its own libraries), an ambiguous soname, or no
installed build shown leave the import failure as it is.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

LIBRARY_MISSING = re.compile(
    r"\blib(?P<lib>cudart|cublasLt|cublas|curand|cufftw|cufft|cusparse|cusolver|nvrtc|nppc|nvgraph)\.so\."
    r"(?P<major>\d{1,2})(?:\.(?P<minor>\d))?\b[^\n]{0,20}?:\s*cannot open shared object file"
)
# From CUDA 10.1 on, one-part sonames that still name the CUDA major, with the first major where they do and the
# last one (None: still follows CUDA in the newest release).
FOLLOWS_CUDA: dict[str, tuple[int, int | None]] = {
    "cudart": (12, None),
    "nvrtc": (12, None),
    "cublas": (11, None),
    "cublasLt": (11, None),
    "cusparse": (11, 11),
}
# The innermost installed package in the traceback decides whose library failed: another package (torch_scatter,
# mmcv, TensorFlow) means its own extension, built for another CUDA, did not load; torch's loaders of other
# packages' libraries (torch.ops.load_library in _ops.py, cpp_extension) are skipped over, while a traceback that only
# passes through another package on its way into torch/__init__.py stays torch's.
PACKAGE_FRAME = re.compile(r"[\\/](?:site|dist)-packages[\\/](?P<package>[\w.-]+)[\\/](?P<rest>\S*)")
TORCH_LOADERS = re.compile(r"^(?:_ops\.py|utils[\\/]cpp_extension\.py|_classes\.py)")
TRACEBACK = re.compile(r"Traceback \(most recent call last\)")
INSTALLED_BUILD = re.compile(
    r"download\.pytorch\.org/whl/(?:nightly/|test/)?cu(?P<url>\d{2,3})\b|"
    r"\btorch(?:==|-|\s+)\d+\.\d+(?:\.\d+)?(?:(?:a|b|rc|\.dev)\d+)?\+cu(?P<tag>\d{2,3})\b",
    re.IGNORECASE,
)


def library_cuda_major(lib: str, major: int, minor: str | None) -> int | None:
    """The CUDA major a soname belongs to, or None where the soname spans several CUDA releases."""
    if minor is not None:
        return major if 7 <= major <= 11 else None
    span = FOLLOWS_CUDA.get(lib)
    if span is None or major < span[0] or (span[1] is not None and major > span[1]):
        return None
    return major


def loaded_by_another_package(lines: list[str], index: int) -> bool:
    """The innermost package frame of the traceback that ends in the missing library (up to 40 lines back to its
    start) is another package's, not torch's own import."""
    for line in reversed(lines[max(0, index - 40) : index]):
        head = line[:MAX_LINE]
        frame = PACKAGE_FRAME.search(head)
        if frame and not (frame["package"] == "torch" and TORCH_LOADERS.match(frame["rest"])):
            return frame["package"] != "torch"
        if TRACEBACK.search(head):
            return False
    return False


def build_cuda_major(tag: str) -> int:
    """cu80 -> 8, cu92 -> 9, cu100 -> 10, cu121 -> 12."""
    return int(tag[:-1])


def older_torch_imported(lines: list[str], matches: list[Match]) -> list[Match]:
    """torch's import fails on a CUDA library of another major than the installed build's: the torch imported is
    another (older) install; that copy is the cause, the import failure its symptom."""
    if not any(m.id == "torch_import_error" for m in matches) or any(
        m.id == "stale_or_shadowed_torch" for m in matches
    ):
        return matches
    missing = None
    builds: set[int] = set()
    for no, line in enumerate(lines[:5000], start=1):
        head = line[:MAX_LINE]
        if missing is None and (m := LIBRARY_MISSING.search(head)):
            cuda = library_cuda_major(m.group("lib"), int(m.group("major")), m.group("minor"))
            if cuda is not None and not loaded_by_another_package(lines, no - 1):
                missing = (no, line.strip()[:500], cuda)
        for b in INSTALLED_BUILD.finditer(head):
            builds.add(build_cuda_major(b.group("url") or b.group("tag")))
    if missing is None or len(builds) != 1 or missing[2] in builds:
        return matches
    return [Match("stale_or_shadowed_torch", missing[0], missing[1], True, 0.9), *matches]
