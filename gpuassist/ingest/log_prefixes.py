"""The per-line prefix a log collector puts in front of a program's output, taken off so that the output's own
readers (collect_env's "Label: value" lines, torch's warnings) see the lines the program printed.

Each prefix is one a collector documents and prints on every line it relays:

- GitHub Actions' raw job log and ``docker logs --timestamps``: an RFC 3339 UTC timestamp and one space
  ("2024-05-01T12:00:01.1234567Z PyTorch version: 2.2.2"; Docker prints nanoseconds, Actions seven digits).
- ``docker build --progress=plain`` (BuildKit): the step number and the seconds since the step began
  ("#12 3.456 Is CUDA available: False").
- ``kubectl logs --prefix``: "[pod/<pod>/<container>] ".

A prefix is taken off only where most of the text's lines carry the same one: one timestamped line quoted in a
message is the message's, and stays as it is.
"""

from __future__ import annotations

import re

PREFIXES = (
    re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z (?=.)"),
    re.compile(r"^#\d{1,4} \d{1,6}\.\d{3} (?=.)"),
    re.compile(r"^\[pod/[\w.-]{1,253}/[\w.-]{1,63}\] (?=.)"),
)
# Share of the non-blank lines that must carry the prefix: a relayed log has it on nearly all of them (BuildKit also
# prints "#12 [3/7] RUN ..." and "#12 DONE 4.2s" headers without the seconds).
MOST = 0.6


def strip_log_prefixes(lines: list[str]) -> list[str]:
    """``lines`` with the one collector prefix most of them carry taken off; the same list when none does."""
    filled = [line for line in lines if line.strip()]
    if len(filled) < 3:
        return lines
    for prefix in PREFIXES:
        carrying = sum(1 for line in filled if prefix.match(line))
        if carrying >= MOST * len(filled):
            return [prefix.sub("", line, count=1) for line in lines]
    return lines
