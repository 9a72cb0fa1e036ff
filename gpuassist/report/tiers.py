"""The Summary's three tiers: the problem, what is worth fixing on this machine (measured), and tips.

A finding drawn from gpuassist's own synthetic workloads (the DataLoader sweep's test dataset, the benchmark
CNN) measures this machine; it is not a verdict on the user's pipeline, so it is never "the problem" unless
it is an error. Generic advice the user's code was never checked against is a tip, and a demonstration
(the device mismatch reproduced on purpose) belongs on its step's page, not among the findings.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpuassist.findings import Finding, Severity

# Measured on gpuassist's own workloads: what this machine can do, not what the user's code does. Their rules
# give them severity info, except when the machine itself is at fault (a CPU that cannot feed a modest rate).
SYNTHETIC = frozenset({"dataloader_starvation", "amp_tf32_not_used", "cudnn_benchmark_off"})
# Advice the user's code was not examined for (a script audit makes the same ids about real lines).
TIPS = frozenset({"workload_left_on_cpu", "host_device_sync_in_loop", "small_batch_launch_bound"})


def is_demonstration(finding: Finding) -> bool:
    """The placement step's deliberate device mismatch: "what this error looks like", not a fault."""
    return finding.id == "tensors_on_different_devices" and finding.severity is Severity.INFO


def is_tip(finding: Finding) -> bool:
    return finding.id in TIPS and finding.step != "script"


@dataclass
class Tiers:
    problem: Finding | None = None
    measured: list[Finding] = field(default_factory=list)
    tips: list[Finding] = field(default_factory=list)
    demonstrations: list[Finding] = field(default_factory=list)


def tiers(findings: list[Finding]) -> Tiers:
    """Split ordered findings: the first error or warning about the user's setup is the problem."""
    out = Tiers()
    for f in findings:
        if is_demonstration(f):
            out.demonstrations.append(f)
        elif is_tip(f):
            out.tips.append(f)
        elif out.problem is None and f.severity.rank <= 1:  # synthetic ones warn only when the machine is at fault
            out.problem = f
        else:
            out.measured.append(f)
    return out
