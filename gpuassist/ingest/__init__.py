"""Offline diagnosis input (``gpuassist diagnose --from``): a gpuassist JSON report, or any text a user
pastes: collect_env output (and its forks), an error message, traceback, REPL or notebook session, a
kernel log, nvidia-smi output, a pip/conda session, alone or mixed. The report names the kinds it read and
what it could not tell. Only text with nothing about Python, PyTorch, CUDA, NVIDIA or a GPU is refused."""

from __future__ import annotations

import json
import re

from gpuassist.facts import Facts
from gpuassist.findings import Evidence
from gpuassist.ingest import collect_env, errors, paste_causes, paste_facts
from gpuassist.ingest import kinds as kinds_mod
from gpuassist.ingest.report_json import looks_like_json, parse_report
from gpuassist.ingest.text import MAX_BYTES, UnreadableInput, clean_lines, decode
from gpuassist.report.build import build_report
from gpuassist.report.model import Report

__all__ = ["UnreadableInput", "load", "load_text"]


def load(data: bytes, *, label: str = "the input") -> Report:
    return load_text(decode(data), label=label)


def _field_line(lines: list[str], parsed: collect_env.CollectEnvParse, name: str) -> tuple[int, str] | None:
    for no in sorted(parsed.field_lines):
        found = collect_env.field_name(lines[no - 1])
        if found == name:
            return no, lines[no - 1].strip()
    return None


def _is_json(text: str) -> bool:
    """A text that starts with ``{`` is meant as JSON (a report); one that starts with ``[`` only if it
    parses: a kernel log line ``[12345.678] NVRM: ...`` starts with a bracket too."""
    if not looks_like_json(text):
        return False
    stripped = text.lstrip()
    if stripped.startswith("{"):
        return True
    try:
        json.loads(stripped)
    except (ValueError, RecursionError):
        return False
    return True


def _could_not_tell(facts: Facts, kinds: list[kinds_mod.InputKind]) -> list[str]:
    """What a verdict would need that the pasted text does not say."""
    out = []
    if not facts.known("torch.version"):
        out.append("which torch build runs (paste `python -m torch.utils.collect_env`)")
    if not facts.known("driver.version") and not facts.known("cuda.driver_version"):
        out.append("the NVIDIA driver version (`nvidia-smi`)")
    if not facts.known("reported.gpus"):
        out.append("the GPU model")
    if not kinds:
        out.append("any tool output or error message: the text only talks about the problem")
    return out


def load_text(text: str, *, label: str = "the input") -> Report:
    if len(text) > MAX_BYTES:  # a paste box has no size limit of its own
        raise UnreadableInput(f"the input is larger than {MAX_BYTES // (1024 * 1024)} MiB; a report or paste is "
                              "far smaller")
    if _is_json(text):
        report = parse_report(text)
        report.meta.setdefault("source_label", label)
        report.meta["reopened_from"] = label
        return report
    lines = clean_lines(text)
    parsed = collect_env.parse(lines)
    kinds = kinds_mod.detect(lines, collect_env=parsed.recognised, skip=parsed.field_lines)
    matches = paste_causes.adjust_matches(lines, errors.match_lines(lines))
    sources: paste_facts.Sources = {}
    extra = paste_facts.gather(lines, parsed.field_lines, sources)
    if parsed.recognised:
        # collect_env's own field lines are read as facts by the parser; matching them again as error text
        # would turn "CUDA used to build PyTorch: None" on a Mac, or the WSL kernel name of a healthy WSL2
        # machine, into a claimed cause. Prose and torch's warnings around the fields still count.
        matches = [m for m in matches if m.line_no not in parsed.field_lines]
        facts = Facts({**extra, **collect_env.to_facts(parsed)})
        report = build_report(facts, source="collect_env", meta={
            "source_label": f"{kinds_mod.describe(kinds)} ({label})",
            "input_kinds": [k.id for k in kinds],
            "missing_facts": parsed.missing,
        }, ran=set())
        if (facts.value("cuda.available") is False and facts.value("torch.cuda_build")
                and not report.has_error and not any(m.specific for m in matches)):
            matches += errors.unavailable_guesses(parsed.fields, _field_line(lines, parsed, "cuda_available"),
                                                  bool(parsed.gpu_lines))
        _add_paste_findings(report, lines, matches, sources)
        return report
    if not matches and not kinds and not extra and not kinds_mod.about_the_topic(text):
        raise UnreadableInput(
            "found nothing about Python, PyTorch, CUDA, NVIDIA or a GPU in it (paste the output of "
            "`python -m torch.utils.collect_env`, the error message, or run `gpuassist diagnose` on that machine)"
        )
    facts = Facts({**extra, **errors.facts_from_text(lines, matches)})
    report = build_report(facts, source="error_text", meta={
        "source_label": f"{kinds_mod.describe(kinds)} ({label})",
        "input_kinds": [k.id for k in kinds],
        "missing_facts": [*_could_not_tell(facts, kinds),
                          "the machine's own facts: run `gpuassist diagnose` on that machine to confirm"],
    }, ran=set())
    _add_paste_findings(report, lines, matches, sources)
    if not report.findings:
        report.meta["inconclusive"] = True
        report.meta["missing_facts"].insert(0, "the cause: nothing in the text names one")
    return report


