"""NumPy's C-API checks failing while torch imports: torch's import is what fails (``torch_import_error``).

Every compiled extension that uses NumPy's C API runs NumPy's ``import_array()`` when it loads (numpy's generated
``__multiarray_api.h``, ``_import_array``), and that check prints NumPy's own words, not the extension's:
``module compiled against API version 0x.. but this version of numpy is 0x..`` (the NumPy installed is older than
the one the extension was built against: upgrade NumPy), ``module compiled against ABI version 0x.. but this version
of numpy is 0x..``, ``_ARRAY_API not found`` / ``_ARRAY_API is not PyCapsule object`` / ``_ARRAY_API is NULL
pointer``, and then the ImportError ``numpy.core.multiarray failed to import`` (``numpy._core.multiarray`` and
``numpy.core.umath`` in other releases). NumPy 2 adds its warning ``A module that was compiled using NumPy 1.x
cannot be run in NumPy 2.x as it may crash`` (numpy/_core/_multiarray_umath.py) with the importing stack.

The message names no module, so the text must show which import failed: a torch frame (``torch/__init__.py``,
``from torch._C import *``) or ``import torch`` at a prompt or in the failing frame makes it torch's import. The same
NumPy words under another package's import (OpenCV, SciPy, a pybind11 extension) with nothing of torch are that
package's problem: a torch_import_error read from NumPy's words alone is dropped there.
"""

from __future__ import annotations

import re

from gpuassist.findings import Severity
from gpuassist.ingest.cuda_working import cuda_shown_working
from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.report.model import Report, step_summaries
from gpuassist.rules import order_findings

CLAIMED_ID = "torch_import_error"
MISMATCH = re.compile(
    r"module compiled against (?:ABI|API) version 0x[0-9a-f]+ but this version of numpy is 0x[0-9a-f]+"
    r"|\bnumpy\.?_?core\.(?:_multiarray_umath|multiarray|umath) failed to import"
    r"|_ARRAY_API (?:not found|is not PyCapsule object|is NULL pointer)"
    r"|compiled using NumPy 1\.x cannot be run in",
    re.IGNORECASE,
)
# torch is the one loading NumPy: a frame in its package, its _C import, `import torch` typed or in the frame, or
# torch's own words about its NumPy bridge (torch/csrc/utils/tensor_numpy.cpp).
TORCH_IMPORT = re.compile(
    r"[/\\]torch[/\\]+\w"
    r"|Failed to initialize NumPy:|\bNumpy is not available\b"
    r"|\bfrom torch\._C import"
    r"|^\s*(?:>>>|In \[\d+\]:|-*>\s*\d+|\d+\s)?\s*(?:import torch\b|from torch(?:\.\w+)* import\b)"
    r"|\bimport(?:ing)? (?:of )?`?torch\b`?",
    re.IGNORECASE,
)
# The most telling line to cite: the version numbers first, then NumPy 2's warning, then the bare ImportError.
RANKED = (
    re.compile(r"compiled against (?:ABI|API) version", re.IGNORECASE),
    re.compile(r"compiled using NumPy 1\.x", re.IGNORECASE),
    re.compile(r"_ARRAY_API", re.IGNORECASE),
)
VERSIONS = re.compile(
    r"compiled against (ABI|API) version (0x[0-9a-f]+) but this version of numpy is (0x[0-9a-f]+)", re.I
)
NUMPY2 = re.compile(r"compiled using NumPy 1\.x cannot be run in|_ARRAY_API not found", re.IGNORECASE)
WEIGHT = 0.8
# torch's own NumPy bridge warning (torch/csrc/utils/tensor_numpy.cpp): NumPy's words after it are a warning too.
BRIDGE_WARNING = re.compile(r"Failed to initialize NumPy:")
# An exception raised (a traceback's last line) or a conversion that failed: something did break.
RAISED = re.compile(r"^\s*(?:[\w.]+\.)?\w*(?:Error|Exception)\b:|Numpy is not available|Could not infer dtype of numpy")


