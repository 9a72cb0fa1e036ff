"""Find every Python interpreter a user's code could be running with, by reading the file system only.

Why only reads: discovery runs before the user has chosen anything, on machines where some interpreter
may be broken, a pyenv shim, or a network mount. Starting processes here could hang or have side
effects, so nothing is executed; :mod:`gpuassist.envs.inspect` runs interpreters later, with timeouts.

Everything the machine contributes comes in through :class:`Context` (environment mapping, home, working
directory, the app's own interpreter, and ``root`` under which the fixed system locations such as
``/opt/conda`` and ``/usr/share/jupyter`` are looked up), so tests build fake layouts under a temp dir.

An interpreter found in several ways is one :class:`Candidate` with every :class:`Origin` kept
("PATH python3", "kernel 'ml'", "conda env 'torch'"). Identity: a virtualenv is its directory (its
``bin/python`` is a symlink to the base interpreter, yet it is a different environment); anything else is
the executable's real path (``/bin/python3`` and ``/usr/bin/python3.11`` are one interpreter).
"""

from __future__ import annotations

import itertools
import json
import os
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from gpuassist.envs import projects, pyenv
from gpuassist.envs.trust import is_python_name, trusted_directory, untrusted
from gpuassist.files import list_names, read_head
from gpuassist.own_python import own_python

# Origin kinds (stable strings: the GUI and the JSON output use them).
SELF = "self"  # the interpreter running gpuassist
REQUESTED = "requested"  # --python / chosen by the caller
PATH = "path"  # python / python3 / py on PATH
VIRTUAL_ENV = "virtual_env"  # $VIRTUAL_ENV
CONDA_PREFIX = "conda_prefix"  # $CONDA_PREFIX
PROJECT = "project"  # an env the project's files point to, in the working directory, the script's or a parent
PYENV_LOCAL = "pyenv_local"  # the version `pyenv local` / `pyenv shell` selects here
HOME_ENVS = "home_envs"  # ~/.virtualenvs, Poetry's and Pipenv's central directories, Hatch's
DESKTOP = "desktop"  # a project venv under the usual project folders of a desktop user
CONDA = "conda"  # conda / mamba environment lists and envs directories
PYENV = "pyenv"
UV = "uv"  # uv-managed interpreters
PIPX = "pipx"
KERNEL = "kernel"  # a Jupyter kernelspec launches it
SCRIPT = "script"  # the interpreter a script's shebang (or `python script.py`) runs

PATH_NAMES = ("python", "python3", "py")
PROJECT_DIRS = projects.PROJECT_VENV_DIRS
CONDA_INSTALLS = ("miniconda3", "anaconda3", "miniforge3", "mambaforge", "micromamba", "miniconda", "anaconda")
SYSTEM_CONDA = ("opt/conda", "opt/miniconda3", "opt/anaconda3", "opt/miniforge3")
SYSTEM_JUPYTER = ("usr/local/share/jupyter", "usr/share/jupyter")
SHEBANG_LIMIT = 512  # bytes read from a script or launcher to find its shebang
KERNEL_JSON_LIMIT = 256 * 1024


def _owners() -> tuple[int, ...] | None:
    """Who may own what gpuassist runs without being asked: the user and root (None: no owners, Windows)."""
    return (os.getuid(), 0) if hasattr(os, "getuid") else None


@dataclass(frozen=True)
class Context:
    """What discovery may look at; :meth:`current` is this process's view of the machine.

    ``trusted_owners``: the owners an interpreter found by discovery (and the directories above it) may
    have for it to be run (:mod:`gpuassist.envs.trust`); None: no ownership model. ``desktop``: also look
    for project venvs under the usual project folders of a desktop user (cheap, bounded)."""

    env: Mapping[str, str]
    home: str
    cwd: str
    executable: str | None = None  # the app's own interpreter
    root: str = os.sep  # fixed system locations (/opt/conda, /usr/share/jupyter) are looked up under this
    windows: bool = False
    trusted_owners: tuple[int, ...] | None = field(default_factory=_owners)
    desktop: bool = True

    @classmethod
    def current(cls) -> Context:
        home = os.path.expanduser("~")
        try:
            cwd = os.getcwd()
        except OSError:  # the working directory was deleted: no project to find from it
            cwd = home
        return cls(env=dict(os.environ), home=home, cwd=cwd, executable=own_python(), windows=os.name == "nt")

    def system_path(self, relative: str) -> str:
        return os.path.join(self.root, *relative.split("/"))

    @property
    def pathsep(self) -> str:
        return ";" if self.windows else ":"


