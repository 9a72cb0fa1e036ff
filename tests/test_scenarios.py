"""Every simulated machine (sim/scenarios/*.json, docs/architecture.md §4) gets the diagnosis its ``expect`` describes.

A scenario runs the real host collectors on recorded files/commands/NVML answers and the real probe-stream
parser on a recorded probe run, then the real rules. ``expect`` keys:

- ``first``: id of the finding that must come first (the verdict);
- ``ids`` / ``absent``: ids that must / must not be among the findings;
- ``severity``: ``{id: "error" | "warning" | "info"}`` for findings that must have that severity;
- ``no_error``: no error-severity finding, and no warning that is not listed in ``ids``;
- ``fix_contains`` / ``title_contains``: strings the first finding's fix / title must contain;
- ``facts``: ``{key: value}`` the report's facts must hold.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from gpuassist.facts import NotCollected
from gpuassist.findings import Severity
from gpuassist.knowledge import catalogue
from gpuassist.probe.runner import STAGES
from gpuassist.report.model import Report
from gpuassist.sim import list_scenarios, load_scenario, probe_events, simulate

SCENARIOS = {s.name: s for s in list_scenarios()}
NAMES = sorted(SCENARIOS)
EXPECT_KEYS = {"first", "ids", "absent", "severity", "no_error", "fix_contains", "title_contains", "facts"}


@pytest.fixture(scope="module")
def reports() -> dict[str, Report]:
    return {name: simulate(name) for name in NAMES}


def ids(report: Report) -> list[str]:
    return [f.id for f in report.findings]


def test_there_are_scenarios_and_bases_are_not_listed() -> None:
    assert len(NAMES) >= 45
    assert not any(n.startswith("_") for n in NAMES)
    assert "_linux_rtx4090" in {s.name for s in list_scenarios(include_bases=True)}


@pytest.mark.parametrize("name", NAMES)
def test_scenario_is_well_formed(name: str) -> None:
    scenario = SCENARIOS[name]
    description = scenario.description
    assert description and "\n" not in description and len(description) <= 140
    expect = scenario.expect
    assert expect, f"{name} has no expect"
    assert set(expect) <= EXPECT_KEYS, f"{name}: unknown expect keys {set(expect) - EXPECT_KEYS}"
    assert "first" in expect or expect.get("no_error"), f"{name}: expect needs a first finding or no_error"
    cat = catalogue()
    named = [expect.get("first"), *expect.get("ids", []), *expect.get("absent", []), *expect.get("severity", {})]
    for finding_id in filter(None, named):
        assert finding_id in cat, f"{name}: {finding_id} is not a catalogue id"


@pytest.mark.parametrize("name", NAMES)
def test_scenario_diagnosis(name: str, reports: dict[str, Report]) -> None:
    report = reports[name]
    expect = SCENARIOS[name].expect
    found = ids(report)
    summary = [(f.id, f.severity.value) for f in report.findings]
    assert not report.meta.get("rule_errors"), report.meta.get("rule_errors")
    assert report.meta["simulated"] is True and report.meta["scenario"] == name

    if "first" in expect:
        assert found and found[0] == expect["first"], f"{name}: findings are {summary}"
    for finding_id in expect.get("ids", []):
        assert finding_id in found, f"{name}: {finding_id} missing from {summary}"
    for finding_id in expect.get("absent", []):
        assert finding_id not in found, f"{name}: {finding_id} must not be reported: {summary}"
    by_id = {f.id: f for f in report.findings}
    for finding_id, severity in expect.get("severity", {}).items():
        assert by_id[finding_id].severity == Severity(severity), f"{name}: {summary}"
    if expect.get("no_error"):
        assert not report.has_error, f"{name}: healthy machine got {summary}"
        stray = [f.id for f in report.findings if f.severity == Severity.WARNING and f.id not in expect.get("ids", [])]
        assert not stray, f"{name}: unexpected warnings {stray}"
    for key, value in expect.get("facts", {}).items():
        assert report.facts.value(key) == value, f"{name}: {key} = {report.facts.get(key)!r}"

    for f in report.findings:
        assert f.evidence, f"{name}: {f.id} has no evidence"
        assert f.fix.strip(), f"{name}: {f.id} has no fix"
    if report.findings:
        first = report.findings[0]
        for text in expect.get("fix_contains", []):
            assert text in first.fix, f"{name}: {text!r} not in the fix of {first.id}:\n{first.fix}"
        for text in expect.get("title_contains", []):
            assert text in first.title, f"{name}: {text!r} not in the title of {first.id}: {first.title}"


# Ids only a runtime test (placement, DataLoader sweep, benchmark) can give evidence for: no scenario can
# make them come first from a plain diagnosis. Checked against the catalogue's runtime_only flag below.
RUNTIME_ONLY = {
    "wsl_pinned_memory_limit",
    "tensors_on_different_devices",
    "workload_left_on_cpu",
    "dataloader_starvation",
    "host_device_sync_in_loop",
    "small_batch_launch_bound",
    "amp_tf32_not_used",
    "cudnn_benchmark_off",
    "multi_gpu_unused",
}


def test_runtime_only_exemptions_match_the_catalogue() -> None:
    flagged = {entry.id for entry in catalogue().values() if entry.runtime_only}
    assert flagged == RUNTIME_ONLY | {"thermal_power_throttling", "pcie_link_degraded"}


def test_every_detectable_id_comes_first_in_some_scenario() -> None:
    """Every id a rule can detect from a diagnosis's facts is the verdict of at least one simulated machine.

    Exempt: RUNTIME_ONLY. thermal_power_throttling and pcie_link_degraded are runtime_only in the
    catalogue, but rules/health.py also detects them from NVML at idle, so they need a scenario too."""
    from gpuassist.rules.engine import registered_rules

    # Rules are registered under the id they detect ("thermal_power_throttling.idle" for a second rule of
    # that id); rules registered under other names are not counted here.
    detectable = ({name.split(".")[0] for name in registered_rules()} & set(catalogue())) - RUNTIME_ONLY
    firsts = {s.expect.get("first") for s in SCENARIOS.values()}
    assert detectable - firsts == set(), f"ids without a scenario: {sorted(detectable - firsts)}"
    core = {entry.id for entry in catalogue().values() if entry.core}
    assert core <= firsts


@pytest.mark.parametrize("name", NAMES)
def test_scenario_report_has_a_monitor_trace(name: str, reports: dict[str, Report]) -> None:
    trace = reports[name].monitor
    n = len(trace["t"])
    assert n >= 10 and trace["interval"] > 0 and trace["t"] == sorted(trace["t"])
    assert len(trace["cpu"]) == len(trace["ram"]) == n and trace["cores"]
    assert all(len(core) == n for core in trace["cores"])
    for gpu in trace["gpus"]:
        assert all(len(gpu[f]) == n for f in ("util", "mem_used_gib", "power_w", "temp_c"))
    assert trace["gpus"] or trace["gpu_reason"], f"{name}: no GPU series and no reason"
    steps = [m["step"] for m in trace["markers"]]
    assert steps[:2] == ["environment", "driver"], steps
    assert all(
        m["start"] <= (m["end"] if m["end"] is not None else m["start"]) <= trace["t"][-1] for m in trace["markers"]
    )
    assert "SIMULATED" in trace["label"]


def test_monitor_trace_is_deterministic_and_follows_the_scenario() -> None:
    from gpuassist.monitor.sampler import Trace

    a, b = simulate("healthy-linux-rtx4090").monitor, simulate("healthy-linux-rtx4090").monitor
    assert a == b
    Trace.from_dict(a)  # the GUI's own parser accepts it
    assert [g["name"] for g in a["gpus"]] == ["NVIDIA GeForce RTX 4090"]
    assert len(a["cores"]) == 32  # from the scenario's /proc/cpuinfo
    smoke = max(a["gpus"][0]["util"])
    assert smoke > 50  # the smoke test loads the GPU
    two = simulate("healthy-2x-a100-server").monitor
    assert len(two["gpus"]) == 2
    none = simulate("no-nvidia-gpu-cloud-vm").monitor
    assert none["gpus"] == [] and "NVML" in none["gpu_reason"]
    broken = simulate("uvm-wedged-after-suspend").monitor
    assert max(broken["gpus"][0]["util"]) < 20  # CUDA never started: the GPU stays idle


def test_full_monitor_trace_is_kept() -> None:
    from gpuassist.sim import expand_monitor

    trace = {"t": [0.0, 0.1], "cpu": [5, 6], "ram": [30, 30], "cores": [[5, 6]], "gpus": [], "gpu_reason": "none"}
    out = expand_monitor("x", {"monitor": trace})
    assert out["t"] == [0.0, 0.1] and out["markers"] and out["interval"] == 0.1
    with pytest.raises(ValueError):
        expand_monitor("x", {"monitor": dict(trace, cpu=[5])})


@pytest.mark.parametrize("name", [n for n in NAMES if SCENARIOS[n].expect.get("no_error")])
def test_healthy_machines_pass_every_step(name: str, reports: dict[str, Report]) -> None:
    report = reports[name]
    facts = report.facts
    if facts.value("host.os") != "Darwin":
        assert facts.value("cuda.available") is True
        assert facts.value("cuda.device_count") >= 1
        smoke = facts.value("smoke")
        assert smoke and all(part["ok"] for entry in smoke for part in (entry["alloc"], entry["matmul"], entry["conv"]))
    assert facts.value("probe.outcome") == "ok"


# --- what the scenarios feed the real code paths ----------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_probe_stream_has_the_probe_protocol_shape(name: str) -> None:
    """The expanded stream is what a live run records: runner events + the probe's own JSON lines."""
    probe = load_scenario(name).data.get("probe") or {}
    events = probe_events(probe)
    assert events[0]["event"] == "launch"
    end = (probe.get("end") or {}).get("status", "ok")
    if end == "interpreter_not_found":
        assert [e["event"] for e in events] == ["launch", "not_found"]
        return
    assert events[1]["event"] == "hello" and events[1]["stages"] == list(STAGES)
    assert events[-1]["event"] == "exit"
    stage_names = [e["stage"] for e in events if e["event"] == "stage" and e["status"] in ("start", "skipped")]
    assert stage_names == [s for s in STAGES if s in stage_names], f"{name}: stages out of order: {stage_names}"
    rts = [e["rt"] for e in events]
    assert rts == sorted(rts), f"{name}: runner timestamps go backwards"
    from gpuassist.probe.runner import STAGE_KEYS

    for e in events:
        if e["event"] == "fact":
            owner = next(s for s, keys in STAGE_KEYS.items() if e["key"] in keys)
            assert owner in stage_names, f"{name}: fact {e['key']} sent outside its stage"


