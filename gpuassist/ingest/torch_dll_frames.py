"""torch's own Windows DLL loading failing inside ``import torch``, read from the traceback's frames (round 18).

The evidence space, from torch/__init__.py across releases (pytorch/pytorch):

- torch 1.5-era: the Windows branch globs ``torch\\lib\\*.dll`` and calls ``ctypes.CDLL(dll)`` for each; a DLL that
  does not load raises ctypes' bare ``OSError: [WinError 126] The specified module could not be found`` (127 "The
  specified procedure could not be found", 1114 "A dynamic link library (DLL) initialization routine failed", 193
  "%1 is not a valid Win32 application") with no DLL named: the traceback's frames (``torch\\__init__.py``, then
  ``ctypes\\__init__.py`` ``self._handle = _dlopen(...)``) are the only sign it was torch's own loading.
- torch >= 1.6: ``_load_dll_libraries()`` loads each with LoadLibraryExW/LoadLibraryW and raises
  ``ctypes.WinError(...)`` with ``Error loading "<dll>" or one of its dependencies.`` appended (the messages table's
  windows_dll_error_loading row reads that form); the frame is still torch\\__init__.py (``raise err``).
- torch <= 1.4: ``from torch._C import *`` in torch\\__init__.py fails with Python's ``ImportError: DLL load failed:
  The specified module could not be found.`` (3.8+: ``DLL load failed while importing _C``).
- The fix torch itself names (torch >= 1.8 prints it before loading): "Microsoft Visual C++ Redistributable is not
  installed, this may lead to the DLL load failure" (vc_redist.x64.exe), pytorch/pytorch#39980's answer.

So: an ``OSError: [WinError N]`` or ``ImportError: DLL load failed`` whose innermost frame, past the ctypes module's
own frames, is a ``torch\\__init__.py`` is torch's import failing on a DLL (torch_import_error). The same errors raised
from another package's frame (its own extension, a ctypes load of its own DLL) or with no frame at all say nothing
about torch and are left to the message rows; a torch\\__init__.py outside any site-packages is a source tree (read by
torch_source_tree, not here).
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

# The exception of a failed DLL load: ctypes' WinError (with its number) or Python's import of an extension.
DLL_FAILURE = re.compile(r"\bOSError: \[WinError (?:126|127|193|1114|1455)\]|\bImportError: DLL load failed\b")
# A traceback frame line and the file it names: CPython's, or IPython's older header
# ("~\\anaconda3\\lib\\site-packages\\torch\\__init__.py in <module>").
FRAME = re.compile(r"^\s*(?:File \"(?P<file>[^\"\n]{1,400})\", line \d+|(?P<ipy>[^\s\"]{1,400}\.py)\s+in\s+[<\w])")
CTYPES = re.compile(r"(?:^|[/\\])ctypes[/\\]__init__\.py$", re.IGNORECASE)
TORCH_INIT = re.compile(r"[/\\]torch[/\\]__init__\.py$", re.IGNORECASE)
INSTALLED = re.compile(r"[/\\](?:site|dist)-packages[/\\]", re.IGNORECASE)
TRACEBACK = re.compile(r"Traceback \(most recent call last\)")
# How far back from the exception its frames are looked for (a long traceback's innermost frames are next to it).
LOOK_BACK = 30


def innermost_frame(lines: list[str], index: int) -> str | None:
    """The file of the innermost frame above line ``index`` that is not the ctypes module's own, within the same
    traceback; None when there is none."""
    for line in reversed(lines[max(0, index - LOOK_BACK) : index]):
        head = line[:MAX_LINE]
        if TRACEBACK.search(head):
            return None
        frame = FRAME.match(head)
        file = frame and (frame["file"] or frame["ipy"])
        if file and not CTYPES.search(file):
            return file
    return None


def torch_dll_failure(lines: list[str]) -> tuple[int, str] | None:
    """The line of a DLL load failure raised inside an installed torch's __init__.py, if the text shows one."""
    for index, line in enumerate(lines[:5000]):
        head = line[:MAX_LINE]
        if not DLL_FAILURE.search(head):
            continue
        file = innermost_frame(lines, index)
        if file and TORCH_INIT.search(file) and INSTALLED.search(file):
            return index + 1, line.strip()[:500]
    return None


def torch_dll_matches(lines: list[str], matches: list[Match]) -> list[Match]:
    """torch's own DLL loading failed during import (above): torch_import_error, a verdict."""
    if any(m.id == "torch_import_error" and m.specific for m in matches):
        return matches
    found = torch_dll_failure(lines)
    if found is None:
        return matches
    return [Match("torch_import_error", found[0], found[1], True, 0.9), *matches]
