"""Build a Finding with the catalogue's defaults (title, step) filled in."""

from __future__ import annotations

from collections.abc import Iterable

from gpuassist.findings import Action, Evidence, Finding, Severity
from gpuassist.knowledge import catalogue

# Every GPU busy: one process each (the multi-GPU findings of the runtime tests and of a script's run).
DDP_FIX = (
    "Launch one process per GPU with DistributedDataParallel:\n"
    "  torchrun --nproc_per_node=gpu train.py\n"
    "and in train.py: torch.distributed.init_process_group('nccl'); "
    "model = torch.nn.parallel.DistributedDataParallel(model.to(local_rank), device_ids=[local_rank]); "
    "use a DistributedSampler in the DataLoader."
)


def finding(
    id: str,
    severity: Severity,
    *,
    explanation: str,
    fix: str,
    evidence: Iterable[Evidence] = (),
    title: str | None = None,
    explains: Iterable[str] = (),
    actions: Iterable[Action] | None = None,
) -> Finding:
    """``actions``: the fix as runnable blocks (:func:`shell`, :func:`python`); left out, they are read from
    ``fix`` (its prose lines, then the commands indented by two spaces)."""

    entry = catalogue().get(id)
    if entry is None:
        raise KeyError(f"finding id {id!r} is not in the catalogue")
    return Finding(
        id=id,
        severity=severity,
        title=title or entry.title,
        explanation=explanation,
        fix=fix,
        evidence=list(evidence),
        step=entry.step,
        explains=list(explains),
        structured_actions=list(actions) if actions is not None else None,
    )


def shell(title: str, *commands: str, note: str = "", option: int = 1) -> Action:
    """A block of shell commands that runs as pasted (a reboot goes in a block of its own, last)."""
    return Action(title=title, commands=tuple(commands), note=note, option=option)


def python(title: str, code: str, note: str = "", option: int = 1) -> Action:
    """A block of Python source that compiles (the tests compile every one)."""
    return Action(title=title, code=code, note=note, option=option)


def actions_text(actions: Iterable[Action]) -> str:
    """The fix text of structured actions (the JSON's ``fix``, kept for older readers): prose lines, then
    each block's lines indented by two spaces, so :func:`gpuassist.findings.actions_from_fix` reads it back."""
    lines: list[str] = []
    last_option = 0
    for a in actions:
        prefix = f"Option {a.option}, " if a.option != last_option and a.option > 1 else ""
        last_option = a.option
        lines.append(f"{prefix}{a.title}:")
        lines += [f"  {c}" for c in a.commands]
        lines += [f"  {c}" for c in a.code.splitlines()]
        if a.note:
            lines.append(a.note)
    return "\n".join(lines)
