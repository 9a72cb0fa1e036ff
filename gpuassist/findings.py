"""Findings: what the rules conclude, in the shape the report contract (docs/architecture.md §3) fixes."""

from __future__ import annotations

import functools
import re
import textwrap
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from gpuassist.facts import from_jsonable, to_jsonable


class Severity(str, Enum):
    """One severity scale everywhere (UI, HTML, terminal): colour and icon come from here."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "info": 2}[self.value]

    @property
    def icon(self) -> str:
        return {"error": "✖", "warning": "▲", "info": "ℹ"}[self.value]

    @property
    def colour(self) -> str:
        """Hex colour shared by the HTML report and the GUI; terminal uses the rich style below."""
        return {"error": "#c62828", "warning": "#b26a00", "info": "#1565c0"}[self.value]

    @property
    def rich_style(self) -> str:
        return {"error": "bold red", "warning": "bold yellow", "info": "bold blue"}[self.value]


OK_ICON = "✔"
OK_COLOUR = "#2e7d32"


@dataclass(frozen=True)
class Evidence:
    """One fact a finding rests on: its key (see docs/facts.md) and the value observed."""

    fact: str
    value: Any

    def to_json(self) -> dict[str, Any]:
        return {"fact": self.fact, "value": to_jsonable(self.value)}


@dataclass(frozen=True)
class Action:
    """One runnable block of a fix: shell ``commands`` that run as pasted, or Python ``code`` that compiles.

    A fix is a list of actions; ``option`` numbers the alternatives (option 1 *or* option 2), and the
    blocks of one option run in order. Prose stays in ``title`` and ``note``, never in a block, so a Copy
    button copies only what runs; a reboot is always its own last block (docs/architecture.md §6)."""

    title: str
    commands: tuple[str, ...] = ()
    code: str = ""
    note: str = ""
    option: int = 1

    @property
    def text(self) -> str:
        """What a Copy button puts on the clipboard: the commands, or the code."""
        return "\n".join(self.commands) if self.commands else self.code

    @property
    def is_reboot(self) -> bool:
        return any(REBOOT.match(c) for c in self.commands)

    def to_json(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "commands": list(self.commands),
            "code": self.code,
            "note": self.note,
            "option": self.option,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Action:
        return cls(
            title=str(data.get("title", "")),
            commands=tuple(str(c) for c in data.get("commands") or ()),
            code=str(data.get("code") or ""),
            note=str(data.get("note") or ""),
            option=int(data.get("option") or 1),
        )


REBOOT = re.compile(r"^\s*(sudo\s+)?(reboot|shutdown\s+-r)\b")
# The first word of a line of prose that is really a command ("Then check: nvidia-smi").
_COMMAND_START = re.compile(
    r"^(sudo|python\S*|/\S+|\.\S*/|nvidia-\S+|gpuassist|docker|conda|pip\S*|export|unset|wsl|ldconfig|"
    r"systemctl|journalctl|groups|[A-Z_]+=\S*)(\s|$)"
)
# A template a person must edit first (`kill <pid>`): not runnable as pasted, so it goes in the prose.
_PLACEHOLDER = re.compile(r"<[A-Za-z][^<>]*>")
_OPTION = re.compile(r"^(Option\s+\d+\b[,.:]?\s*|Or\b[,:]?\s*)", re.IGNORECASE)


def _python_code(line: str) -> bool:
    """A line is Python when it compiles as Python and does not start like a shell command."""
    if _COMMAND_START.match(line) or line.startswith("#"):
        return False
    try:
        compile(line, "<fix>", "exec")
    except SyntaxError:
        return False
    return "(" in line or "=" in line


def _inline_command(line: str) -> tuple[str, str, str] | None:
    """ "Then check: CMD   (why)" → (label, CMD, why); None when the part after the colon is prose."""
    label, sep, rest = line.partition(": ")
    rest = rest.strip().rstrip(".").strip("`")
    if not sep or not rest or len(label) > 60:
        return None
    why = ""
    paren = re.search(r"\s{2,}\((.+)\)\s*$", rest)
    if paren:
        rest, why = rest[: paren.start()].rstrip(), paren.group(1)
    if _COMMAND_START.match(rest) or _python_code(rest):
        return label.strip(), rest, why
    return None


def _quoted_commands(line: str) -> list[tuple[str, str]]:
    """A prose line that quotes commands in backticks ("To confirm: `nvidia-smi` on the host (or `...`)"):
    each quoted command is its own block, titled by the prose before it; quoted words that are not commands
    (`cpuonly`) stay prose."""
    parts = line.split("`")
    if len(parts) < 3 or len(parts) % 2 == 0:
        return []
    out: list[tuple[str, str]] = []
    prose = parts[0]
    for k in range(1, len(parts), 2):
        quoted = parts[k].strip()
        # a command to run follows "To confirm:", "(or", "then"; one named in a sentence ("the build that
        # `gpuassist diagnose` recommends") stays prose
        lead = prose.rstrip().lower()
        runnable = lead.endswith((":", "(or", " or", "then", "run")) or not lead
        if runnable and (_COMMAND_START.match(quoted) or (_python_code(quoted) and " " in quoted)):
            label = prose.strip().rstrip(":;,(").strip() or "Then"
            out.append((label[:1].upper() + label[1:], quoted))
            prose = parts[k + 1]
        else:
            prose += f"`{quoted}`{parts[k + 1]}"
    return out


def actions_from_fix(fix: str) -> list[Action]:
    """:func:`split_fix`, remembered: the Summary reads every finding's actions at each redraw, and telling Python
    from prose compiles each line."""
    return list(_split_fix_cached(fix))


@functools.lru_cache(maxsize=1024)
def _split_fix_cached(fix: str) -> tuple[Action, ...]:
    return tuple(split_fix(fix))


def split_fix(fix: str) -> list[Action]:
    """Split a fix written as text into runnable blocks (the convention the rules write fixes in: a line of
    prose, then its commands indented by two spaces; "Option N" / "Or" starts an alternative; a prose
    line "Label: command" is a one-line block). Used for findings whose rule gives no structured actions,
    and for reports written before actions existed."""
    out: list[Action] = []
    option = 1
    title = ""
    title_introduces = False  # the title ended with ":": the commands that follow are its block
    notes: list[str] = []
    commands: list[str] = []
    code: list[str] = []

    def flush() -> None:
        nonlocal title, notes, commands, code
        if title or commands or code or notes:
            label = title or ("In your code" if code and not commands else "Run")
            if any(a.is_reboot and a.option == option for a in out) and not label.startswith("After the reboot"):
                label = "After the reboot: " + label[:1].lower() + label[1:]
            out.append(
                Action(title=label, commands=tuple(commands), code="\n".join(code), note=" ".join(notes), option=option)
            )
        title, notes, commands, code = "", [], [], []

    def add_line(line: str) -> None:
        nonlocal title
        runnable = line.split(" #")[0]
        if _PLACEHOLDER.search(runnable) or (line.startswith("(") and line.endswith(")")):
            notes.append(f"Edit, then run: {line}" if _PLACEHOLDER.search(runnable) else line.strip("()"))
            return
        if REBOOT.match(line):
            label = ""
            if commands or code:
                flush()
            elif title:  # "Reboot, so the new kernel module loads:" is this block's own title
                label, title = title, ""
            out.append(
                Action(
                    title=label or "Reboot (last, after the commands above have finished)",
                    commands=(runnable.strip(),),
                    note=" ".join(notes),
                    option=option,
                )
            )
            notes.clear()
            return
        if _python_code(line) and not commands:
            code.append(line)
        elif code and not commands:
            flush()
            commands.append(line)
        else:
            commands.append(line)

    lines = [raw for raw in fix.splitlines() if raw.strip()]
    i = 0
    while i < len(lines):
        raw = lines[i]
        i += 1
        if raw.startswith("  "):
            group = [raw]
            while i < len(lines) and lines[i].startswith("  "):
                group.append(lines[i])
                i += 1
            source = textwrap.dedent("\n".join(group))
            if len(group) > 1 and _python_code(source):  # a loop or a with-block compiles only as a whole
                if commands:
                    flush()
                code.append(source)
            else:
                for line in group:
                    add_line(line.strip())
            continue
        line = raw.strip()
        starts_option = _OPTION.match(line)
        if starts_option and (out or commands or code or title):
            flush()
            option += 1
        if starts_option and line.lower().startswith("option"):
            line = line[starts_option.end() :]
            line = line[:1].upper() + line[1:]
        quoted = _quoted_commands(line)
        if quoted:
            if commands or code:
                flush()
            if title:
                notes.append(title)
            for label, command in quoted:
                title = label
                add_line(command)
                flush()
            continue
        inline = _inline_command(line)
        if not inline and not line.endswith(":") and (_COMMAND_START.match(line) or _python_code(line)):
            add_line(line)
            continue
        if commands or code:
            flush()
        if inline is not None:
            label, command, why = inline
            if title and not title.endswith(":"):
                notes.append(title)
            title = label
            if why:
                notes.append(why[:1].upper() + why[1:] + ".")
            add_line(command)
            flush()
            continue
        if title and not title_introduces:
            flush()  # a prose line that introduced no commands stands on its own, not as the next block's title
        if not title:
            title = line.rstrip(":")
            title_introduces = line.endswith(":")
        else:
            notes.append(line)
    flush()
    return out


@dataclass
class Finding:
    """A conclusion about the machine, with the evidence for it and the exact fix.

    ``id`` is a stable id from the catalogue (knowledge/catalogue.json). ``step`` is the wizard step the
    finding belongs to (environment, driver, wheel, placement, dataloader, benchmark). ``explains`` lists
    ids of symptoms this root cause accounts for; the ordering puts this finding before them.
    """

    id: str
    severity: Severity
    title: str
    explanation: str
    fix: str
    evidence: list[Evidence] = field(default_factory=list)
    step: str = "environment"
    explains: list[str] = field(default_factory=list)
    structured_actions: list[Action] | None = None  # given by the rule; None: read from ``fix``

    @property
    def actions(self) -> list[Action]:
        """The fix as runnable blocks: the rule's own, else split from the fix text."""
        if self.structured_actions is not None:
            return list(self.structured_actions)
        return actions_from_fix(self.fix)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "severity": self.severity.value,
            "title": self.title,
            "explanation": self.explanation,
            "evidence": [e.to_json() for e in self.evidence],
            "fix": self.fix,
            "actions": [a.to_json() for a in self.actions],
            "step": self.step,
            "explains": list(self.explains),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Finding:
        return cls(
            id=str(data["id"]),
            severity=Severity(data["severity"]),
            title=str(data.get("title", "")),
            explanation=str(data.get("explanation", "")),
            fix=str(data.get("fix", "")),
            evidence=[Evidence(str(e["fact"]), from_jsonable(e.get("value"))) for e in data.get("evidence", [])],
            step=str(data.get("step", "environment")),
            explains=[str(x) for x in data.get("explains", [])],
            structured_actions=[Action.from_json(a) for a in data["actions"] if isinstance(a, dict)]
            if isinstance(data.get("actions"), list)
            else None,
        )
