"""A library on LD_LIBRARY_PATH that shadows one the torch wheel ships, with the real probe and the dev
interpreter's CPU torch (its wheel ships torch/lib/libgomp.so.1): blamed by path, live.

- a working copy of the system's libgomp on LD_LIBRARY_PATH: import works, yet the wheel's copy is shadowed:
  a warning naming the directory, with the exact `export` that removes it;
- a bogus libgomp.so.1 (another library under that name): `import torch` fails; the path is the error, and
  the import failure's fix is the `export`, not "reinstall torch".
"""

from __future__ import annotations

import glob
import importlib.util
import os
import shutil
import sys
from pathlib import Path

import pytest

from gpuassist.diagnose import diagnose_live
from gpuassist.findings import Severity
from gpuassist.probe.runner import FAULT_ENV

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="LD_LIBRARY_PATH is the Linux loader's"),
    pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs the dev interpreter's torch"),
]


def _system_lib(name: str) -> str:
    for pattern in (
        f"/usr/lib/x86_64-linux-gnu/{name}*",
        f"/lib/x86_64-linux-gnu/{name}*",
        f"/usr/lib64/{name}*",
        f"/usr/lib/aarch64-linux-gnu/{name}*",
        f"/usr/lib/{name}*",
    ):
        found = sorted(p for p in glob.glob(pattern) if os.path.isfile(p))
        if found:
            return found[0]
    pytest.skip(f"no system {name} to copy")


def _wheel_ships_libgomp() -> bool:
    spec = importlib.util.find_spec("torch")
    assert spec is not None and spec.origin
    return (Path(spec.origin).parent / "lib" / "libgomp.so.1").exists()


def _diagnose(ld_dir: Path) -> object:
    env = {k: v for k, v in os.environ.items() if k not in (FAULT_ENV, "PYTHONPATH", "LD_PRELOAD")}
    env["LD_LIBRARY_PATH"] = f"/nonexistent/lib:{ld_dir}"
    saved = os.environ.copy()
    os.environ.clear()
    os.environ.update(env)  # the probe and the host facts both read this process's environment
    try:
        return diagnose_live(sys.executable)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def test_working_copy_on_ld_library_path_is_a_warning_naming_the_path(tmp_path: Path) -> None:
    if not _wheel_ships_libgomp():
        pytest.skip("this torch wheel ships no torch/lib/libgomp.so.1")
    shutil.copy(_system_lib("libgomp.so.1"), tmp_path / "libgomp.so.1")
    report = _diagnose(tmp_path)
    assert report.facts.value("torch.import_error") is None  # import still works
    shadows = report.facts.value("libs.ld_path_shadows")
    assert [s["path"] for s in shadows] == [str(tmp_path / "libgomp.so.1")]
    assert str(tmp_path / "libgomp.so.1") in report.facts.value("libs.loaded")
    f = next(f for f in report.findings if f.id == "ld_library_path_shadowing")
    assert f.severity is Severity.WARNING
    assert str(tmp_path) in f.title
    assert "export LD_LIBRARY_PATH=/nonexistent/lib" in f.fix
    assert "torch_import_error" not in [x.id for x in report.findings]


def test_bogus_library_on_ld_library_path_blames_the_path_not_torch(tmp_path: Path) -> None:
    if not _wheel_ships_libgomp():
        pytest.skip("this torch wheel ships no torch/lib/libgomp.so.1")
    shutil.copy(_system_lib("libz.so.1"), tmp_path / "libgomp.so.1")  # a real ELF library, the wrong one
    report = _diagnose(tmp_path)
    err = report.facts.value("torch.import_error")
    assert isinstance(err, dict) and str(tmp_path / "libgomp.so.1") in err["message"]
    ids = [f.id for f in report.findings]
    assert ids.index("ld_library_path_shadowing") < ids.index("torch_import_error")
    shadowing = report.findings[ids.index("ld_library_path_shadowing")]
    assert shadowing.severity is Severity.ERROR and "fails to load" in shadowing.title
    assert "export LD_LIBRARY_PATH=/nonexistent/lib" in shadowing.fix
    import_error = report.findings[ids.index("torch_import_error")]
    assert "export LD_LIBRARY_PATH=/nonexistent/lib" in import_error.fix
    assert "--force-reinstall" not in import_error.fix and "uninstall" not in import_error.fix