def _add_paste_findings(report: Report, lines: list[str], matches: list[errors.Match],
                        sources: paste_facts.Sources) -> None:
    """Findings only the paste's paths show (the library or torch copy to blame), then the pattern matches;
    every finding a rule drew from facts the paste stated cites the line that stated them."""
    for found in (paste_causes.library_finding(lines), paste_causes.shadowed_torch_finding(lines)):
        if found is None:
            continue
        same = next((f for f in report.findings if f.id == found.id), None)
        if same is not None:
            report.findings.remove(same)
        report.findings.append(found)
    for inferred in (_jetson_match(lines, report, matches), _visible_devices_match(lines, report),
                     _container_run_match(lines, report)):
        if inferred is not None:
            matches = [*matches, inferred]
    errors.merge(report, matches)
    for f in report.findings:
        if any(e.fact == "pasted.line" for e in f.evidence):
            continue
        cited = dict.fromkeys(sources[e.fact] for e in f.evidence if e.fact in sources)
        f.evidence += [Evidence("pasted.line", f"line {no}: {line}") for no, line in cited]
        if cited and report.meta.get("source") == "error_text" and "To confirm:" not in f.fix:
            f.fix += f"\nTo confirm: {errors.confirm_step(f.id)}"


# The text says CUDA does not work ("is_available() returns False", "CPU-only version", "CUDA not available").
UNAVAILABLE = re.compile(r"is_available(?:\(\))?\)?\s*(?:returns?|returned|is|=+|->|:|gives)?\s*(?:i get\s+)?false|"
                         r"CUDA (?:is )?(?:not|un)available|CPU[- ]only (?:version|build|wheel)|"
                         r"no CUDA GPUs are available|no CUDA-capable device", re.IGNORECASE)
# A `docker run` (or podman) command line that gives the container no GPU.
CONTAINER_RUN = re.compile(r"\b(?:docker|podman|nerdctl)\s+run\b")
GPU_FLAGS = re.compile(
    r"--gpus\b|--runtime[= ]nvidia|--device[= ]\S*nvidia\.com/gpu|NVIDIA_VISIBLE_DEVICES|nvidia-docker"
)
VISIBLE_SET = re.compile(r"CUDA_VISIBLE_DEVICES\s*[\"']?\]?\s*=\s*[\"']?(?:-1|\d+(?:,\d+)*|\"\"|'')")


GENERIC_WHEEL = re.compile(r"manylinux|\bpypi\b|pip3? install torch\b|\+cpu\b|CPU[- ]only", re.IGNORECASE)


def _says_unavailable(lines: list[str]) -> bool:
    """The text says CUDA does not work, also across a line break ("is_available()\\n i get false")."""
    text = "\n".join(line[:2000] for line in lines[:5000])
    return UNAVAILABLE.search(re.sub(r"\s*\n\s*", " ", text)) is not None


def _visible_devices_match(lines: list[str], report: Report) -> errors.Match | None:
    """CUDA_VISIBLE_DEVICES set in the text (export, env prefix, os.environ) while CUDA sees no GPU: one of the
    likely causes (an index that does not exist, -1, or an empty value hides the GPUs)."""
    hit = next(((no, line) for no, line in enumerate(lines, start=1) if VISIBLE_SET.search(line[:2000])), None)
    if hit is None or report.facts.value("cuda.available") is True or not _says_unavailable(lines):
        return None
    return errors.Match("cuda_visible_devices_hides_gpus", hit[0], hit[1].strip()[:500], False, 0.7)


def _container_run_match(lines: list[str], report: Report) -> errors.Match | None:
    """The paste shows the container started without a GPU (no --gpus / NVIDIA runtime / CDI device) and CUDA
    unavailable or nvidia-smi missing inside it: the container was never given the GPU."""
    run = next(((no, line) for no, line in enumerate(lines, start=1)
                if CONTAINER_RUN.search(line[:2000]) and not GPU_FLAGS.search(line[:2000])), None)
    if run is None or report.facts.value("cuda.available") is True or any(GPU_FLAGS.search(line[:2000])
                                                                          for line in lines):
        return None
    no_gpu = report.facts.value("cuda.available") is False or _says_unavailable(lines) or any(
        re.search(r"nvidia-smi: (?:command )?not found", line[:2000]) for line in lines)
    if not no_gpu:
        return None
    return errors.Match("docker_no_gpu_runtime", run[0], run[1].strip()[:500], True, 0.9)


def _jetson_match(lines: list[str], report: Report, matches: list[errors.Match]) -> errors.Match | None:
    """On a Jetson, a torch without working CUDA is almost always a wheel that is not NVIDIA's JetPack build
    (PyPI's aarch64 wheels have no Tegra GPU support): the JetPack-matched wheel or container is the fix."""
    if not report.facts.value("platform.jetson") or report.facts.value("cuda.available") is True:
        return None
    says_unavailable = report.facts.value("cuda.available") is False or _says_unavailable(lines)
    if not says_unavailable and not any(m.id in ("cpu_only_build", "no_nvidia_driver", "no_nvidia_gpu")
                                        for m in matches) and not any(f.id == "cpu_only_build"
                                                                      for f in report.findings):
        return None
    no = next((i for i, line in enumerate(lines, start=1) if paste_facts.JETSON_RELEASE.search(line)), 1)
    # A verdict only when the text shows a non-JetPack wheel; otherwise (a container build, a wheel of unknown
    # origin) it is the likeliest of the possible causes.
    generic = any(m.id == "cpu_only_build" for m in matches) or any(
        f.id == "cpu_only_build" for f in report.findings) or any(GENERIC_WHEEL.search(line[:2000]) for line in lines)
    return errors.Match("jetson_needs_nvidia_wheel", no, lines[no - 1].strip()[:500], generic, 0.6)
