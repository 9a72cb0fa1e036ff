"""What the host under a container decides about a Docker GPU error: a Mac, and an image built for another CPU.

Docker's GPU errors ("could not select device driver "" with capabilities: [[gpu]]", nvidia-container-cli failing
to start) are read as the NVIDIA Container Toolkit missing (docker_no_gpu_runtime). Two hosts make that reading
wrong, and the toolkit's install cannot help:

- a Mac: Docker Desktop for Mac runs containers in a Linux VM with no GPU passed through (Docker's "GPU support in
  Docker Desktop" lists Windows with the WSL 2 backend only), and an Apple silicon Mac has no NVIDIA GPU at all. A
  container asking for an NVIDIA GPU there asks for hardware the machine does not have = no_nvidia_gpu (the Mac's
  own GPU is usable natively through MPS, which the fix names).
- an image built for another CPU architecture than the host's. Docker warns "The requested image's platform
  (linux/amd64) does not match the detected host platform (linux/arm64/v8) and no specific platform was requested"
  (moby daemon/create.go, the daemon's image platform check) and runs it under emulation, if at all; the NVIDIA
  runtime then fails inside the hook. On a Jetson the GPU is reachable only from arm64 (L4T/JetPack) images, which
  is the Jetson reading (jetson_needs_nvidia_wheel: NVIDIA's JetPack-matched build or container); elsewhere the
  text shows no catalogue cause and the runtime/driver guesses are dropped rather than blamed.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.report.model import Report

# The readings of a Docker GPU error that say the host lacks the toolkit, a driver or its module.
HOST_SETUP_GUESSES = frozenset({"docker_no_gpu_runtime", "no_nvidia_driver", "nvidia_module_not_loaded"})

# Docker's warning (moby): the image's platform against the host's; amd64 on arm64 and the reverse.
PLATFORM_MISMATCH = re.compile(
    r"requested image'?s platform \((?P<image>linux/[\w/]+)\) does not match the detected host platform "
    r"\((?P<host>linux/[\w/]+)\)",
    re.IGNORECASE,
)


def _arch(platform: str) -> str:
    """linux/arm64/v8 -> arm64; linux/amd64 -> amd64."""
    parts = platform.lower().split("/")
    return parts[1] if len(parts) > 1 else platform.lower()


def docker_gpu_on_mac(report: Report, matches: list[Match]) -> list[Match]:
    """On a Mac, a container's request for an NVIDIA GPU cannot be met: no NVIDIA GPU (the toolkit guess goes)."""
    if report.facts.value("host.os") != "Darwin":
        return matches
    runtime = next((m for m in matches if m.id == "docker_no_gpu_runtime"), None)
    if runtime is None or any(m.id == "no_nvidia_gpu" and m.specific for m in matches):
        return matches
    kept = [m for m in matches if m.id not in ("docker_no_gpu_runtime", "no_nvidia_gpu")]
    return [Match("no_nvidia_gpu", runtime.line_no, runtime.line, True, 0.9), *kept]


def image_platform_mismatch(lines: list[str], report: Report, matches: list[Match]) -> list[Match]:
    """An image built for another CPU than the host's: the host-setup guesses go; on a Jetson the JetPack-matched
    NVIDIA container (jetson_needs_nvidia_wheel) is the cause."""
    found = next(
        (
            (no, line.strip()[:500], hit)
            for no, line in enumerate(lines, start=1)
            if (hit := PLATFORM_MISMATCH.search(line[:MAX_LINE])) is not None
        ),
        None,
    )
    if found is None or _arch(found[2].group("image")) == _arch(found[2].group("host")):
        return matches
    kept = [m for m in matches if m.specific or m.id not in HOST_SETUP_GUESSES]
    if not report.facts.value("platform.jetson") or _arch(found[2].group("host")) != "arm64":
        return kept
    kept = [m for m in kept if m.id != "jetson_needs_nvidia_wheel"]
    return [Match("jetson_needs_nvidia_wheel", found[0], found[1], True, 0.9), *kept]
