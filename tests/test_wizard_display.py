"""Wizard pages show facts in words: no raw JSON, no "{}", driver CUDA as 12.4."""

from __future__ import annotations

from gpuassist.facts import NotCollected
from gpuassist.wizard.display import show


def test_driver_cuda_reads_as_a_version() -> None:
    assert show("driver.cuda_version", 12040) == "CUDA 12.4"
    assert show("driver.cuda_version", None) == "unknown"


def test_benchmark_rows_and_empty_speedups() -> None:
    rows = [{"device": "cpu", "variant": "fp32", "batch_size": 32, "step_ms": 21.28, "images_per_s": 1504.0,
             "spread_pct": 16.5}]
    text = show("bench.results", rows)
    assert text == "cpu fp32, batch 32: 1,504 images/s (21.3 ms per step, ±16 %)"
    empty = show("bench.speedup", {})
    assert "{}" not in empty and "accelerators" in empty
    assert show("bench.speedup", {"cuda:0 vs cpu": 14.2}) == "cuda:0 vs cpu: 14.20×"


def test_sweep_trials_mark_the_best() -> None:
    trials = [{"num_workers": 0, "pin_memory": False, "persistent_workers": False, "prefetch_factor": None,
               "samples_per_s": 900.0},
              {"num_workers": 2, "pin_memory": True, "persistent_workers": True, "prefetch_factor": 4,
               "samples_per_s": 2100.0}]
    lines = show("sweep.trials", trials).splitlines()
    assert lines[0].startswith("  num_workers=0") and "prefetch_factor" not in lines[0]
    assert lines[1].startswith("→ num_workers=2") and "2,100 samples/s" in lines[1]


def test_missing_and_empty_values() -> None:
    assert show("placement.transfer", {"$not_collected": "no accelerator"}) == "could not collect (no accelerator)"
    assert show("bandwidth.rows", NotCollected("skipped")) == "could not collect (skipped)"
    assert show("torch.arch_list", []) == "none"
    assert show("bench.extra", {}) == "none"
