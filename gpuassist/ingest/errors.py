"""Name the root cause behind a pasted error message, traceback or log.

The symptom patterns live with the catalogue (knowledge/catalogue.json), so adding a symptom is a data
change. A *specific* pattern (e.g. "Driver/library version mismatch") names its cause; a generic one
("No CUDA GPUs are available") only makes each cause it can mean a possibility, shown as a warning with
what would confirm it. Numbers in the text (the driver's CUDA version, the GPU's sm_XY, the arch list)
become facts, so the rules can give the same exact fix a full diagnosis would.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from gpuassist.findings import Evidence, Finding, Severity
from gpuassist.ingest.kernel_log import wrapped_messages
from gpuassist.ingest.lines import MAX_LINE
from gpuassist.ingest.needles import any_of, fold, needles
from gpuassist.knowledge import catalogue, symptom_patterns
from gpuassist.knowledge.wheels import capability_from_name
from gpuassist.report.model import Report, step_summaries
from gpuassist.rules import order_findings


@dataclass(frozen=True)
class Match:
    id: str
    line_no: int
    line: str
    specific: bool
    weight: float = 1.0


@dataclass(frozen=True)
class _Pattern:
    id: str
    regex: re.Pattern[str]
    specific: bool
    weight: float


@dataclass(frozen=True)
class _Patterns:
    """The symptom patterns, with the literal needles that gate them (see ingest/needles.py)."""

    patterns: tuple[_Pattern, ...]
    by_prefix: dict[str, tuple[tuple[str, tuple[int, ...]], ...]]  # first 3 chars -> (needle, pattern indices)
    always: tuple[int, ...]  # patterns without a usable needle: tried on every line
    needle_starts: re.Pattern[str] | None  # zero-width match wherever any needle starts (overlapping)


@cache
def _compiled() -> _Patterns:
    patterns = tuple(_Pattern(p.id, p.regex, p.specific, p.weight) for p in symptom_patterns())
    by_needle: dict[str, list[int]] = {}
    always = []
    for index, p in enumerate(symptom_patterns()):
        found = needles(p.pattern)
        if found is None:
            always.append(index)
            continue
        for n in found:
            by_needle.setdefault(n, []).append(index)
    by_prefix: dict[str, list[tuple[str, tuple[int, ...]]]] = {}
    for needle, indices in by_needle.items():  # every needle has at least MIN_NEEDLE (3) characters
        by_prefix.setdefault(needle[:3], []).append((needle, tuple(indices)))
    trie = any_of(set(by_needle))
    starts = re.compile(f"(?=(?:{trie.pattern}))") if trie is not None else None
    return _Patterns(patterns, {k: tuple(v) for k, v in by_prefix.items()}, tuple(always), starts)


def _candidates(compiled: _Patterns, text: str, prefilter: bool) -> list[_Pattern] | tuple[_Pattern, ...]:
    """The patterns that can match ``text`` (in catalogue order): those whose needle it contains."""
    if not prefilter:
        return compiled.patterns
    folded = fold(text)
    chosen = set(compiled.always)
    if compiled.needle_starts is not None:
        # Every position where some needle starts (a lookahead finds overlapping ones too), then the needles
        # sharing that position's first three characters.
        for m in compiled.needle_starts.finditer(folded):
            at = m.start()
            for needle, indices in compiled.by_prefix.get(folded[at : at + 3], ()):
                if folded.startswith(needle, at):
                    chosen.update(indices)
    return [compiled.patterns[i] for i in sorted(chosen)]


def match_lines(lines: list[str], *, prefilter: bool = True) -> list[Match]:
    """Every (id, line) pair whose pattern matches, first line per id kept. A pattern is only tried on a
    line that contains one of its needles (a necessary condition), so a long log is read in one pass of
    cheap substring checks; the result is the same as trying every pattern on every line, which
    ``prefilter=False`` does (the reference the tests and benchmarks/ingest_speed.py compare with)."""
    found: dict[str, Match] = {}
    compiled = _compiled()

    def consider(fid: str, line_no: int, text: str, specific: bool, weight: float) -> None:
        prev = found.get(fid)
        if prev is None or (specific, weight) > (prev.specific, prev.weight):
            found[fid] = Match(fid, line_no, text[:500], specific, weight)

    for i, line in enumerate(lines):
        text = line.strip()[:MAX_LINE]
        if not text:
            continue
        hit = False
        for p in _candidates(compiled, text, prefilter):
            if p.regex.search(text):
                consider(p.id, i + 1, text, p.specific, p.weight)
                hit = True
        # A message wrapped over two lines in a paste: try it joined, and cite both lines.
        if not hit and i + 1 < len(lines) and lines[i + 1].strip():
            joined = f"{text} {lines[i + 1].strip()}"[:MAX_LINE]
            for p in _candidates(compiled, joined, prefilter):
                if p.regex.search(joined) and not p.regex.search(lines[i + 1]):
                    consider(p.id, i + 1, joined, p.specific, p.weight)
    # The driver's kernel messages wrap over several "NVRM:" lines: read each one whole as well.
    for line_no, message in wrapped_messages(lines):
        for p in _candidates(compiled, message, prefilter):
            if p.regex.search(message):
                consider(p.id, line_no, message, p.specific, p.weight)
    return _weigh_by_gpu_named(lines, list(found.values()))


ARCH_IDS = ("gpu_arch_too_new_for_build", "gpu_arch_dropped_from_build")


def _weigh_by_gpu_named(lines: list[str], matches: list[Match]) -> list[Match]:
    """ "no kernel image is available" fits a GPU too new *and* one too old for the build. When the text names
    a GPU whose compute capability is known (the user's prose "tesla K80", a log line), make the fitting
    cause the likelier guess. A guess stays a guess: only the weight changes."""
    if not any(m.id in ARCH_IDS and not m.specific for m in matches):
        return matches

    caps = []
    for line in lines:
        cc = capability_from_name(line[:MAX_LINE])
        if cc:
            caps.append(float(cc))
    if not caps:
        return matches
    likely = (
        "gpu_arch_dropped_from_build"
        if min(caps) < 7.0
        else "gpu_arch_too_new_for_build"
        if max(caps) >= 10.0
        else None
    )
    if likely is None:
        return matches
    return [
        Match(m.id, m.line_no, m.line, m.specific, m.weight + 0.2) if (m.id == likely and not m.specific) else m
        for m in matches
    ]


def unavailable_guesses(
    parsed_fields: dict[str, str], field_line: tuple[int, str] | None, has_gpu_lines: bool
) -> list[Match]:
    """collect_env says a CUDA build cannot use CUDA but no rule could tell why: list the likely causes as
    possibilities (weights from what the paste does say), citing the "Is CUDA available" line."""
    if field_line is None:
        return []
    no, line = field_line
    if has_gpu_lines:  # nvidia-smi saw the GPUs, so a driver is loaded
        guesses = {
            "cuda_visible_devices_hides_gpus": 0.4,
            "uvm_wedged_after_suspend": 0.3,
            "driver_library_mismatch": 0.2,
        }
    else:  # nvidia-smi gave nothing: no driver, no GPU, or no access to it
        guesses = {
            "no_nvidia_driver": 0.5,
            "no_nvidia_gpu": 0.4,
            "nvidia_module_not_loaded": 0.3,
            "docker_no_gpu_runtime": 0.2,
        }
    return [Match(fid, no, line, False, w) for fid, w in guesses.items()]


def facts_from_text(lines: list[str], matches: list[Match]) -> dict[str, Any]:
    """Facts the pasted text states outright (nothing guessed): the driver's CUDA version in "found
    version NNNNN", the GPU and its sm_XY in the compatibility warning, the build's arch list."""
    facts: dict[str, Any] = {"cuda.init_warnings": [m.line for m in matches]}
    for line in lines:
        v = re.search(r"found version (\d{4,5})", line)
        if v:
            facts["cuda.driver_version"] = int(v.group(1))
        cap = re.search(r" with CUDA capability sm_(\d+)(\d) is not compatible", line)
        name = line[: cap.start()].rsplit(":", 1)[-1].strip() if cap else ""  # the GPU is named before it
        if cap and name:
            facts["reported.gpus"] = [
                {"index": 0, "name": name, "compute_capability": f"{cap.group(1)}.{cap.group(2)}"}
            ]
        arch = re.search(r"supports CUDA capabilities ((?:sm_\d+a?\s*)+)", line)
        if arch:
            facts["torch.arch_list"] = arch.group(1).split()
    return facts


def confirm_step(fid: str) -> str:
    """The catalogue's way to confirm ``fid`` on the user's machine."""

    entry = catalogue().get(fid)
    return (entry.confirm if entry else "") or "run `gpuassist diagnose` on that machine"


# What a cause read from a pasted message explains, when it is there too (the same as the paste rule's own finding
# for that id says): a library shadowing the wheel's is why `import torch` fails or a CPU fallback loads.
PASTE_EXPLAINS: dict[str, tuple[str, ...]] = {
    "ld_library_path_shadowing": ("torch_import_error", "cpu_only_build"),
    # A CPU build sees no GPU whatever the scheduler allocates: requesting a GPU alone would not fix it.
    "cpu_only_build": ("scheduler_no_gpu_allocated",),
}


# What a gpu_in_use error shows working when it is not CUDA: the Apple GPU's MPS allocator.
GPU_SHOWN_WORKING = {"mps_out_of_memory": "the Apple GPU (MPS)"}
# Errors torch raises the same way on the CPU (a shape error under a CPU-only build's path): no device shown working.
DEVICE_NEUTRAL = {"tensor_shape_mismatch": "The pasted error names the tensor sizes that disagree."}


def _catalogue_finding(m: Match) -> Finding:

    entry = catalogue()[m.id]
    confirm = confirm_step(m.id)
    if entry.gpu_in_use:
        # The error shows CUDA working: a different problem, reported at info severity, never a failure
        # to use the GPU.
        severity, title = Severity.INFO, entry.title
        lead = DEVICE_NEUTRAL.get(m.id) or f"The pasted error shows {GPU_SHOWN_WORKING.get(m.id, 'CUDA')} working."
    elif m.specific:
        severity, title = Severity.ERROR, entry.title
        lead = "The pasted text shows this cause directly."
    else:
        severity, title = Severity.WARNING, f"Possible cause: {entry.title}"
        lead = "The pasted message is generic: this is one of the causes it can mean."
    return Finding(
        id=m.id,
        severity=severity,
        title=title,
        explanation=f"{lead} {entry.explanation}",
        fix=f"{entry.fix}\nTo confirm: {confirm}",
        evidence=[Evidence("pasted.line", f"line {m.line_no}: {m.line}")],
        step=entry.step,
        explains=list(PASTE_EXPLAINS.get(m.id, ())),
    )


def merge(report: Report, matches: list[Match]) -> None:
    """Add pattern findings to a report, letting a rule's richer finding for the same id win."""

    by_id = {f.id: f for f in report.findings}
    verdict = any(f.severity is Severity.ERROR for f in report.findings)
    for m in matches:
        if m.id in by_id:
            f = by_id[m.id]
            f.evidence.append(Evidence("pasted.line", f"line {m.line_no}: {m.line}"))
            if report.meta.get("source") == "error_text" and "To confirm:" not in f.fix:
                f.fix += f"\nTo confirm: {confirm_step(m.id)}"
            continue
        if not m.specific and (any(x.specific for x in matches) or verdict):
            continue  # a specific match already names the cause; don't dilute it with generic guesses
        f = _catalogue_finding(m)
        report.findings.append(f)
        by_id[f.id] = f
    ordered = order_findings(report.findings)
    # Among the guesses a generic message allows, the likeliest (highest pattern weight) goes first.
    weight = {m.id: m.weight for m in matches if not m.specific}
    guesses = sorted(
        (f for f in ordered if f.id in weight and f.title.startswith("Possible cause")), key=lambda f: -weight[f.id]
    )
    it = iter(guesses)
    report.findings[:] = [next(it) if (f.id in weight and f.title.startswith("Possible cause")) else f for f in ordered]
    report.steps[:] = step_summaries(report.findings, set())
