"""Reports carry everything the app shows (issue #16 item 5, #15 items 4–5): one assembly for the app's Export
and the CLI, with a header, every step's measurement tables and recommended lines, fixes as copyable blocks and
the monitor figure cropped to the run; ``gpuassist diagnose --full`` is Run all without a window (item 4).

Reproductions from the walkthrough (§6): the exports had no "Settings tried" table, no "Use this DataLoader"
line, no CNN results, no placement table, no header, and a figure that was mostly idle time."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from gpuassist.cli import main
from gpuassist.monitor import Trace
from gpuassist.monitor.figure import figure_svg, run_window
from gpuassist.report.model import Report
from gpuassist.wizard.export import assemble, header, report_trace, run_all_headless
from gpuassist.wizard.model import StepContext

MEASURED = [
    "Settings tried",
    "Use this DataLoader",
    "Training step, per device and variant",
    "Correctness on each device",
]


@pytest.fixture(scope="module")
def healthy() -> Report:
    report = run_all_headless(StepContext(scenario="healthy-linux-rtx4090", replay_speed=0))
    assert report is not None
    return report


@pytest.mark.parametrize("fmt", ["html", "markdown", "text"])
def test_every_format_carries_the_measurements_the_app_shows(healthy: Report, fmt: str) -> None:
    text = assemble(healthy, fmt)
    for title in MEASURED:
        assert title in text, (fmt, title)
    assert str(healthy.facts.value("sweep.dataloader_line")) in text
    rate = healthy.facts.value("bench.results")[0]["images_per_s"]
    assert f"{rate:,.0f}" in text


def test_the_header_names_target_gpu_driver_torch_os_date_and_version(healthy: Report) -> None:
    rows = dict(header(healthy))
    assert rows["GPU"] == "NVIDIA GeForce RTX 4090"
    assert rows["Driver"].startswith(str(healthy.facts.value("driver.version")))
    assert rows["torch"].startswith(str(healthy.facts.value("torch.version")))
    assert {"Target interpreter", "Operating system", "Date", "gpuassist"} <= set(rows)
    live = Report(
        healthy.facts, [], [], {}, dict(healthy.meta, target="/p/bin/python", target_reason="the active virtualenv")
    )
    assert dict(header(live))["Target interpreter"] == "/p/bin/python — the active virtualenv"
    html = assemble(healthy, "html")
    assert '<table class="header">' in html and "<th>Driver</th>" in html


def test_fixes_are_blocks_each_with_its_copy_and_the_reboot_alone() -> None:
    report = run_all_headless(StepContext(scenario="driver-too-old-r570-cu130", replay_speed=0))
    assert report is not None
    html = assemble(report, "html")
    assert '<pre class="run">sudo reboot</pre>' in html
    blocks = re.findall(r'<pre class="run">(.*?)</pre>', html, re.S)
    assert not any("sudo reboot" in b and b != "sudo reboot" for b in blocks)
    assert html.count('onclick="copyBlock(this)"') >= len(blocks)
    md = assemble(report, "markdown")
    assert "```\nsudo reboot\n```" in md and "**Option 2 of 2**" in md
    data = json.loads(assemble(report, "json"))
    assert all(f["actions"] for f in data["findings"] if f["fix"])


def test_the_figure_is_cropped_to_the_run_with_its_bands_and_unit(healthy: Report) -> None:
    trace = report_trace(healthy)
    assert trace is not None
    start, end = run_window(trace)
    starts = [m.start for m in trace.markers]
    ends = [m.end for m in trace.markers if m.end is not None]
    assert start <= min(starts) and end >= max(ends) and end - start <= max(ends) - min(starts) + 2.5
    svg = figure_svg(trace)
    assert svg.startswith("<svg") and "s since Run all" in svg
    widths = [
        float(w)
        for w in re.findall(r'opacity="0.45"><title>[^<]*</title></rect>', svg)
        and re.findall(r'width="([\d.]+)" height="120" fill="#', svg)
    ]
    assert widths and min(widths) >= 6.0  # a short step keeps a visible band
    # an idle tail after the run is left out: a trace 10 minutes longer draws the same window
    data: dict[str, Any] = trace.to_dict()
    longer = Trace.from_dict(
        {
            **data,
            "t": [*data["t"], data["t"][-1] + 600],
            "cpu": [*data["cpu"], 5.0],
            "ram": [*data["ram"], 5.0],
            "cores": [[*c, 5.0] for c in data["cores"]],
            "gpus": [{**g, **{k: [*v, v[-1]] for k, v in g.items() if isinstance(v, list)}} for g in data["gpus"]],
        }
    )
    assert run_window(longer) == run_window(trace)


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "html"])
def test_diagnose_full_simulate_in_every_format(tmp_path: Any, fmt: str) -> None:
    out = tmp_path / f"r.{fmt}"
    code = main(["diagnose", "--simulate", "healthy-linux-rtx4090", "--full", "--format", fmt, "--output", str(out)])
    assert code == 0
    text = out.read_text(encoding="utf-8")
    if fmt == "json":
        data = json.loads(text)
        assert data["meta"]["full"] is True and "sweep.best" in data["facts"] and "bench.results" in data["facts"]
        assert data["monitor"]["markers"]
    else:
        assert "Settings tried" in text


def test_diagnose_full_after_a_blocking_diagnosis_offers_the_benchmarks(tmp_path: Any) -> None:
    out = tmp_path / "r.json"
    code = main(
        ["diagnose", "--simulate", "cpu-only-build-rtx4090", "--full", "--format", "json", "--output", str(out)]
    )
    assert code == 1
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["meta"]["offered"] == ["dataloader"]
    step = next(s for s in data["steps"] if s["id"] == "dataloader")
    assert step["status"] == "offered" and "CPU only" in step["note"]


def test_full_cannot_read_a_paste(capsys: Any) -> None:
    assert main(["diagnose", "--full", "--from", "-"]) == 2
    assert "--full" in capsys.readouterr().err


def test_evidence_reads_in_words_and_the_raw_key_stays_in_the_json() -> None:
    """Walkthrough (plain language): evidence showed `nvml.status`, `dev.nodes`, `pci.nvidia_gpu_count`."""
    from gpuassist.sim import simulate
    from gpuassist.wizard.display import fact_label

    report = simulate("no-nvidia-gpu-cloud-vm")
    keys = {e.fact for f in report.findings for e in f.evidence}
    assert "pci.nvidia_gpu_count" in keys
    assert fact_label("pci.nvidia_gpu_count") == "NVIDIA GPUs on the PCI bus"
    assert all(fact_label(k) != k for k in keys), [fact_label(k) for k in keys]
    for fmt in ("html", "markdown", "text"):
        assert "NVIDIA GPUs on the PCI bus" in assemble(report, fmt), fmt
    assert '"fact": "pci.nvidia_gpu_count"' in assemble(report, "json")
