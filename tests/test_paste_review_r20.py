"""Round 20 (issue #14), from the round-18 review: a conda dry run's package plan is not the installed build; a
cpuonly conda command beside a CUDA install describes two environments; a program's ``sleep(5)`` is not the host's
sleep. Synthetic texts and counter-examples."""

from __future__ import annotations

from gpuassist.findings import Severity
from gpuassist.ingest import load_text

PLAN = (
    "  pytorch            pytorch/linux-64::pytorch-2.0.1-py3.11_cpu_0\n"
    "  pytorch-mutex      pytorch/noarch::pytorch-mutex-1.0-cpu\n"
)
HEAD = (
    "$ conda install pytorch -c pytorch{flag}\n\n## Package Plan ##\n\n"
    "The following NEW packages will be INSTALLED:\n\n"
)


def _cpu_findings(text: str) -> list[Severity]:
    return [f.severity for f in load_text(text).findings if f.id == "cpu_only_build"]


def test_dry_run_plan_is_not_the_installed_build() -> None:
    report = load_text(HEAD.format(flag=" --dry-run") + PLAN + "\nDryRunExit: Dry run. Exiting.\n")
    assert report.facts.value("torch.conda_build") is None
    assert all(s is not Severity.ERROR for s in _cpu_findings(HEAD.format(flag=" --dry-run") + PLAN))


def test_real_install_plan_is_still_read() -> None:
    text = HEAD.format(flag="") + PLAN + "\nProceed ([y]/n)? y\n\nExecuting transaction: done\n"
    assert load_text(text).facts.value("torch.conda_build") == "py3.11_cpu_0"


TWO_ENVS = (
    "On the laptop I made an env with `conda install pytorch cpuonly -c pytorch`; on the workstation with "
    "`conda install pytorch pytorch-cuda=11.8 -c pytorch -c nvidia`.\n"
)


def test_cpuonly_command_beside_a_cuda_command_blames_nothing() -> None:
    assert _cpu_findings(TWO_ENVS) == []


def test_cpuonly_command_alone_is_still_a_possibility() -> None:
    text = "I ran `conda install pytorch torchvision cpuonly -c pytorch` and CUDA is not available.\n"
    assert _cpu_findings(text)


def _uvm(text: str) -> list[Severity]:
    return [f.severity for f in load_text(text).findings if f.id == "uvm_wedged_after_suspend"]


def test_program_sleep_call_is_not_the_host_sleep() -> None:
    text = "After sleep(5) in my loop the next CUDA call fails.\nRuntimeError: CUDA error: unknown error\n"
    assert Severity.ERROR not in _uvm(text)


def test_host_sleep_still_ties_unknown_error() -> None:
    text = "After sleep the laptop's CUDA calls fail.\nRuntimeError: CUDA error: unknown error\n"
    assert Severity.ERROR in _uvm(text)


OOM_LINE = (
    "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 10.76 GiB total capacity; 1.20 GiB "
    "already allocated; 1.50 GiB free; 1.30 GiB reserved in total by PyTorch)\n"
)


def _first(text: str) -> tuple[str, Severity]:
    first = load_text(text).findings[0]
    return first.id, first.severity


def test_blamed_process_killed_and_still_oom_is_no_held_memory_verdict() -> None:
    text = "I stopped the other training process on that card, but the job still runs out of memory.\n" + OOM_LINE
    assert _first(text)[0] == "cuda_out_of_memory"


def test_other_process_on_gpu_with_oom_is_still_held_memory() -> None:
    text = "A colleague's training job is running on the same GPU.\n" + OOM_LINE
    assert _first(text) == ("gpu_memory_held_by_others", Severity.ERROR)


def test_killing_the_holder_fixed_it_keeps_held_memory() -> None:
    text = "Another process was using the GPU; I killed the other process and now training works.\n" + OOM_LINE
    assert _first(text)[0] == "gpu_memory_held_by_others"
