"""Builders for fake and real Python environments used by the tests/test_envs_*.py files."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

from gpuassist.envs.discovery import Origin
from gpuassist.envs.inspect import EnvRow, TorchCopy

PYVER = f"python{sys.version_info.major}.{sys.version_info.minor}"


def write(path: Path, text: str, *, executable: bool = False) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if executable:
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def marker_python(path: Path, marker: Path, real: str | None = None) -> Path:
    """An executable that records that it ran (then behaves like ``real``, or exits)."""
    body = f'exec "{real}" "$@"' if real else "exit 3"
    return write(path, f'#!/bin/sh\necho ran >> "{marker}"\n{body}\n', executable=True)


def fake_venv(root: Path, marker: Path, *, uv: bool = False, version: str = "3.11.7") -> Path:
    """A venv layout whose bin/python only records that it ran (discovery must never run it)."""
    cfg = f"home = /usr/bin\ninclude-system-site-packages = false\nversion = {version}\n"
    if uv:
        cfg += "uv = 0.4.18\n"
    write(root / "pyvenv.cfg", cfg)
    marker_python(root / "bin" / "python", marker)
    (root / "bin" / "python3").symlink_to("python")
    return root / "bin" / "python"


def fake_prefix(root: Path, marker: Path, *, conda: bool = False, python_name: str = "python") -> Path:
    """A non-venv interpreter installation (conda env, pyenv version, uv install)."""
    marker_python(root / "bin" / f"{PYVER}", marker)
    (root / "bin" / python_name).symlink_to(PYVER)
    if conda:
        write(root / "conda-meta" / "history", "")
        write(root / "conda-meta" / "pytorch-2.1.0-py3.10_cpu_0.json", "{}")
    return root / "bin" / python_name


def kernelspec(kernels_dir: Path, name: str, argv0: str, display: str | None = None) -> Path:
    spec = {
        "argv": [argv0, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": display or name,
        "language": "python",
    }
    return write(kernels_dir / name / "kernel.json", json.dumps(spec))


def real_venv(root: Path) -> Path:
    """A real venv (no pip: fast) and its interpreter."""
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, capture_output=True, timeout=120
    )
    return root / "bin" / "python"


def site_packages(venv: Path) -> Path:
    return venv / "lib" / PYVER / "site-packages"


def stub_torch(site: Path, version: str, *, installer: str = "pip") -> None:
    """A torch distribution as pip leaves it: the package and its dist-info (never imported by the probe)."""
    write(site / "torch" / "__init__.py", f"__version__ = {version!r}\nraise ImportError('stub: never imported')\n")
    meta = site / f"torch-{version}.dist-info"
    write(meta / "METADATA", f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n\n")
    write(meta / "INSTALLER", installer + "\n")


def bin_path(*dirs: Path) -> str:
    return os.pathsep.join(str(d) for d in dirs)


# ---- layouts whose interpreters are real Python binaries (symlinks), for the default-target tests -------------
# Discovery never runs them; they only have to look like Pythons (a `#!/bin/sh` file named python is refused).

REAL_PYTHON = os.path.realpath(sys.executable)


def linked_python(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(REAL_PYTHON)
    return path


def linked_venv(root: Path, *, torch: str | None = None, uv: bool = False) -> Path:
    """A venv layout (pyvenv.cfg, bin/python → a real Python), with a torch package when ``torch`` is set."""
    cfg = f"home = {os.path.dirname(REAL_PYTHON)}\ninclude-system-site-packages = false\n"
    write(root / "pyvenv.cfg", cfg + ("uv = 0.5.0\n" if uv else ""))
    linked_python(root / "bin" / "python")
    (root / "bin" / "python3").symlink_to("python")
    if torch:
        stub_torch(site_packages(root), torch)
    return root / "bin" / "python"


def fake_binary(path: Path) -> Path:
    """An executable that looks like a compiled program (ELF magic, no `#!`): never run, only found."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x7fELF\x02\x01\x01" + bytes(57))
    path.chmod(0o755)
    return path


def linked_prefix(root: Path, *, conda: bool = False, torch: str | None = None) -> Path:
    """A conda env / pyenv version / base install layout: bin/pythonX.Y (its own program, so the prefix is
    this directory) and bin/python → it."""
    fake_binary(root / "bin" / PYVER)
    (root / "bin" / "python").symlink_to(PYVER)
    if conda:
        write(root / "conda-meta" / "history", "")
    if torch:
        stub_torch(site_packages(root), torch)
    return root / "bin" / "python"


def env_row(
    name: str,
    version: str | None,
    *,
    origins: tuple[tuple[str, str], ...] = (),
    status: str = "ok",
    prefix: str | None = None,
    kind: str = "venv",
    **extra: Any,
) -> EnvRow:
    """A recorded row of the environment table (no process runs): a Linux venv under /home/u/<name>, with one pip
    torch ``version`` in its site-packages (none when ``version`` is None)."""
    prefix = prefix or f"/home/u/{name}"
    site = f"{prefix}/lib/python3.11/site-packages"
    torch = (
        [TorchCopy(version, version.split("+")[1] if "+" in version else None, site, "pip", True)] if version else []
    )
    return EnvRow(
        python=f"{prefix}/bin/python",
        name=name,
        kind=kind,
        status=status,
        origins=[Origin(k, label, f"{prefix}/bin/python") for k, label in origins],
        python_version="3.11.7",
        prefix=prefix,
        platform="linux",
        machine="x86_64",
        torch=torch,
        torch_origin=f"{site}/torch/__init__.py" if version else None,
        **extra,
    )
