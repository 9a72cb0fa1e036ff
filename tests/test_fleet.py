"""`gpuassist fleet`: many nodes' reports merged into groups by root cause, outliers and missing nodes
(issue 18), plus the node name every report carries (meta.node) and its pseudonym."""

from __future__ import annotations

import codecs
import io
import json
import os
import tracemalloc
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from gpuassist import cli
from gpuassist.fleet import SourceNotes, iter_entries, merge
from gpuassist.fleet import sources as fleet_sources
from gpuassist.fleet.render import fence, md, render
from gpuassist.report.node import node_info, pseudonym, redact_node
from gpuassist.report.redact import Redactor, redact_report
from gpuassist.sim import simulate


@cache
def _scenario_json(name: str) -> str:
    return json.dumps(simulate(name).to_json())


def scenario(name: str, node: str | None, *, pseudonymous: bool = False) -> dict[str, Any]:
    data = json.loads(_scenario_json(name))
    if node is not None:
        data["meta"]["node"] = {"name": node, "source": "slurm", "pseudonym": pseudonymous, "keyed": False}
    return data


def homogeneous_fleet() -> dict[str, dict[str, Any]]:
    """Eight alike 2×A100 nodes, three of which differ in one way each, and two with a CPU-only wheel."""
    nodes = {f"gpu{i:02d}": scenario("healthy-2x-a100-server", f"gpu{i:02d}") for i in range(1, 9)}
    nodes["gpu03"]["facts"]["driver.version"] = "535.183.01"  # another driver branch
    nodes["gpu05"]["facts"]["nvml.gpus"][1]["pcie_width_current"] = 8  # a link trained at x8
    nodes["gpu06"]["facts"]["nvml.gpus"][0]["throttle_reasons"] = 0x40  # HW thermal slowdown
    for data in nodes.values():  # a readable kernel log with no Xid
        data["facts"]["kernel.xid_events"] = []
    ecc = nodes["gpu07"]["facts"]["nvml.gpus"][0]  # failing memory: uncorrected ECC errors and their Xids
    ecc.update(ecc_mode="enabled", ecc_uncorrected_volatile=4, remapped_rows_pending=True)
    nodes["gpu07"]["facts"]["kernel.xid_events"] = [
        {"xid": 48, "pci": "0000:07:00", "count": 4, "last": "An uncorrectable double bit error (DBE)"},
        {"xid": 63, "pci": "0000:07:00", "count": 1, "last": "Row Remapper: New row marked for remapping"},
    ]
    nodes["gpu09"] = scenario("cpu-only-build-rtx4090", "gpu09")
    nodes["gpu10"] = scenario("cpu-only-build-rtx4090", "gpu10")
    return nodes


