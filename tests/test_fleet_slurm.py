"""The Slurm recipe end to end on a real single-node Slurm (issue 18): packaging/cluster/slurm-single-node.sh
starts munged, slurmctld and slurmd of Debian's slurm-wlm under a temporary folder, the sbatch script
diagnoses the node through srun, and `gpuassist fleet` merges what came back.

Skips, saying why, where Slurm is not installed (`apt-get install -y slurm-wlm munge`) or we are not root.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gpuassist.report.node import pseudonym

ROOT = Path(__file__).resolve().parents[1]
CLUSTER = ROOT / "packaging" / "cluster"
GPUASSIST = Path(sys.executable).with_name("gpuassist")


def _why_not() -> str | None:
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        return "needs root on Linux (slurmd runs jobs as their users)"
    missing = [
        p
        for p in ("munged", "slurmctld", "slurmd", "sbatch", "srun", "scontrol")
        if not (shutil.which(p) or os.path.exists(f"/usr/sbin/{p}"))
    ]
    if missing:
        return f"Slurm is not installed ({', '.join(missing)} missing: apt-get install -y slurm-wlm munge)"
    if not GPUASSIST.exists():
        return f"no gpuassist command beside {sys.executable}"
    return None


pytestmark = [pytest.mark.slow, pytest.mark.skipif(_why_not() is not None, reason=_why_not() or "")]


@pytest.fixture
def slurm(tmp_path: Path):  # type: ignore[no-untyped-def]
    state = tmp_path / "slurm"
    start = subprocess.run(
        [str(CLUSTER / "slurm-single-node.sh"), "start", str(state)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    try:
        assert start.returncode == 0, start.stdout + start.stderr
        assert start.stdout.strip().splitlines()[-1] == f"SLURM_CONF={state}/slurm.conf"
        yield {**os.environ, "SLURM_CONF": str(state / "slurm.conf")}
    finally:
        subprocess.run(
            [str(CLUSTER / "slurm-single-node.sh"), "stop", str(state)], capture_output=True, timeout=60, check=False
        )
    for name in ("munged", "slurmctld", "slurmd"):  # nothing left behind
        assert not (state / f"{name}.pid").exists()


def test_sbatch_recipe_collects_every_node_and_fleet_merges_it(slurm: dict[str, str], tmp_path: Path) -> None:
    work = tmp_path / "submit"
    work.mkdir()
    env = {**slurm, "GPUASSIST": str(GPUASSIST), "GPUASSIST_NODE_KEY": "test-site-key"}
    env.pop("GPUASSIST_NODE_NAME", None)
    job = subprocess.run(
        ["sbatch", "--wait", "--parsable", str(CLUSTER / "gpuassist-fleet.sbatch")],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    job_id = job.stdout.strip().split(";")[0]
    assert job_id.isdigit(), job.stdout + job.stderr
    log = (work / f"gpuassist-fleet-{job_id}.log").read_text()
    folder = work / f"gpuassist-fleet-{job_id}"
    reports = sorted(folder.iterdir())
    assert [p.name for p in reports] == ["0.json"], log
    report = json.loads(reports[0].read_text())
    node = subprocess.run(
        ["sinfo", "-h", "-N", "-o", "%N"], env=slurm, capture_output=True, text=True, timeout=30, check=False
    ).stdout.split()
    # the task ran under Slurm, on that node, and its name reached the report as a keyed pseudonym only
    assert report["facts"]["scheduler.kind"] == "slurm" and report["facts"]["scheduler.job_id"] == job_id
    assert len(node) == 1
    assert report["meta"]["node"] == {
        "name": pseudonym(node[0], b"test-site-key"),
        "source": "slurm",
        "pseudonym": True,
        "keyed": True,
    }
    if len(node[0]) >= 3:  # the redactor leaves names too short to tell from words ("vm") in free text
        assert not re.search(rf"(?<![\w.-]){re.escape(node[0])}(?![\w-])", reports[0].read_text())
    fleet = json.loads((work / f"gpuassist-fleet-{job_id}.json").read_text())
    assert fleet["schema"] == "gpuassist.fleet/1"
    assert fleet["summary"]["reports"] == 1 and fleet["missing"] == [] and fleet["unreadable"] == []
    assert [n["name"] for n in fleet["nodes"]] == [report["meta"]["node"]["name"]]
    assert [f["id"] for f in report["findings"]] == fleet["nodes"][0]["findings"]
    assert (work / f"gpuassist-fleet-{job_id}.md").read_text().startswith("# gpuassist fleet: 1 node")
    assert "Nodes × findings" in (work / f"gpuassist-fleet-{job_id}.html").read_text()
    assert "Fleet: 1 node" in log and "Traceback" not in log
