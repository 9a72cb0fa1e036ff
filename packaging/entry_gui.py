"""The bundle's `gpuassist-gui` program (PyInstaller needs a script; this is the GUI entry point)."""

import sys

from gpuassist.gui_entry import main

if __name__ == "__main__":
    sys.exit(main())
