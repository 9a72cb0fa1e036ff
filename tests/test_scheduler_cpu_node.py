"""A scheduler job on a node with no NVIDIA GPU at all (what the Slurm recipe's real run on this machine
showed, issue 18): the verdict is the missing GPU, not "the job was allocated no GPU". The PCI bus lists
GPUs whatever the job's cgroup allows, so an empty bus is not the scheduler hiding them."""

from __future__ import annotations

from gpuassist.report.build import build_report
from gpuassist.sim import load_scenario, scenario_facts


def test_a_job_on_a_cpu_node_is_told_the_node_has_no_gpu() -> None:
    facts = scenario_facts(load_scenario("no-nvidia-gpu-cloud-vm"))
    facts.update(
        {"scheduler.kind": "slurm", "scheduler.job_id": "2", "scheduler.gpus": None, "cuda.visible_devices": None}
    )
    assert facts.value("pci.nvidia_gpu_count") == 0
    ids = [f.id for f in build_report(facts, source="simulated").findings]
    assert "scheduler_no_gpu_allocated" not in ids and ids[0] == "no_nvidia_gpu"


def test_a_job_on_a_gpu_node_without_a_gpu_request_is_still_told_so() -> None:
    facts = scenario_facts(load_scenario("slurm-job-without-gpu"))
    assert build_report(facts, source="simulated").findings[0].id == "scheduler_no_gpu_allocated"
