"""The bundle's `gpuassist` program (PyInstaller needs a script; this is the console entry point)."""

import sys

from frozen_environment import restore_user_environment

restore_user_environment()

from gpuassist.cli import main  # noqa: E402 (after the environment is the user's)

if __name__ == "__main__":
    sys.exit(main())
