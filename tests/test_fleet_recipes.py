"""The cluster recipes in packaging/cluster (issue 18): Kubernetes manifests are well-formed and ask for
what the recipe needs, the shell scripts parse, and the SSH fan-out's output shape (pdsh, one compact
report per line, interleaved across hosts) merges. The real Slurm run is tests/test_fleet_slurm.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
CLUSTER = ROOT / "packaging" / "cluster"
DOC = ROOT / "docs" / "cluster.md"


def manifest(name: str) -> dict[str, Any]:
    docs = [d for d in yaml.safe_load_all((CLUSTER / name).read_text()) if d]
    assert len(docs) == 1
    return docs[0]


def diagnose_container(pod: dict[str, Any], init: bool) -> dict[str, Any]:
    containers = pod["initContainers" if init else "containers"]
    (c,) = [c for c in containers if c["name"] == "diagnose"]
    return c


def check_diagnose_container(c: dict[str, Any]) -> None:
    command = " ".join(c["command"])
    assert "gpuassist diagnose --format json" in command
    assert command.endswith("; exit 0")  # a node's exit 1 (error finding) is a result, not a failed pod
    gpus = c["resources"]["limits"]["nvidia.com/gpu"]  # the NVIDIA device plugin's resource
    assert isinstance(gpus, int) and gpus >= 1
    env = {e["name"]: e for e in c["env"]}
    # a pod's host name is the pod's own: the report must name the node it ran on
    assert env["GPUASSIST_NODE_NAME"]["valueFrom"] == {"fieldRef": {"fieldPath": "spec.nodeName"}}
    assert env["GPUASSIST_NODE_KEY"]["valueFrom"]["secretKeyRef"]["optional"] is True


def test_job_manifest_runs_one_pod_per_gpu_node() -> None:
    job = manifest("gpuassist-job.yaml")
    assert (job["apiVersion"], job["kind"]) == ("batch/v1", "Job")
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed" and spec["completions"] == spec["parallelism"] >= 1
    assert spec["backoffLimit"] == 0 and spec["activeDeadlineSeconds"] > 0
    pod = spec["template"]["spec"]
    assert pod["restartPolicy"] == "Never"
    (term,) = pod["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert term["topologyKey"] == "kubernetes.io/hostname"
    assert term["labelSelector"]["matchLabels"].items() <= spec["template"]["metadata"]["labels"].items()
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in pod["tolerations"]
    check_diagnose_container(diagnose_container(pod, init=False))


def test_daemonset_manifest_diagnoses_each_gpu_node_once() -> None:
    ds = manifest("gpuassist-daemonset.yaml")
    assert (ds["apiVersion"], ds["kind"]) == ("apps/v1", "DaemonSet")
    spec = ds["spec"]
    assert spec["selector"]["matchLabels"].items() <= spec["template"]["metadata"]["labels"].items()
    pod = spec["template"]["spec"]
    assert pod["nodeSelector"] == {"nvidia.com/gpu.present": "true"}
    check_diagnose_container(diagnose_container(pod, init=True))
    (idle,) = pod["containers"]
    assert "nvidia.com/gpu" not in idle["resources"]["limits"]  # the idle pod holds no GPU


@pytest.mark.parametrize(
    "script", ["slurm-single-node.sh", "gpuassist-fleet.sbatch", "k8s-collect.sh", "install-test-engines.sh"]
)
def test_scripts_parse_and_are_executable(script: str) -> None:
    path = CLUSTER / script
    assert os.access(path, os.X_OK)
    subprocess.run(["bash", "-n", str(path)], check=True, timeout=30)


def test_docs_cover_every_recipe() -> None:
    text = DOC.read_text()
    for name in (
        "gpuassist-fleet.sbatch",
        "gpuassist-job.yaml",
        "gpuassist-daemonset.yaml",
        "k8s-collect.sh",
        "slurm-single-node.sh",
        "srun --nodes",
        "--ntasks-per-node=1",
        "pdsh",
        "parallel-ssh",
        "GPUASSIST_NODE_KEY",
        "gpuassist fleet",
    ):
        assert name in text, name


@pytest.mark.skipif(shutil.which("pdsh") is None, reason="pdsh is not installed (apt-get install -y pdsh)")
def test_pdsh_fan_out_merges_interleaved_compact_reports(tmp_path: Path) -> None:
    """pdsh's exec module runs the recipe's command per "host" here (the ssh module runs it remotely)."""
    gpuassist = Path(sys.executable).with_name("gpuassist")
    env = {**os.environ, "PATH": f"{gpuassist.parent}:{os.environ['PATH']}"}
    env.pop("GPUASSIST_NODE_KEY", None)
    command = "gpuassist diagnose --simulate pcie-x1-riser --format json | tr -d '\\n'; echo"
    fan = subprocess.run(
        [
            "pdsh",
            "-R",
            "exec",
            "-N",
            "-f",
            "4",
            "-w",
            "gpu[01-04]",
            "env",
            "GPUASSIST_NODE_NAME=%h",
            "sh",
            "-c",
            command,
        ],
        env=env,
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert fan.returncode == 0, fan.stderr
    merged = subprocess.run(
        [str(gpuassist), "fleet", "-", "--format", "json", "--expect", "gpu01,gpu02,gpu03,gpu04"],
        input=fan.stdout,
        capture_output=True,
        timeout=120,
        check=False,
    )
    fleet = json.loads(merged.stdout)
    assert fleet["unreadable"] == [] and fleet["missing"] == []
    assert fleet["summary"]["reports"] == 4 and fleet["meta"]["pseudonymous"] is True
    (group,) = [g for g in fleet["groups"] if g["root_cause"]]
    assert group["id"] == "pcie_link_degraded" and group["count"] == 4
