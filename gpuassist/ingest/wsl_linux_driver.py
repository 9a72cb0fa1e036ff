"""A Linux NVIDIA driver installed inside WSL 2, where the Windows driver must be the only one.

NVIDIA's CUDA on WSL User Guide ("Getting Started with CUDA on WSL 2", step 1 and the toolkit section): the Windows
NVIDIA driver is the only driver needed; it is stubbed inside WSL 2 as libcuda.so under /usr/lib/wsl/lib, "therefore
users must not install any NVIDIA GPU Linux driver within WSL 2", and the toolkit must come from the WSL-Ubuntu
package (cuda-toolkit-X-Y), not the `cuda` / `cuda-drivers` meta-packages, which pull the Linux driver in and
overwrite the stub. The class, as texts show it:

- the user's words: "installed the (NVIDIA|GPU) driver in/inside WSL (too)", "the Linux driver inside Ubuntu on WSL";
- the commands, in a text known to come from WSL (platform.wsl), as typed (at a prompt) or told as run:
  ``apt install nvidia-driver-535``, ``cuda-drivers``, ``nvidia-dkms-*``, ``nvidia-utils-*``, or running
  ``NVIDIA-Linux-x86_64-*.run``; not Ubuntu's command-not-found hint that lists such packages for a missing nvidia-smi.

Declines: the driver installed on Windows ("installed the driver on Windows and use WSL"), the guide's advice quoted
or negated ("do not install a driver inside WSL"), a question whether to install one.
"""

from __future__ import annotations

import re

from gpuassist.ingest import prose
from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.report.model import Report

# The driver in words, or by the Linux driver's own package names ("installed nvidia-driver-535 in WSL").
_DRIVER = (
    r"(?:(?:nvidia|gpu|graphics|display|linux)\s+(?:gpu\s+|graphics\s+|display\s+)?drivers?|"
    r"nvidia-driver-\d{3}\S*|cuda-drivers\b|nvidia-dkms-\d{3}\S*)"
)
_IN_WSL = r"(?:in|inside|within|into|on|under)\s+(?:the\s+|my\s+)?(?:wsl2?|ubuntu\s+(?:in|on|under)\s+wsl2?)\b"
# The place may follow a list ("GPU driver, cudatoolkit, and cudnn in wsl") but not open a clause of its own: "I
# installed the latest NVIDIA driver, and in WSL2 nvidia-smi shows the GPU" put the driver on Windows.
_NOT_NEW_CLAUSE = r"(?<![,;:])(?<!\band)(?<!\bthen)(?<!\bbut)(?<!\bso)(?<!\bnow)\s+"
INSTALLED_IN_WSL = re.compile(
    r"\binstall(?:ed|ing)?\b[^.?!\n]{0,40}?"
    + _DRIVER
    + r"(?:[^.?!\n]{0,60}?\b\w"
    + _NOT_NEW_CLAUSE
    + r"|\s+)"
    + _IN_WSL
    + r"|"
    r"\b" + _DRIVER + r"\b[^.?!\n]{0,30}?\b(?:installed|i installed)\s+" + _IN_WSL + r"|"
    # the place first: "Inside my WSL Ubuntu I also installed the Linux NVIDIA driver from the .run file"
    r"\b"
    + _IN_WSL
    + r"(?:\s+ubuntu)?[,\s]+(?:i|we)\s+(?:also\s+|then\s+|have\s+|had\s+)?installed\b[^.?!\n]{0,30}?"
    + _DRIVER,
    re.IGNORECASE,
)
# Beside prose.negated's words: advice and questions ("no need to", "should I", "whether"), as the guide and askers
# word them.
ADVICE_OR_QUESTION = (r"no need to", r"(?:do|should|must|can) (?:i|we|you)\b", r"whether\b", r"if i\b")
# The driver put on Windows (the supported setup) between the driver and the place: not inside WSL.
ON_WINDOWS = re.compile(r"\b(?:windows|win1[01]|host)\b", re.IGNORECASE)
# What may stand before a typed command: a shell prompt, sudo; or the user's words that they ran it.
PROMPT_ONLY = re.compile(r"\s*(?:[\w.@-]+:[~/\w.-]*[$#]\s*|[$#>]\s*|\(\S+\)\s*)*(?:sudo\s+)?")
RAN_WORDS = re.compile(
    r"\b(?:i|we)\s+(?:also\s+|then\s+|just\s+)?(?:ran|run|typed|executed|did|used)\b|\brunning\b", re.I
)
CAN_BE_INSTALLED = re.compile(r"can be installed with:?\s*$|Try: sudo apt install", re.IGNORECASE)
HINT_VERSION = re.compile(r"#\s*version\s+\d")
# Inside WSL: the Linux driver's packages or installer.
LINUX_DRIVER_COMMAND = re.compile(
    r"\bapt(?:-get)?\s+(?:-y\s+)?install\b[^\n]{0,80}?\b(?:nvidia-driver-\d{3}\S*|cuda-drivers\S*|nvidia-dkms-\d{3}\S*|"
    r"nvidia-utils-\d{3}\S*)|\bNVIDIA-Linux-x86_64-[\d.]+\.run\b",
    re.IGNORECASE,
)


def linux_driver_in_wsl(lines: list[str], report: Report) -> Match | None:
    """The text says (or shows) a Linux NVIDIA driver installed inside WSL: it shadows the Windows driver's libcuda."""
    wsl = report.facts.value("platform.wsl") is not None
    for no, line in enumerate(lines[:5000], start=1):
        head = line[:MAX_LINE]
        said = INSTALLED_IN_WSL.search(head)
        if (
            said
            and not _denied(head[max(0, said.start() - 40) : said.start()], said[0])
            and not ON_WINDOWS.search(said[0])
        ):
            return Match("wsl_libcuda_problem", no, line.strip()[:500], True, 0.85)
        ran = LINUX_DRIVER_COMMAND.search(head) if wsl else None
        if (
            ran
            and not prose.negated(head, extra=ADVICE_OR_QUESTION)
            and _was_run(head, ran.start())
            and not _install_hint(lines, no - 1)
        ):
            return Match("wsl_libcuda_problem", no, line.strip()[:500], True, 0.8)
    return None


def _denied(before: str, said: str) -> bool:
    """The install is denied or only advised/asked in its own clause ("I did not install the driver in WSL"); not by
    an earlier clause ("I don't use the Windows store, I installed the NVIDIA driver in WSL")."""
    return prose.negated(prose.clause_before(before) + said, extra=ADVICE_OR_QUESTION)


def _was_run(head: str, at: int) -> bool:
    """The command as typed (at the line's start, after a prompt or sudo) or told as run ("I ran sudo apt install
    ..."); not a package named in passing ("the guide's bad example is `apt-get install cuda-drivers`")."""
    return PROMPT_ONLY.fullmatch(head[:at]) is not None or RAN_WORDS.search(head[:at]) is not None


def _install_hint(lines: list[str], index: int) -> bool:
    """Ubuntu's command-not-found answer for a missing nvidia-smi ("can be installed with: sudo apt install
    nvidia-utils-535  # version ...") lists packages nobody installed; on WSL nvidia-smi lives in /usr/lib/wsl/lib."""
    if HINT_VERSION.search(lines[index][:MAX_LINE]):
        return True
    return any(CAN_BE_INSTALLED.search(line[:MAX_LINE]) for line in lines[max(0, index - 6) : index])
