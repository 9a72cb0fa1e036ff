"""``unknown flag: --gpus`` from a command that has no such flag at any version (round-20 review).

The evidence space: docker/cli defines ``--gpus`` in the container options shared by ``docker run`` and
``docker create`` (cli/command/container/opts.go, Docker 19.03, docker/cli#1714); a client older than 19.03 answers
``unknown flag: --gpus`` there, which the catalogue reads as docker_no_gpu_runtime (upgrade the client). Other
commands never had the flag, so they answer the same words on any version: ``docker build`` / ``docker buildx
build`` (a build gets no GPU that way), ``docker exec`` (the container's devices are fixed when it is created),
``docker-compose``'s subcommands, and other engines' CLIs (older podman, nerdctl, buildah). Cobra names the command
in its next line ("See 'docker build --help'."). There the client's age is not the cause and its fix is wrong, so the
reading is dropped.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE

FINDING_ID = "docker_no_gpu_runtime"
UNKNOWN_GPUS_FLAG = re.compile(r"\bunknown flag: --gpus\b", re.IGNORECASE)
# The command the flag was given to, as typed or as cobra's "See 'docker <command> --help'." names it.
GPUS_COMMAND = re.compile(
    r"\b(?P<prog>docker-compose|docker|podman|nerdctl|buildah)\s+(?P<sub>(?:(?:container|image|buildx|compose)\s+)?"
    r"[a-z]+)\b[^\n]*?\s--gpus\b|"
    r"\bSee '(?P<seeprog>docker|podman|nerdctl)\s+(?P<seesub>(?:(?:container|image|buildx|compose)\s+)?[a-z]+) --help'",
    re.IGNORECASE,
)
# docker's own commands that take --gpus (a client older than 19.03 does not know it there).
TAKES_GPUS = {"run", "create", "container run", "container create"}


def _flag_elsewhere(text: str) -> bool:
    """The text gives --gpus to a command that has no such flag (above), and never to ``docker run/create``."""
    commands = set()
    for found in GPUS_COMMAND.finditer(text):
        prog = (found["prog"] or found["seeprog"]).lower()
        sub = " ".join((found["sub"] or found["seesub"]).lower().split())
        commands.add((prog, sub))
    return bool(commands) and not any(prog == "docker" and sub in TAKES_GPUS for prog, sub in commands)


def gpus_flag_elsewhere(lines: list[str], matches: list[Match]) -> list[Match]:
    """Drop the too-old-client reading of ``unknown flag: --gpus`` given to a command without that flag."""
    flagged = [m for m in matches if m.id == FINDING_ID and UNKNOWN_GPUS_FLAG.search(m.line[:MAX_LINE])]
    if not flagged or not _flag_elsewhere("\n".join(line[:MAX_LINE] for line in lines[:5000])):
        return matches
    return [m for m in matches if m not in flagged]
