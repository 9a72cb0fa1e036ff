"""Readings of what runs on the machine: GPU memory held by processes nvidia-smi cannot see, and two Python
interpreters where the program runs in the other one."""

from __future__ import annotations

import re

from gpuassist.ingest import errors

# nvidia-smi's table: a GPU's memory cell ("12799MiB / 16280MiB"), the Processes section and its rows.
SMI_MEMORY = re.compile(r"\|\s*(\d+)\s*MiB\s*/\s*(\d+)\s*MiB\s*\|")


SMI_PROCESSES = re.compile(r"^\|\s*Processes:")


SMI_PROCESS_ROW = re.compile(r"^\|\s+\d+\s+(?:\S+\s+\S+\s+)?\d+\s+(?:C|G|C\+G|M|M\+C)\s+\S")


def smi_memory_held_match(lines: list[str], matches: list[errors.Match]) -> errors.Match | None:
    """nvidia-smi shows most of a GPU's memory in use (2 GiB or more, at least half) and its Processes section lists
    nobody: processes this view cannot see hold it (another container or user, a leftover process). A guess when no
    out-of-memory error is shown; with one, the memory held elsewhere is why it ran out."""
    if not any(SMI_PROCESSES.match(line[:2000]) for line in lines) or any(
        SMI_PROCESS_ROW.match(line[:2000]) for line in lines
    ):
        return None
    held = next(
        (
            (no, line)
            for no, line in enumerate(lines, start=1)
            if (m := SMI_MEMORY.search(line[:2000]))
            and int(m.group(2)) > 0
            and int(m.group(1)) >= 2048
            and int(m.group(1)) >= 0.5 * int(m.group(2))
        ),
        None,
    )
    if held is None:
        return None
    oom = any(m.id == "cuda_out_of_memory" for m in matches)
    return errors.Match("gpu_memory_held_by_others", held[0], held[1].strip()[:500], oom, 0.8)


# A line that is a Python interpreter's path ("'C:\\...\\envs\\py36\\python.exe'", "/usr/bin/python3"), alone or after
# sys.executable / `which python`.
INTERPRETER_LINE = re.compile(
    r"^\s*(?:[>$%#]\s*)?(?:(?:print\()?sys\.executable\)?\W*|which python3?\W*)?[`'\"]?"
    r"((?:[A-Za-z]:)?(?:[\\/]+[^\\/\s'\"`]+)+[\\/]+python(?:\d(?:\.\d+)?)?(?:\.exe)?)[`'\"]?\s*$",
    re.IGNORECASE,
)


MODULE_MISSING = re.compile(r"No module named|ModuleNotFoundError|is_available", re.IGNORECASE)


def two_interpreters_match(lines: list[str]) -> errors.Match | None:
    """The text shows two different Python interpreters (sys.executable in a shell and in a notebook, two `which
    python` answers) and a module missing or CUDA differing: the program runs in the other interpreter."""
    seen: dict[str, tuple[int, str]] = {}
    for no, line in enumerate(lines, start=1):
        m = INTERPRETER_LINE.match(line[:2000])
        if m:
            seen.setdefault(re.sub(r"[\\/]+", "/", m.group(1)).lower(), (no, line))
    if len(seen) < 2 or not any(MODULE_MISSING.search(line[:2000]) for line in lines):
        return None
    no, line = list(seen.values())[1]
    return errors.Match("wrong_interpreter_or_kernel", no, line.strip()[:500], True, 0.8)