@dataclass(frozen=True)
class Origin:
    """One way an interpreter was found: ``kind`` (a constant above), a human ``label``, and the path as
    it was found (before symlinks were resolved)."""

    kind: str
    label: str
    path: str

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "label": self.label, "path": self.path}


@dataclass
class Candidate:
    """An interpreter to inspect, with every way it was found."""

    python: str  # the path to run (a venv's own bin/python, never its resolved base interpreter)
    real: str  # the executable with symlinks resolved
    key: str  # identity used for merging
    kind: str  # venv | conda | pyenv | uv | pipx | system | shim | unknown (from the layout, not executed)
    prefix: str | None  # environment root guessed from the layout
    name: str  # short display name: the env's name, or "python3.11 (/usr/bin)"
    exists: bool
    origins: list[Origin] = field(default_factory=list)
    layout_version: str | None = None  # from pyvenv.cfg, when there is one (known even if the run fails)
    uv_venv: bool = False  # pyvenv.cfg written by uv
    refused: str | None = None  # why gpuassist will not run it (found by discovery, not trusted); None: may run

    @property
    def chosen(self) -> bool:
        """Named by the user (--python, a pick) or gpuassist's own: run whatever it is."""
        return any(o.kind in (SELF, REQUESTED) for o in self.origins)

    @property
    def is_self(self) -> bool:
        return any(o.kind == SELF for o in self.origins)

    @property
    def is_active(self) -> bool:
        return any(o.kind in (VIRTUAL_ENV, CONDA_PREFIX) for o in self.origins)

    @property
    def kernels(self) -> list[str]:
        return [o.label for o in self.origins if o.kind == KERNEL]

    def to_json(self) -> dict[str, Any]:
        return {
            "python": self.python,
            "real": self.real,
            "kind": self.kind,
            "prefix": self.prefix,
            "name": self.name,
            "exists": self.exists,
            "origins": [o.to_json() for o in self.origins],
            "layout_version": self.layout_version,
            "uv_venv": self.uv_venv,
            "refused": self.refused,
        }


@dataclass(frozen=True)
class KernelSpec:
    """A Jupyter kernelspec and the interpreter its ``argv[0]`` launches (``python`` None: cannot tell)."""

    name: str
    display_name: str
    directory: str
    argv: tuple[str, ...]
    python: str | None
    how: str  # how ``python`` was worked out ("argv[0]", "bare 'python3': the Jupyter server's Python ...")
    error: str | None = None  # unreadable kernel.json

    @property
    def exists(self) -> bool:
        return self.python is not None and os.path.isfile(self.python)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "display_name": self.display_name,
            "directory": self.directory,
            "argv": list(self.argv),
            "python": self.python,
            "how": self.how,
            "exists": self.exists,
            "error": self.error,
        }


@dataclass(frozen=True)
class ScriptTarget:
    """The interpreter a script would run with."""

    script: str
    shebang: str | None  # the shebang line without "#!", or None
    python: str | None  # None: nothing on PATH answers the shebang
    how: str

    def to_json(self) -> dict[str, Any]:
        return {"script": self.script, "shebang": self.shebang, "python": self.python, "how": self.how}


@dataclass
class Discovery:
    """Everything found: interpreters (merged), kernelspecs, the script's interpreter, and notes on what
    could not be read."""

    candidates: list[Candidate]
    kernels: list[KernelSpec] = field(default_factory=list)
    script: ScriptTarget | None = None
    notes: list[str] = field(default_factory=list)

    def find(self, python: str) -> Candidate | None:
        """The candidate ``python`` belongs to (any path that resolves to it)."""
        key = identity(python)[0]
        return next((c for c in self.candidates if c.key == key), None)


# ---- small file-system helpers (reads only) -----------------------------------------------------------


def _is_exe(path: str, windows: bool) -> bool:
    try:
        return os.path.isfile(path) and (windows or os.access(path, os.X_OK))
    except (OSError, ValueError):
        return False


