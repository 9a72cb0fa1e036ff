"""scheduler.*: which batch system runs this job and which GPUs it handed out."""

from __future__ import annotations

import pytest

import hostdata
from gpuassist.collect import scheduler


def collect(environ: dict[str, str], files: dict[str, object] | None = None) -> dict[str, object]:
    return hostdata.run(scheduler.collect, hostdata.dict_ctx(files or {}, environ=environ))


def test_slurm_step_allocation_wins_over_the_job_allocation() -> None:
    facts = collect({"SLURM_JOB_ID": "4242", "SLURM_JOB_GPUS": "0,1,2,3", "SLURM_STEP_GPUS": "2,3"})
    assert facts == {"scheduler.kind": "slurm", "scheduler.job_id": "4242", "scheduler.gpus": ["2", "3"]}


def test_slurm_job_without_gpus() -> None:
    assert collect({"SLURM_JOB_ID": "1"})["scheduler.gpus"] is None
    assert collect({"SLURM_JOB_ID": "1", "SLURM_JOB_GPUS": ""})["scheduler.gpus"] == []


def test_pbs_gpufile() -> None:
    facts = collect(
        {"PBS_JOBID": "123.pbs01", "PBS_GPUFILE": "/var/spool/pbs/aux/123.pbs01.gpu"},
        {"/var/spool/pbs/aux/123.pbs01.gpu": "node07-gpu0\nnode07-gpu1\n"},
    )
    assert facts == {
        "scheduler.kind": "pbs",
        "scheduler.job_id": "123.pbs01",
        "scheduler.gpus": ["node07-gpu0", "node07-gpu1"],
    }


def test_pbs_gpufile_unreadable() -> None:
    assert collect({"PBS_JOBID": "1", "PBS_GPUFILE": "/nope"})["scheduler.gpus"] is None


@pytest.mark.parametrize(
    ("environ", "kind"),
    [
        ({"LSB_JOBID": "77"}, "lsf"),
        ({"JOB_ID": "88", "SGE_ROOT": "/opt/sge"}, "sge"),
        ({"JOB_ID": "88"}, None),  # JOB_ID alone is not evidence of SGE
        ({}, None),
    ],
)
def test_other_schedulers(environ: dict[str, str], kind: str | None) -> None:
    assert collect(environ)["scheduler.kind"] == kind


def test_recorded_hosts_are_not_batch_jobs() -> None:
    for host in hostdata.HOST_NAMES:
        assert hostdata.run(scheduler.collect, hostdata.ctx(host))["scheduler.kind"] is None
