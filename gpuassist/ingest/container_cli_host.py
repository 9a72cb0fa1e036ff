"""nvidia-container-cli's own failure to load the driver's library is the HOST's driver missing, not a container's.

libnvidia-container (NVIDIA/libnvidia-container) runs on the host, as the prestart hook of the NVIDIA container
runtime or by hand (``nvidia-container-cli info``, ``-d log info``). Its driver service (src/driver.c, reached over
RPC from src/nvc.c's nvc_init: "initializing library context", "starting driver service") dlopen()s the host
driver's user-space libraries by soname, looked up in the host's ld cache (``using ldcache /etc/ld.so.cache``):
libnvidia-ml.so.1 on a desktop/server driver, libcuda.so.1 on Jetson, whose build (``+jetpack``) has no NVML. A
dlopen failure is reported as "load library failed: <dlerror()>", in the debug log as "could not start driver
service: load library failed: ...", and to the user as "nvidia-container-cli: initialization error: load library
failed: ..." or, when the service died, "initialization error: driver error: failed to process request". Such a
line says the host has no loadable NVIDIA driver library (the driver, or on Jetson the L4T CUDA driver package such
as nvidia-l4t-cuda / meta-tegra's tegra-libraries-cuda, is not installed or not in the ld cache): no_nvidia_driver,
not a container started without the runtime (the runtime is what failed, on the host). Where the CLI was run by
hand on the host (``nvidia-container-cli info``, its debug log) and no container start is in the text, that is a
verdict; inside a container engine's hook error it is a possibility beside the engine's own readings, since the
CLI looks the library up in the ld cache only. Under WSL the library comes from
Windows (/usr/lib/wsl/lib), so there the line keeps its WSL readings and nothing is claimed here.
"""

from __future__ import annotations

import re

from gpuassist.ingest.errors import Match
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.ingest.wsl_no_device import WSL_SHOWN

# libnvidia-container's dlopen failure of a driver library, in the CLI's and the debug log's forms.
CLI_LOAD_FAILED = re.compile(
    r"load library failed:\s*lib(?:cuda|nvidia-ml)\.so(?:\.1)?:\s*cannot open shared object file", re.IGNORECASE
)
# The text is libnvidia-container's: the CLI named, or its debug log's source files.
CLI_SHOWN = re.compile(
    r"\bnvidia-container-cli\b|\b(?:driver|nvc|rpc)\.c:\d+\]|could not start driver service", re.IGNORECASE
)
# A container engine started the CLI (its hook error), rather than a person on the host; the engine ends the
# passed-through error with its gRPC status (": unknown"), which the CLI run by hand never prints.
ENGINE_START = re.compile(
    r"error running hook|OCI runtime|:\s*unknown\.?\s*$|\b(?:docker|podman|nerdctl)\s+run\b|prestart hook",
    re.IGNORECASE,
)


def cli_cannot_load_driver(lines: list[str], matches: list[Match]) -> list[Match]:
    """The container CLI could not load the host's driver library: no_nvidia_driver citing its line (a verdict when
    the CLI was run by hand, else a possibility), and the container-runtime reading of that same line dropped."""
    head = [line[:MAX_LINE] for line in lines[:5000]]
    if not any(CLI_SHOWN.search(line) for line in head) or any(WSL_SHOWN.search(line) for line in head):
        return matches
    found = next((no for no, line in enumerate(head, start=1) if CLI_LOAD_FAILED.search(line)), None)
    if found is None:
        return matches
    kept = [m for m in matches if not (m.id == "docker_no_gpu_runtime" and CLI_LOAD_FAILED.search(m.line))]
    by_hand = not any(ENGINE_START.search(line) for line in head)
    return [*kept, Match("no_nvidia_driver", found, lines[found - 1].strip()[:500], by_hand, 0.9)]