def _read_head(path: str, limit: int = SHEBANG_LIMIT) -> bytes:
    return read_head(path, limit)  # a regular file only: a planted FIFO cannot hang discovery


def _realpath(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return os.path.abspath(path)


def env_python(prefix: str, windows: bool) -> str | None:
    """The interpreter of an environment directory (venv, conda env, pyenv version, uv install)."""
    names = ("python.exe", "Scripts/python.exe", "bin/python") if windows else ("bin/python", "bin/python3")
    for name in names:
        path = os.path.join(prefix, *name.split("/"))
        if _is_exe(path, windows):
            return path
    return None


def which_all(name: str, env: Mapping[str, str], windows: bool = False) -> list[str]:
    """Every ``name`` on PATH, in PATH order (``which -a``)."""
    sep = ";" if windows else ":"
    exts = [""]
    if windows:
        exts = [e.lower() for e in env.get("PATHEXT", ".COM;.EXE;.BAT;.CMD").split(";") if e] + [""]
    found: list[str] = []
    for directory in env.get("PATH", "").split(sep):
        if not directory:
            continue
        for ext in exts:
            path = os.path.join(directory, name + ext)
            if path not in found and _is_exe(path, windows):
                found.append(path)
                break
    return found


def venv_root(python: str) -> str | None:
    """The virtualenv a ``python`` path belongs to: the directory with pyvenv.cfg next to the executable
    or one level up, looked up from the path as invoked (that is what Python itself does)."""
    here = os.path.dirname(os.path.abspath(python))
    for directory in (here, os.path.dirname(here)):
        if os.path.isfile(os.path.join(directory, "pyvenv.cfg")):
            return directory
    return None


def read_pyvenv_cfg(root: str) -> dict[str, str]:
    out: dict[str, str] = {}
    text = _read_head(os.path.join(root, "pyvenv.cfg"), 16 * 1024).decode("utf-8", "replace")
    for line in text.splitlines():
        if "=" in line:
            k, v = line.split("=", 1)
            out[k.strip().lower()] = v.strip()
    return out


def identity(python: str) -> tuple[str, str, str | None]:
    """(merge key, real path, venv root or None) of an interpreter path."""
    path = os.path.abspath(python)
    real = _realpath(path)
    root = venv_root(path)
    if root is not None:
        return f"venv:{_realpath(root)}|{os.path.basename(real)}", real, root
    return real, real, None


def parse_shebang(head: bytes) -> list[str] | None:
    """The shebang's words (``#!/usr/bin/env -S python3 -u`` → ``['/usr/bin/env', '-S', 'python3', '-u']``)."""
    if not head.startswith(b"#!"):
        return None
    line = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").strip()
    return line.split() or None


def _shebang_program(words: list[str]) -> tuple[str, bool]:
    """(program, looked up on PATH) for shebang words: ``/usr/bin/env [-S] [VAR=x] python3`` → python3."""
    if os.path.basename(words[0]) == "env":
        for w in words[1:]:
            if w.startswith("-") or "=" in w:
                continue
            return w, True
        return "", True
    return words[0], False


class _Collector:
    """Accumulates candidates, merging by identity and keeping every origin."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.by_key: dict[str, Candidate] = {}

    def add(self, python: str, kind: str, label: str, found_at: str | None = None) -> Candidate:
        """Add (or merge) the interpreter ``python``; ``found_at``: the path it was found as, when that is
        not ``python`` itself (a pyenv shim)."""
        path = os.path.abspath(python)
        key, real, root = identity(path)
        cand = self.by_key.get(key)
        if cand is None:
            cand = self._make(path, key, real, root)
            self.by_key[key] = cand
        origin = Origin(kind, label, found_at or path)
        if origin not in cand.origins:
            cand.origins.append(origin)
        return cand

    def add_env(self, prefix: str, kind: str, label: str) -> Candidate | None:
        python = env_python(prefix, self.ctx.windows)
        return self.add(python, kind, label) if python else None

    def _make(self, path: str, key: str, real: str, root: str | None) -> Candidate:
        ctx = self.ctx
        exists = _is_exe(path, ctx.windows)
        version = None
        uv_venv = False
        if root is not None:
            cfg = read_pyvenv_cfg(root)
            version = cfg.get("version_info") or cfg.get("version")
            uv_venv = "uv" in cfg
            base = os.path.basename(root)
            name = f"{os.path.basename(os.path.dirname(root))}/{base}" if base in PROJECT_DIRS else base
            pipx_home = _pipx_homes(ctx)
            kind = "pipx" if any(_under(root, h) for h in pipx_home) else "venv"
            return Candidate(path, real, key, kind, root, name, exists, [], version, uv_venv)
        bin_dir = os.path.dirname(real)
        prefix: str | None = (
            bin_dir if ctx.windows and os.path.basename(bin_dir).lower() != "scripts" else os.path.dirname(bin_dir)
        )
        kind = "system"
        name = f"{os.path.basename(real)} ({os.path.dirname(path)})"
        assert prefix is not None
        if os.path.isdir(os.path.join(prefix, "conda-meta")):
            kind = "conda"
            name = (
                f"base ({os.path.basename(prefix)})"
                if _is_conda_install(prefix) and os.path.basename(os.path.dirname(prefix)) != "envs"
                else os.path.basename(prefix)
            )
        elif os.path.basename(os.path.dirname(path)) == "shims":
            kind, name, prefix = "shim", f"{os.path.basename(path)} shim ({os.path.dirname(path)})", None
        elif any(_under(real, r) for r in _pyenv_roots(ctx)):
            kind, name = "pyenv", f"pyenv {os.path.basename(prefix)}"
        elif any(_under(real, r) for r in _uv_python_dirs(ctx)):
            kind, name = "uv", f"uv {os.path.basename(prefix)}"
        elif parse_shebang(_read_head(path)) is not None:
            # pyenv/asdf shims and wrapper scripts: which Python they start is only known by running them
            kind, name, prefix = "shim", f"{os.path.basename(path)} shim ({os.path.dirname(path)})", None
        elif not exists:
            kind = "unknown"
        return Candidate(path, real, key, kind, prefix if exists and prefix else None, name, exists, [], None, False)

    def result(self) -> list[Candidate]:
        """The candidates, each found by discovery alone marked ``refused`` when it must not run."""
        out = list(self.by_key.values())
        for cand in out:
            cand.refused = (
                None if cand.chosen or not cand.exists else untrusted(cand.python, cand.prefix, self.ctx.trusted_owners)
            )
        return out


def _under(path: str, root: str) -> bool:
    p, r = os.path.normcase(_realpath(path)), os.path.normcase(_realpath(root))
    return p == r or p.startswith(r.rstrip(os.sep) + os.sep)


def _home(ctx: Context, *parts: str) -> str:
    return os.path.join(ctx.home, *parts)


def _xdg_data(ctx: Context) -> str:
    return ctx.env.get("XDG_DATA_HOME") or _home(ctx, ".local", "share")


def _pyenv_roots(ctx: Context) -> list[str]:
    roots = [ctx.env["PYENV_ROOT"]] if ctx.env.get("PYENV_ROOT") else []
    return [*roots, _home(ctx, ".pyenv")]


def _uv_python_dirs(ctx: Context) -> list[str]:
    dirs = [ctx.env["UV_PYTHON_INSTALL_DIR"]] if ctx.env.get("UV_PYTHON_INSTALL_DIR") else []
    return [*dirs, os.path.join(_xdg_data(ctx), "uv", "python")]


def _pipx_homes(ctx: Context) -> list[str]:
    homes = [ctx.env["PIPX_HOME"]] if ctx.env.get("PIPX_HOME") else []
    return [*homes, _home(ctx, ".local", "pipx"), os.path.join(_xdg_data(ctx), "pipx")]


def _parents(start: str, ctx: Context) -> Iterator[str]:
    """``start`` and its parents, stopping at the home directory (included) and before the first directory
    not owned by the user or root (someone else's folder may hold a planted ``.venv``)."""
    here = os.path.abspath(start)
    home = os.path.abspath(ctx.home)
    while trusted_directory(here, ctx.trusted_owners):
        yield here
        up = os.path.dirname(here)
        if up == here or here == home:
            return
        here = up


# ---- sources --------------------------------------------------------------------------------------------


def _from_path(col: _Collector) -> None:
    ctx = col.ctx
    for name in PATH_NAMES:
        for path in which_all(name, ctx.env, ctx.windows):
            if pyenv.is_shim(path, ctx.env, ctx.home):
                real, _chosen = pyenv.resolve_shim(path, ctx.env, ctx.home, ctx.cwd)
                if real is not None:  # the shim is read, not run: pyenv's files say which Python it starts
                    col.add(real, PATH, f"PATH {name}", found_at=path)  # the origin's path is the shim's
                    continue
            col.add(path, PATH, f"PATH {name}")


def _from_pyenv_local(col: _Collector) -> None:
    """The version ``pyenv local`` (.python-version) or ``pyenv shell`` ($PYENV_VERSION) selects here."""
    ctx = col.ctx
    if not pyenv.in_use(ctx.env, ctx.home):
        return
    chosen = pyenv.selected(ctx.env, ctx.home, ctx.cwd)
    if chosen.source not in ("local", "shell"):
        return
    for name in chosen.names:
        python = pyenv.version_python(name, "python", ctx.env, ctx.home)
        if python:
            where = f".python-version in {os.path.dirname(chosen.file)}" if chosen.file else "$PYENV_VERSION"
            col.add(python, PYENV_LOCAL, f"pyenv {chosen.source} version {name} ({where})")
            return


def _from_active(col: _Collector) -> None:
    env = col.ctx.env
    if env.get("VIRTUAL_ENV"):
        col.add_env(env["VIRTUAL_ENV"], VIRTUAL_ENV, "active virtualenv ($VIRTUAL_ENV)")
    if env.get("CONDA_PREFIX"):
        name = env.get("CONDA_DEFAULT_ENV") or os.path.basename(env["CONDA_PREFIX"])
        col.add_env(env["CONDA_PREFIX"], CONDA_PREFIX, f"active conda env '{name}' ($CONDA_PREFIX)")


def _project_venvs(col: _Collector, start: str, what: str) -> None:
    """Environments the project's files point to, from ``start`` up (see :func:`_parents` for where the
    walk stops)."""
    for directory in _parents(start, col.ctx):
        for found in projects.project_envs(directory, col.ctx.env, col.ctx.home):
            label = f"{found.label} ({what})"
            if found.python:
                col.add(found.python, PROJECT, label)
            elif found.prefix:
                col.add_env(found.prefix, PROJECT, label)


def _from_home_envs(col: _Collector) -> None:
    """The central directories of virtualenvwrapper, Poetry, Pipenv and Hatch."""
    ctx = col.ctx
    for base in projects.virtualenvwrapper_dirs(ctx.env, ctx.home):
        for name in list_names(base):
            col.add_env(os.path.join(base, name), HOME_ENVS, f"virtualenv '{name}' in {base}")
    for base in projects.poetry_dirs(ctx.env, ctx.home):
        for name in list_names(base):
            col.add_env(os.path.join(base, name), HOME_ENVS, f"Poetry env '{name}'")
    for base in projects.pipenv_dirs(ctx.env, ctx.home):
        for name in list_names(base):
            col.add_env(os.path.join(base, name), HOME_ENVS, f"Pipenv env '{name}'")
    for base in projects.hatch_dirs(ctx.env, ctx.home):
        for project in list_names(base):
            for checksum in list_names(os.path.join(base, project)):
                for name in list_names(os.path.join(base, project, checksum)):
                    col.add_env(
                        os.path.join(base, project, checksum, name),
                        HOME_ENVS,
                        f"Hatch env '{name}' of project {project}",
                    )


def _from_desktop(col: _Collector) -> None:
    """Project venvs under $HOME and the usual project folders (a GUI started from a menu has $HOME as its
    working directory, so the walk from there finds nothing)."""
    if not col.ctx.desktop:
        return
    for directory in projects.desktop_project_dirs(col.ctx.home):
        if not trusted_directory(directory, col.ctx.trusted_owners):
            continue
        for found in projects.in_project_envs(directory):
            if found.prefix:
                col.add_env(found.prefix, DESKTOP, found.label)


def _conda_roots(ctx: Context) -> list[str]:
    """Conda/mamba installations: well-known places, $CONDA_EXE's and $MAMBA_ROOT_PREFIX."""
    roots = [_home(ctx, name) for name in CONDA_INSTALLS] + [ctx.system_path(p) for p in SYSTEM_CONDA]
    roots += [_home(ctx, ".local", "share", "mamba"), _home(ctx, ".micromamba")]  # micromamba 2's and 1's roots
    exe = ctx.env.get("CONDA_EXE") or ctx.env.get("MAMBA_EXE")
    if exe:
        roots.append(os.path.dirname(os.path.dirname(os.path.abspath(exe))))
    for var in ("MAMBA_ROOT_PREFIX", "CONDA_ROOT"):
        if ctx.env.get(var):
            roots.append(ctx.env[var])
    prefix = ctx.env.get("CONDA_PREFIX")
    if prefix and os.path.basename(os.path.dirname(prefix)) == "envs":
        roots.append(os.path.dirname(os.path.dirname(prefix)))
    return list(dict.fromkeys(os.path.abspath(r) for r in roots))


def _is_conda_install(prefix: str) -> bool:
    """A conda/mamba installation's root (its base environment), as opposed to one of its envs."""
    return any(os.path.exists(os.path.join(prefix, p)) for p in ("envs", "condabin", "bin/conda", "bin/mamba"))


def _conda_env_label(prefix: str) -> str:
    if _is_conda_install(prefix) and os.path.basename(os.path.dirname(prefix)) != "envs":
        return f"conda base ({prefix})"
    return f"conda env '{os.path.basename(prefix)}'"


def _from_conda(col: _Collector) -> None:
    ctx = col.ctx
    prefixes: list[str] = []
    text = _read_head(_home(ctx, ".conda", "environments.txt"), 1024 * 1024).decode("utf-8", "replace")
    prefixes += [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]
    env_dirs = [_home(ctx, ".conda", "envs")]
    env_dirs += [d for d in ctx.env.get("CONDA_ENVS_PATH", "").split(ctx.pathsep) if d]
    for root in _conda_roots(ctx):
        if os.path.isdir(os.path.join(root, "conda-meta")) or os.path.isdir(os.path.join(root, "envs")):
            prefixes.append(root)
            env_dirs.append(os.path.join(root, "envs"))
    for d in env_dirs:
        prefixes += [os.path.join(d, name) for name in list_names(d)]
    for prefix in dict.fromkeys(prefixes):
        col.add_env(prefix, CONDA, _conda_env_label(prefix))


def _from_pyenv(col: _Collector) -> None:
    for root in _pyenv_roots(col.ctx):
        versions = os.path.join(root, "versions")
        for name in list_names(versions):
            col.add_env(os.path.join(versions, name), PYENV, f"pyenv {name}")


def _from_uv(col: _Collector) -> None:
    for directory in _uv_python_dirs(col.ctx):
        for name in list_names(directory):
            python = os.path.join(directory, name, "bin", "python3")
            if col.ctx.windows:
                python = os.path.join(directory, name, "python.exe")
            if _is_exe(python, col.ctx.windows):
                col.add(python, UV, f"uv python {name}")
    project = col.ctx.env.get("UV_PROJECT_ENVIRONMENT")
    if project:
        root = project if os.path.isabs(project) else os.path.join(col.ctx.cwd, project)
        col.add_env(root, PROJECT, f"uv project venv ($UV_PROJECT_ENVIRONMENT={project})")


def _from_pipx(col: _Collector) -> None:
    for home in _pipx_homes(col.ctx):
        venvs = os.path.join(home, "venvs")
        for name in list_names(venvs):
            col.add_env(os.path.join(venvs, name), PIPX, f"pipx venv '{name}'")


# ---- Jupyter kernelspecs --------------------------------------------------------------------------------


def _jupyter_user_dirs(ctx: Context) -> list[str]:
    if ctx.env.get("JUPYTER_DATA_DIR"):
        return [ctx.env["JUPYTER_DATA_DIR"]]
    if ctx.windows:
        return [os.path.join(ctx.env["APPDATA"], "jupyter")] if ctx.env.get("APPDATA") else []
    if sys.platform == "darwin" and ctx.root == os.sep:
        return [_home(ctx, "Library", "Jupyter"), os.path.join(_xdg_data(ctx), "jupyter")]
    return [os.path.join(_xdg_data(ctx), "jupyter")]


def _kernel_dirs(ctx: Context, prefixes: Iterable[str]) -> list[tuple[str, str | None]]:
    """(kernels directory, environment prefix it belongs to or None) in Jupyter's precedence order."""
    dirs: list[tuple[str, str | None]] = []
    dirs += [(os.path.join(p, "kernels"), None) for p in ctx.env.get("JUPYTER_PATH", "").split(ctx.pathsep) if p]
    dirs += [(os.path.join(d, "kernels"), None) for d in _jupyter_user_dirs(ctx)]
    dirs += [(os.path.join(p, "share", "jupyter", "kernels"), p) for p in prefixes]
    dirs += [(os.path.join(ctx.system_path(p), "kernels"), None) for p in SYSTEM_JUPYTER]
    if ctx.windows and ctx.env.get("PROGRAMDATA"):
        dirs.append((os.path.join(ctx.env["PROGRAMDATA"], "jupyter", "kernels"), None))
    seen: dict[str, tuple[str, str | None]] = {}
    for d, p in dirs:
        seen.setdefault(_realpath(d), (d, p))
    return list(seen.values())


def _jupyter_server_python(ctx: Context) -> str | None:
    """The Python the `jupyter` command on PATH runs (its shebang), without running it."""
    for launcher in which_all("jupyter", ctx.env, ctx.windows):
        words = parse_shebang(_read_head(launcher))
        if words:
            program, on_path = _shebang_program(words)
            if on_path:
                hits = which_all(program, ctx.env, ctx.windows)
                return hits[0] if hits else None
            return program
    return None


BARE_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?(\.exe)?$", re.IGNORECASE)


def _kernel_python(
    ctx: Context, argv: list[str], env_prefix: str | None, conda_envs: Mapping[str, str]
) -> tuple[str | None, str]:
    """The interpreter a kernel's argv launches, and how that was decided."""
    if not argv:
        return None, "kernel.json has an empty argv"
    program = argv[0]
    base = os.path.basename(program)
    if base in ("conda", "mamba", "micromamba", "conda.exe") and "run" in argv:
        rest = argv[argv.index("run") + 1 :]
        for flag, value in itertools.pairwise(rest):
            if flag in ("-p", "--prefix"):
                return env_python(value, ctx.windows), f"`{base} run -p {value}`"
            if flag in ("-n", "--name") and value in conda_envs:
                return env_python(conda_envs[value], ctx.windows), f"`{base} run -n {value}`"
        return None, f"launched through `{' '.join(argv[:4])}`: gpuassist cannot tell which Python"
    if base == "env":
        program, _ = _shebang_program(argv)
    if os.path.isabs(program):
        return program, "argv[0]"
    if BARE_PYTHON.match(program):
        # jupyter_client replaces a bare python/python3 with the Python running the Jupyter server
        if env_prefix is not None:
            return env_python(env_prefix, ctx.windows), (
                f"bare '{program}': the Python of the environment the kernelspec is installed in"
            )
        server = _jupyter_server_python(ctx)
        if server:
            return server, f"bare '{program}': the Python the `jupyter` command on PATH runs"
        hits = which_all(program, ctx.env, ctx.windows)
        return (hits[0] if hits else None), f"bare '{program}': looked up on PATH"
    hits = which_all(program, ctx.env, ctx.windows)
    return (hits[0] if hits else None), f"'{program}' looked up on PATH"


def _read_kernel(
    ctx: Context, spec_dir: str, env_prefix: str | None, conda_envs: Mapping[str, str]
) -> KernelSpec | None:
    name = os.path.basename(spec_dir)
    path = os.path.join(spec_dir, "kernel.json")
    if not os.path.isfile(path):
        return None
    raw = _read_head(path, KERNEL_JSON_LIMIT)
    try:
        data = json.loads(raw.decode("utf-8", "replace"))
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
    except ValueError as exc:
        return KernelSpec(name, name, spec_dir, (), None, "kernel.json unreadable", f"kernel.json: {exc}")
    argv = [str(a) for a in data.get("argv") or [] if isinstance(a, (str, int, float))]
    language = str(data.get("language") or "").lower()
    if language and language != "python" and not any("ipykernel" in a for a in argv):
        return None  # an R / Julia / ... kernel: not ours to judge
    python, how = _kernel_python(ctx, argv, env_prefix, conda_envs)
    display = str(data.get("display_name") or name)
    return KernelSpec(name, display, spec_dir, tuple(argv), os.path.abspath(python) if python else None, how)


def _from_kernels(col: _Collector, disc: Discovery) -> None:
    ctx = col.ctx
    found = list(col.by_key.values())
    prefixes = [c.prefix for c in found if c.prefix and c.exists]
    conda_envs = {os.path.basename(c.prefix): c.prefix for c in found if c.kind == "conda" and c.prefix}
    for kernels_dir, env_prefix in _kernel_dirs(ctx, dict.fromkeys(prefixes)):
        for name in list_names(kernels_dir):
            spec = _read_kernel(ctx, os.path.join(kernels_dir, name), env_prefix, conda_envs)
            if spec is None:
                continue
            disc.kernels.append(spec)
            if spec.error:
                disc.notes.append(f"kernel '{spec.name}' in {kernels_dir}: {spec.error}")
            elif spec.python:
                col.add(spec.python, KERNEL, f"kernel '{spec.name}'")


# ---- scripts ---------------------------------------------------------------------------------------------


def script_interpreter(script: str, ctx: Context) -> ScriptTarget:
    """The interpreter ``script`` runs with: its shebang (``/usr/bin/env python3`` looked up on PATH), or,
    without one, what `python script.py` runs (the first python on PATH)."""
    path = os.path.abspath(os.path.join(ctx.cwd, script))
    words = parse_shebang(_read_head(path))
    if words:
        program, on_path = _shebang_program(words)
        shebang = " ".join(words)
        if not is_python_name(program):  # `#!/usr/bin/perl`: never run (issue 12), and not ours to judge
            return ScriptTarget(
                path,
                shebang,
                None,
                f"#!{shebang}: {os.path.basename(program) or 'nothing'} is "
                "not a Python interpreter, so gpuassist does not run it",
            )
        if not on_path:
            return ScriptTarget(path, shebang, program, f"#!{shebang}")
        hits = which_all(program, ctx.env, ctx.windows) if program else []
        return ScriptTarget(path, shebang, hits[0] if hits else None, f"#!{shebang} → PATH {program}")
    for name in ("python", "python3"):
        hits = which_all(name, ctx.env, ctx.windows)
        if hits:
            return ScriptTarget(path, None, hits[0], f"no shebang: `{name} {os.path.basename(path)}` runs PATH {name}")
    return ScriptTarget(path, None, None, "no shebang and no python on PATH")


# ---- entry point -----------------------------------------------------------------------------------------


def discover(ctx: Context | None = None, *, script: str | None = None, requested: Iterable[str] = ()) -> Discovery:
    """Every interpreter on the machine (file-system reads only; nothing is executed).

    ``script``: also the interpreter that script runs with, and project venvs next to it. ``requested``:
    interpreters the caller names (``--python``), always included."""
    ctx = ctx or Context.current()
    col = _Collector(ctx)
    disc = Discovery([])
    if ctx.executable:
        col.add(ctx.executable, SELF, "gpuassist's own")
    for python in requested:
        col.add(python, REQUESTED, "chosen as the target")
    _from_active(col)
    _from_pyenv_local(col)
    if script is not None:
        disc.script = script_interpreter(script, ctx)
        if disc.script.python:
            col.add(disc.script.python, SCRIPT, f"script {os.path.basename(disc.script.script)} ({disc.script.how})")
        else:
            disc.notes.append(
                f"script {disc.script.script}: {disc.script.how}"
                + ("" if "not a Python" in disc.script.how else ", and nothing on PATH answers it")
            )
        _project_venvs(col, os.path.dirname(disc.script.script), f"next to {os.path.basename(disc.script.script)}")
    _from_path(col)
    _project_venvs(col, ctx.cwd, "working directory")
    _from_home_envs(col)
    _from_desktop(col)
    _from_conda(col)
    _from_pyenv(col)
    _from_uv(col)
    _from_pipx(col)
    _from_kernels(col, disc)
    disc.candidates = col.result()
    return disc
