"""Standard streams that cannot turn an ordinary condition into a traceback (issue #12, item 6).

Reports are UTF-8 whatever the locale, and a stdout that is closed, full or gone is one line and exit 2 in
the CLI, never an exception at interpreter exit.
"""

from __future__ import annotations

import os
import sys


def utf8_streams() -> None:
    """Reports are UTF-8 whatever the locale (a Windows console code page, ``PYTHONIOENCODING=cp1252``,
    ``LANG=C``): a redirect gets UTF-8 bytes; a terminal that cannot show a glyph gets a replacement
    character rather than an exit on UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is None:
            continue
        try:
            if stream.isatty() and "utf" not in (stream.encoding or "").lower():
                reconfigure(errors="replace")
            else:
                reconfigure(encoding="utf-8", errors="replace")
        except (OSError, ValueError):
            pass


def silence_stdout() -> None:
    """After a failed write, point stdout at the null device so the interpreter's final flush of what is
    still buffered cannot fail a second time (with a traceback) on the way out."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        if sys.stdout is not None:
            os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