def test_probe_facts_mirror_a_real_stream() -> None:
    """Healthy base: every key a real probe run emits is present and none is 'not collected'."""
    from gpuassist.probe.runner import STAGE_KEYS

    report = simulate("healthy-linux-rtx4090")
    for keys in STAGE_KEYS.values():
        for key in keys:
            assert key in report.facts, key
            assert not isinstance(report.facts.get(key), NotCollected), key
    assert [s["status"] for s in report.facts.value("probe.stages")] == ["ok"] * len(STAGES)
    import_stage = next(s for s in report.facts.value("probe.stages") if s["stage"] == "import_torch")
    assert 1.5 < import_stage["seconds"] < 2.5


def test_import_failure_skips_later_stages_like_the_probe() -> None:
    report = simulate("torch-not-installed")
    stages = {s["stage"]: s for s in report.facts.value("probe.stages")}
    assert stages["import_torch"]["status"] == "failed"
    for name in ("build", "accel_init", "devices", "smoke", "libraries"):
        assert stages[name]["status"] == "skipped" and stages[name]["reason"] == "import torch failed"
    reason = report.facts.get("cuda.available")
    assert isinstance(reason, NotCollected) and "ModuleNotFoundError" in reason.reason


def test_null_in_a_derived_scenario_removes_the_base_file() -> None:
    report = simulate("no-driver-fresh-install")
    facts = report.facts
    assert facts.value("driver.proc_version") is None
    assert facts.value("driver.userspace_versions") == []
    assert facts.value("kernel.modules") == ["nouveau"]
    assert [d["driver"] for d in facts.value("pci.display_devices")] == ["nouveau"]
    assert not [n for n in facts.value("dev.nodes") if n["path"].startswith("/dev/nvidia")]


