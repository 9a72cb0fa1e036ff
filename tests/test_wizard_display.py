"""Wizard pages show facts in words and tables: no raw JSON, no "{}" / "[]", driver CUDA as 12.4, what is
absent said with its reason; the monitor's time-axis layout (Qt-free)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpuassist.facts import Facts, NotCollected
from gpuassist.monitor.layout import MIN_SPAN_S, Band, band_labels, bands, x_range
from gpuassist.monitor.sampler import Marker
from gpuassist.report.blocks import Absent, Code, KeyValues, Series, Table, block_texts
from gpuassist.runtime import load_recording
from gpuassist.wizard.display import looks_raw, show, step_blocks

DATA = Path(__file__).parent / "data" / "runtime"


def recorded(name: str) -> Facts:
    host, results = load_recording(DATA / f"{name}.json")
    facts = dict(host)
    for r in results:
        facts.update(r.facts)
    return Facts(facts)


def texts(blocks: list[Any]) -> list[str]:
    return [t for b in blocks for t in block_texts(b) if t]


def table(blocks: list[Any], title_part: str) -> Table:
    return next(b for b in blocks if isinstance(b, Table) and title_part in b.title)


def test_single_values_read_as_words() -> None:
    assert show("driver.cuda_version", 12040) == "12.4"
    assert show("cuda.driver_version", 11080) == "11.8"
    assert show("driver.version", NotCollected("nvidia-smi timed out")) == "could not collect (nvidia-smi timed out)"
    assert show("driver.version", None).startswith("not found")
    assert show("cuda.available", True) == "yes" and show("platform.wsl", False) == "no"
    assert show("torch.cudnn_version", 90100) == "9.1.0" and show("torch.cudnn_version", 8902) == "8.9.2"
    assert show("torch.arch_list", ["sm_80", "sm_90"]) == "sm_80, sm_90"
    assert show("torch.arch_list", []) == "none"
    assert show("bench.extra", {}) == "none"
    assert show("x.y", {"a": 1, "b": [1, 2]}) == "a: 1; b: 1, 2"
    assert show("nvml.status", "library_not_found") == "library not found"


@pytest.mark.parametrize("raw", ["{}", "[]", '[{"device": "cpu"}]', 'Results [{"device": "cpu", "x": 1}]'])
def test_looks_raw(raw: str) -> None:
    assert looks_raw(raw)


def test_benchmark_on_a_gpu_machine() -> None:
    blocks = step_blocks("benchmark", recorded("rtx4090_healthy"), [])
    step = table(blocks, "Training step")
    assert step.columns[:6] == ["Device", "Variant", "Batch", "images/s", "ms per step", "spread"]
    assert step.rows[0] == ["cpu", "fp32", "64", "1,850", "34.59", "± 3 %", "1.00×"]
    amp = next(r for r in step.rows if r[1].startswith("AMP"))
    assert step.highlight == step.rows.index(amp)  # the fastest row
    speed = next(b for b in blocks if isinstance(b, KeyValues) and "Accelerator vs CPU" in b.title)
    assert speed.rows == [("cuda:0", "13.3× the CPU's images/s")]
    series = next(b for b in blocks if isinstance(b, Series))
    assert series.lines["cuda:0"][-1] == (512.0, 69095.82) and series.log_x
    scaling = table(blocks, "Batch-size scaling")
    assert scaling.rows[-1] == ["512", "69,096", "7.41", "—", "—"]
    prof = table(blocks, "CPU operators during the cuda:0 run")
    assert prof.rows[0][:2] == ["cudaLaunchKernel", "246"] and "Self device (ms)" in prof.columns
    assert not [t for t in texts(blocks) if looks_raw(t)]


def test_benchmark_without_an_accelerator_says_what_is_absent_and_why() -> None:
    facts = Facts(
        {
            "bench.config": {"devices": ["cpu"], "batch_size": 4},
            "bench.results": [
                {
                    "device": "cpu",
                    "variant": "fp32",
                    "batch_size": 4,
                    "step_ms": 3.9,
                    "images_per_s": 1015.8,
                    "spread_pct": 8.5,
                }
            ],
            "bench.scaling": [],
            "bench.variants": [],
            "bench.speedup": {},
            "bench.profile": NotCollected("profiler unavailable"),
        }
    )
    blocks = step_blocks("benchmark", facts, [])
    absent = [b for b in blocks if isinstance(b, Absent)]
    assert any("accelerators only" in b.text and "devices: cpu" in b.text for b in absent)
    assert any("profiler unavailable" in b.text for b in absent)
    assert not [t for t in texts(blocks) if looks_raw(t)]


def test_placement_tables_and_bandwidth_against_the_link() -> None:
    blocks = step_blocks("placement", recorded("rtx4090_healthy"), [])
    checks = table(blocks, "Correctness")
    assert checks.rows[0][0] == "cuda:0" and checks.rows[0][-1] == "✔ correct"
    bw = table(blocks, "bandwidth")
    assert bw.rows[-1][:3] == ["cuda:0", "64 MiB", "12.6  (40 %)"]  # 12.6 of PCIe Gen4 x16's 31.5 GB/s
    assert "PCIe Gen4 x16 = 31.5 GB/s" in bw.note
    mismatch = next(b for b in blocks if isinstance(b, KeyValues) and "mismatch" in b.title)
    assert dict(mismatch.rows)["Reproduced"] == "yes"
    assert not [t for t in texts(blocks) if looks_raw(t)]


def test_placement_without_an_accelerator() -> None:
    facts = Facts(
        {
            "placement.checks": [],
            "bandwidth.rows": [],
            "bandwidth.peak": {},
            "bandwidth.skipped": "no accelerator: nothing to copy to",
            "bandwidth.host_memcpy_gbps": 16.3,
            "placement.transfer": NotCollected("no accelerator"),
        }
    )
    blocks = step_blocks("placement", facts, [])
    absent = {b.title: b.text for b in blocks if isinstance(b, Absent)}
    assert (
        "nothing to copy to" in absent["Host ↔ device copy bandwidth"]
        and "16.3 GB/s" in absent["Host ↔ device copy bandwidth"]
    )
    assert absent["Cost of copying each batch"] == "Not measured: no accelerator."


def test_dataloader_trials_with_the_chosen_row_and_the_line_to_copy() -> None:
    facts = recorded("starving_dataloader")
    blocks = step_blocks("dataloader", facts, [])
    code = next(b for b in blocks if isinstance(b, Code))
    assert code.text == facts["sweep.dataloader_line"] and code.text.startswith("DataLoader(")
    trials = table(blocks, "Settings tried")
    assert trials.columns[:5] == ["num_workers", "pin_memory", "persistent_workers", "prefetch_factor", "batches/s"]
    best = facts["sweep.best"]
    assert trials.highlight is not None
    assert trials.rows[trials.highlight][0] == str(best["num_workers"])
    assert any("bound" in v for _, v in next(b for b in blocks if isinstance(b, KeyValues)).rows)
    assert not [t for t in texts(blocks) if looks_raw(t)]


def test_other_steps_list_their_key_facts() -> None:
    assert step_blocks("driver", Facts({}), [("Driver version", "550.54")]) == [
        KeyValues("What was found", [("Driver version", "550.54")])
    ]
    assert step_blocks("driver", Facts({}), []) == []


# -- the monitor's time axis -------------------------------------------------------------------------------


def test_x_axis_follows_the_data_with_a_minimum_span() -> None:
    assert x_range([]) == (0.0, MIN_SPAN_S)
    assert x_range([0.5, 1.0, 3.0]) == (0.5, 0.5 + MIN_SPAN_S)
    assert x_range([0.0, 20.0]) == (0.0, 20.0)  # 20 s of data fill the axis, not a third of 60 s
    assert x_range([0.0, 500.0]) == (200.0, 500.0)  # scrolls after 300 s
    assert x_range([2.0, 20.0], markers=[Marker("environment", "Diagnosis", 1.0, 3.0)]) == (1.0, 20.0)


def test_every_marker_gets_a_band_and_short_bands_carry_their_step_number() -> None:
    marks = [
        Marker("environment", "Diagnosis", 0.0, 2.0),
        Marker("placement", "Device placement", 2.0, 3.0),
        Marker("dataloader", "DataLoader sweep", 3.0, 40.0),
        Marker("benchmark", "CNN benchmark", 40.0, None),
    ]
    tags = {"environment": "1–3", "placement": "4", "dataloader": "5", "benchmark": "6"}
    got = bands(marks, now=41.0, tags=tags)
    assert [b.title for b in got] == ["Diagnosis", "Device placement", "DataLoader sweep", "CNN benchmark"]
    assert got[-1].running and got[-1].end == 41.0
    assert len({b.colour for b in got}) == 4
    # 0.1 s per pixel: 2 s = 20 px, 1 s = 10 px, 37 s = 370 px, the running one 1 s = 10 px
    titles, numbers = [60.0, 100.0, 100.0, 90.0], [14.0, 7.0, 7.0, 7.0]
    assert band_labels(got, 0.1, titles, numbers) == ["", "", "title", ""]
    assert band_labels(got, 0.05, titles, numbers) == ["tag", "tag", "title", "tag"]  # zoomed in: 2x the pixels
    # a label never runs into the one before it (a quick step widened to stay visible can overlap the next)
    close = [Band("placement", "P", 0.0, 2.0, False, 0, "4"), Band("dataloader", "D", 0.5, 3.0, False, 1, "5")]
    assert band_labels(close, 0.05, [50.0, 50.0], [7.0, 7.0]) == ["tag", ""]
    assert Band("x", "X", 1.0, 2.5, False, 0).legend == "X 1.0–2.5 s (1.5 s)"
    assert got[1].legend == "4 Device placement 2.0–3.0 s (1.0 s)"
