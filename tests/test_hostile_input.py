"""Hostile machines and hostile input (issue #12): the reproductions of ../shared/reviews/reliability-repros.md
that need no real interpreter, as tests. Bounded reads, linear regular expressions, exit 2 (never 3) on
ordinary conditions, safe writes, plain text for terminals and Markdown, and redaction.

CLI cases run ``gpuassist.cli.main`` in this process (fast); the few that depend on how the process starts
(a closed stdin, the locale) run it as a subprocess. Time bounds are generous: they catch "minutes", not
"milliseconds", on a loaded 2-core machine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gpuassist.cli import main
from gpuassist.facts import Facts
from gpuassist.findings import Evidence, Finding, Severity
from gpuassist.ingest import UnreadableInput, load, load_text
from gpuassist.report.model import Report, step_summaries
from gpuassist.report.redact import Redactor, redact_report
from gpuassist.report.render import render

GA = [sys.executable, "-m", "gpuassist.cli"]
SCENARIO = ["--simulate", "cpu-only-build-rtx4090"]
SLOW_ENOUGH = 10.0  # seconds: "fast" for a bounded read or a linear parse, however loaded the machine


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


# ---- every read is bounded ---------------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")
@pytest.mark.parametrize("command", [["diagnose", "--from"], ["audit"]])
def test_a_fifo_is_refused_at_once_not_waited_on(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    started = time.monotonic()
    code, _, err = run_cli([*command, str(fifo)], capsys)
    assert code == 2 and time.monotonic() - started < SLOW_ENOUGH
    assert len(err.strip().splitlines()) == 1 and "FIFO" in err


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
@pytest.mark.parametrize("command", [["diagnose", "--from"], ["audit"]])
def test_dev_zero_is_refused_without_reading_it(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    started = time.monotonic()
    code, _, err = run_cli([*command, "/dev/zero"], capsys)
    assert code == 2 and time.monotonic() - started < SLOW_ENOUGH
    assert err.strip().splitlines() == [err.strip()] and "character device" in err


@pytest.mark.parametrize("command", [["diagnose", "--from"], ["audit"]])
def test_a_huge_file_is_refused_after_reading_only_the_cap(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    big = tmp_path / ("big.py" if command == ["audit"] else "big.txt")
    with open(big, "wb") as f:  # 200 MB, sparse: costs no disk
        f.truncate(200 * 1024 * 1024)
    read: list[int] = []
    real_read = os.read
    monkeypatch.setattr(os, "read", lambda fd, n: (read.append(n), real_read(fd, n))[1])
    started = time.monotonic()
    code, _, err = run_cli([*command, str(big)], capsys)
    assert code == 2 and time.monotonic() - started < SLOW_ENOUGH
    assert "larger than" in err or "too large" in err
    assert sum(read) <= 51 * 1024 * 1024  # the cap plus one byte, never the whole file


def test_read_bounded_reads_at_most_the_cap_plus_one(tmp_path: Path) -> None:
    from gpuassist.files import FileError, read_bounded

    f = tmp_path / "a.txt"
    f.write_bytes(b"x" * 1000)
    assert len(read_bounded(str(f), 10)) == 11
    assert read_bounded(str(f), 5000) == b"x" * 1000
    with pytest.raises(FileError, match="no such file"):
        read_bounded(str(tmp_path / "missing"), 10)
    with pytest.raises(FileError, match="directory"):
        read_bounded(str(tmp_path), 10)


@pytest.mark.slow
def test_closed_stdin_is_one_line_exit_2() -> None:
    p = subprocess.run(
        [*GA, "diagnose", "--from", "-"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        preexec_fn=lambda: os.close(0),
    )
    assert p.returncode == 2, p.stderr
    assert p.stderr.strip().splitlines() == ["gpuassist: cannot read standard input: standard input is closed"]


# ---- no regular expression worse than linear ---------------------------------------------------------------

SPACES = " " * 200_000
PATHOLOGICAL = [
    "PyTorch version" + SPACES + "x",  # collect_env LABEL
    "PyTorch version: 2.5.1\nOS: Ubuntu" + SPACES + "y\nGPU models and configuration: GPU 0: A" + SPACES + "b",
    "RuntimeError: " + "a " * 100_000 + " with CUDA capability sm_86 is not compatible",
    "\t \n" * 70_000 + "Is CUDA available: False",
    "key" + " " * 100_000 + "= x https://" + "a" * 100_000 + "@",  # redaction patterns
    "eyJ-" * 50_000 + "Bearer " * 20_000,
    *("\n".join([line * (2000 // len(line))] * 100) for line in (" ", "a", "error ", ": ", "CUDA ", "sm_", "1.", "/a")),
]


@pytest.mark.parametrize("text", PATHOLOGICAL, ids=range(len(PATHOLOGICAL)))
def test_paste_parsers_are_linear_on_pathological_whitespace(text: str) -> None:
    started = time.monotonic()
    try:
        report = load_text(text, label="paste")
    except UnreadableInput:
        report = None
    Redactor(home="/home/alice", user="alice", host="box").text(text)
    if report is not None:
        render(report, "markdown")
    assert time.monotonic() - started < SLOW_ENOUGH


@pytest.mark.parametrize(
    "body",
    [
        " " * 60_000 + "x=1\n",
        "\t " * 30_000 + "y = %time 1\n",
        "x" + " " * 60_000 + "= 1\n",
        "(" * 20_000 + " " * 20_000 + "\n",
    ],
)
def test_the_notebook_audit_is_linear_on_pathological_whitespace(
    body: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nb = tmp_path / "r.ipynb"
    nb.write_text(json.dumps({"cells": [{"cell_type": "code", "source": body}]}))
    script = tmp_path / "r.py"
    script.write_text("import torch\n" + body.replace("%time", "1"))
    started = time.monotonic()
    for path in (nb, script):
        code, _, _ = run_cli(["audit", str(path)], capsys)
        assert code in (0, 1, 2)
    assert time.monotonic() - started < SLOW_ENOUGH


# ---- exit 3 only for real bugs -----------------------------------------------------------------------------


@pytest.mark.slow
def test_any_format_works_when_stdout_is_not_utf8() -> None:
    env = {**os.environ, "PYTHONIOENCODING": "cp1252"}
    for fmt in ("html", "text", "markdown"):
        p = subprocess.run(
            [*GA, "diagnose", *SCENARIO, "--format", fmt], capture_output=True, env=env, timeout=120, check=False
        )
        assert p.returncode == 1, p.stderr
        assert "✖".encode() in p.stdout  # UTF-8 whatever the locale


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.slow
def test_a_full_disk_is_one_line_exit_2() -> None:
    with open("/dev/full", "w") as full:
        p = subprocess.run(
            [*GA, "diagnose", *SCENARIO, "--format", "text"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
        )
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == ["gpuassist: cannot write to standard output: No space left on device"]


@pytest.mark.slow
def test_closed_stdout_is_one_line_exit_2() -> None:
    p = subprocess.run(
        [*GA, "diagnose", *SCENARIO],
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        check=False,
        preexec_fn=lambda: os.close(1),
    )
    assert p.returncode == 2
    assert len(p.stderr.strip().splitlines()) == 1 and "standard output is closed" in p.stderr


@pytest.mark.parametrize(
    "doc",
    [
        {"schema": "gpuassist.report/1", "facts": {"x": json.loads("[" * 500 + "]" * 500)}, "findings": []},
        {"schema": "gpuassist.report/1", "facts": {}, "findings": [{"id": "x", "severity": []}]},
        {"schema": "gpuassist.report/1", "facts": {"nvml.gpus": 3}, "findings": []},
        {"schema": "gpuassist.report/1", "facts": {"devices": ["cuda:0"]}, "findings": []},
        {"schema": "gpuassist.report/1", "facts": {"torch.dists": {"a": 1}}, "findings": []},
        {"schema": "gpuassist.report/1", "facts": {"env": ["PATH"]}, "findings": []},
        {"schema": "gpuassist.report/1", "facts": {"host.distro": ["x"]}, "findings": []},
        {"schema": "gpuassist.report/1", "facts": {}, "findings": [], "meta": {"redaction": [1]}},
        {"schema": "gpuassist.report/1", "facts": {}, "findings": [], "meta": {"redaction": {"applied": {"a": "x"}}}},
        {"schema": "gpuassist.report/1", "facts": {}, "findings": [], "steps": [None]},
        {"schema": "gpuassist.report/1", "facts": {}, "findings": [], "steps": [{"id": "x", "status": 3}]},
    ],
    ids=[
        "depth-500",
        "severity-list",
        "nvml.gpus",
        "devices",
        "torch.dists",
        "env",
        "host.distro",
        "redaction-list",
        "redaction-counts",
        "step-null",
        "step-status",
    ],
)
def test_malformed_reports_are_cannot_read_exit_2(
    doc: dict, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc))
    code, _, err = run_cli(["diagnose", "--from", str(path)], capsys)
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "malformed" in err


def test_a_stray_nul_byte_does_not_make_a_paste_binary() -> None:
    report = load(
        b"PyTorch version: 2.5.1+cpu\x00\nIs CUDA available: False\nCUDA used to build PyTorch: None\n"
        b"OS: Ubuntu 22.04 (x86_64)\n"
    )
    assert report.facts.value("torch.version") == "2.5.1+cpu"
    with pytest.raises(UnreadableInput, match="binary"):
        load(bytes(range(256)) * 10)


def test_audit_run_seconds_must_be_finite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "a.py"
    script.write_text("print(1)\n")
    code, _, err = run_cli(["audit", "--run", "--seconds", "inf", "--", sys.executable, str(script)], capsys)
    assert code == 2 and "--seconds must be at most" in err and "Traceback" not in err


# ---- writes are safe ---------------------------------------------------------------------------------------


def test_output_dash_is_stdout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli(["diagnose", *SCENARIO, "--format", "json", "--output", "-"], capsys)
    assert code == 1 and json.loads(out)["schema"] == "gpuassist.report/1"
    assert not (tmp_path / "-").exists()


def test_a_failed_write_keeps_the_previous_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "report.json"
    target.write_text("previous report")

    def full_disk(*_: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    code, _, err = run_cli(["diagnose", *SCENARIO, "--format", "json", "--output", str(target)], capsys)
    assert code == 2 and "No space left on device" in err
    assert target.read_text() == "previous report"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]  # no temporary file left behind


@pytest.mark.skipif(os.name == "nt", reason="POSIX symlinks")
def test_a_symlink_named_as_output_is_replaced_not_followed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    link = tmp_path / "report.json"
    link.symlink_to(victim)
    code, _, _ = run_cli(["diagnose", *SCENARIO, "--format", "json", "--output", str(link)], capsys)
    assert code == 1
    assert victim.read_text() == "keep me"
    assert not link.is_symlink() and json.loads(link.read_text())["schema"] == "gpuassist.report/1"


def test_an_existing_output_file_is_replaced_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "r.md"
    target.write_text("x" * 100_000)
    os.chmod(target, 0o640)
    code, _, _ = run_cli(["diagnose", *SCENARIO, "--format", "markdown", "--output", str(target)], capsys)
    assert code == 1
    text = target.read_text()
    assert text.startswith("> **SIMULATED**") and "x" * 100 not in text
    assert (target.stat().st_mode & 0o777) == 0o640


# ---- plain text stays plain --------------------------------------------------------------------------------

ESCAPES = ["\x1b[2J", "\x1b]52;c;cHduZWQ=\x07", "\x9b2J", "\x1b[1A\r✔ No problem found", "\u202e"]


def hostile_report() -> Report:
    title = "## ✔ No problem found ![x](http://evil/x.png) </details> " + "".join(ESCAPES)
    findings = [
        Finding(
            "cpu_only_build",
            Severity.ERROR,
            title,
            "explained\x1b[2J\n# heading\n- item",
            "pip install torch\n```\n</details>\n# after the fence\n````",
            [Evidence("torch.version\x1b[31m|`x`", "2.5.1<img src=file:///etc/passwd>\x1b]0;t\x07")],
            step="wheel",
        )
    ]
    facts = Facts({"torch.version": "2.5.1\x1b[2J", "host.distro": "Ubuntu\x1b]52;c;AAAA\x07"})
    return Report(
        facts,
        findings,
        step_summaries(findings, {"wheel"}),
        {},
        {"source": "live", "generated_at": "now", "gpuassist_version": "0"},
    )


def _escape_free(text: str) -> bool:
    import re

    without_colours = re.sub("\x1b\\[[0-9;]*m", "", text)
    return not any(c in without_colours for c in "\x1b\x07\x9b\u202e\r")


def test_terminal_output_has_no_escape_sequences_but_colours(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(hostile_report().to_json()))
    for fmt in ("text", "markdown", "html", "json"):
        code, out, _ = run_cli(["diagnose", "--from", str(path), "--format", fmt], capsys)
        assert code == 1
        assert _escape_free(out), (fmt, [c for c in out if c in "\x1b\x07\x9b"])
    paste = "RuntimeError: Torch not compiled with CUDA enabled \x1b[2J\x1b]52;c;AAAA\x07\n"
    (tmp_path / "p.txt").write_text(paste)
    code, out, _ = run_cli(["diagnose", "--from", str(tmp_path / "p.txt")], capsys)
    assert _escape_free(out)


def test_audited_code_lines_are_printed_without_control_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "t.py"
    script.write_text(
        "import torch\nm = torch.nn.Linear(2, 2).cuda()  # \x1b[2J\x1b]52;c;AAAA\x07\nx = torch.randn(2)\ny = m(x)\n"
    )
    code, out, _ = run_cli(["audit", str(script)], capsys)
    assert code in (0, 1) and _escape_free(out)


def test_envs_table_prints_paths_without_control_characters() -> None:
    from gpuassist.plaintext import terminal_safe
    from gpuassist.report.envs import render_text

    facts = Facts(
        {
            "envs.inventory": [{"name": "ev\x1b[2Jil", "python": "/tmp/x\x1b]52;c;AA\x07/bin/python", "status": "ok"}],
            "envs.notes": ["note \x1b[2J"],
        }
    )
    text = terminal_safe(
        render(Report(facts, [], [], {}, {"source": "envs"}), "text")
        + render_text(Report(facts, [], [], {}, {"source": "envs"}))
    )
    assert _escape_free(text)


def test_markdown_escapes_report_text_and_fences_code_safely() -> None:
    import re

    md = render(hostile_report(), "markdown")
    fenced = re.findall(r"^(`{3,})\n.*?^\1$", md, flags=re.S | re.M)
    # the fix is split into blocks (issue #16 item 3): its commands fenced, its other lines escaped prose
    outside_code = re.sub(r"^(`{3,})\n.*?^\1$", "", md, flags=re.S | re.M)
    assert fenced and not any(line.lstrip().startswith("# after") for line in outside_code.splitlines())
    lines = re.sub(r"^(`{3,})\n.*?^\1$", "", md, flags=re.S | re.M).splitlines()  # outside code blocks
    assert sum(line.startswith("## ") for line in lines) == 1  # only gpuassist's own heading
    assert not any(
        line.startswith(("#", "- item")) and not line.startswith(("## gpuassist", "### ", "#### ")) for line in lines
    )
    assert "![x](" not in md and "!\\[x\\]" in md
    outside = "\n".join(lines)
    assert len(re.findall(r"(?<!\\)</details>", outside)) == outside.count("<details>")  # gpuassist's own only
    assert re.search(r"^```\npip install torch\n```$", md, re.M)  # the command, in a fence of its own
    assert "\\`\\`\\`\\`" in md  # the fix's own backticks are text: they cannot open or close a fence
    assert re.search(r"(?<!\\)<img", md) is None  # escaped: shown as text, never an image


# ---- redaction ---------------------------------------------------------------------------------------------


def test_tokens_in_index_urls_never_reach_a_report() -> None:
    env = {
        "PIP_EXTRA_INDEX_URL": "https://h.example/simple?token=QTOK",
        "UV_INDEX_URL": "https://pypi.fury.io/FURYTOK/acme/",
        "PIP_FIND_LINKS": "https://conda.anaconda.org/t/tk-CONDATOK/c https://u:pa#ssHASHPW@h.example/l",
        "PIP_INDEX_URL": "https://u:p/a@ss@private.example/simple/SEGTOKEN123/ https://download.pytorch.org/whl/cu124",
    }
    report = Report(Facts({"env": env}), [], [], {}, {})
    out = json.dumps(redact_report(report.to_json(), personal=False))
    for secret in ("QTOK", "FURYTOK", "CONDATOK", "HASHPW", "pa#ss", "SEGTOKEN123", "p/a@ss"):
        assert secret not in out, secret
    assert "https://download.pytorch.org/whl/cu124" in out  # what the diagnosis needs stays


def test_secrets_in_the_targets_error_text_are_redacted() -> None:
    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJl"
    message = f"ImportError: WANDB_API_KEY={'ab12' * 10} Bearer {jwt} password=hunter2 x {jwt}"
    facts = Facts({"probe.stderr_tail": message, "torch.import_error": {"type": "ImportError", "message": message}})
    findings = [Finding("torch_import_error", Severity.ERROR, "import fails", message, "fix", [], step="environment")]
    out = json.dumps(redact_report(Report(facts, findings, [], {}, {}).to_json(), personal=False))
    for secret in ("ab12ab12", "hunter2", "c2lnbmF0dXJl", "eyJzdWIi"):
        assert secret not in out, secret
    assert "WANDB_API_KEY=<redacted>" in out


def test_the_user_name_anywhere_in_a_path_and_the_real_home_are_redacted(tmp_path: Path) -> None:
    real = tmp_path / "gpfs" / "u" / "bob"
    real.mkdir(parents=True)
    home = tmp_path / "home-bob"
    home.symlink_to(real)
    r = Redactor(home=str(home), user="bob", host="node17")
    text = f"{real}/proj/train.py /scratch/bob/venv/bin/python /private/var/bob/x {home}/y /bobcat/z"
    out = r.text(text)
    assert str(real) not in out and "/bob/" not in out and "/bob " not in out
    assert out.startswith("~/proj/train.py /scratch/<user>/venv") and "/bobcat/z" in out


def test_static_audit_output_is_redacted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "t.py"
    script.write_text(
        "import torch\nm = torch.nn.Linear(2, 2).cuda()\n"
        'x = torch.randn(2); u = "https://bob:PASS@h.example/x"\ny = m(x)\n'
    )
    for fmt in ("json", "text"):
        code, out, _ = run_cli(["audit", str(script), "--format", fmt], capsys)
        assert code == 1 and "PASS" not in out and "x = torch.randn(2)" in out


def test_secret_looking_script_arguments_are_redacted() -> None:
    from gpuassist.audit.run import scrub_args

    shown = scrub_args(["a.py", "--wandb-key", "WKEY", "--key=K", "-p", "P", "-pQ", "--epochs", "3"])
    assert shown == [
        "a.py",
        "--wandb-key",
        "<redacted>",
        "--key=<redacted>",
        "-p",
        "<redacted>",
        "-p<redacted>",
        "--epochs",
        "3",
    ]


# ---- a crash or hang in any runtime step is a finding, everywhere alike ---------------------------------------


@pytest.mark.parametrize(
    ("test", "outcome", "step"),
    [("placement", "crashed", "placement"), ("sweep", "timeout", "dataloader"), ("bench", "failed", "benchmark")],
)
def test_a_crashed_or_hung_runtime_test_is_an_error_in_every_format(test: str, outcome: str, step: str) -> None:
    from gpuassist.runtime.common import RuntimeResult, runtime_report

    facts = {
        f"{test}.outcome": outcome,
        f"{test}.failed_stage": "import_torch",
        f"{test}.python": "/usr/bin/python3",
        f"{test}.signal": "SIGSEGV" if outcome == "crashed" else None,
        f"{test}.returncode": -11,
        f"{test}.limit_seconds": 90.0 if outcome == "timeout" else None,
        f"{test}.error": "the bench test exited with status 1 before finishing" if outcome == "failed" else None,
    }
    report = runtime_report([RuntimeResult(test, facts)], {})
    assert report.has_error
    [found] = [f for f in report.findings if f.step == step]
    assert found.severity is Severity.ERROR and found.id in ("probe_crashed", "probe_timeout")
    assert [s["status"] for s in report.steps if s["id"] == step] == ["error"]
    for fmt in ("text", "markdown", "html"):
        out = render(report, fmt)
        assert "No problem found" not in out and "✔ ok" not in out
        assert "✖" in out
    assert json.loads(render(report, "json"))["findings"][0]["severity"] == "error"


def test_a_cancelled_runtime_test_is_not_a_finding() -> None:
    from gpuassist.runtime.common import RuntimeResult, runtime_report

    report = runtime_report([RuntimeResult("bench", {"bench.outcome": "cancelled"})], {})
    assert not [f for f in report.findings if f.step == "benchmark"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")
def test_a_fifo_planted_where_discovery_reads_small_files_does_not_hang_it(tmp_path: Path) -> None:
    from gpuassist.envs import discovery, projects, pyenv
    from gpuassist.files import read_head

    for name in ("pyvenv.cfg", ".python-version", "pyproject.toml", "kernel.json", "python"):
        os.mkfifo(tmp_path / name)
    started = time.monotonic()
    assert read_head(str(tmp_path / "kernel.json"), 4096) == b""
    assert discovery.read_pyvenv_cfg(str(tmp_path)) == {}
    assert pyenv._read_names(str(tmp_path / ".python-version")) == ()
    assert projects.pyproject(str(tmp_path)) == {}
    assert discovery.parse_shebang(discovery._read_head(str(tmp_path / "python"))) is None
    assert time.monotonic() - started < SLOW_ENOUGH
    (tmp_path / "ok.txt").write_bytes(b"abc" * 10)
    assert read_head(str(tmp_path / "ok.txt"), 4) == b"abca"


def test_folders_discovery_lists_are_read_in_one_order_and_never_raise(tmp_path: Path) -> None:
    from gpuassist.collect.io import RootedFS
    from gpuassist.files import list_names

    for name in ("b", "a", "c"):
        (tmp_path / name).mkdir()
    (tmp_path / "file").write_text("x")
    assert list_names(str(tmp_path)) == ["a", "b", "c", "file"]
    assert RootedFS(tmp_path).listdir("/") == ["a", "b", "c", "file"]
    for odd in (str(tmp_path / "missing"), str(tmp_path / "file"), "bad\x00path"):
        assert list_names(odd) == []


def test_a_huge_paste_is_refused_in_one_line() -> None:
    started = time.monotonic()
    with pytest.raises(UnreadableInput, match="larger than"):
        load_text("PyTorch version: 2.5.1\n" + "x" * (21 * 1024 * 1024), label="pasted text")
    assert time.monotonic() - started < SLOW_ENOUGH
