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

- The same class one level down: the user's own script named ``torch.py`` (the script's directory is first on
  ``sys.path``), which Python answers with "partially initialized module 'torch' has no attribute 'cuda' (most
  likely due to a circular import)" or, from 3.13, "module 'torch' has no attribute 'cuda' (consider renaming
  '/home/u/torch.py' if it has the same name as a library you intended to import)"; the file is in the traceback's
  frames or in that hint.

Without the frame or path the text cannot tell which, and nothing is claimed here.
"""

from __future__ import annotations

import re

from gpuassist.findings import Severity
from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.report.model import Report

# torch's answers when its C extension is not the one loaded (Python 3.8+ names the module's file in parentheses:
# "cannot import name '_C' from 'torch' (/src/pytorch/torch/__init__.py)").
NO_EXTENSION = re.compile(
    r"No module named [\"']?torch\._C\b|Failed to load PyTorch C extensions|"
    r"PyTorch has loaded the `?torch/_C`? folder|cannot import name [\"']_C[\"'] from [\"']torch[\"']"
)
# Python's answers when the module named torch is the user's own file: a circular import of a script named torch.py,
# or (3.13+) the hint naming that file.
OWN_FILE = re.compile(
    r"partially initialized module [\"']torch[\"']|module [\"']torch[\"'] has no attribute [\"']\w+[\"']"
)
# The frame of torch's own module: a CPython traceback line, IPython's header line, or Python's parenthesised path
# after "cannot import name ... from 'torch'" and its 3.13 "consider renaming '<path>'" hint.
INIT_FRAME = re.compile(
    r"(?:File \"(?P<file>[^\"\n]{0,400}?)\"|^\s*(?P<ipy>[^\s\"]{0,400}?)\s+in\s+<module>|"
    r"from [\"']torch[\"'] \((?P<named>[^()\n]{0,400})\)|consider renaming [\"'](?P<renaming>[^\"'\n]{0,400})[\"'])",
)
TORCH_INIT = re.compile(r"(?:^|[/\\])torch[/\\]__init__\.py$")
TORCH_FILE = re.compile(r"(?:^|[/\\])torch\.py$")
INSTALLED = re.compile(r"[/\\](?:site|dist)-packages[/\\]|\.egg[/\\]|[/\\]Lib[/\\]site-packages", re.IGNORECASE)


def _frames(lines: list[str]) -> list[tuple[int, str, str]]:
    found = []
    for no, raw in enumerate(lines, start=1):
        line = raw[:MAX_LINE]
        if "torch" not in line:
            continue
        for m in INIT_FRAME.finditer(line):
            path = m.group("file") or m.group("ipy") or m.group("named") or m.group("renaming")
            if path:
                found.append((no, line, path.strip()))
    return found


def torch_init_path(lines: list[str]) -> tuple[int, str, str] | None:
    """The path of the torch/__init__.py a traceback shows, if any: (line number, line, path)."""
    return next((f for f in _frames(lines) if TORCH_INIT.search(f[2])), None)


def own_torch_file(lines: list[str]) -> tuple[int, str, str] | None:
    """A file of the user's named torch.py (outside any site-packages) that a traceback shows, if any."""
    return next((f for f in _frames(lines) if TORCH_FILE.search(f[2]) and not INSTALLED.search(f[2])), None)


def shadow(lines: list[str]) -> tuple[int, str, str] | None:
    """What shadows the installed torch, if the text shows it: a source tree's torch/__init__.py without its
    extension, or the user's own torch.py imported as torch: (line number, line, path)."""
    cut = [line[:MAX_LINE] for line in lines]
    if any(NO_EXTENSION.search(line) for line in cut):
        frame = torch_init_path(lines)
        if frame is not None and not INSTALLED.search(frame[2]):
            return frame
    if any(OWN_FILE.search(line) for line in cut):
        return own_torch_file(lines)
    return None


# The message only supposed or quoted, not met: "if you see 'No module named torch._C' you ran python from ...",
# "I'm not getting ...". Read on the text before the message on its line.
SUPPOSED_MESSAGE = re.compile(
    r"\b(?:if|when|whenever|in case)\s+(?:you|one|u|people|users?)\s+(?:see|get|hit|encounter|run into)\b|"
    r"\b(?:not|never|no longer|don'?t|doesn'?t|isn'?t)\s+(?:seeing|getting|see|get|hitting)\b",
    re.IGNORECASE,
)


def _extension_row_unmet(match: Match, source_tree: bool) -> bool:
    """A torch_import_error read from torch's extension missing that the text explains otherwise: the checkout
    shadowing the installed torch (reinstalling would not help) or words that only suppose the message."""
    if match.id != "torch_import_error":
        return False
    found = NO_EXTENSION.search(match.line)
    if found is None:
        return False
    # only the words that govern the message: right before it ("if you see '...'", "not getting '...'"), not a
    # clause earlier on the line ("from my home dir I don't get it, but in ~/src I get ...")
    return source_tree or bool(SUPPOSED_MESSAGE.search(match.line[max(0, found.start() - 30) : found.start()]))


def source_tree_matches(lines: list[str], matches: list[Match]) -> list[Match]:
    """torch's extension missing, raised from a torch/__init__.py outside any site-packages (a source checkout), or
    Python's circular-import answer naming the user's own torch.py: the installed torch is shadowed (a verdict,
    ahead of the import-failure guesses, which the checkout's missing extension no longer supports). Raised from an
    installed torch the text is the installed package failing to load (nothing added here; the message rows
    decide); the message only supposed ("if you see ...") supports nothing."""
    found = shadow(lines)
    source_tree = found is not None and bool(TORCH_INIT.search(found[2]))
    matches = [m for m in matches if not _extension_row_unmet(m, source_tree)]
    if found is None:
        return matches
    return [*matches, Match("stale_or_shadowed_torch", found[0], found[1].strip()[:500], True, 0.95)]


def explain(report: Report, lines: list[str]) -> None:
    """Say which torch was loaded and how to reach the installed one, on the verdict above (the catalogue's text
    speaks of pip and conda copies, whose uninstall loop would not help here)."""
    found = shadow(lines)
    if found is None:
        return
    own_file = bool(TORCH_FILE.search(found[2]))
    for f in report.findings:
        if f.id != "stale_or_shadowed_torch" or f.severity is Severity.INFO:
            continue
        if own_file:
            f.explanation = (
                f"Python imported {found[2]}, a file of your own named torch.py, instead of the installed torch: "
                "the directory of the script comes first on sys.path, so `import torch` finds that file."
            )
            f.fix = (
                f"Rename {found[2]} (and delete the __pycache__ folder beside it), e.g. to torch_test.py, then run "
                "again; nothing needs reinstalling."
            )
            f.structured_actions = None
            continue
        checkout = found[2][: -len("__init__.py")].rstrip("/\\")
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
