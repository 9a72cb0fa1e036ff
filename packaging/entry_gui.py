"""The bundle's `gpuassist-gui` program (PyInstaller needs a script; this is the GUI entry point)."""

import sys

from frozen_environment import restore_user_environment, take_qt_variables
from PySide6.QtCore import QCoreApplication

restore_user_environment()
# Qt gets the bundle's plugin folders directly, so the variable need not stay in the environment that the
# user's programs inherit; QCoreApplication keeps paths added before it exists.
for folder in take_qt_variables():
    QCoreApplication.addLibraryPath(folder)

from gpuassist.gui_entry import main  # noqa: E402 (after the environment is the user's)

if __name__ == "__main__":
    sys.exit(main())
