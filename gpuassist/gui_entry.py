"""`gpuassist-gui`: the desktop app's entry point.

Where there is no display to open a window on (a server, an SSH session without X forwarding), Qt would
abort with a core dump; instead this says so in one line and shows the same diagnosis in the terminal,
as `./run-app` does.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Mapping

# Lazy imports: start-up. The window's entry loads only the app, and the terminal fallback only the CLI.


def has_display(env: Mapping[str, str], platform: str = sys.platform) -> bool:
    """Whether Qt can open a window: always on Windows and macOS; on Linux an X or Wayland display, or a
    platform plugin chosen explicitly (``QT_QPA_PLATFORM=offscreen`` for tests and screenshots)."""
    if not platform.startswith("linux"):
        return True
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY") or env.get("QT_QPA_PLATFORM"))


def diagnose_args(gui_args: list[str]) -> list[str]:
    """The window's options as `gpuassist diagnose` options: what to diagnose carries over (``--report``
    becomes ``--from``), what only a window can do (``--run``, ``--page``, ``--replay-speed``) is dropped."""
    out = ["diagnose"]
    args = iter(gui_args)
    for arg in args:
        name, eq, value = arg.partition("=")
        if name in ("--simulate", "--python", "--report"):
            out += ["--from" if name == "--report" else name, value if eq else next(args, "")]
        elif name in ("--page", "--replay-speed") and not eq:
            next(args, None)
        elif name not in ("--run", "--page", "--replay-speed"):
            out.append(arg)  # diagnose says what it does not know, in one line
    return out


def main() -> int:
    if not has_display(os.environ):
        from gpuassist.cli import main as cli_main

        print(
            "gpuassist: no display to open the window on (DISPLAY and WAYLAND_DISPLAY are unset); "
            "showing the diagnosis here instead.",
            file=sys.stderr,
        )
        return cli_main(diagnose_args(sys.argv[1:]))
    # Start-up creates hundreds of thousands of long-lived objects (PySide6, numpy, pyqtgraph, our modules) and
    # the collector would walk them again and again for nothing: it is paused until the window is complete, then
    # those objects are frozen out of later collections (the app resumes it: gpuassist.ui.app).
    gc.disable()
    from gpuassist.ui.app import main as app_main

    return int(app_main(sys.argv[1:]))


if __name__ == "__main__":
    sys.exit(main())
