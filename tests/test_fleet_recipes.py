"""The cluster recipes in packaging/cluster (issue 18): Kubernetes manifests are well-formed and ask for
what the recipe needs, the shell scripts parse, and the SSH fan-out's output shape (pdsh, one compact
report per line, interleaved across hosts) merges. The real Slurm run is tests/test_fleet_slurm.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
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


@pytest.mark.slow
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


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def local_sshd(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A private sshd on 127.0.0.1 and 127.0.0.2 (two "hosts"), key login for this user, for the real
    parallel-ssh recipe. Skips where sshd or parallel-ssh is missing or we are not root."""
    missing = [p for p in ("parallel-ssh", "ssh", "ssh-keygen") if shutil.which(p) is None]
    if not os.path.exists("/usr/sbin/sshd"):
        missing.append("sshd")
    if missing or os.geteuid() != 0:
        pytest.skip(f"needs root and {', '.join(missing) or 'nothing else'} (apt-get install -y openssh-server pssh)")
    d = tmp_path / "sshd"
    d.mkdir(mode=0o700)
    for key in ("host", "client"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(d / key)], check=True, timeout=30)
    (d / "authorized_keys").write_text((d / "client.pub").read_text())
    port = _free_port()
    (d / "sshd_config").write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nListenAddress 127.0.0.2\nHostKey {d / 'host'}\n"
        f"AuthorizedKeysFile {d / 'authorized_keys'}\nPidFile {d / 'sshd.pid'}\nPasswordAuthentication no\n"
        "KbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\nStrictModes no\nUsePAM no\n"
    )
    os.makedirs("/run/sshd", exist_ok=True)  # privilege separation directory sshd insists on
    sshd = subprocess.Popen(
        ["/usr/sbin/sshd", "-D", "-e", "-f", str(d / "sshd_config")], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        ssh = [
            "-p",
            str(port),
            "-i",
            str(d / "client"),
            "-o",
            "StrictHostKeyChecking=no",
            "-o",
            "UserKnownHostsFile=/dev/null",
            "-o",
            "BatchMode=yes",
            "-o",
            "LogLevel=ERROR",
        ]
        for _ in range(100):  # until it accepts logins
            if subprocess.run(["ssh", *ssh, "127.0.0.1", "true"], capture_output=True, timeout=10).returncode == 0:
                break
            if sshd.poll() is not None:
                pytest.fail(f"sshd exited: {sshd.stderr.read().decode() if sshd.stderr else ''}")
            time.sleep(0.1)
        yield " ".join(ssh)
    finally:
        sshd.terminate()
        sshd.wait(timeout=10)


@pytest.mark.slow
def test_parallel_ssh_recipe_writes_one_file_per_host_that_fleet_reads(local_sshd: str, tmp_path: Path) -> None:
    gpuassist = Path(sys.executable).with_name("gpuassist")
    (tmp_path / "hosts.txt").write_text("127.0.0.1\n127.0.0.2\n")
    out = tmp_path / "reports"
    # the docs' command, with the test's ssh options; the "hosts" name their node after the address asked
    command = (
        'GPUASSIST_NODE_NAME=$(echo "$SSH_CONNECTION" | cut -d" " -f3) '
        f"{gpuassist} diagnose --simulate cpu-only-build-rtx4090 --format json"
    )
    fan = subprocess.run(
        [
            "parallel-ssh",
            "-h",
            str(tmp_path / "hosts.txt"),
            "-l",
            "root",
            "-t",
            "300",
            "-x",
            local_sshd,
            "-o",
            str(out),
            command,
        ],
        capture_output=True,
        text=True,
        timeout=400,
        check=False,
    )
    # parallel-ssh reports exit 1 of each host (an error finding) as a failure; the reports are there
    assert sorted(p.name for p in out.iterdir()) == ["127.0.0.1", "127.0.0.2"], fan.stdout + fan.stderr
    merged = subprocess.run(
        [str(gpuassist), "fleet", str(out), "--format", "json", "--expect", str(tmp_path / "hosts.txt")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    fleet = json.loads(merged.stdout)
    assert merged.returncode == 1 and fleet["unreadable"] == [] and fleet["missing"] == []
    assert fleet["summary"]["reports"] == 2 and fleet["summary"]["skipped_files"] == 0
    (group,) = [g for g in fleet["groups"] if g["root_cause"]]
    assert group["id"] == "cpu_only_build" and group["count"] == 2
