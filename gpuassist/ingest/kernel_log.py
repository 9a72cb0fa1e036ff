"""Read the NVIDIA driver's kernel messages the way the kernel wrote them: one message, several lines.

The driver prints one message as several ``NVRM:`` lines (``NVRM: API mismatch: the client 'Xorg' (pid 1005)``
/ ``NVRM: has the version 595.84, but this kernel module has`` / ...). dmesg, journalctl and syslog put their
prefix (timestamp, host, ``kernel:``) on the first line only and indent or bare-prefix the rest; a copy from a
terminal keeps just the ``NVRM:`` of each. A pattern tried line by line sees half a sentence, so each wrapped
message is also offered whole: the first line's text after ``NVRM:`` and every continuation line's, joined.

A continuation line is one whose text starts with ``NVRM:`` (after blanks) and carries no log prefix of its
own; a line with its own timestamp or ``kernel:`` starts a new message, unless what follows its ``NVRM:`` carries
on the sentence before it (kern.log and syslog files repeat the whole prefix on every line of one message): it
starts in lower case or indented, after a line that did not end a sentence. syslog's escaped newlines
(``#012NVRM:``) are the same wrapping inside one line.
"""

from __future__ import annotations

import re

from gpuassist.ingest.lines import MAX_LINE

MAX_PARTS = 12  # the driver's longest messages (legacy GPU, probe routine) wrap over fewer lines
NVRM = "NVRM:"
# syslog writes the newlines inside one message as "#012".
ESCAPED_NEWLINE = re.compile(r"#012\s*(?:NVRM:\s*)?")
SPACES = re.compile(r"\s+")


def _payload(text: str) -> str:
    return SPACES.sub(" ", ESCAPED_NEWLINE.sub(" ", text)).strip()


def _carries_on(previous: str, raw_payload: str) -> bool:
    """The text after this line's ``NVRM:`` continues the previous line's sentence: it is indented or starts in
    lower case, and the previous line did not end one."""
    stripped = raw_payload.lstrip()
    return (
        bool(previous)
        and previous[-1] not in ".!?:"
        and bool(stripped)
        and (stripped[0].islower() or raw_payload.startswith("  "))
    )


def wrapped_messages(lines: list[str]) -> list[tuple[int, str]]:
    """Every NVRM message that spans more than one line, joined: (1-based number of its first line,
    ``"NVRM: " + the message``). Messages on one line are left to the line-by-line reading."""
    out: list[tuple[int, str]] = []
    start = 0
    parts: list[str] = []

    def flush() -> None:
        if len(parts) > 1:
            out.append((start, (NVRM + " " + " ".join(p for p in parts if p))[:MAX_LINE]))

    for no, raw in enumerate(lines, start=1):
        line = raw[:MAX_LINE]
        at = line.find(NVRM)
        if at < 0:
            flush()
            parts = []
            continue
        rest = line[at + len(NVRM) :]
        continuation = (
            bool(parts) and len(parts) < MAX_PARTS and (not line[:at].strip() or _carries_on(parts[-1], rest))
        )
        if not continuation:
            flush()
            start, parts = no, []
        parts.append(_payload(rest))
    flush()
    return out
