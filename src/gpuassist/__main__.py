"""`python -m gpuassist`: the desktop app where there is a display, the CLI otherwise."""

import os
import sys

if __name__ == "__main__":
    if len(sys.argv) == 1 and (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY") or sys.platform in ("win32", "darwin")):
        from gpuassist.gui_entry import main as gui_main

        sys.exit(gui_main())
    from gpuassist.cli import main

    sys.exit(main())
