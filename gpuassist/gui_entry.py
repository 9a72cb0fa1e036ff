"""`gpuassist-gui`: the desktop app's entry point.

The app lives in :mod:`gpuassist.ui` (the only package that imports Qt). Until it is present, this entry
point says so in one line and shows the same diagnosis in the terminal instead of failing.
"""

from __future__ import annotations

import importlib.util
import sys


def main() -> int:
    if importlib.util.find_spec("gpuassist.ui.app") is not None:
        from gpuassist.ui.app import main as app_main

        return int(app_main(sys.argv[1:]))
    from gpuassist.cli import main as cli_main

    print("gpuassist: the desktop app is not part of this version yet; showing the diagnosis here.",
          file=sys.stderr)
    return cli_main(["diagnose", *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
