"""A conda package plan printed by a dry run: what conda WOULD install, not what is installed (round 20).

The evidence space: conda prints its "Package Plan" ("The following NEW packages will be INSTALLED: ...") before it
asks "Proceed ([y]/n)?" and installs; with ``--dry-run`` (``-d``) it prints the same plan and stops with conda's
``DryRunExit`` exception, whose message is "Dry run. Exiting." (conda/exceptions.py); mamba and micromamba stop
with "Dry run. Not executing the transaction.". paste_facts reads a plan's pytorch row as the installed build
(right for a real install); after a dry run the environment is unchanged, so the plan's build is not the installed
torch: a CPU row in it is what the solver would pick (worth a look, a guess), not a CPU build in place.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

# conda/mamba's own end of a dry run, or the flag on the command that printed the plan.
DRY_RUN = re.compile(
    r"\bDryRunExit\b|\bDry run\. (?:Exiting|Not executing the transaction)\b|"
    r"\b(?:conda|mamba|micromamba)\s+(?:install|create|update|upgrade)\b[^\n]*\s(?:--dry-run|-d)(?:\s|$)",
    re.IGNORECASE,
)
# The plan's rows ("  pytorch   pytorch/linux-64::pytorch-2.1.0-py3.10_cpu_0", "pytorch-mutex-1.0-cpu").
PLAN_ROW = re.compile(r"^\s+[\w.-]+\s+\S*::[\w.-]+-\d")


# conda's own steps of a transaction that ran ("Downloading and Extracting Packages", "Executing transaction: done"):
# a dry run beside them was a look before the real install, whose plan is the installed build.
EXECUTED = re.compile(r"^\s*(?:Executing transaction|Downloading and Extracting)\b")


def dry_run(lines: list[str]) -> bool:
    """The text's conda session only planned (a dry run), and no transaction ran."""
    head = [line[:MAX_LINE] for line in lines[:5000]]
    return any(DRY_RUN.search(line) for line in head) and not any(EXECUTED.match(line) for line in head)


def plan_only(lines: list[str], matches: list[Match]) -> list[Match]:
    """After a dry run, a plan row's match is what conda would install: at most a guess."""
    if not dry_run(lines):
        return matches
    return [
        Match(m.id, m.line_no, m.line, False, min(m.weight, 0.5))
        if 0 < m.line_no <= len(lines) and PLAN_ROW.match(lines[m.line_no - 1][:MAX_LINE])
        else m
        for m in matches
    ]
