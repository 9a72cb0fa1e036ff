"""The bundle's `gpuassist` program (PyInstaller needs a script; this is the console entry point)."""

import sys

from gpuassist.cli import main

if __name__ == "__main__":
    sys.exit(main())
