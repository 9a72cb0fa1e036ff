"""A torch wheel built for one Python installed into another: its C extension does not import.

A wheel's file name carries the interpreter it was built for (PEP 427 / PEP 425 tags: ``cp35-cp35m`` is CPython 3.5's
ABI), and pip refuses a wheel whose tags do not match ("... is not a supported wheel on this platform"). Renaming the
file to another tag (or copying a site-packages folder across) gets it installed, but ``torch/_C`` is an extension
module compiled against that one CPython ABI, so ``from torch._C import *`` in torch/__init__.py fails ("No module
named 'torch._C'", or an undefined ``Py*`` symbol): pytorch/pytorch#574, the maintainers: "torch._C is the name of our
CPython extension ... not binary compatible across Python versions", "you cannot rename pip wheels like that and
expect them to work". The fix is a wheel published for this Python, or a Python the release publishes wheels for
(no_wheel_for_platform); the CPU or CUDA flavour of the wheel never got to run, so it is not the cause.

Read only when the text shows both: the extension failing to import from an installed torch, and a wheel for another
Python (its tag or "for Python 3.X" beside the interpreter's own version: its banner, its site-packages path) or the
user's words that they renamed the wheel. Either alone says nothing about the ABI.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

NO_WHEEL = "no_wheel_for_platform"
# torch's extension not loading (Python's words for a missing or unloadable torch._C).
EXTENSION_FAILED = re.compile(
    r"No module named [\"']?torch\._C\b|cannot import name [\"']_C[\"'] from [\"']torch[\"']|"
    r"torch[/\\]_C\.cpython-\d+\S*\.so: undefined symbol: _?Py"
)
# The Python a wheel was built for: its tag (cp35, cp36m) or the user's words ("the package for Python 3.5").
WHEEL_PYTHON = re.compile(
    r"\bcp3(?P<tag>\d{1,2})(?:m|mu|d)?\b|\b(?:wheel|package|whl|version|build)\s+for\s+python\s*3\.(?P<said>\d{1,2})\b",
    re.IGNORECASE,
)
# The interpreter that ran: its banner ("Python 3.6.0 (default, ...)") or the site-packages torch was loaded from.
INTERPRETER = re.compile(
    r"^Python 3\.(?P<banner>\d{1,2})\.\d+\b|[/\\]python3\.(?P<path>\d{1,2})[/\\](?:site|dist)-packages"
)
# "I renamed the package", "renaming the wheel", "renamed torch-0.1.6-cp35-cp35m-linux_x86_64.whl to ..." (not
# "renamed the file config.yaml": any file gets renamed; only the wheel's name carries its Python).
RENAMED = re.compile(
    r"\brenam(?:e|ed|ing)\s+(?:the\s+|a\s+|that\s+|this\s+)?(?:pip\s+|torch\s+)?(?:wheel|\.?whl|package)s?\b|"
    r"\brenam(?:e|ed|ing)\s+\S{1,200}\.whl\b",
    re.IGNORECASE,
)


def wheel_for_another_python(lines: list[str], matches: list[Match]) -> list[Match]:
    """The text shows a wheel for another Python forced into this one (above): no_wheel_for_platform, and the
    build-type readings of the wheel give way (it never ran)."""
    cut = [line[:MAX_LINE] for line in lines]
    failed = next(((no, line) for no, line in enumerate(cut, start=1) if EXTENSION_FAILED.search(line)), None)
    if failed is None:
        return matches
    built = {int(m.group("tag") or m.group("said")) for line in cut for m in WHEEL_PYTHON.finditer(line)}
    running = {int(m.group("banner") or m.group("path")) for line in cut for m in INTERPRETER.finditer(line)}
    other_python = bool(built and running and not built & running)
    if not other_python and not any(RENAMED.search(line) for line in cut):
        return matches
    kept = [m for m in matches if m.id not in ("cpu_only_build", NO_WHEEL) or m.specific]
    return [*kept, Match(NO_WHEEL, failed[0], failed[1].strip()[:500], True, 0.9)]
