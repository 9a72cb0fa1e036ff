"""Simulated machines run the whole wizard (Qt-free): each GPU scenario's recorded runtime tests agree with the
machine the scenario describes, replay through the live facts path to the findings expected of that machine,
and its monitor trace shows what each step did (a GPU starved by its DataLoader idles during that step)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from gpuassist.facts import Facts
from gpuassist.monitor import Monitor, Trace, TraceSource
from gpuassist.runtime import replay, runtime_report
from gpuassist.sim import list_scenarios, load_scenario, runtime_events, runtime_tests, simulate
from gpuassist.wizard import StepContext, StepStatus, build_flow
from gpuassist.wizard.steps import RUNTIME_TESTS

RECORDED = sorted(s.name for s in list_scenarios() if runtime_tests(s.name))

# What the measurements must find on each machine (first = the worst finding of that test's step).
EXPECTED: dict[str, dict[str, dict[str, Any]]] = {
    "healthy-linux-rtx4090": {
        "placement": {"absent": ["pcie_link_degraded"]},
        "bench": {"ids": ["amp_tf32_not_used"], "absent": ["thermal_power_throttling"]},
    },
    "pcie-x1-riser": {"placement": {"first": "pcie_link_degraded"}},
    "gpu-thermal-slowdown-at-idle": {"bench": {"first": "thermal_power_throttling"}},
    "dataloader-starvation-4-cores": {"sweep": {"first": "dataloader_starvation"}},
    "healthy-2x-a100-server": {"placement": {"ids": ["multi_gpu_unused"], "absent": ["pcie_link_degraded"]}},
    "healthy-wsl2-rtx3080-laptop": {"placement": {"absent": ["pcie_link_degraded", "wsl_pinned_memory_limit"]}},
    "healthy-windows-rtx3080-laptop": {"sweep": {"absent": ["dataloader_starvation"]}},  # spawn: workers cost
    "healthy-rocm-rx7900xtx": {"bench": {"absent": ["cudnn_benchmark_off", "thermal_power_throttling"]}},
    "no-nvidia-gpu-cloud-vm": {"bench": {"absent": ["amp_tf32_not_used", "workload_left_on_cpu"]}},
    "cpu-only-build-rtx4090": {"sweep": {"first": "dataloader_starvation"}},
}
MUST_RECORD = {
    "healthy-linux-rtx4090",
    "healthy-docker-gpus-all",
    "healthy-slurm-job-with-gpu",
    "pcie-x1-riser",
    "gpu-thermal-slowdown-at-idle",
    "healthy-2x-a100-server",
    "healthy-wsl2-rtx3080-laptop",
    "healthy-windows-rtx3080-laptop",
    "healthy-mig-slice-uuid",
    "healthy-rocm-rx7900xtx",
    "healthy-jetson-orin-jetpack",
    "dataloader-starvation-4-cores",
}


def probe_facts(data: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for stage in (data.get("probe") or {}).get("stages") or []:
        out.update(stage.get("facts") or {})
    return out


def bus(value: Any) -> str | None:
    m = re.search(r"([0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])$", str(value or ""))
    return m.group(1).lower() if m else None


def test_every_healthy_gpu_machine_and_the_runtime_cases_have_recordings() -> None:
    healthy = {s.name for s in list_scenarios() if s.name.startswith("healthy-")}
    assert MUST_RECORD | healthy <= set(RECORDED)
    for name in MUST_RECORD:
        assert set(runtime_tests(name)) == {"placement", "sweep", "bench"}, name


@pytest.mark.parametrize("name", RECORDED)
def test_recordings_agree_with_the_machine(name: str) -> None:
    scenario = load_scenario(name)
    data = scenario.data
    probe = probe_facts(data)
    diagnosis = simulate(name).facts
    for test in runtime_tests(name):
        events = runtime_events(scenario, test) or []
        assert events[0] == {"event": "launch", "python": data["probe"]["python"], "rt": 0.0}
        assert [e["rt"] for e in events] == sorted(e["rt"] for e in events)  # timed like a live run
        result = replay(test, events)
        assert result.outcome == "ok", (test, result.facts.get(f"{test}.error"))
        torch = result.facts[f"{test}.torch"]
        assert torch["version"] == probe["torch.version"]
        assert torch["cuda"] == probe.get("torch.cuda_build") and torch["hip"] == probe.get("torch.hip_build")
        if test == "placement":
            devices = [d for d in result.facts["placement.devices"] if d["kind"] != "cpu"]
            assert result.facts["placement.cuda_available"] is bool(probe.get("cuda.available"))
            assert [(d["device"], d["name"], d["capability"], d["total_memory"]) for d in devices] == [
                (d["device"], d["name"], d["capability"], d["total_memory"]) for d in probe.get("devices") or []
            ]
            nvml = {bus(g.get("pci_bus_id")) for g in diagnosis.value("nvml.gpus") or []}
            for d in devices:  # torch's device and NVML's GPU are the same card (no NVML on ROCm/Jetson)
                assert not nvml or bus(d["pci_bus_id"]) in nvml, d
        if test == "sweep":
            config = result.facts["sweep.config"]
            cores = diagnosis.value("host.cpu_count")
            assert cores is None or config["cpu_count"] == cores
            assert config["device"] == ("cuda:0" if probe.get("cuda.available") else "cpu")
            assert config["start_method"] == ("spawn" if data["host"].get("os") == "Windows" else "fork")
            trials = result.facts["sweep.trials"]
            assert result.facts["sweep.best"] in trials and result.facts["sweep.default"] in trials
        if test == "bench":
            samples = result.facts.get("bench.gpu_samples") or []
            nvml_ok = diagnosis.value("nvml.status") == "ok"
            assert bool(samples) == nvml_ok, "NVML answers under load exactly where the host has NVML"
            accels = result.facts["bench.config"]["devices"][:-1]
            assert accels == [d["device"] for d in probe.get("devices") or []]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_recordings_give_the_findings_of_that_machine(name: str) -> None:
    scenario = load_scenario(name)
    host = dict(simulate(name).facts.items())
    for test, want in EXPECTED[name].items():
        result = replay(test, runtime_events(scenario, test) or [])
        ids = [f.id for f in runtime_report([result], host).findings]
        if "first" in want:
            assert ids and ids[0] == want["first"], (test, ids)
        assert set(want.get("ids", [])) <= set(ids), (test, ids)
        assert not set(want.get("absent", [])) & set(ids), (test, ids)


def run_flow(name: str) -> Any:
    flow = build_flow(StepContext(scenario=name, replay_speed=0))
    flow.execute(None)
    return flow


def test_a_machine_without_a_usable_gpu_skips_what_needs_one_and_offers_the_cpu_benchmarks() -> None:
    """Walkthrough #5: after a blocking diagnosis Run all shows the verdict at once; the benchmarks that can
    only measure the CPU are offered (their Run this step runs them), not run."""
    flow = run_flow("cpu-only-build-rtx4090")
    assert flow.state("wheel").status is StepStatus.ERROR
    assert flow.state("placement").status is StepStatus.SKIPPED
    assert flow.state("placement").reason == "skipped because Wheel type found a problem"
    assert flow.state("benchmark").reason == "skipped because Device placement was skipped"
    assert flow.offered() == ["dataloader"]
    assert "measure the CPU only" in flow.state("dataloader").reason
    report = flow.report()
    assert report is not None and report.findings[0].id == "cpu_only_build"  # the root cause stays first
    flow.execute(flow.offered())  # "Run them anyway"
    loader = flow.state("dataloader")
    assert loader.result is not None and loader.result.facts["sweep.config"]["device"] == "cpu"
    report = flow.report()
    assert report is not None and report.findings[0].id == "cpu_only_build"
    sweep = next(f for f in report.findings if f.id == "dataloader_starvation")
    assert sweep.severity.value == "info" and "No GPU was in use" in sweep.explanation  # a measurement
    # a scenario with nothing recorded says so, naming the scenario (not a made-up result)
    other = run_flow("no-driver-fresh-install")
    st = other.state("dataloader")
    assert st.status is StepStatus.UNAVAILABLE and "scenario no-driver-fresh-install" in st.reason


def test_what_the_diagnosis_saw_at_rest_waits_on_its_step_and_the_measurement_replaces_it() -> None:
    flow = build_flow(StepContext(scenario="pcie-x1-riser", replay_speed=0))
    flow.execute(["wheel"])
    pending = flow.state("placement")
    assert pending.status is StepStatus.PENDING and [f.id for f in pending.findings] == ["pcie_link_degraded"]
    assert "run the step to measure it" in pending.note
    early = flow.report()
    assert early is not None and "x1" in early.findings[0].explanation
    flow.execute(["placement"])
    measured = flow.report()
    assert measured is not None
    links = [f for f in measured.findings if f.id == "pcie_link_degraded"]
    assert len(links) == 1 and "GB/s" in links[0].explanation  # once, with the measured bandwidth
    assert measured.findings[0] is links[0]


def marker(trace: dict[str, Any], step: str) -> tuple[float, float]:
    m = next(m for m in trace["markers"] if m["step"] == step)
    return m["start"], m["end"]


def mean_in(trace: dict[str, Any], series: list[float], span: tuple[float, float]) -> float:
    t = np.array(trace["t"])
    values = np.array(series, dtype=float)
    return float(values[(t >= span[0]) & (t < span[1])].mean())


def test_the_monitor_trace_shows_the_gpu_idling_while_the_dataloader_step_keeps_the_cpu_busy() -> None:
    trace = load_scenario("dataloader-starvation-4-cores").data["monitor"]
    assert [m["step"] for m in trace["markers"]] == [
        "environment",
        "driver",
        "wheel",
        "placement",
        "dataloader",
        "benchmark",
    ]
    util = trace["gpus"][0]["util"]
    loader, bench = marker(trace, "dataloader"), marker(trace, "benchmark")
    t = np.array(trace["t"])
    in_bench = np.array(util)[(t >= bench[0]) & (t < bench[1])]
    assert mean_in(trace, util, loader) < 20 and (in_bench > 85).mean() > 0.25  # the benchmark loads it
    rest = (bench[1] + 0.5, trace["t"][-1])
    assert mean_in(trace, util, rest) < 10 and trace["t"][-1] - bench[1] >= 2.5
    assert mean_in(trace, trace["cpu"], loader) > 2 * mean_in(trace, trace["cpu"], rest)  # workers on all 4 cores
    # the thermal case heats up under the benchmark and the power stays capped below the card's limit
    hot = load_scenario("gpu-thermal-slowdown-at-idle").data["monitor"]
    gpu = hot["gpus"][0]
    span = marker(hot, "benchmark")
    assert max(gpu["temp_c"]) > 92 and mean_in(hot, gpu["power_w"], span) < 250
    # a plain (CLI) diagnosis report keeps the diagnosis part only
    cli = simulate("dataloader-starvation-4-cores").monitor
    assert [m["step"] for m in cli["markers"]] == ["environment", "driver", "wheel"]
    assert cli["t"][-1] < loader[0]
    Trace.from_dict(cli)


def test_the_replayed_trace_follows_the_steps_the_app_runs() -> None:
    data = load_scenario("dataloader-starvation-4-cores").data["monitor"]
    source = TraceSource(data, speed=1.0)
    start, end = source.part_of("environment") or (0.0, 0.0)
    assert start == 0.0 and end == marker(data, "wheel")[1]  # the diagnosis is one run: Environment to Wheel
    assert source.part_of("dataloader") == marker(data, "dataloader")
    assert source.part_of("summary") is None
    loader = marker(data, "dataloader")
    util = data["gpus"][0]["util"]
    at_rest = [source.read(100.0 + k / 10).gpus[0][0] for k in range(20)]
    assert max(at_rest) < 15
    bench = marker(data, "benchmark")
    t = np.array(data["t"])
    peak = int(np.argmax(np.where((t >= bench[0]) & (t < bench[1]), np.array(util), -1.0)))
    offset = float(t[peak]) - bench[0]
    source.step_started("benchmark", 50.0)  # the app starts the benchmark 50 s after the monitor started
    assert source.read(50.0 + offset).gpus[0][0] == util[peak] > 85  # the trace's moment, on the app's clock
    source.step_ended("dataloader", 50.0 + offset)  # another step ending does not stop it
    assert source.read(50.0 + offset).gpus[0][0] == util[peak]
    source.step_ended("benchmark", 50.0 + offset)
    assert source.read(50.0 + offset).gpus[0][0] < 15
    source.step_started("dataloader", 70.0)
    expected = np.array(util)[(t >= loader[0] + 1.5) & (t < loader[1])]
    played = [source.read(70.0 + 1.5 + k / 10).gpus[0][0] for k in range(int((loader[1] - loader[0] - 1.5) * 10))]
    assert max(played) <= max(expected) + 1e-9 and np.mean(played) < 20
    # the monitor tells the source when a step starts
    mon = Monitor(TraceSource(data), interval=0.05)
    mon.mark_start("benchmark", "CNN benchmark")
    assert mon.source._playing is not None  # type: ignore[attr-defined]
    mon.mark_end("benchmark")
    assert mon.source._playing is None  # type: ignore[attr-defined]


def test_every_scenario_replays_to_an_ok_or_explained_runtime_step() -> None:
    for name in ["healthy-2x-a100-server", "healthy-jetson-orin-jetpack", "no-nvidia-gpu-cloud-vm"]:
        flow = run_flow(name)
        flow.execute(flow.offered() or [])  # no GPU: Run all offered the CPU benchmarks; run them anyway
        for sid, test in RUNTIME_TESTS.items():
            st = flow.state(sid)
            assert st.result is not None and st.result.facts[f"{test}.outcome"] == "ok", (name, sid)
        report = flow.report()
        assert report is not None
        facts = Facts(dict(report.facts.items()))
        assert facts.value("bench.results") and facts.value("sweep.best")


def test_when_the_verdict_is_about_speed_the_summary_first_says_the_gpu_is_usable() -> None:
    from gpuassist.report.render import verdict
    from gpuassist.wizard.display import usable_line

    two = run_flow("healthy-2x-a100-server").report()
    assert two is not None and usable_line(two) is None  # nothing to fix: the verdict itself says so
    assert verdict(two).headline == "PyTorch can use 2 × NVIDIA A100 80GB PCIe"
    riser = run_flow("pcie-x1-riser").report()
    assert riser is not None and verdict(riser).headline == riser.findings[0].title
    assert usable_line(riser) == "PyTorch can use NVIDIA GeForce RTX 4090"
    broken = run_flow("cpu-only-build-rtx4090").report()
    assert broken is not None and usable_line(broken) is None  # the diagnosis itself found the problem
