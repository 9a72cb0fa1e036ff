"""Which interpreter to diagnose when the user did not say, and why (issue 11): one rule for the CLI and
the app.

The user's PyTorch lives where their code runs: the environment active in their shell, their project's
environment, the ``python`` they type. gpuassist's own interpreter is none of these (it may not even have
torch), so it is the default only when no other Python exists. The order:

1. an interpreter the user named (``--python``, or a choice the app remembered);
2. a script's shebang (``envs --script``);
3. the environment active in the shell that started gpuassist: ``$VIRTUAL_ENV``, ``$CONDA_PREFIX``, the
   pyenv version set for the folder (``.python-version``) or shell — unless it is gpuassist's own (conda's
   base, which conda activates in every shell, counts only when it has torch);
4. a project environment found from the working directory up (``.venv``, ``venv``, ``.conda``, and the
   envs of uv, Poetry, PDM, Pipenv, Hatch and pixi that the project's files point to);
5. ``python`` (then ``python3``) on PATH, when it has torch;
6. the one discovered environment that has torch (several: the most recently used, and the app asks);
7. otherwise ``python``/``python3`` on PATH, saying that other environments exist.

Nothing is run to decide (discovery reads files; "has torch" is read from site-packages), so this takes
milliseconds. Interpreters that discovery must not run (:mod:`gpuassist.envs.trust`) are never chosen.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gpuassist.envs import ondisk
from gpuassist.envs.discovery import (
    CONDA_PREFIX,
    PATH,
    PROJECT,
    PYENV_LOCAL,
    VIRTUAL_ENV,
    Candidate,
    Context,
    Discovery,
    discover,
    identity,
)
from gpuassist.own_python import fallback_python, own_python

# How the choice was made (stable strings: JSON meta and the app read them).
REQUESTED = "requested"
REMEMBERED = "remembered"
SCRIPT_SHEBANG = "script"
ACTIVE = "active"
PROJECT_ENV = "project"
PATH_WITH_TORCH = "path_with_torch"
ONLY_WITH_TORCH = "only_with_torch"
GUESS_WITH_TORCH = "guess_with_torch"
PATH_FALLBACK = "path"
OTHER = "other"
OWN = "own"
NONE = "none"
KEPT = "kept"  # the app's current target, carried into a diagnosis with the reason it was chosen for


class EmptyPython(ValueError):
    """``--python ""``: a usage error, not a request for the default."""


@dataclass(frozen=True)
class TargetChoice:
    """The interpreter to diagnose, as the user would type it (never resolved through symlinks), and one
    sentence saying why. ``ask``: a guess the app should put to the user (several environments with torch,
    or none has torch while others exist); ``with_torch``: the environments that have torch."""

    python: str | None
    reason: str
    how: str
    ask: bool = False
    name: str = ""  # the environment's short name ("thesis/.venv", "conda env 'ml'")
    own: bool = False
    with_torch: tuple[str, ...] = ()
    others: int = 0
    discovery: Discovery | None = field(default=None, compare=False, repr=False)

    @property
    def explicit(self) -> bool:
        """The user chose it (a fix may then aim at it even when it is gpuassist's own)."""
        return self.how in (REQUESTED, REMEMBERED)

    def meta(self) -> dict[str, Any]:
        """``meta.target`` and ``meta.target_reason`` of a report."""
        return {"target": self.python, "target_reason": self.reason}

    def facts(self) -> dict[str, Any]:
        """``target.*`` facts the rules read (a fix is never aimed at gpuassist's own environment unless the
        user chose it)."""
        return {
            "target.python": self.python,
            "target.reason": self.reason,
            "target.how": self.how,
            "target.own": self.own,
            "target.explicit": self.explicit,
        }


def is_own(python: str, executable: str | None = None) -> bool:
    """``python`` is gpuassist's own interpreter (or another path into its environment)."""
    own = executable if executable is not None else own_python()
    return own is not None and bool(own) and identity(python)[0] == identity(own)[0]


def requested_choice(python: str, reason: str = "the interpreter named with --python") -> TargetChoice:
    """The interpreter the user named; an empty name is a usage error (never a silent default)."""
    if not python.strip():
        raise EmptyPython("--python needs the path of a Python interpreter (it was given an empty string)")
    return TargetChoice(python, reason, REQUESTED, own=is_own(python))


def described(python: str, reason: str, explicit: bool) -> TargetChoice:
    """A target chosen earlier (the app's), with the reason it was chosen for."""
    return TargetChoice(
        python,
        reason or ("the interpreter you chose" if explicit else "the default target"),
        REQUESTED if explicit else KEPT,
        own=is_own(python),
    )


def own_choice() -> TargetChoice:
    """gpuassist's own interpreter, for library callers that name no target (``diagnose_live()``); in the
    app bundle, which has no Python of its own, the PATH's."""
    own = own_python()
    if own is None:
        return TargetChoice(
            fallback_python(),
            "the Python on PATH (this gpuassist is an app bundle, with no Python of its own)",
            PATH_FALLBACK,
        )
    return TargetChoice(own, "gpuassist's own interpreter, which the caller asked for", REQUESTED, own=True)


def _usable(cand: Candidate) -> bool:
    return cand.exists and not cand.refused and not cand.is_self


def _origin(cand: Candidate, kind: str) -> Any:
    return next((o for o in cand.origins if o.kind == kind), None)


def _shown(text: str, home: str) -> str:
    """``text`` with the home directory written ``~`` (as the user would type the paths in it)."""
    home = home.rstrip(os.sep)
    if not home:
        return text
    return "~" if text == home else text.replace(home + os.sep, "~" + os.sep)


def _idle_conda_base(cand: Candidate, ctx: Context, torch_of: Callable[[Candidate], bool]) -> bool:
    """conda's base environment, active only because conda activates it in every shell, and without torch:
    not a sign of where the user's code runs (their torch is in an env they activate to work)."""
    base = ctx.env.get("CONDA_DEFAULT_ENV") == "base" or (
        cand.prefix is not None and os.path.isdir(os.path.join(cand.prefix, "condabin"))
    )
    return base and not torch_of(cand)


def choose_target(
    ctx: Context | None = None,
    *,
    requested: str | None = None,
    remembered: str | None = None,
    script: str | None = None,
    disc: Discovery | None = None,
    has_torch: Callable[[Candidate], bool] | None = None,
) -> TargetChoice:
    """The interpreter to diagnose and why (see the module docstring for the order).

    ``requested``: ``--python`` (an empty string raises :class:`EmptyPython`); ``remembered``: the app's
    saved choice for this machine, used while it exists; ``disc``: a discovery already made with ``ctx``;
    ``has_torch``: how to tell (default: a torch package in its site-packages)."""
    if requested is not None:
        return requested_choice(requested)
    ctx = ctx or Context.current()
    if remembered and os.path.exists(remembered):
        return TargetChoice(
            remembered,
            "the interpreter you chose in gpuassist on this machine",
            REMEMBERED,
            own=is_own(remembered, ctx.executable),
        )
    disc = disc or discover(ctx, script=script)
    torch_of = has_torch or (lambda c: ondisk.torch_dir(c, ctx.home) is not None)
    cands = disc.candidates
    usable = [c for c in cands if _usable(c)]
    others = len(usable)

    def pick(cand: Candidate, reason: str, how: str, **kw: Any) -> TargetChoice:
        return TargetChoice(cand.python, reason, how, discovery=disc, others=others - 1, name=cand.name, **kw)

    if script is not None and disc.script is not None and disc.script.python:
        cand = disc.find(disc.script.python)
        if cand is not None and not cand.refused:
            return pick(
                cand,
                f"the interpreter {os.path.basename(disc.script.script)} runs with ({disc.script.how})",
                SCRIPT_SHEBANG,
            )
    for kind, words in (
        (VIRTUAL_ENV, "the virtualenv active in the shell that started gpuassist ($VIRTUAL_ENV)"),
        (CONDA_PREFIX, "the conda environment active in the shell that started gpuassist ($CONDA_PREFIX)"),
        (PYENV_LOCAL, None),
    ):
        for cand in usable:
            origin = _origin(cand, kind)
            if origin is None or (kind == CONDA_PREFIX and _idle_conda_base(cand, ctx, torch_of)):
                continue
            return pick(cand, words or f"the {origin.label}, in effect where gpuassist was started", ACTIVE)
    for cand in usable:
        origin = _origin(cand, PROJECT)
        if origin is not None and origin.label.endswith("(working directory)"):
            where = origin.label[: -len(" (working directory)")]
            return pick(
                cand, f"the {_shown(where, ctx.home)}, found from the folder gpuassist was started in", PROJECT_ENV
            )
    with_torch = [c for c in usable if torch_of(c)]
    names = tuple(c.python for c in with_torch)
    on_path = [
        c
        for label in ("PATH python", "PATH python3")
        for c in usable
        if any(o.kind == PATH and o.label == label for o in c.origins)
    ]
    for cand in on_path:
        if cand in with_torch:
            typed = next(o for o in cand.origins if o.kind == PATH)
            return pick(
                cand,
                f"`{typed.label[5:]}` on PATH ({_shown(typed.path, ctx.home)}), which has torch",
                PATH_WITH_TORCH,
                with_torch=names,
            )
    if len(with_torch) == 1:
        return pick(
            with_torch[0],
            f"the only environment found that has torch ({with_torch[0].name})",
            ONLY_WITH_TORCH,
            with_torch=names,
        )
    if with_torch:
        newest = max(with_torch, key=lambda c: ondisk.last_used(c, ctx.home) or 0.0)
        return pick(
            newest,
            f"a guess: the most recently used of {len(with_torch)} environments that have torch "
            f"({newest.name}); `gpuassist envs` lists them",
            GUESS_WITH_TORCH,
            ask=True,
            with_torch=names,
        )
    if on_path:
        cand = on_path[0]
        typed = next(o for o in cand.origins if o.kind == PATH)
        rest = others - 1
        note = (
            (
                f"; {rest} other environment{'s' if rest != 1 else ''} exist{'s' if rest == 1 else ''} "
                "(`gpuassist envs` lists them)"
            )
            if rest > 0
            else ""
        )
        return pick(
            cand,
            f"`{typed.label[5:]}` on PATH ({_shown(typed.path, ctx.home)}): no environment with torch was found{note}",
            PATH_FALLBACK,
            ask=rest > 0,
        )
    if usable:
        return pick(
            usable[0],
            f"the only Python found besides gpuassist's own ({usable[0].name}); none has torch",
            OTHER,
            ask=len(usable) > 1,
        )
    own = next((c for c in cands if c.is_self), None)
    if own is not None:
        return TargetChoice(
            own.python,
            "gpuassist's own interpreter: no other Python was found on this machine",
            OWN,
            own=True,
            discovery=disc,
        )
    return TargetChoice(None, "no Python interpreter was found", NONE, discovery=disc)


def choose_default(requested: str | None = None, *, script: str | None = None) -> TargetChoice:
    """:func:`choose_target` for this process's machine (what the CLI calls)."""
    return choose_target(Context.current(), requested=requested, script=script)
