"""Plain text stays plain: text from a report, a paste, audited code or a path is shown, never obeyed.

A reopened report, a paste or a file name can carry terminal escape sequences (clear the screen, draw a fake
"✔ No problem found", write the clipboard with OSC 52), bidirectional overrides that reorder what is shown,
or Markdown/HTML that breaks out of a report's structure. The helpers here remove control characters from
text bound for a terminal and escape text bound for Markdown, one place for every output.
"""

from __future__ import annotations

import re
from typing import Any

# C0 controls except tab and newline, DEL, C1 controls (0x9b is a one-byte CSI), and the bidirectional
# embedding/override/isolate marks (they make a line read differently from what it is).
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# What gpuassist's own terminal rendering (rich) emits: Select Graphic Rendition, i.e. colours.
_SGR_OR_CONTROL = re.compile("(\x1b\\[[0-9;]*m)|[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_C1_AND_DEL = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def strip_controls(text: str) -> str:
    """``text`` without control characters (tab and newline kept; a carriage return becomes a newline)."""
    return CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def plain_json(value: Any, _depth: int = 0) -> Any:
    """A copy of a JSON-like value whose strings (keys too) hold no control characters."""
    if isinstance(value, str):
        return strip_controls(value)
    if _depth > 200:
        return value
    if isinstance(value, dict):
        return {strip_controls(k) if isinstance(k, str) else k: plain_json(v, _depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [plain_json(v, _depth + 1) for v in value]
    return value


def terminal_safe(text: str) -> str:
    """Final pass over rendered terminal text: only colour sequences (SGR) survive, every other control
    character (cursor moves, screen clears, OSC titles and clipboard writes) is removed."""
    return _SGR_OR_CONTROL.sub(lambda m: m.group(1) or "", text.replace("\r\n", "\n"))


def json_safe(text: str) -> str:
    """JSON text with DEL, C1 controls and bidi marks written as ``\\u`` escapes (``json.dumps`` with
    ``ensure_ascii=False`` escapes only C0), so printing JSON to a terminal cannot drive it. They can only
    occur inside strings, where the escape means the same character."""
    return _C1_AND_DEL.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


# ---- Markdown ------------------------------------------------------------------------------------------------

# Anywhere in a line: code spans, links and images ("[", so "![x](…)" is no image), HTML ("<", so
# "</details>" closes nothing), strikethrough/fences ("~"), and the escape character itself. Emphasis
# ("*", "_") changes how words look, not the report's structure, and stays (train_cpu.py reads as written).
_MD_SPECIAL = re.compile(r"([\\`\[\]<>~])")
# At the start of a line (after indentation) these begin a heading, a list, a quote, a setext underline
# or a thematic break.
_MD_LINE_START = re.compile(r"^([ \t]*)(#{1,6}|[-+=*_]+|\d{1,9}[.)]|>)(?=[ \t]|$)", re.MULTILINE)


def md_escape(value: Any) -> str:
    """Report text as literal Markdown: whatever could start a heading, a list, a quote, a link, an image,
    HTML (``</details>``) or code is backslash-escaped, so ``## ✔ No problem found`` in a title stays a
    title's words. Newlines stay (paragraph text)."""
    text = _MD_SPECIAL.sub(r"\\\1", strip_controls(str(value)))
    return _MD_LINE_START.sub(_escape_line_start, text)


def _escape_line_start(m: re.Match[str]) -> str:
    lead, mark = m.group(1), m.group(2)
    if mark[-1] in ".)":  # "1." / "1)": digits cannot be escaped, the delimiter can
        return f"{lead}{mark[:-1]}\\{mark[-1]}"
    return f"{lead}\\{mark}"


def md_cell(value: Any) -> str:
    """Text for one Markdown table cell: escaped, on one line, its pipes not ending the cell."""
    return md_escape(value).replace("\n", " ").replace("|", "\\|")


def md_code(value: Any) -> str:
    """Inline code that cannot be closed early: a run of backticks longer than any inside the text."""
    text = strip_controls(str(value)).replace("\n", " ")
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def md_fence(value: Any, info: str = "") -> str:
    """A fenced code block around ``value`` whose fence is longer than any backtick run inside it, so a fix
    that contains ``` cannot end the block and continue as Markdown."""
    text = strip_controls(str(value)).rstrip("\n")
    longest = max((len(m) for m in re.findall(r"`{3,}", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"
