"""A line that says the driver's library was found is not a failure of it.

The catalogue's WSL reading of a libcuda line (``/usr/lib/wsl/lib``, "WSL ... libcuda") is a loose guess: it is
meant for lines where the library could not be loaded or was the wrong one. Tools also print the library's path
when all is well: numba's ``numba -s`` ("CUDA driver library found at /usr/lib/wsl/lib/libcuda.so.1"), ``ldconfig
-p`` and ``ldd`` ("libcuda.so.1 => /usr/lib/wsl/lib/libcuda.so.1"), TensorFlow's "Successfully opened dynamic
library libcuda.so.1", a ``ls -l`` of the directory. Such a line is evidence that WSL's path works; reading it as
"CUDA in WSL2 is broken" would blame a healthy machine. A line that also carries a failure word keeps its reading.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match

LIBCUDA = re.compile(r"\blibcuda\b|/usr/lib/wsl/lib", re.IGNORECASE)
# What a tool prints when it found or loaded the library.
FOUND = re.compile(
    r"\b(?:found|located|loaded|opened|using)\b(?:\s+\w+){0,4}\s+(?:at|from|in)?\s*\S*libcuda"
    r"|libcuda[\w.]*\s+(?:found|loaded)\b"
    r"|libcuda\.so(?:\.\d+)*\s*(?:\([^)]*\)\s*)?=>\s*/"
    r"|successfully opened dynamic library libcuda"
    r"|^[-l][rwx-]{9}\S*\s.*libcuda",
    re.IGNORECASE,
)
# Words that make the line a failure after all ("found at ... but failed to load", "not found").
FAILURE = re.compile(
    r"\b(?:not|no|cannot|can't|could ?n[o']t|unable|fail\w*|error|missing|invalid|wrong|mismatch|too short|denied)\b",
    re.IGNORECASE,
)


def shows_library_found(line: str) -> bool:
    """The line reports libcuda found or loaded, with no word of failure."""
    return bool(LIBCUDA.search(line) and FOUND.search(line) and not FAILURE.search(line))


def drop_found_library_readings(matches: list[Match]) -> list[Match]:
    """Drop the loose WSL-path reading of a line that only says where the working libcuda is."""
    return [m for m in matches if not (m.id == "wsl_libcuda_problem" and shows_library_found(m.line))]
