"""Severity means the user's setup (issue #16 item 2; walkthrough #3 and #8): gpuassist's own synthetic
workloads give measurements, not the headline, unless the machine cannot feed even a modest rate; the numbers
agree everywhere; demonstrations and generic tips are not findings about the user's setup."""

from __future__ import annotations

from typing import Any

from gpuassist.facts import Facts
from gpuassist.findings import Severity
from gpuassist.report.render import verdict
from gpuassist.report.tiers import tiers
from gpuassist.rules.runtime import MODEST_SAMPLES_PER_S, dataloader_starvation
from gpuassist.wizard.display import sweep_blocks
from gpuassist.wizard.export import run_all_headless
from gpuassist.wizard.model import StepContext


def sweep_facts(default_rate: float, best_rate: float, device: str = "cuda:0") -> Facts:
    best: dict[str, Any] = {
        "num_workers": 8,
        "pin_memory": False,
        "persistent_workers": True,
        "prefetch_factor": 4,
        "samples_per_s": best_rate,
    }
    default: dict[str, Any] = {
        "num_workers": 0,
        "pin_memory": False,
        "persistent_workers": False,
        "prefetch_factor": None,
        "samples_per_s": default_rate,
    }
    return Facts(
        {
            "sweep.default": default,
            "sweep.best": best,
            "sweep.trials": [default, best],
            "sweep.compute_seconds_per_batch": 32 / 50_000,
            "sweep.speedup_vs_default": round(best_rate / default_rate, 2) + 0.01,
            "sweep.config": {"batch_size": 32, "device": device, "per_sample_cost_us": 250},
            "sweep.dataloader_line": "DataLoader(dataset, batch_size=32, num_workers=8, persistent_workers=True)",
            "sweep.worker_startup": [{"num_workers": 8, "seconds": 0.14}, {"num_workers": 16, "seconds": 0.22}],
            "sweep.bound": "loader",
        }
    )


def test_a_synthetic_loader_measurement_is_info_with_the_chosen_workers_numbers() -> None:
    f = dataloader_starvation(sweep_facts(3563.0, 11561.0))
    assert f is not None and f.severity is Severity.INFO
    assert "11,561 samples/s with 8" in f.title
    assert "8 worker(s) costs 0.14 s" in f.explanation and "16 worker" not in f.explanation  # walkthrough: 16 vs 8
    speedup = f"{11561 / 3563:.2f}×"
    assert speedup in f.explanation
    shown = [b for b in sweep_blocks(sweep_facts(3563.0, 11561.0)) if getattr(b, "title", "") == "Use this DataLoader"]
    assert shown and speedup in shown[0].note  # the page says the same number as the finding and the table


def test_only_a_machine_that_cannot_feed_a_modest_rate_gets_a_warning() -> None:
    f = dataloader_starvation(sweep_facts(300.0, MODEST_SAMPLES_PER_S / 2))
    assert f is not None and f.severity is Severity.WARNING and "cannot feed" in f.title
    assert tiers([f]).problem is f


def test_with_no_gpu_in_use_the_sweep_says_so() -> None:
    f = dataloader_starvation(sweep_facts(3300.0, 6300.0, device="cpu"))
    assert f is not None and f.severity is Severity.INFO and "No GPU was in use" in f.explanation


def test_a_healthy_machine_is_headlined_as_healthy_with_three_tiers() -> None:
    report = run_all_headless(StepContext(scenario="healthy-linux-rtx4090", replay_speed=0))
    assert report is not None
    assert verdict(report).headline == "PyTorch can use NVIDIA GeForce RTX 4090"
    t = tiers(report.findings)
    assert t.problem is None
    assert {"dataloader_starvation", "amp_tf32_not_used"} <= {f.id for f in t.measured}
    assert "workload_left_on_cpu" in {f.id for f in t.tips}
    assert [f.id for f in t.demonstrations] == ["tensors_on_different_devices"]
