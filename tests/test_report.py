"""Reports: redaction (docs/architecture.md §6), the four renderers, and the collect_env-layout section."""

from __future__ import annotations

import json
import re

from gpuassist.facts import Facts, NotCollected
from gpuassist.findings import Evidence, Finding, Severity
from gpuassist.ingest import load_text
from gpuassist.report.model import Report, step_summaries
from gpuassist.report.redact import Redactor, redact_report
from gpuassist.report.render import render, verdict


def sample_report() -> Report:
    facts = Facts(
        {
            "python.executable": "/home/alice/proj/.venv/bin/python",
            "torch.version": "2.5.1+cpu",
            "torch.cuda_build": None,
            "driver.version": "550.54.14",
            "host.distro": "Ubuntu 22.04.4 LTS",
            "nvml.gpus": [
                {
                    "index": 0,
                    "name": "NVIDIA GeForce RTX 4090",
                    "compute_capability": "8.9",
                    "uuid": "GPU-5f3e2a1b-8c7d-4e6f-9a0b-1c2d3e4f5a6b",
                    "serial": "1324021001234",
                }
            ],
            "env": {
                "PIP_INDEX_URL": "https://alice:tok3n@pypi.example.com/simple",
                "HF_TOKEN": "hf_abcdefghijklmnop",
                "CUDA_VISIBLE_DEVICES": "GPU-5f3e2a1b-8c7d-4e6f-9a0b-1c2d3e4f5a6b",
            },
            "host.cpu_model": NotCollected("no /proc/cpuinfo"),
            "probe.stderr_tail": (
                "Traceback in /home/alice/proj/train.py on workbox-17 token ghp_abcdefghijklmnopqrstuv"
            ),
        }
    )
    findings = [
        Finding(
            "cpu_only_build",
            Severity.ERROR,
            "torch 2.5.1+cpu is a CPU-only build",
            "This interpreter has a CPU-only build | with a pipe.",
            "/home/alice/proj/.venv/bin/python -m pip install torch",
            [Evidence("torch.version", "2.5.1+cpu")],
            step="wheel",
        )
    ]
    return Report(
        facts,
        findings,
        step_summaries(findings, {"environment", "driver", "wheel"}),
        {},
        {"generated_at": "2026-11-22T00:00:00+00:00", "gpuassist_version": "0.1.0", "source": "live"},
    )


def redacted(report: Report, personal: bool = True) -> dict:
    r = Redactor(personal=personal, home="/home/alice", user="alice", host="workbox-17")
    return redact_report(report.to_json(), personal=personal, redactor=r)


def test_secrets_always_go() -> None:
    for personal in (True, False):
        text = json.dumps(redacted(sample_report(), personal))
        assert "tok3n" not in text and "hf_abcdefghijklmnop" not in text
        assert "ghp_abcdefghijklmnopqrstuv" not in text
        assert "5f3e2a1b" not in text and "1324021001234" not in text
        assert "https://pypi.example.com/simple" in text


def test_personal_data_redacted_by_default_only() -> None:
    on = redacted(sample_report(), True)
    text = json.dumps(on)
    assert "/home/alice" not in text and "workbox-17" not in text
    assert "~/proj/.venv/bin/python" in text
    assert on["meta"]["redaction"]["personal"] is True
    applied = on["meta"]["redaction"]["applied"]
    assert applied["home directory"] >= 2 and applied["host name"] == 1
    assert applied["environment variables outside the allow-list"] == 1  # HF_TOKEN
    off = json.dumps(redacted(sample_report(), False))
    assert "/home/alice/proj" in off and "workbox-17" in off


def test_redaction_is_idempotent_and_keeps_counts() -> None:
    once = redacted(sample_report())
    twice = redact_report(once, redactor=Redactor(home="/home/alice", user="alice", host="workbox-17"))
    assert twice["facts"] == once["facts"]
    assert twice["meta"]["redaction"]["applied"] == once["meta"]["redaction"]["applied"]


def test_every_format_leads_with_the_verdict() -> None:
    report = sample_report()
    v = verdict(report)
    assert v.severity == "error" and v.headline == report.findings[0].title
    for fmt in ("text", "markdown", "html"):
        out = render(report, fmt)
        head = out[: out.index(report.findings[0].fix[:20])]
        assert v.headline in head, fmt
    data = json.loads(render(report, "json"))
    assert data["schema"] == "gpuassist.report/1"
    assert Report.from_json(data).to_json() == data


def test_markdown_escapes_tables_and_carries_collect_env_layout() -> None:
    md = render(sample_report(), "markdown")
    assert "| `torch.version` | 2.5.1+cpu |" in md
    assert "could not collect (no /proc/cpuinfo)" in md
    # The collect_env-layout section reads back as collect_env output, with the same verdict.
    block = re.search(r"```\n(PyTorch version:.*?)```", md, re.S)
    assert block is not None
    again = load_text(block.group(1))
    assert again.findings[0].id == "cpu_only_build"


def test_html_is_self_contained_and_escaped() -> None:
    report = sample_report()
    report.findings[0].explanation = "<script>alert(1)</script>"
    html = render(report, "html")
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;" in html
    assert not re.search(r"""(src|href)=["']https?://""", html)
    assert "<style>" in html


def test_simulated_label_in_every_format() -> None:
    report = sample_report()
    report.meta.update({"simulated": True, "source": "simulated", "scenario": "demo"})
    for fmt in ("text", "markdown", "html", "json"):
        assert "SIMULATED" in render(report, fmt).upper(), fmt


def test_ok_verdict_when_cuda_works() -> None:
    facts = Facts(
        {
            "cuda.available": True,
            "torch.version": "2.5.1+cu124",
            "devices": [{"device": "cuda:0", "name": "NVIDIA GeForce RTX 4090"}],
        }
    )
    v = verdict(Report(facts, [], [], {}, {}))
    assert v.severity == "ok" and "RTX 4090" in v.headline


def test_a_script_run_cut_short_by_its_own_error_is_not_no_problem_found() -> None:
    """`audit --run` of a script that failed on a missing data file measured next to nothing: the verdict
    says so (a warning naming the error and its line), never "No problem found"."""
    exc = {
        "type": "FileNotFoundError",
        "message": "[Errno 2] No such file or directory: 'train.csv'",
        "site": {"file": "/home/alice/proj/train.py", "line": 3, "code": "open('train.csv')"},
    }
    facts = Facts({"run.exception": exc, "run.stop": {"reason": "error", "steps": 0}})
    v = verdict(Report(facts, [], [], {}, {}))
    assert v.severity == "warning" and v.icon == Severity.WARNING.icon
    assert v.headline == (
        "The script stopped with FileNotFoundError at train.py:3 after 0 steps: no GPU problem in what ran"
    )
    assert "train.csv" in v.detail
    assert verdict(Report(Facts({"run.stop": {"reason": "steps", "steps": 3}}), [], [], {}, {})).severity == "ok"