def test_crash_and_hang_keep_the_faulthandler_stack() -> None:
    crash = simulate("probe-crash-in-cuda-init").facts
    assert crash.value("probe.fault_traceback").startswith("Fatal Python error: Segmentation fault")
    assert "_lazy_init" in crash.value("probe.fault_traceback")
    assert crash.value("probe.returncode") == -11
    hang = simulate("probe-hang-in-cuda-init").facts
    assert "is_available" in hang.value("probe.fault_traceback")
    assert hang.value("probe.limit_seconds") == 30.0


# --- the CLI on simulated machines ---------------------------------------------------------------------------

CLI_CASES = ["healthy-linux-rtx4090", "cpu-only-build-rtx4090", "macos-apple-silicon-mps", "probe-hang-in-cuda-init"]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gpuassist.cli", *args], capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.slow
@pytest.mark.parametrize("name", CLI_CASES)
def test_cli_simulate(name: str, reports: dict[str, Report]) -> None:
    expected_rc = 1 if reports[name].has_error else 0
    p = cli("diagnose", "--simulate", name, "--format", "json")
    assert p.returncode == expected_rc, p.stderr
    data: dict[str, Any] = json.loads(p.stdout)
    assert data["meta"]["simulated"] is True
    assert data["meta"]["scenario"] == name
    assert [f["id"] for f in data["findings"]] == ids(reports[name])
    for fmt in ("text", "markdown", "html"):
        p = cli("diagnose", "--simulate", name, "--format", fmt)
        assert p.returncode == expected_rc, (fmt, p.stderr)
        assert "SIMULATED" in p.stdout, fmt
        assert "Traceback" not in p.stderr


@pytest.mark.slow
def test_cli_lists_scenarios_with_descriptions() -> None:
    p = cli("scenarios")
    assert p.returncode == 0, p.stderr
    listed = {line.split()[0] for line in p.stdout.splitlines() if line.strip()}
    assert listed == set(NAMES)
    assert "_linux_rtx4090" not in p.stdout
