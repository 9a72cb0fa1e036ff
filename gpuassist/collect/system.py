"""OS, kernel, distribution, CPU and RAM (``host.*``).

Linux facts come from files (``/proc``, ``/etc/os-release``) read through the injected filesystem, so a
recorded tree answers exactly like the machine did and nothing here spawns a process on Linux. macOS
uses one ``sysctl`` call; Windows (which has neither) uses the ``platform`` module and psutil, and only
when gpuassist actually runs there (a simulated Windows has no live data to offer).
"""

from __future__ import annotations

import os
import platform
import re
import shlex
from typing import Any

from gpuassist.collect.base import HostContext, first_line, read, strip_or_none
from gpuassist.facts import NotCollected

KEYS = ("host.os", "host.kernel", "host.distro", "host.machine", "host.cpu_model", "host.cpu_count", "host.ram_bytes")

# cpuinfo field that names the CPU, per architecture (x86: "model name"; arm64: "Model" / "Hardware").
_CPU_NAME_FIELDS = ("model name", "Model", "Hardware", "cpu model", "cpu")
_DARWIN_SYSCTL = [
    "sysctl",
    "kern.osrelease",
    "kern.osproductversion",
    "hw.machine",
    "machdep.cpu.brand_string",
    "hw.logicalcpu",
    "hw.memsize",
]


def collect(ctx: HostContext, out: dict[str, Any]) -> None:
    out["host.os"] = ctx.os_name
    if ctx.linux:
        _linux(ctx, out)
    elif ctx.os_name == "Darwin":
        _darwin(ctx, out)
    else:
        _generic(ctx, out)


def _linux(ctx: HostContext, out: dict[str, Any]) -> None:
    kernel = strip_or_none(read(ctx.fs, "/proc/sys/kernel/osrelease"))
    out["host.kernel"] = kernel if kernel is not None else _command_line(ctx, ["uname", "-r"])
    out["host.distro"] = os_release_name(ctx.fs.read_text("/etc/os-release") or ctx.fs.read_text("/usr/lib/os-release"))
    machine = strip_or_none(read(ctx.fs, "/proc/sys/kernel/arch"))  # kernels >= 6.1
    out["host.machine"] = machine if isinstance(machine, str) else _command_line(ctx, ["uname", "-m"])
    cpuinfo = read(ctx.fs, "/proc/cpuinfo", limit=8 << 20)
    if isinstance(cpuinfo, str):
        out["host.cpu_model"], out["host.cpu_count"] = parse_cpuinfo(cpuinfo)
    else:
        reason = cpuinfo if isinstance(cpuinfo, NotCollected) else NotCollected("no /proc/cpuinfo")
        out["host.cpu_model"] = out["host.cpu_count"] = reason
    meminfo = read(ctx.fs, "/proc/meminfo")
    ram = parse_meminfo_total(meminfo) if isinstance(meminfo, str) else None
    out["host.ram_bytes"] = ram if ram is not None else NotCollected("no MemTotal in /proc/meminfo")


def _darwin(ctx: HostContext, out: dict[str, Any]) -> None:
    # Without -n every line is "name: value", so an OID missing on an old macOS shifts nothing.
    res = ctx.run(_DARWIN_SYSCTL, timeout=3.0)
    if res.status != "ok" or not res.stdout.strip():
        detail = f" (exit {res.returncode})" if res.returncode else ""
        reason = NotCollected(f"sysctl: {res.status}{detail}")
        for key in KEYS[1:]:
            out[key] = reason
        return
    values = {}
    for line in res.stdout.splitlines():
        name, sep, value = line.partition(":")
        if sep:
            values[name.strip()] = value.strip()
    out["host.kernel"] = values.get("kern.osrelease")
    version = values.get("kern.osproductversion")
    out["host.distro"] = f"macOS {version}" if version else None
    out["host.machine"] = values.get("hw.machine")
    out["host.cpu_model"] = values.get("machdep.cpu.brand_string")
    out["host.cpu_count"] = _int(values.get("hw.logicalcpu"))
    out["host.ram_bytes"] = _int(values.get("hw.memsize"))


def _generic(ctx: HostContext, out: dict[str, Any]) -> None:
    """Windows and anything else: only the running interpreter can tell, so only when it is that OS."""
    if platform.system() != ctx.os_name:
        reason = NotCollected(f"simulated {ctx.os_name}: no live platform data")
        for key in KEYS[1:]:
            out[key] = reason
        return
    out["host.kernel"] = platform.version() or None
    out["host.distro"] = f"{ctx.os_name} {platform.release()} ({platform.version()})".strip()
    out["host.machine"] = platform.machine() or None
    out["host.cpu_model"] = platform.processor() or None
    out["host.cpu_count"] = os.cpu_count()
    import psutil  # start-up: importing psutil costs ~20 ms; Linux reads /proc instead

    out["host.ram_bytes"] = int(psutil.virtual_memory().total)


def _command_line(ctx: HostContext, argv: list[str]) -> str | NotCollected:
    res = ctx.run(argv, timeout=2.0)
    line = first_line(res.stdout) if res.ok else None
    return line if line else NotCollected(f"{' '.join(argv)}: {res.status}")


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def os_release_name(text: str | None) -> str | None:
    """``PRETTY_NAME`` (else ``NAME VERSION``) from an os-release file, shell-unquoted."""
    if not text:
        return None
    fields: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.strip().partition("=")
        if sep and key and not key.startswith("#"):
            try:
                parts = shlex.split(value)
            except ValueError:
                parts = [value.strip("\"'")]
            fields[key] = " ".join(parts)
    if fields.get("PRETTY_NAME"):
        return fields["PRETTY_NAME"]
    name = " ".join(v for v in (fields.get("NAME"), fields.get("VERSION")) if v)
    return name or None


def parse_cpuinfo(text: str) -> tuple[str | None, int | None]:
    """(CPU model name, logical CPU count) from /proc/cpuinfo, on x86 and ARM layouts."""
    count = 0
    names: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            continue
        key = key.strip()
        if key == "processor":
            count += 1
        elif key in _CPU_NAME_FIELDS and value.strip() and key not in names:
            names[key] = value.strip()
    model = next((names[f] for f in _CPU_NAME_FIELDS if f in names), None)
    return (re.sub(r"\s+", " ", model) if model else None), (count or None)


def parse_meminfo_total(text: str) -> int | None:
    m = re.search(r"^MemTotal:\s+(\d+)\s*kB", text, re.MULTILINE)
    return int(m.group(1)) * 1024 if m else None
