"""``import torch`` answered by a PyTorch source checkout instead of the installed package (round 11).

The evidence space, from torch's own source:

- torch/__init__.py runs ``from torch._C import *``; inside a checkout the ``torch/`` folder beside ``setup.py``
  has no built extension (``python setup.py install`` puts the build in site-packages, not in the tree), so Python
  answers ``No module named 'torch._C'`` (torch <= 1.x), and torch >= 1.3 checks for exactly this case
  (``_C_for_compiled_check.__file__ is None``: the ``torch/_C`` *folder* of the repository loaded as a namespace
  package) and raises "Failed to load PyTorch C extensions: It appears that PyTorch has loaded the `torch/_C`
  folder of the PyTorch repository ... or by running Python from a different directory."
- Which torch raised it: the traceback's frame for ``torch/__init__.py`` (``File ".../torch/__init__.py"``, IPython's
  ``.../torch/__init__.py in <module>``). A path inside site-packages/dist-packages is an installed torch whose
  extension did not load for this interpreter (a Python version or ABI it was not built for): ``import torch
  fails``, not a second copy. A path outside them (``/opt/pytorch/torch/__init__.py``, a relative
  ``torch/__init__.py``) is a source tree found first on ``sys.path`` (the current directory): the installed torch
  is shadowed.

Without the frame the text cannot tell which, and nothing is claimed here.
"""

from __future__ import annotations

import re

from gpuassist.findings import Severity
from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.report.model import Report

# torch's two answers when its C extension is not the one loaded.
NO_EXTENSION = re.compile(
    r"No module named [\"']?torch\._C\b|Failed to load PyTorch C extensions|"
    r"PyTorch has loaded the `?torch/_C`? folder"
)
# The frame of torch's own __init__.py: a CPython traceback line or IPython's header line.
INIT_FRAME = re.compile(
    r"(?:File \"(?P<file>[^\"\n]{0,400}?)\"|^\s*(?P<ipy>[^\s\"]{0,400}?)\s+in\s+<module>)",
)
TORCH_INIT = re.compile(r"(?:^|[/\\])torch[/\\]__init__\.py$")
INSTALLED = re.compile(r"[/\\](?:site|dist)-packages[/\\]|\.egg[/\\]|[/\\]Lib[/\\]site-packages", re.IGNORECASE)


def torch_init_path(lines: list[str]) -> tuple[int, str, str] | None:
    """The path of the torch/__init__.py a traceback shows, if any: (line number, line, path)."""
    for no, raw in enumerate(lines, start=1):
        line = raw[:MAX_LINE]
        if "__init__.py" not in line:
            continue
        m = INIT_FRAME.search(line)
        path = (m.group("file") or m.group("ipy")) if m else None
        if path and TORCH_INIT.search(path):
            return no, line, path
    return None


def source_tree_matches(lines: list[str], matches: list[Match]) -> list[Match]:
    """torch's extension missing, raised from a torch/__init__.py outside any site-packages: a source checkout
    shadows the installed torch (a verdict, ahead of the import-failure guesses). Raised from an installed torch the
    text is the installed package failing to load (nothing added here; the message rows decide)."""
    cut = [line[:MAX_LINE] for line in lines]
    if not any(NO_EXTENSION.search(line) for line in cut):
        return matches
    frame = torch_init_path(lines)
    if frame is None or INSTALLED.search(frame[2]):
        return matches
    return [*matches, Match("stale_or_shadowed_torch", frame[0], frame[1].strip()[:500], True, 0.95)]


def explain(report: Report, lines: list[str]) -> None:
    """Say which torch was loaded and how to reach the installed one, on the verdict above (the catalogue's text
    speaks of pip and conda copies, whose uninstall loop would not help here)."""
    frame = torch_init_path(lines)
    if frame is None or INSTALLED.search(frame[2]):
        return
    checkout = frame[2][: -len("__init__.py")].rstrip("/\\")
    for f in report.findings:
        if f.id != "stale_or_shadowed_torch" or f.severity is Severity.INFO:
            continue
        f.explanation = (
            f"Python imported torch from {checkout}, the torch/ folder of a PyTorch source tree (no site-packages "
            "in the path), not the installed package: that folder has no built C extension, so `torch._C` is "
            "missing. The current directory (or PYTHONPATH) puts the source tree first on sys.path."
        )
        f.fix = (
            "Run Python from a different directory than the PyTorch checkout (`cd ~` and start python/ipython "
            "again), or remove the checkout from PYTHONPATH; to use the checkout itself, build it in place with "
            "`python setup.py develop` (`python -m pip install -e .` in newer trees)."
        )
        f.structured_actions = None
