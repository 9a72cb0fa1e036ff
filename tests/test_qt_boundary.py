"""Design §1: only gpuassist.ui imports PySide6 / pyqtgraph. Every other module is imported in a fresh
interpreter and the Qt modules must still be absent (napari's "headless" contract, as a test)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

SCRIPT = r"""
import importlib, json, pathlib, sys
import gpuassist
root = pathlib.Path(gpuassist.__file__).parent
# from the files, not pkgutil.walk_packages: walking imports every package, gpuassist.ui included
names = sorted(".".join(("gpuassist", *p.relative_to(root).with_suffix("").parts)).removesuffix(".__init__")
               for p in root.rglob("*.py"))
checked, offenders = [], {}
for name in names:
    if name == "gpuassist.ui" or name.startswith("gpuassist.ui."):
        continue
    importlib.import_module(name)
    checked.append(name)
    qt = sorted(m for m in sys.modules if m.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6"))
    if qt:
        offenders[name] = qt
        break
print(json.dumps({"checked": checked, "offenders": offenders, "torch": "torch" in sys.modules}))
"""


@pytest.mark.slow
def test_nothing_outside_ui_imports_qt() -> None:
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert not result["offenders"], f"imports Qt outside gpuassist.ui: {result['offenders']}"
    # the Qt-free layers the GUI is built on were among them
    assert {
        "gpuassist.wizard.flow",
        "gpuassist.wizard.steps",
        "gpuassist.monitor.sampler",
        "gpuassist.diagnose",
        "gpuassist.report.render",
        "gpuassist.audit.static",
        "gpuassist.audit.flow",
    } <= set(result["checked"])
    assert result["torch"] is False  # the host side never imports torch either
