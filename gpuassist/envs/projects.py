"""The environments a project folder points to, read from its files (never by running a tool).

A project's interpreter is where its tool put it: ``.venv``/``venv``/``env`` (venv, virtualenv, uv, PDM,
Poetry and Pipenv "in project"), ``.conda`` (VS Code's conda env), ``.pixi/envs/*`` (pixi), the path in
``.pdm-python`` (PDM), and the central directories of Poetry (a name-and-path hash under its cache),
Pipenv (a ``.project`` file in each env names its project) and Hatch (a path hash under its data
directory). Also: the usual places a desktop user keeps projects, for a GUI started from a menu whose
working directory is ``$HOME``.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from gpuassist.files import list_names, read_head

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

PROJECT_VENV_DIRS = (".venv", "venv", "env")
# Folders under $HOME where people keep projects (each child is looked at, one level deep).
DESKTOP_FOLDERS = (
    "projects",
    "Projects",
    "code",
    "Code",
    "src",
    "dev",
    "Dev",
    "git",
    "repos",
    "Repos",
    "workspace",
    "Workspace",
    "work",
    "Work",
    "PycharmProjects",
    "Documents",
    "Desktop",
    "Developer",
    "source",
    "notebooks",
    "research",
)
MAX_DESKTOP_DIRS = 400  # directories looked into at most (a home with thousands of folders stays fast)
PYPROJECT_LIMIT = 1024 * 1024
POETRY_UNSAFE = re.compile(r'[ $`!*@"\\\r\n\t]')


@dataclass(frozen=True)
class ProjectEnv:
    """One environment of a project: its directory (``prefix``) or, from ``.pdm-python``, an interpreter
    path (``python``); ``tool`` made it; ``label`` says how it was found."""

    prefix: str | None
    tool: str
    label: str
    python: str | None = None


def _isfile(*parts: str) -> bool:
    try:
        return os.path.isfile(os.path.join(*parts))
    except (OSError, ValueError):
        return False


def _read(path: str, limit: int) -> str:
    return read_head(path, limit).decode("utf-8", "replace")  # a regular file only: a FIFO cannot hang it


def pyproject(directory: str) -> dict[str, Any]:
    """The project's pyproject.toml as a dict ({} when missing or unreadable)."""
    text = _read(os.path.join(directory, "pyproject.toml"), PYPROJECT_LIMIT)
    if not text:
        return {}
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _table(data: Mapping[str, Any], *keys: str) -> Mapping[str, Any]:
    for key in keys:
        value = data.get(key)
        if not isinstance(value, Mapping):
            return {}
        data = value
    return data


def project_name(data: Mapping[str, Any]) -> str | None:
    name = _table(data, "tool", "poetry").get("name") or _table(data, "project").get("name")
    return str(name) if isinstance(name, str) and name else None


def _hash8(path: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(path.encode("utf-8", "replace")).digest()).decode()[:8]


def _home(home: str, *parts: str) -> str:
    return os.path.join(home, *parts)


def _data_home(env: Mapping[str, str], home: str) -> str:
    return env.get("XDG_DATA_HOME") or _home(home, ".local", "share")


def poetry_dirs(env: Mapping[str, str], home: str) -> list[str]:
    """Where Poetry keeps the virtualenvs it creates outside projects."""
    if env.get("POETRY_VIRTUALENVS_PATH"):
        return [env["POETRY_VIRTUALENVS_PATH"]]
    if env.get("POETRY_CACHE_DIR"):
        return [os.path.join(env["POETRY_CACHE_DIR"], "virtualenvs")]
    cache = env.get("XDG_CACHE_HOME") or _home(home, ".cache")
    dirs = [os.path.join(cache, "pypoetry", "virtualenvs"), _home(home, "Library", "Caches", "pypoetry", "virtualenvs")]
    if env.get("LOCALAPPDATA"):
        dirs.append(os.path.join(env["LOCALAPPDATA"], "pypoetry", "Cache", "virtualenvs"))
    return dirs


def pipenv_dirs(env: Mapping[str, str], home: str) -> list[str]:
    return [env["WORKON_HOME"]] if env.get("WORKON_HOME") else [os.path.join(_data_home(env, home), "virtualenvs")]


def virtualenvwrapper_dirs(env: Mapping[str, str], home: str) -> list[str]:
    return list(dict.fromkeys([*([env["WORKON_HOME"]] if env.get("WORKON_HOME") else []), _home(home, ".virtualenvs")]))


def hatch_dirs(env: Mapping[str, str], home: str) -> list[str]:
    if env.get("HATCH_DATA_DIR"):
        return [os.path.join(env["HATCH_DATA_DIR"], "env", "virtual")]
    return [
        os.path.join(_data_home(env, home), "hatch", "env", "virtual"),
        _home(home, "Library", "Application Support", "hatch", "env", "virtual"),
    ]


