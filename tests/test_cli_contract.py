"""The CLI contract (docs/architecture.md §3, §6) through the real command, as ../shared/checks/contract_checks.py
checks it: verdict on this machine, bad input, secrets in every format."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

GA = [sys.executable, "-m", "gpuassist.cli"]


def run(
    args: list[str], *, env: dict[str, str] | None = None, stdin: bytes | None = None, timeout: float = 150
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*GA, *args], capture_output=True, text=stdin is None, input=stdin, env=env, timeout=timeout, check=False
    )


@pytest.fixture(scope="module")
def this_machine() -> tuple[int, dict]:
    # this venv's interpreter (it has the CPU torch), named: the default target depends on the machine
    p = run(["diagnose", "--python", sys.executable, "--format", "json"])
    assert "Traceback" not in p.stderr, p.stderr
    return p.returncode, json.loads(p.stdout)


@pytest.mark.slow
def test_this_machine_verdict_matches_its_facts(this_machine: tuple[int, dict], cpu_only_machine: bool) -> None:
    rc, report = this_machine
    assert report["schema"] == "gpuassist.report/1"
    ids = [f["id"] for f in report["findings"]]
    facts = report["facts"]
    assert facts["probe.outcome"] == "ok"
    import torch

    assert facts["torch.version"] == torch.__version__
    assert facts["torch.cuda_build"] == torch.version.cuda
    if cpu_only_machine:
        # A machine with no NVIDIA GPU is told so first, and is never told to install a driver.
        assert facts["pci.nvidia_gpu_count"] == 0
        assert ids[0] == "no_nvidia_gpu"
        assert "no_nvidia_driver" not in ids and "nvidia_module_not_loaded" not in ids
        assert "driver_too_old" not in ids
        assert rc == 1
        if torch.version.cuda is None:
            cpu = next(f for f in report["findings"] if f["id"] == "cpu_only_build")
            assert cpu["severity"] == "info"
    for f in report["findings"]:
        assert set(f) >= {"id", "severity", "title", "evidence", "fix"}
        assert f["severity"] in ("error", "warning", "info")
        assert all(set(e) == {"fact", "value"} for e in f["evidence"])
    assert rc == (1 if any(f["severity"] == "error" for f in report["findings"]) else 0)


@pytest.mark.slow
def test_live_report_names_its_node_by_pseudonym(this_machine: tuple[int, dict]) -> None:
    """meta.node (docs/cluster.md): a redacted live report names its node, by its stable pseudonym."""
    import socket

    from gpuassist.report.node import node_key, pseudonym

    node = this_machine[1]["meta"]["node"]
    assert node["pseudonym"] is True and node["source"] in ("hostname", "slurm", "env")
    if node["source"] == "hostname":
        assert node["name"] == pseudonym(socket.gethostname(), node_key(os.environ))


@pytest.mark.slow
def test_text_format_leads_with_the_verdict(this_machine: tuple[int, dict]) -> None:
    _, report = this_machine
    p = run(["diagnose", "--python", sys.executable])
    first = p.stdout.strip().splitlines()[0]
    assert report["findings"][0]["title"] in first


BAD_INPUTS = {
    "empty.txt": b"",
    "random.bin": bytes(range(256)) * 16,
    "truncated.json": b'{"schema": "gpuassist.report/1", "findings": [',
    "future.json": b'{"schema": "gpuassist.report/999"}',
    "list.json": b"[1, 2, 3]",
    "prose.txt": b"hello world\nthis is not a report\n",
    "deep.json": b'{"a":' * 100000,
    "no-findings.json": b'{"schema": "gpuassist.report/1", "facts": {}}',
    "bad-severity.json": b'{"schema": "gpuassist.report/1", "facts": {}, '
    b'"findings": [{"id": "x", "severity": "fatal"}]}',
}


@pytest.mark.slow
@pytest.mark.parametrize("name", [*BAD_INPUTS, "a-directory", "missing.txt"])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, name: str) -> None:
    if name in BAD_INPUTS:
        (tmp_path / name).write_bytes(BAD_INPUTS[name])
    elif name == "a-directory":
        (tmp_path / name).mkdir()
    p = run(["diagnose", "--from", str(tmp_path / name), "--format", "json"], timeout=60)
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert len(lines) == 1 and "Traceback" not in p.stderr
    assert lines[0].startswith("gpuassist: ")


@pytest.mark.slow
def test_bad_usage_exit_2() -> None:
    for args in (["diagnose", "--format", "pdf"], ["diagnose", "--simulate", "no-such-machine"], ["frobnicate"]):
        p = run(args)
        assert p.returncode == 2, args
        assert len([x for x in p.stderr.splitlines() if x.strip()]) <= 3 and "Traceback" not in p.stderr


@pytest.mark.slow
def test_stdin_input() -> None:
    paste = (Path(__file__).parent / "data/pastes/pytorch-49325-windows-cpu-build.txt").read_bytes()
    p = run(["diagnose", "--from", "-", "--format", "json"], stdin=paste)
    assert p.returncode == 1, p.stderr
    report = json.loads(p.stdout)
    assert report["findings"][0]["id"] == "cpu_only_build"


SECRETS = {
    "AWS_SECRET_ACCESS_KEY": "SECRETaws1",
    "HF_TOKEN": "hf_SECRETtok",
    "GITHUB_TOKEN": "ghp_SECRETgh",
    "DB_PASSWORD": "SECRETpw",
    "PIP_INDEX_URL": "https://alice:SECRETpip@pypi.example.com/simple",
    "PIP_EXTRA_INDEX_URL": "https://bob:SECRETextra@mirror.example.com/simple",
}


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["json", "markdown", "html", "text"])
def test_no_secret_in_any_format(tmp_path: Path, fmt: str) -> None:
    out = tmp_path / f"report.{fmt}"
    p = run(["diagnose", "--format", fmt, "--output", str(out)], env={**os.environ, **SECRETS})
    text = out.read_text()
    assert p.returncode in (0, 1), p.stderr
    assert text and "SECRET" not in text
    # The allow-listed index URL is kept, without its credentials.
    if fmt == "json":
        env = json.loads(text)["facts"]["env"]
        assert env["PIP_INDEX_URL"] == "https://pypi.example.com/simple"
        assert "AWS_SECRET_ACCESS_KEY" not in env and "HF_TOKEN" not in env


@pytest.mark.slow
def test_personal_data_redacted_by_default_and_kept_with_no_redact(tmp_path: Path) -> None:
    home = str(Path.home())
    a = run(["diagnose", "--format", "json"])
    b = run(["diagnose", "--format", "json", "--no-redact"])
    assert home not in a.stdout
    assert json.loads(a.stdout)["meta"]["redaction"]["personal"] is True
    assert json.loads(b.stdout)["meta"]["redaction"]["personal"] is False
    if sys.executable.startswith(home + os.sep):
        assert home in b.stdout


@pytest.mark.slow
def test_report_reopens_with_the_same_findings(tmp_path: Path, this_machine: tuple[int, dict]) -> None:
    rc, report = this_machine
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report))
    p = run(["diagnose", "--from", str(path), "--format", "json"])
    again = json.loads(p.stdout)
    assert p.returncode == rc
    assert [(f["id"], f["severity"], f["fix"]) for f in again["findings"]] == [
        (f["id"], f["severity"], f["fix"]) for f in report["findings"]
    ]
    for fmt in ("markdown", "html", "text"):
        q = run(["diagnose", "--from", str(path), "--format", fmt])
        assert q.returncode == rc and report["findings"][0]["title"].split(" (")[0][:30] in q.stdout