def write_fleet(folder: Path, nodes: dict[str, dict[str, Any]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i, data in enumerate(nodes.values()):  # named like Slurm's %t outputs: no host name in file names
        (folder / f"{i}.json").write_text(json.dumps(data, indent=2))


# -- node names ---------------------------------------------------------------------------------------------


def test_node_name_prefers_explicit_then_slurm_then_host_name() -> None:
    assert node_info({"GPUASSIST_NODE_NAME": "k8s-node-3", "SLURMD_NODENAME": "x"}, lambda: "pod-abc") == {
        "name": "k8s-node-3",
        "source": "env",
        "pseudonym": False,
        "keyed": False,
    }
    assert node_info({"SLURMD_NODENAME": "gpu07"}, lambda: "gpu07.cluster")["source"] == "slurm"  # type: ignore[index]
    assert node_info({}, lambda: "workbox")["name"] == "workbox"  # type: ignore[index]
    assert node_info({}, lambda: "") is None


def test_pseudonym_is_stable_keyed_and_hides_the_name() -> None:
    a = pseudonym("gpu07")
    assert a == pseudonym("gpu07") == pseudonym("GPU07 ")  # same host, same pseudonym, on any machine
    assert a != pseudonym("gpu08") and "gpu07" not in a and a.startswith("node-") and len(a) == 17
    assert pseudonym("gpu07", b"site secret") != a  # a site key: guessing names no longer reveals them
    assert redact_node(redact_node({"name": "gpu07", "pseudonym": False}, None), b"k")["name"] == a  # idempotent


def test_redaction_turns_the_node_name_into_its_pseudonym(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPUASSIST_NODE_KEY", raising=False)
    report = scenario("healthy-2x-a100-server", "workbox-17")
    report["facts"]["probe.stderr_tail"] = "failed on workbox-17"
    r = Redactor(personal=True, home="/home/alice", user="alice", host="workbox-17")
    out = redact_report(report, personal=True, redactor=r)
    assert out["meta"]["node"] == {
        "name": pseudonym("workbox-17"),
        "source": "slurm",
        "pseudonym": True,
        "keyed": False,
    }
    assert "workbox-17" not in json.dumps(out)
    monkeypatch.setenv("GPUASSIST_NODE_KEY", "cluster-secret")
    keyed = redact_report(report, personal=True, redactor=Redactor(personal=True, host="workbox-17"))
    assert keyed["meta"]["node"]["name"] == pseudonym("workbox-17", b"cluster-secret")
    assert keyed["meta"]["node"]["keyed"] is True
    kept = redact_report(report, personal=False, redactor=Redactor(personal=False, host="workbox-17"))
    assert kept["meta"]["node"]["name"] == "workbox-17"


# -- merging ------------------------------------------------------------------------------------------------


def fleet_json(tmp_path: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    out = tmp_path / "fleet.json"
    rc = cli.main(["fleet", *extra, "--format", "json", "--output", str(out)])
    return rc, json.loads(out.read_text())


def test_groups_nodes_by_root_cause_with_the_shared_fix(tmp_path: Path) -> None:
    write_fleet(tmp_path / "reports", homogeneous_fleet())
    rc, fleet = fleet_json(tmp_path, str(tmp_path / "reports"))
    assert rc == 1  # two nodes have an error-severity finding
    assert fleet["schema"] == "gpuassist.fleet/1"
    first = fleet["groups"][0]
    assert first["id"] == "cpu_only_build" and first["severity"] == "error" and first["root_cause"] is True
    assert first["nodes"] == ["gpu09", "gpu10"] and first["count"] == 2
    assert "--index-url https://download.pytorch.org/whl/cu124" in first["fix"]
    by_id = {g["id"]: g for g in fleet["groups"]}
    assert "gpu09" not in by_id.get("thermal_power_throttling", {"nodes": []})["nodes"]
    s = fleet["summary"]
    assert (s["nodes"], s["reports"], s["with_errors"], s["unreadable"], s["missing"]) == (10, 10, 2, 0, 0)
    nodes = {n["name"]: n for n in fleet["nodes"]}
    assert nodes["gpu09"]["worst"] == "error" and nodes["gpu09"]["root_causes"][0] == "cpu_only_build"
    assert nodes["gpu01"]["worst"] in ("ok", "info")


def test_outliers_name_the_node_that_differs_from_the_majority(tmp_path: Path) -> None:
    write_fleet(tmp_path / "r", homogeneous_fleet())
    _, fleet = fleet_json(tmp_path, str(tmp_path / "r"))
    outliers = {o["key"]: o for o in fleet["outliers"]}

    def differs(key: str) -> dict[str, list[str]]:
        return {o["value"]: o["nodes"] for o in outliers[key]["others"]}

    assert outliers["driver.branch"]["majority"] == {"value": "R550", "count": 9}
    assert differs("driver.branch") == {"R535": ["gpu03"]}
    assert differs("pcie.width") == {"GPU 1 x8 of x16": ["gpu05"]}
    assert differs("gpu.throttle") == {"HW thermal slowdown (GPU 0)": ["gpu06"]}
    assert differs("torch.build") == {"2.5.1+cpu (CPU-only)": ["gpu09", "gpu10"]}
    assert differs("gpu.ecc") == {"GPU 0: 4 uncorrected, row remap pending (reset)": ["gpu07"]}
    assert differs("kernel.xid_events") == {"Xid 48 ×4, Xid 63 ×1": ["gpu07"]}
    # gpu09/gpu10 could not read their kernel log (not collected): not counted either way
    assert outliers["kernel.xid_events"]["majority"] == {"value": "none", "count": 7}
    assert outliers["gpu.count"]["majority"]["value"] == "2" and differs("gpu.count") == {"1": ["gpu09", "gpu10"]}
    assert "python.version" not in outliers  # alike everywhere: not an outlier


def test_missing_and_unreadable_nodes_are_named_never_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "r"
    write_fleet(folder, {k: v for k, v in homogeneous_fleet().items() if k in ("gpu01", "gpu02")})
    (folder / "2.json").write_text("bash: gpuassist: command not found\n")  # the node had no gpuassist
    (folder / "3.json").write_text("")  # the task died before writing
    (folder / "4.json").write_text('{"schema": "gpuassist.report/1", "facts": {}, "findings": [{"id": 1}]}')
    (folder / "5.json").write_bytes(b"\x00\x01\x02binary")
    (folder / "slurm-42.out").write_text("srun: error: gpu04: task 3: Exited with exit code 127\n")
    expect = tmp_path / "nodes.txt"
    expect.write_text("gpu01\ngpu02\ngpu03\ngpu04\n")  # `scontrol show hostnames` output
    rc, fleet = fleet_json(tmp_path, str(folder), str(tmp_path / "gone.json"), "--expect", str(expect))
    assert rc == 1
    errors = {Path(u["label"]).name: u["error"] for u in fleet["unreadable"]}
    assert errors["2.json"] == "not a gpuassist JSON report: 'bash: gpuassist: command not found'"
    assert "empty" in errors["3.json"]
    assert "findings[0] has no id" in errors["4.json"]  # the ingest layer's own validation
    assert "binary" in errors["5.json"]
    assert errors["gone.json"] == "no such file or folder"
    assert fleet["missing"] == ["gpu03", "gpu04"]
    # four nodes expected: two reported, two did not; the unreadable files are not counted as more nodes
    s = fleet["summary"]
    assert (s["nodes"], s["expected"], s["reports"], s["missing"], s["unreadable"]) == (4, 4, 2, 2, 5)
    assert s["skipped_files"] == 1
    text = capsys.readouterr()
    assert "Traceback" not in text.err


def test_pseudonymous_reports_match_expected_names_by_pseudonym(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPUASSIST_NODE_KEY", "s3cret")
    folder = tmp_path / "r"
    write_fleet(folder, {"a": scenario("healthy-2x-a100-server", pseudonym("gpu01", b"s3cret"), pseudonymous=True)})
    rc, fleet = fleet_json(tmp_path, str(folder), "--expect", "gpu01,gpu02")
    assert rc == 1  # a node is missing
    assert fleet["meta"]["pseudonymous"] is True
    assert fleet["missing"] == [pseudonym("gpu02", b"s3cret")]  # shown as the reports show names
    assert "gpu0" not in json.dumps(fleet)
    # the admin's own triage: their list and key turn pseudonyms back into names
    rc, fleet = fleet_json(tmp_path, str(folder), "--expect", "gpu01,gpu02", "--reveal")
    assert [n["name"] for n in fleet["nodes"]] == ["gpu01"] and fleet["missing"] == ["gpu02"]
    assert fleet["meta"]["pseudonymous"] is False
    assert cli.main(["fleet", str(folder), "--reveal"]) == 2  # nothing to reveal with


def test_json_lines_on_stdin_and_concatenated_pretty_reports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nodes = homogeneous_fleet()
    lines = [json.dumps(v) for v in list(nodes.values())[:4]]
    stream = "\n".join(lines[:2]) + "\nssh: connect to host gpu11 port 22: No route to host\n" + "\n".join(lines[2:])
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(stream.encode())))
    pretty = tmp_path / "all.json"  # `cat reports/*.json > all.json`
    pretty.write_bytes(  # Windows line endings, a byte-order mark on each (cat of files saved by an editor)
        b"".join(
            codecs.BOM_UTF8 + json.dumps(v, indent=2).replace("\n", "\r\n").encode() + b"\r\n"
            for v in list(nodes.values())[4:7]
        )
    )
    rc, fleet = fleet_json(tmp_path, "-", str(pretty))
    assert rc == 1  # healthy nodes, but one answer was not a report
    names = [n["name"] for n in fleet["nodes"]]
    assert names == ["gpu01", "gpu02", "gpu03", "gpu04", "gpu05", "gpu06", "gpu07"]
    assert fleet["nodes"][0]["source"] == "standard input:1" and fleet["nodes"][4]["source"] == f"{pretty}:1"
    assert fleet["unreadable"] == [
        {
            "label": "standard input:3",
            "error": "not a gpuassist JSON report: 'ssh: connect to host gpu11 port 22: No route to host'",
        }
    ]


def test_reports_without_a_node_name_use_the_file_name_and_duplicates_stay_apart(tmp_path: Path) -> None:
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / "gpu01").write_text(json.dumps(scenario("healthy-2x-a100-server", None)))  # pssh -o: named by host
    (folder / "again.json").write_text(json.dumps(scenario("healthy-2x-a100-server", "gpu01")))
    (folder / "w.json").write_bytes(json.dumps(scenario("healthy-2x-a100-server", "gpu02")).encode("utf-16"))
    _, fleet = fleet_json(tmp_path, str(folder))
    assert sorted(n["name"] for n in fleet["nodes"]) == ["gpu01", "gpu01 (2)", "gpu02"]  # UTF-16: PowerShell `>`
    assert fleet["duplicates"] == ["gpu01"]


def test_special_files_and_endless_lines_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    entries = list(iter_entries([str(fifo)]))
    assert [e.error for e in entries] == ["not a regular file"]  # never blocks on a FIFO
    monkeypatch.setattr(fleet_sources, "MAX_BYTES", 1000)
    big = tmp_path / "big.jsonl"
    big.write_text(json.dumps(scenario("healthy-2x-a100-server", "gpu01")) + "\n")
    entries = list(iter_entries([str(big)]))
    assert entries[-1].error is not None and "larger than" in entries[-1].error


def test_every_format_renders_and_html_escapes_node_names(tmp_path: Path) -> None:
    nodes = homogeneous_fleet()
    nodes["gpu09"]["meta"]["node"]["name"] = "<script>alert(1)</script>"
    write_fleet(tmp_path / "r", nodes)
    result = merge(iter_entries([str(tmp_path / "r")]))
    html = render(result, "html")
    assert "<script>alert" not in html and "&lt;script&gt;" in html
    assert "Nodes × findings" in html and "cpu_only_build" in html
    md = render(result, "markdown")
    assert md.startswith("# gpuassist fleet: 10 nodes, 2 with errors")
    assert "<script>" not in md and "&lt;script&gt;alert(1)&lt;/script&gt;" in md  # no HTML into the ticket
    assert "| Driver branch | R550 (9 of 10) | R535: gpu03 |" in md
    text = render(result, "text", width=120, colour=False)
    assert "Fleet: 10 nodes" in text and "GPU 1 x8 of x16: gpu05" in text
    assert json.loads(render(result, "json"))["schema"] == "gpuassist.fleet/1"


def test_markdown_cells_and_fences_cannot_be_broken_by_report_text() -> None:
    assert md("gpu|01 [x](y) `z`") == "gpu\\|01 \\[x\\](y) \\`z\\`"
    assert fence("pip install x") == "```" and fence("see ```` here") == "`````"


def test_an_earlier_merged_result_in_the_folder_is_skipped_not_a_node(tmp_path: Path) -> None:
    write_fleet(tmp_path / "r", {k: v for k, v in homogeneous_fleet().items() if k in ("gpu01", "gpu02")})
    assert cli.main(["fleet", str(tmp_path / "r"), "--format", "json", "--output", str(tmp_path / "r" / "f.json")]) == 0
    rc, fleet = fleet_json(tmp_path, str(tmp_path / "r"))  # run again: f.json is among the reports now
    assert rc == 0 and fleet["unreadable"] == [] and fleet["summary"]["reports"] == 2
    assert fleet["summary"]["skipped_files"] == 1


def test_healthy_fleet_exits_zero_and_bad_usage_exits_two(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_fleet(tmp_path / "r", {k: v for k, v in homogeneous_fleet().items() if k in ("gpu01", "gpu02")})
    assert cli.main(["fleet", str(tmp_path / "r"), "--output", str(tmp_path / "out.txt")]) == 0
    assert "2 healthy" in (tmp_path / "out.txt").read_text()
    with pytest.raises(SystemExit) as exc:
        cli.main(["fleet"])
    assert exc.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


# -- streaming: memory stays bounded ------------------------------------------------------------------------


def small_report(i: int) -> bytes:
    finding = {
        "id": "cpu_only_build",
        "severity": "error",
        "title": "CPU-only build",
        "explanation": "x" * 200,
        "fix": "pip install torch --index-url https://download.pytorch.org/whl/cu124",
        "evidence": [{"fact": "torch.version", "value": "2.5.1+cpu"}],
        "step": "wheel",
        "explains": [],
    }
    report = {
        "schema": "gpuassist.report/1",
        "facts": {
            "driver.version": "550.54.14" if i % 97 else "535.183.01",
            "torch.version": "2.5.1+cu124",
            "torch.cuda_build": "12.4",
            "python.version": "3.11.9",
            "host.kernel": "6.5.0-26-generic",
            "filler": "y" * 1500,
        },
        "findings": [finding] if i % 10 == 0 else [],
        "steps": [],
        "monitor": {},
        "meta": {"node": {"name": pseudonym(f"gpu{i:06d}"), "pseudonym": True}},
    }
    return json.dumps(report).encode() + b"\n"


class ReportStream(io.RawIOBase):
    """A JSON-lines stream of ``count`` reports, generated as it is read (never all in memory)."""

    def __init__(self, count: int) -> None:
        self.lines: Iterator[bytes] = (small_report(i) for i in range(count))
        self.pending = b""
        self.produced = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while len(self.pending) < len(buffer):
            line = next(self.lines, None)
            if line is None:
                break
            self.produced += len(line)
            self.pending += line
        n = min(len(buffer), len(self.pending))
        buffer[:n] = self.pending[:n]
        self.pending = self.pending[n:]
        return n


@pytest.mark.slow
def test_a_long_stream_merges_in_bounded_memory() -> None:
    def peak(count: int) -> tuple[int, int, Any]:
        raw = ReportStream(count)
        tracemalloc.start()
        try:
            result = merge(iter_entries(["-"], io.BufferedReader(raw), SourceNotes()))
            return tracemalloc.get_traced_memory()[1], raw.produced, result
        finally:
            tracemalloc.stop()

    small_peak, _, _ = peak(2_000)
    big_peak, streamed, result = peak(20_000)
    assert result.summary()["reports"] == 20_000 and result.groups[0].nodes[:1] == [pseudonym("gpu000000")]
    assert len(result.groups[0].nodes) == 2_000
    assert {o.key for o in result.outliers} == {"driver.branch", "driver.version"}
    assert streamed > 35_000_000
    per_node = (big_peak - small_peak) / 18_000
    # what grows is a small row per node (its name, where it came from, finding ids), not its report: these
    # test reports are 1.9 kB, real ones 25-100 kB, and 100,000 nodes stay under ~60 MB
    assert per_node < 800, f"{per_node:.0f} bytes kept per node"
    assert small_peak < 6_000_000, small_peak  # the rest: a read chunk and the record in hand, whatever N
    print(f"peak {big_peak / 1e6:.1f} MB for {streamed / 1e6:.0f} MB streamed; {per_node:.0f} bytes per node")


def test_a_stopped_fabric_manager_and_a_lost_gpu_stand_out_in_an_hgx_fleet(tmp_path: Path) -> None:
    nodes = {f"hgx{i}": scenario("fabric-manager-stopped-hgx-h100", f"hgx{i}") for i in range(1, 5)}
    for name in ("hgx1", "hgx2", "hgx3"):
        nodes[name]["facts"]["driver.fabricmanager"] = "active"
    del nodes["hgx2"]["facts"]["nvml.gpus"][7]  # a GPU fell off the bus: 7 answer, 8 on PCI
    write_fleet(tmp_path / "r", nodes)
    _, fleet = fleet_json(tmp_path, str(tmp_path / "r"))
    outliers = {o["key"]: o for o in fleet["outliers"]}
    assert outliers["driver.fabricmanager"]["majority"] == {"value": "active", "count": 3}
    assert outliers["driver.fabricmanager"]["others"] == [{"value": "inactive", "count": 1, "nodes": ["hgx4"]}]
    assert outliers["gpu.count"]["others"] == [{"value": "7 (driver) / 8 (PCI bus)", "count": 1, "nodes": ["hgx2"]}]


def test_the_shared_fix_in_text_is_blocks_a_copied_command_stays_one_line(tmp_path: Path) -> None:
    write_fleet(tmp_path / "r", homogeneous_fleet())
    text = render(merge(iter_entries([str(tmp_path / "r")])), "text", width=80)
    commands = [line.strip() for line in text.splitlines() if line.strip().startswith("$ ")]
    assert any('pip install --force-reinstall "torch==2.5.1"' in c and c.endswith("/whl/cu124") for c in commands)
    assert "Shared fix:" in text


def test_the_shared_fix_in_markdown_and_html_is_one_block_per_step_a_reboot_alone(tmp_path: Path) -> None:
    nodes = {"a": scenario("driver-too-old-r570-cu130", "a"), "b": scenario("driver-too-old-r570-cu130", "b")}
    write_fleet(tmp_path / "r", nodes)
    result = merge(iter_entries([str(tmp_path / "r")]))
    md_text = render(result, "markdown")
    blocks = md_text.split("```")[1::2]
    assert any(b.strip() == "sudo reboot" for b in blocks)  # the reboot is its own last block
    assert not any("pip install" in b and "ubuntu-drivers" in b for b in blocks)  # options never share a block
    html_text = render(result, "html")
    assert "<pre>sudo reboot</pre>" in html_text