def numpy_abi_torch(lines: list[str], matches: list[Match]) -> list[Match]:
    """Claim torch's import failure when NumPy's C-API check fails under ``import torch``; drop it elsewhere."""
    cut = [line[:MAX_LINE] for line in lines]
    mismatch = [i for i, line in enumerate(cut) if MISMATCH.search(line)]
    if not mismatch:
        return matches
    torch_import = any(TORCH_IMPORT.search(line) for line in cut)
    claimed = [m for m in matches if m.id == CLAIMED_ID]
    if not torch_import:
        from_numpy_only = claimed and all(MISMATCH.search(m.line[:MAX_LINE]) for m in claimed)
        return [m for m in matches if m.id != CLAIMED_ID] if from_numpy_only else matches
    if any(m.specific for m in claimed):
        return matches
    cited = next((i for rank in RANKED for i in mismatch if rank.search(cut[i])), mismatch[0])
    return [*matches, Match(CLAIMED_ID, cited + 1, lines[cited].strip()[:500], specific=True, weight=WEIGHT)]


def numpy_fix(lines: list[str]) -> str | None:
    """The fix NumPy's own words call for: which way NumPy must move to match the torch build, or None."""
    cut = [line[:MAX_LINE] for line in lines]
    for line in cut:
        versions = VERSIONS.search(line)
        if versions and int(versions.group(2), 16) > int(versions.group(3), 16):
            return (
                f"The installed NumPy (C {versions.group(1)} {versions.group(3)}) is older than the one this torch was "
                f"built against ({versions.group(2)}); upgrade NumPy in the environment that runs torch (with conda, "
                "`conda update numpy` there), then import torch again: `python -m pip install --upgrade numpy`"
            )
        if versions:
            return (
                f"This torch was built against an older NumPy C {versions.group(1)} ({versions.group(2)}) than the "
                f"NumPy installed ({versions.group(3)}); install a torch release built against this NumPy, or (a torch "
                'older than 2.3 under NumPy 2) pin NumPy 1.x: `python -m pip install "numpy<2"`'
            )
    if any(NUMPY2.search(line) for line in cut):
        return (
            "This torch was built against NumPy 1.x and NumPy 2 is installed; upgrade torch to a release built against "
            "NumPy 2 (2.3 or later), or pin NumPy 1.x with the interpreter that runs torch: "
            '`python -m pip install "numpy<2"`'
        )
    if any(MISMATCH.search(line) for line in cut):
        return (
            "The installed NumPy does not match the one this torch was built against; with NumPy 2 under a torch older "
            'than 2.3 pin `"numpy<2"`, otherwise upgrade NumPy: `python -m pip install --upgrade numpy`'
        )
    return None


def word_numpy_fix(report: Report, lines: list[str]) -> None:
    """Give torch's import failure the NumPy fix when NumPy's C-API check is the line it stands on."""
    fix = None
    for f in report.findings:
        if f.id != CLAIMED_ID or not any(
            e.fact == "pasted.line" and MISMATCH.search(str(e.value)[:MAX_LINE]) for e in f.evidence
        ):
            continue
        fix = fix or numpy_fix(lines)
        if fix:
            f.fix = fix
            f.structured_actions = None


def settle_numpy_warning(report: Report, lines: list[str]) -> None:
    """NumPy's clash printed while torch imports and then works (CUDA shown available, no exception raised) is a
    warning, not torch failing: NumPy 2 prints its "compiled using NumPy 1.x" notice with the importing stack and
    torch goes on with its NumPy bridge off. Kept as information with its fix; a raised error keeps the claim."""
    cut = [line[:MAX_LINE] for line in lines]
    if not cuda_shown_working(cut):
        return
    if any(RAISED.search(line) and not MISMATCH.search(line) for line in cut):
        return
    demoted = []
    for f in report.findings:
        if f.id != CLAIMED_ID or f.severity is Severity.INFO:
            continue
        cited = [str(e.value)[:MAX_LINE] for e in f.evidence if e.fact == "pasted.line"]
        if cited and all(MISMATCH.search(value) or BRIDGE_WARNING.search(value) for value in cited):
            f.severity = Severity.INFO
            f.explanation = (
                "Not claimed: NumPy warns that a module was built for another NumPy while torch imports, but torch "
                "imported and the text shows CUDA working; only conversions between tensors and NumPy arrays are "
                f"affected. {f.explanation}"
            )
            demoted.append(f)
    if demoted:  # the readings still claimed lead; the NumPy note follows them
        kept = order_findings([f for f in report.findings if f not in demoted])
        report.findings[:] = [*kept, *demoted]
        report.steps[:] = step_summaries(report.findings, set())
