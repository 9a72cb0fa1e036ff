"""Offline diagnosis input (``gpuassist diagnose --from``): a gpuassist JSON report, or any text a user
pastes: collect_env output (and its forks), an error message, traceback, REPL or notebook session, a
kernel log, nvidia-smi output, a pip/conda session, alone or mixed. The report names the kinds it read and
what it could not tell. Only text with nothing about Python, PyTorch, CUDA, NVIDIA or a GPU is refused."""

from __future__ import annotations

import json
import re

from gpuassist.facts import Facts
from gpuassist.ingest import (
    collect_env,
    collect_env_readings,
    conda_commands,
    conda_dry_run,
    cuda_driver_api,
    env_reports,
    errors,
    fitting_build,
    gpus_flag,
    illegal_access_words,
    killed_holder,
    later_success,
    named_gpu,
    not_about_failure,
    paste_causes,
    paste_facts,
    program_devices,
    steps,
    structured_logs,
    torch_build_words,
    torch_rows,
    usage_words,
    user_words,
    word_rows,
)
from gpuassist.ingest import kinds as kinds_mod
from gpuassist.ingest.build_facts import windows_pypi_build
from gpuassist.ingest.lines import Sources
from gpuassist.ingest.log_prefixes import strip_log_prefixes
from gpuassist.ingest.report_json import looks_like_json, parse_report
from gpuassist.ingest.text import MAX_BYTES, UnreadableInput, clean_lines, decode
from gpuassist.report.build import build_report
from gpuassist.report.model import Report

__all__ = ["UnreadableInput", "load", "load_text"]


def load(data: bytes, *, label: str = "the input") -> Report:
    return load_text(decode(data), label=label)


# A Python dict's repr: "{'key': ..." (JSON quotes its keys with double quotes).
PYTHON_DICT = re.compile(r"\{\s*'")


