"""Offline diagnosis input (``gpuassist diagnose --from``): a gpuassist JSON report, collect_env output,
or an error message / traceback / log. Everything else is rejected with one line saying why."""

from __future__ import annotations

from gpuassist.facts import Facts
from gpuassist.ingest import collect_env, errors
from gpuassist.ingest.report_json import looks_like_json, parse_report
from gpuassist.ingest.text import UnreadableInput, clean_lines, decode
from gpuassist.report.model import Report

__all__ = ["UnreadableInput", "load", "load_text"]


def load(data: bytes, *, label: str = "the input") -> Report:
    return load_text(decode(data), label=label)


def load_text(text: str, *, label: str = "the input") -> Report:
    from gpuassist.diagnose import build_report

    if looks_like_json(text):
        report = parse_report(text)
        report.meta.setdefault("source_label", label)
        report.meta["reopened_from"] = label
        return report
    lines = clean_lines(text)
    parsed = collect_env.parse(lines)
    matches = errors.match_lines(lines)
    if parsed.recognised:
        facts = Facts(collect_env.to_facts(parsed))
        report = build_report(facts, source="collect_env", meta={
            "source_label": f"collect_env output ({label})",
            "missing_facts": parsed.missing,
        }, ran=set())
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
        "found no collect_env output, gpuassist report or known PyTorch/CUDA error message in it"
    )
