"""torch's NumPy bridge: what its messages (the ``torch`` rows of messages.json, round 11) claim, and when not.

torch/csrc/utils/tensor_numpy.cpp imports NumPy's C API on first use; when that fails it warns once ("Failed to
initialize NumPy: <NumPy's error>") and every conversion (``torch.from_numpy``, ``.numpy()``, ``torch.tensor`` of an
array) raises "Numpy is not available". The warning alone is printed by a torch that otherwise works, GPU included
(NGC containers and CI logs show it beside "CUDA available: True"): a text that shows CUDA working and nothing failing
but that warning is not a GPU problem, so the NumPy clash stays information there. The reason NumPy gives decides the
fix: "No module named 'numpy'" is NumPy missing (install it), the others a NumPy the build was not compiled for
(NumPy 2 under a NumPy 1.x build: ``numpy<2``, or a torch built against NumPy 2).
"""

from __future__ import annotations

import re

from gpuassist.findings import Severity
from gpuassist.ingest.cuda_working import cuda_shown_working
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.report.model import Report, step_summaries
from gpuassist.rules import order_findings

WARNING = re.compile(r"Failed to initialize NumPy:")
FAILED_USE = re.compile(r"Numpy is not available|compiled using NumPy 1\.x cannot be run in|Traceback \(most recent")
MISSING = re.compile(r"Failed to initialize NumPy: No module named '?numpy")


def settle(report: Report, lines: list[str]) -> None:
    """Keep torch's NumPy warning from being claimed on a working GPU, and give the missing-NumPy case its fix."""
    cut = [line[:MAX_LINE] for line in lines]
    if not any(WARNING.search(line) for line in cut):
        return
    demoted = []
    for f in report.findings:
        if f.id != "torch_import_error" or f.severity is Severity.INFO:
            continue
        cited = [str(e.value) for e in f.evidence if e.fact == "pasted.line"]
        only_warning = bool(cited) and all(WARNING.search(value) for value in cited)
        if only_warning and cuda_shown_working(cut) and not any(FAILED_USE.search(line) for line in cut):
            f.severity = Severity.INFO
            f.explanation = (
                "Not claimed: torch warns that its NumPy bridge failed to load (a NumPy its build was not compiled "
                "for), but the text shows CUDA working and nothing failing; only conversions between tensors and "
                f"NumPy arrays are affected. {f.explanation}"
            )
            demoted.append(f)
        if any(MISSING.search(line) for line in cut):
            f.fix = (
                "NumPy is not installed in the environment that runs torch: `python -m pip install numpy` with that "
                'same interpreter (with a torch built before NumPy 2, `python -m pip install "numpy<2"`).'
            )
            f.structured_actions = None
    if demoted:  # the readings still claimed lead; the NumPy note follows them
        kept = order_findings([f for f in report.findings if f not in demoted])
        report.findings[:] = [*kept, *demoted]
        report.steps[:] = step_summaries(report.findings, set())
