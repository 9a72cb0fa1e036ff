"""What an environment's files say about its torch, without running its interpreter.

The default target is chosen before anything runs (:mod:`gpuassist.envs.target`), so "has torch" is read
from the site-packages directories the layout implies; the probe then examines the chosen interpreter
properly. Wrong only in rare set-ups (torch reached through PYTHONPATH or a ``.pth`` file), which the
Environments table, where every interpreter is asked, shows.
"""

from __future__ import annotations

import contextlib
import glob
import os
import re

from gpuassist.envs.discovery import Candidate, read_pyvenv_cfg

VERSION_IN_NAME = re.compile(r"python(\d+\.\d+)")


def _minor(cand: Candidate) -> str | None:
    """``3.11`` from the executable's name or pyvenv.cfg (None: the site-packages are globbed)."""
    for name in (os.path.basename(cand.real), os.path.basename(cand.python)):
        m = VERSION_IN_NAME.search(name)
        if m:
            return m.group(1)
    if cand.layout_version:
        parts = cand.layout_version.split(".")
        if len(parts) >= 2:
            return f"{parts[0]}.{parts[1]}"
    return None


def _lib_sites(prefix: str, minor: str | None) -> list[str]:
    pattern = f"python{minor}*" if minor else "python3*"
    sites = glob.glob(os.path.join(glob.escape(prefix), "lib", pattern, "site-packages"))
    sites += [os.path.join(prefix, "Lib", "site-packages")]
    return sites


def site_dirs(cand: Candidate, home: str) -> list[str]:
    """The directories ``import torch`` would search in this environment (as far as its layout tells)."""
    if not cand.prefix:
        return []
    minor = _minor(cand)
    sites = _lib_sites(cand.prefix, minor)
    venv = cand.kind in ("venv", "pipx")
    system_site = not venv
    if venv:
        cfg = read_pyvenv_cfg(cand.prefix)
        system_site = cfg.get("include-system-site-packages", "false").lower() == "true"
        if system_site:
            base = os.path.dirname(os.path.dirname(cand.real))
            sites += _lib_sites(base, minor)
    elif os.path.abspath(cand.prefix) in ("/usr", "/usr/local"):
        sites += ["/usr/lib/python3/dist-packages", *glob.glob(f"/usr/local/lib/python{minor or '3'}*/dist-packages")]
    if system_site and minor:  # a user site is searched unless the environment is a venv
        sites.append(os.path.join(home, ".local", "lib", f"python{minor}", "site-packages"))
    return [s for s in dict.fromkeys(sites) if os.path.isdir(s)]


def torch_dir(cand: Candidate, home: str) -> str | None:
    """The first ``torch`` package directory in the environment's site directories (None: no torch)."""
    for site in site_dirs(cand, home):
        path = os.path.join(site, "torch")
        if os.path.isfile(os.path.join(path, "__init__.py")):
            return path
    return None


def last_used(cand: Candidate, home: str) -> float | None:
    """When torch was last imported here (its compiled ``__init__`` was read: the file's access time,
    which most systems update at most daily), else when the environment last changed; None: unknown."""
    times: list[float] = []
    torch = torch_dir(cand, home)
    if torch:
        for pyc in glob.glob(os.path.join(glob.escape(torch), "__pycache__", "__init__.*.pyc")):
            with contextlib.suppress(OSError):
                times.append(os.stat(pyc).st_atime)
    if not times:
        for site in site_dirs(cand, home)[:1]:
            with contextlib.suppress(OSError):
                times.append(os.stat(site).st_mtime)
    return max(times) if times else None
