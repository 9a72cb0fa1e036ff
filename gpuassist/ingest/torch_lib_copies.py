"""torch's own shared libraries loaded from outside the torch package: a second copy of torch.

Python's torch loads libc10, libtorch*, libcaffe2 and libshm from its own ``torch/lib`` (found through the
extension's RPATH). When the loader takes one of them from another directory first (a ``/usr/local/lib`` left by
an earlier ``python setup.py install`` or ``make install`` of PyTorch, a LibTorch C++ download on
``LD_LIBRARY_PATH``), torch runs with a mismatched half of another build: "undefined symbol" on import, or a
library path outside the package in ``ldd``. pytorch/pytorch#15800 (the reporter removed
``/usr/local/lib/libc10.so``, left from a source install) is this class. The cause is that stray copy
(``stale_or_shadowed_torch``), not the install the user keeps reinstalling.

Read only where Python imports torch (a C++ program linking LibTorch from ``/opt/libtorch/lib`` is the normal
case there), and only from a path the text shows: an ``ldd`` row or the failing library's own path.
"""

from __future__ import annotations

import re

from gpuassist.findings import Evidence, Finding, Severity
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.ingest.paste_causes import LDD_LINE, failing_library, torch_import_shown
from gpuassist.rules.make import finding

TORCH_OWN_LIB = re.compile(
    r"^lib(?:c10|c10_cuda|torch|torch_cpu|torch_cuda\w*|torch_python|torch_global_deps|caffe2\w*|shm)"
    r"\.(?:so|dylib)\b"
)
INSIDE_TORCH = re.compile(r"[/\\]torch[/\\]lib[/\\]")


def _outside(path: str) -> bool:
    return TORCH_OWN_LIB.match(path.rsplit("/", 1)[-1]) is not None and not INSIDE_TORCH.search(path)


def stray_torch_library_finding(lines: list[str]) -> Finding | None:
    """A library of torch's own, resolved or failing from a directory outside the torch package, while Python
    imports torch: that copy shadows the package's. Cites the line with the path; the fix removes that copy."""
    if not torch_import_shown(lines):
        return None
    for no, raw in enumerate(lines, start=1):
        line = raw[:MAX_LINE]
        if ".so" not in line and ".dylib" not in line:
            continue
        ldd = LDD_LINE.match(line)
        path = ldd.group("path") if ldd else None
        if path is None:
            failed = failing_library(line)
            path = failed[0] if failed else None
        if path is not None and _outside(path):
            return _finding(path, no, line.strip()[:500])
    return None


def _finding(path: str, no: int, line: str) -> Finding:
    directory, name = path.rsplit("/", 1)
    return finding(
        "stale_or_shadowed_torch",
        Severity.ERROR,
        title=f"torch's {name} is loaded from {directory}, not from the torch package",
        explanation=(
            f"{path} is a library of torch itself, from another build: one left by an earlier source install "
            "(python setup.py install, make install) or a LibTorch download on LD_LIBRARY_PATH. The loader takes it "
            "before the copy in the package's torch/lib, so torch runs half of another build. Reinstalling torch "
            "does not remove it."
        ),
        fix=(
            f"Take that copy out of the loader's way, then retry:\n"
            f"  echo $LD_LIBRARY_PATH    # remove {directory} from it if it is there (~/.bashrc, module files)\n"
            f"  ls -l {directory}/libc10* {directory}/libtorch* {directory}/libcaffe2* 2>/dev/null\n"
            "  # if that directory is not meant to hold a LibTorch: move the stray copies aside (kept, not deleted)\n"
            f"  mkdir -p ~/stale-torch-libs && for f in {directory}/libc10* {directory}/libtorch* "
            f'{directory}/libcaffe2* {directory}/libshm*; do [ -e "$f" ] && sudo mv "$f" ~/stale-torch-libs/; done; '
            "sudo ldconfig\n"
            '  python -c "import torch; print(torch.__version__, torch.__file__)"'
        ),
        evidence=[Evidence("pasted.line", f"line {no}: {line}")],
        explains=["torch_import_error", "ld_library_path_shadowing"],
    )
