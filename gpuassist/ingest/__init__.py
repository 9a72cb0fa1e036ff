"""Offline diagnosis input (``gpuassist diagnose --from``): a gpuassist JSON report, collect_env output,
or an error message / traceback / log. Everything else is rejected with one line saying why."""

from __future__ import annotations

from gpuassist.facts import Facts
from gpuassist.ingest import collect_env, errors
from gpuassist.ingest.report_json import looks_like_json, parse_report
from gpuassist.ingest.text import UnreadableInput, clean_lines, decode
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


def load_text(text: str, *, label: str = "the input") -> Report:

    if looks_like_json(text):
        report = parse_report(text)
        report.meta.setdefault("source_label", label)
        report.meta["reopened_from"] = label
        return report
    lines = clean_lines(text)
    parsed = collect_env.parse(lines)
    matches = errors.match_lines(lines)
    if parsed.recognised:
        # collect_env's own field lines are read as facts by the parser; matching them again as error text
        # would turn "CUDA used to build PyTorch: None" on a Mac, or the WSL kernel name of a healthy WSL2
        # machine, into a claimed cause. Prose and torch's warnings around the fields still count.
        matches = [m for m in matches if m.line_no not in parsed.field_lines]
        facts = Facts(collect_env.to_facts(parsed))
        report = build_report(facts, source="collect_env", meta={
            "source_label": f"collect_env output ({label})",
            "missing_facts": parsed.missing,
        }, ran=set())
        if (facts.value("cuda.available") is False and facts.value("torch.cuda_build")
                and not report.has_error and not any(m.specific for m in matches)):
            matches += errors.unavailable_guesses(parsed.fields, _field_line(lines, parsed, "cuda_available"),
                                                  bool(parsed.gpu_lines))
        errors.merge(report, matches)
        return report
    if matches:
        facts = Facts(errors.facts_from_text(lines, matches))
        report = build_report(facts, source="error_text", meta={
            "source_label": f"an error message ({label})",
            "missing_facts": ["the machine's own facts: run `gpuassist diagnose` on that machine to confirm"],
        }, ran=set())
        errors.merge(report, matches)
        return report
    raise UnreadableInput(
        "found no collect_env output, gpuassist report or known PyTorch/CUDA error message in it "
        "(paste the output of `python -m torch.utils.collect_env`, or run `gpuassist diagnose` on that machine)"
    )
