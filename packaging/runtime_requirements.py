"""Print an installed distribution's runtime requirements, one per line, leaving out some by name.

packaging/build installs gpuassist with ``--no-deps`` and then these, so a requirement the bundle must
never carry (torch: the probe uses the user's own) cannot pull a multi-GB build into it, whatever
pyproject.toml says. Only the standard library is used: this runs before anything else is installed.
"""

from __future__ import annotations

import argparse
import re
from importlib.metadata import requires


def runtime_requirements(dist: str, exclude: set[str]) -> list[str]:
    """Requirements of ``dist`` that apply without extras, minus the names in ``exclude``."""
    kept = []
    for req in requires(dist) or []:
        if re.search(r"\bextra\s*==", req):
            continue
        name = re.split(r"[\s;<>=!~\[(]", req, maxsplit=1)[0]
        if name.lower().replace("_", "-") in exclude:
            continue
        kept.append(req)
    return kept


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("dist")
    p.add_argument("--exclude", action="append", default=[], metavar="NAME")
    args = p.parse_args()
    for req in runtime_requirements(args.dist, {e.lower().replace("_", "-") for e in args.exclude}):
        print(req)


if __name__ == "__main__":
    main()
