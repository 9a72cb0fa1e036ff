"""Words that put a sentence on another machine than the one that failed (round 23, from round 21's guard).

A user's "no GPU" / "integrated graphics only" sentence is evidence about the hardware only when it is said of the
machine whose failure the text shows. Said of the laptop the user moved from, a cluster's login node or a colleague's
PC, it says nothing about this machine (its driver or GPU are still in question): every reader of such statements
(ingest/gpuless_machine.py, ingest/insufficient_driver_gpuless.py, ingest/igpu_only.py) asks the one helper here.
"""

from __future__ import annotations

import re

from gpuassist.ingest.lines import MAX_LINE

# The GPU-less machine named is another one than the one that failed: a cluster's login node, the laptop the user
# moved from ("my old laptop has no NVIDIA GPU, so I moved to my new desktop"), a colleague's PC, so this machine's
# hardware is not what the sentence says (round 21 for the insufficient-driver reading, round 23 here).
OTHER_MACHINE = re.compile(
    r"\b(?:login|head|front-?end|submit|master)\s+(?:node|host|server|machine)s?\b|"
    r"\b(?:another|other|old|older|previous|former|different)\s+"
    r"(?:machine|computer|pc|desktop|laptop|server|workstation|node|host|box)s?\b|"
    r"\b(?:colleague|friend|coworker|co-worker|boss|brother|sister|wife|husband|someone\s+else)(?:'s|s'|’s)\s+"
    r"(?:\w+\s+)?(?:machine|computer|pc|desktop|laptop|server|workstation|box|notebook)\b|"
    r"\b(?:moved|switched|migrated)\s+to\b",
    re.IGNORECASE,
)


def said_of_another_machine(line: str) -> bool:
    """The line speaks of another machine than the one that failed (above): a "no GPU" on it is not this one's."""
    return OTHER_MACHINE.search(line[:MAX_LINE]) is not None
