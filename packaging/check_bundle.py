"""Check a built bundle folder: both programs, the files gpuassist reads at run time, and no torch.

Run by packaging/build after PyInstaller (and by tests/test_bundle.py), so a bundle that would fail on a
user's machine (a probe script missing, torch carried along) fails the build instead.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

PROGRAMS = ("gpuassist", "gpuassist-gui")
# Relative to the package folder inside the bundle: what gpuassist opens as files.
REQUIRED_FILES = (
    "probe/probe_script.py",
    "probe/runtime_script.py",
    "probe/audit_script.py",
    "probe/channel.py",
    "knowledge/catalogue.json",
    "resources/io.github.gpuassist.GpuAssist.desktop",
    "resources/io.github.gpuassist.GpuAssist.metainfo.xml",
    "resources/icons/gpuassist.svg",
)
REQUIRED_GLOBS = ("sim/scenarios/*.json", "report/templates/*", "resources/icons/gpuassist-*.png")
FORBIDDEN_PARTS = ("torch", "libtorch", "libcudnn", "libcublas")


def program_path(bundle: Path, name: str) -> Path:
    return bundle / (name + (".exe" if os.name == "nt" else ""))


def package_dir(bundle: Path) -> Path:
    """Where PyInstaller put the gpuassist package's data (``_internal`` since PyInstaller 6)."""
    for base in (bundle / "_internal", bundle):
        if (base / "gpuassist").is_dir():
            return base / "gpuassist"
    raise FileNotFoundError(f"no gpuassist folder in {bundle}")


def package_data(package: Path) -> list[str]:
    """The non-Python files of the gpuassist sources that built the bundle (relative paths): all are read
    at run time, so all must ship."""
    return sorted(
        str(p.relative_to(package))
        for p in package.rglob("*")
        if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
    )


def problems(bundle: Path, source: Path | None = None) -> list[str]:
    """Everything wrong with the bundle, one line each (empty: it is complete)."""
    found: list[str] = []
    for name in PROGRAMS:
        path = program_path(bundle, name)
        if not (path.is_file() and os.access(path, os.X_OK)):
            found.append(f"program {path.name} missing or not executable")
    try:
        pkg = package_dir(bundle)
    except FileNotFoundError as exc:
        return [*found, str(exc)]
    found += [f"missing {rel}" for rel in REQUIRED_FILES if not (pkg / rel).is_file()]
    found += [f"nothing matches {pattern}" for pattern in REQUIRED_GLOBS if not any(pkg.glob(pattern))]
    if source is not None:
        found += [f"missing {rel} (package data)" for rel in package_data(source) if not (pkg / rel).is_file()]
    for path in bundle.rglob("*"):
        name = path.name.lower()
        if any(name == part or name.startswith(part + ".") or name.startswith(part + "_") for part in FORBIDDEN_PARTS):
            found.append(f"torch in the bundle: {path.relative_to(bundle)}")
    return found


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("bundle", type=Path)
    p.add_argument("--source", type=Path, help="the gpuassist package folder it was built from")
    args = p.parse_args()
    found = problems(args.bundle, args.source)
    for line in found:
        print(f"check_bundle: {line}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