def _is_json(text: str) -> bool:
    """A text that starts with ``{`` is meant as JSON (a report), unless it is a Python dict's repr; one that
    starts with ``[`` only if it parses: a kernel log line ``[12345.678] NVRM: ...`` starts with a bracket too."""
    if not looks_like_json(text):
        return False
    stripped = text.lstrip()
    if PYTHON_DICT.match(stripped):
        return False  # a Python dict printed by a tool (mmcv's collect_env()): its keys are in single quotes
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
        raise UnreadableInput(
            f"the input is larger than {MAX_BYTES // (1024 * 1024)} MiB; a report or paste is far smaller"
        )
    if _is_json(text):
        # journalctl -o json, Docker's json-file log, kubectl's events as JSON: the messages are the paste
        unwrapped = structured_logs.log_lines(text)
        if unwrapped is not None:
            return load_text(unwrapped, label=label)
        report = parse_report(text)
        report.meta.setdefault("source_label", label)
        report.meta["reopened_from"] = label
        return report
    lines = collect_env.unflatten(strip_log_prefixes(clean_lines(text)))
    parsed = collect_env.parse(lines)
    kinds = kinds_mod.detect(lines, collect_env=parsed.recognised, skip=parsed.field_lines)
    raw_matches = errors.match_lines(lines)
    matches = paste_causes.adjust_matches(lines, raw_matches)
    matches = killed_holder.holder_killed(lines, raw_matches, matches)  # the blamed process already stopped
    # a CUDA fault told in words is the text's error as much as CUDA's own line (a template's bullets then add facts)
    matches += illegal_access_words.told_matches(lines, matches)
    matches = conda_dry_run.plan_only(lines, matches)  # a dry run's plan is not the installed build
    matches = conda_commands.cpuonly_beside_cuda(lines, matches)  # two environments described
    matches = gpus_flag.gpus_flag_elsewhere(lines, matches)  # --gpus given to docker build/exec, podman
    matches = word_rows.asked_not_told(lines, matches)  # the user's retelling asked, not told
    sources: Sources = {}
    extra = paste_facts.gather(lines, parsed.field_lines, sources)
    # A tool's own output wins over the user's words, and those over a setting read from a command or script.
    extra = {
        **torch_build_words.stated_build_facts(lines, sources),  # the user's words: every other reading wins
        **named_gpu.bare_model_facts(lines, sources),
        **program_devices.program_visible_devices_facts(lines, sources),
        **usage_words.visible_devices_facts(lines, sources),
        **user_words.stated_facts(lines, sources),
        **fitting_build.accelerator_facts(lines, sources),
        **extra,
    }
    program_devices.resolve_shell_value(extra, lines, sources)
    if parsed.recognised and not collect_env_readings.filled_in_template(lines, parsed, matches):
        # collect_env's own field lines are read as facts by the parser; matching them again as error text
        # would turn "CUDA used to build PyTorch: None" on a Mac, or the WSL kernel name of a healthy WSL2
        # machine, into a claimed cause. Prose and torch's warnings around the fields still count.
        matches = [m for m in matches if m.line_no not in parsed.field_lines]
        merged = {**extra, **collect_env.to_facts(parsed)}
        windows_pypi_build(merged, lines, sources)  # collect_env's own "Python platform: Windows-..." is known now
        facts = Facts(merged)
        report = build_report(
            facts,
            source="collect_env",
            meta={
                "source_label": f"{kinds_mod.describe(kinds)} ({label})",
                "input_kinds": [k.id for k in kinds],
                "missing_facts": [
                    *parsed.missing,
                    *(torch_rows.cut_package_list(lines) or torch_rows.cut_before_selected_pytorch(lines)),
                ],
            },
            ran=set(),
        )
        if (
            facts.value("cuda.available") is False
            and facts.value("torch.cuda_build")
            and not report.has_error
            and not any(m.specific for m in matches)
        ):
            matches += errors.unavailable_guesses(
                parsed.fields, collect_env_readings.field_line(lines, parsed, "cuda_available"), bool(parsed.gpu_lines)
            )
        matches += collect_env_readings.torch_not_importable(lines, parsed, facts)
        steps.run(report, lines, matches, sources)
        return report
    if (
        not matches
        and not kinds_mod.facts_about_the_topic(extra)
        and kinds_mod.only_generic(kinds)
        and not kinds_mod.about_the_topic(text)
    ):
        raise UnreadableInput(
            "found nothing about Python, PyTorch, CUDA, NVIDIA or a GPU in it (paste the output of "
            "`python -m torch.utils.collect_env`, the error message, or run `gpuassist diagnose` on that machine)"
        )
    matches = not_about_failure.quoted_in_a_question(lines, matches)  # asked about, not reported
    matches = not_about_failure.quoted_in_a_request(lines, matches)  # asked to be explained better, not reported
    matches = not_about_failure.told_not_shown(lines, matches)  # quoted from elsewhere or said to be over
    matches = later_success.build_failure_fixed_later(lines, matches)  # a module build shown fixed later
    template = collect_env.to_facts(parsed) if parsed.recognised else {}
    facts = Facts(
        {**cuda_driver_api.driver_facts(lines), **template, **extra, **errors.facts_from_text(lines, matches)}
    )
    matches = env_reports.platform_field_guesses(lines, matches, cuda_works=facts.value("cuda.available") is True)
    report = build_report(
        facts,
        source="error_text",
        meta={
            "source_label": f"{kinds_mod.describe(kinds)} ({label})",
            "input_kinds": [k.id for k in kinds],
            "missing_facts": [
                *_could_not_tell(facts, kinds),
                "the machine's own facts: run `gpuassist diagnose` on that machine to confirm",
            ],
        },
        ran=set(),
    )
    steps.run(report, lines, matches, sources)
    if not report.findings:
        report.meta["inconclusive"] = True
        report.meta["missing_facts"].insert(0, "the cause: nothing in the text names one")
    return report
