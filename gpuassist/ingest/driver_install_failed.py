"""An NVIDIA driver install that the package manager aborted, on a machine the text shows without a driver.

Package managers install all or nothing: dnf stops the whole transaction when one argument matches no package
("Error: Unable to find a match: <names>", after "No match for argument: <name>" or "All matches were filtered out by
exclude filtering for argument: <name>" when an exclude= in dnf.conf or a repo hides it; dnf's strict=True default) or
when the request cannot be solved ("Problem: ... but none of the providers can be installed"); apt-get aborts on
"E: Unable to locate package <name>", "E: Package '<name>' has no installation candidate" and "E: Unable to correct
problems, you have held broken packages"; zypper on "No provider of '<name>' found"; pacman on "error: target not
found: <name>". Driver installers that wrap them (RPM Fusion helpers, ubuntu-drivers, distribution scripts) then
report that the driver "could not be installed". After such an abort nothing of the driver is on the machine unless
it was there before, so a text that shows the install of an NVIDIA driver package aborted, and shows no driver
(no nvidia-smi answer, no driver package or module file, no word that the driver worked or is installed, not an
upgrade or reinstall) reads as no_nvidia_driver: a guess, since an older driver the text does not show may remain.

A driver package installed into a container image (a Dockerfile's RUN line) is not the host's driver: not read.
"""

from __future__ import annotations

import re

from gpuassist.ingest.cuda_working import cuda_shown_working, smi_answered
from gpuassist.ingest.driver_installed import driver_shown_installed
from gpuassist.ingest.errors import Match

LINE = 2000
# How far after the install command the package manager's abort is looked for.
AFTER = 40
DRIVER_PACKAGE = (
    r"(?:akmod-nvidia|kmod-nvidia|xorg-x11-drv-nvidia|nvidia-driver|nvidia-open|nvidia-dkms|nvidia-kernel|"
    r"cuda-drivers|nvidia-\d{3}\b|nvidia-utils|nvidia-linux-x86|nvidia-graphics-drivers)"
)
# The install of a driver package (a package manager's install verb, not upgrade/reinstall), or a driver installer's
# driver step ("nvautoinstall driver", "ubuntu-drivers install", "INSTALLING PROPRIETARY DRIVERS").
INSTALL = re.compile(
    r"\b(?:dnf|yum|apt-get|apt|zypper|pacman)\b[^\n]{0,40}?(?:\binstall\b|\bin\b|-S\b)[^\n]{0,120}?"
    + DRIVER_PACKAGE
    + r"|\bubuntu-drivers\s+(?:auto)?install\b|\bnvautoinstall\s+(?:driver|nvrepo|rpmfusion)\b|"
    r"\bINSTALLING (?:THE )?(?:PROPRIETARY |NVIDIA )+DRIVERS?\b",
    re.IGNORECASE,
)
ABORTED = re.compile(
    r"^\s*Error: Unable to find a match\b|^\s*No match for argument:|"
    r"All matches were filtered out by exclude filtering for argument|"
    r"but none of the providers can be installed|^\s*E: Unable to locate package\b|"
    r"^\s*E: Package '[^']+' has no installation candidate|^\s*E: Unable to correct problems, you have held broken|"
    r"No provider of '[^']+' found|^\s*error: target not found:|"
    r"\b(?:proprietary |nvidia )?drivers? could not be installed\b",
    re.IGNORECASE,
)
UPGRADE = re.compile(r"\b(?:upgrad\w*|reinstall\w*|update[sd]? (?:the |my )?(?:nvidia )?driver)\b", re.IGNORECASE)
IMAGE_BUILD = re.compile(
    r"^\s*(?:Step \d+/\d+\s*:\s*|#\d+\s+\[[^\]\n]*\]\s*|#\d+\s+\S+\s+)?RUN\s|\bDockerfile\b|\bdocker build\b",
    re.IGNORECASE,
)


def driver_install_aborted_match(lines: list[str]) -> Match | None:
    """The package manager (or a driver installer) aborted the install of an NVIDIA driver package, and the text
    shows no driver: no_nvidia_driver as a guess, at the abort line."""
    install = next((no for no, line in enumerate(lines, start=1) if INSTALL.search(line[:LINE])), None)
    if install is None:
        return None
    aborted = next(
        (
            (no, line)
            for no, line in enumerate(lines[install - 1 : install - 1 + AFTER], start=install)
            if ABORTED.search(line[:LINE])
        ),
        None,
    )
    if aborted is None:
        return None
    if any(UPGRADE.search(line[:LINE]) or IMAGE_BUILD.search(line[:LINE]) for line in lines):
        return None
    if driver_shown_installed(lines) or cuda_shown_working(lines) or any(smi_answered(line) for line in lines):
        return None
    return Match("no_nvidia_driver", aborted[0], aborted[1].strip()[:500], False, 0.7)
