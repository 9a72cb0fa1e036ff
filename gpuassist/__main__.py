"""`python -m gpuassist`: the desktop app where there is a display, the CLI otherwise."""

import os
import sys

if __name__ == "__main__":
    has_display = bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    has_display = has_display or sys.platform in ("win32", "darwin")
    if len(sys.argv) == 1 and has_display:
        from gpuassist.gui_entry import main as gui_main

        sys.exit(gui_main())
    from gpuassist.cli import main

    sys.exit(main())