def _poetry_envs(directory: str, data: Mapping[str, Any], env: Mapping[str, str], home: str) -> Iterator[ProjectEnv]:
    name = project_name(data)
    if not name:
        return
    real = os.path.normcase(os.path.realpath(directory))
    stem = f"{POETRY_UNSAFE.sub('_', name.lower())[:42]}-{_hash8(real)}-py"
    for base in poetry_dirs(env, home):
        for entry in list_names(base):
            if entry.startswith(stem):
                yield ProjectEnv(os.path.join(base, entry), "poetry", f"Poetry env {entry} of {directory}")


def _pipenv_envs(directory: str, env: Mapping[str, str], home: str) -> Iterator[ProjectEnv]:
    real = os.path.realpath(directory)
    for base in pipenv_dirs(env, home):
        for entry in list_names(base):
            project = _read(os.path.join(base, entry, ".project"), 4096).strip()
            if project and os.path.realpath(project) == real:
                yield ProjectEnv(os.path.join(base, entry), "pipenv", f"Pipenv env {entry} of {directory}")


def _hatch_envs(directory: str, data: Mapping[str, Any], env: Mapping[str, str], home: str) -> Iterator[ProjectEnv]:
    name = project_name(data)
    if not name:
        return
    checksum = _hash8(str(os.path.abspath(directory)))
    for base in hatch_dirs(env, home):
        for entry in dict.fromkeys((name, re.sub(r"[-_.]+", "-", name).lower())):
            stored = os.path.join(base, entry, checksum)
            for env_name in list_names(stored):
                yield ProjectEnv(os.path.join(stored, env_name), "hatch", f"Hatch env '{env_name}' of {directory}")


def in_project_envs(directory: str) -> Iterator[ProjectEnv]:
    """Environments inside the project folder itself (cheap: a few stat calls)."""
    for name in PROJECT_VENV_DIRS:
        root = os.path.join(directory, name)
        if _isfile(root, "pyvenv.cfg"):
            uv = "uv" in _read(os.path.join(root, "pyvenv.cfg"), 16 * 1024)
            yield ProjectEnv(
                root, "uv" if uv else "venv", f"{'uv project venv' if uv else 'project venv'} {name} in {directory}"
            )
    if os.path.isdir(os.path.join(directory, ".conda", "conda-meta")):
        yield ProjectEnv(os.path.join(directory, ".conda"), "conda", f"project conda env .conda in {directory}")
    pixi = os.path.join(directory, ".pixi", "envs")
    for name in list_names(pixi):
        if os.path.isdir(os.path.join(pixi, name, "conda-meta")):
            yield ProjectEnv(os.path.join(pixi, name), "pixi", f"pixi env '{name}' in {directory}")


def project_envs(directory: str, env: Mapping[str, str], home: str) -> list[ProjectEnv]:
    """Every environment ``directory``'s files point to, nearest first."""
    found = list(in_project_envs(directory))
    pdm = _read(os.path.join(directory, ".pdm-python"), 4096).strip()
    if pdm and os.path.isabs(pdm):
        found.append(ProjectEnv(None, "pdm", f"PDM interpreter (.pdm-python) of {directory}", python=pdm))
    has_pyproject = _isfile(directory, "pyproject.toml")
    if env.get("UV_PROJECT_ENVIRONMENT") and (has_pyproject or _isfile(directory, "uv.lock")):
        value = env["UV_PROJECT_ENVIRONMENT"]
        root = value if os.path.isabs(value) else os.path.join(directory, value)
        found.append(ProjectEnv(root, "uv", f"uv project venv ($UV_PROJECT_ENVIRONMENT={value}) of {directory}"))
    data = pyproject(directory) if has_pyproject else {}
    if _table(data, "tool", "poetry") or _isfile(directory, "poetry.lock"):
        found += _poetry_envs(directory, data, env, home)
    if _isfile(directory, "Pipfile"):
        found += _pipenv_envs(directory, env, home)
    if _table(data, "tool", "hatch") or _isfile(directory, "hatch.toml"):
        found += _hatch_envs(directory, data, env, home)
    return found


def desktop_project_dirs(home: str) -> list[str]:
    """Folders that may hold a project: $HOME's children and the children of the usual project folders,
    at most :data:`MAX_DESKTOP_DIRS` of them."""
    out: list[str] = []
    parents = [home, *(os.path.join(home, f) for f in DESKTOP_FOLDERS)]
    for parent in dict.fromkeys(parents):
        for name in list_names(parent):
            if name.startswith("."):
                continue
            path = os.path.join(parent, name)
            if os.path.isdir(path) and not os.path.islink(path):
                out.append(path)
                if len(out) >= MAX_DESKTOP_DIRS:
                    return out
    return out
