"""The real probe in the dev interpreter: its facts must match what that interpreter really has.

Everything is compared with torch read in a separate subprocess, so these tests hold on a GPU workstation
as well as on this CPU-only machine.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gpuassist.facts import NotCollected
from gpuassist.probe import probe_script
from gpuassist.probe.runner import (
    FAULT_ENV,
    STAGE_KEYS,
    STAGES,
    ProbeResult,
    facts_from_events,
    probe_script_path,
    replay_events,
    run_probe,
)

pytestmark = pytest.mark.slow

CleanEnv = Callable[..., dict[str, str]]  # the clean_env fixture of tests/conftest.py

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def truth(clean_env: CleanEnv) -> dict[str, Any]:
    """What the dev interpreter's torch says about itself, read the plain way."""
    code = textwrap.dedent("""
        import json, sys, torch
        print(json.dumps({
            "executable": sys.executable, "version": torch.__version__, "file": torch.__file__,
            "cuda": torch.version.cuda, "hip": torch.version.hip,
            "available": torch.cuda.is_available(), "count": torch.cuda.device_count(),
        }))
    """)
    p = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True, env=clean_env()
    )
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def live(clean_env: CleanEnv) -> ProbeResult:
    events: list[dict[str, Any]] = []
    result = run_probe(on_event=events.append, env=clean_env())
    assert events == result.events  # the callback saw every event, in order
    return result


def test_probe_reports_this_interpreters_torch(live: ProbeResult, truth: dict[str, Any]) -> None:
    f = live.facts
    assert f["probe.outcome"] == "ok", f.get("probe.stderr_tail")
    assert f["probe.python"] == sys.executable
    assert f["probe.returncode"] == 0
    assert f["python.executable"] == truth["executable"]
    assert f["torch.version"] == truth["version"]
    assert f["torch.file"] == truth["file"]
    assert f["torch.cuda_build"] == truth["cuda"]
    assert f["torch.hip_build"] == truth["hip"]
    assert f["cuda.available"] is truth["available"]
    assert f["cuda.device_count"] == truth["count"]
    assert f["torch.import_error"] is None
    assert f["torch.spec_origin"] == truth["file"]
    assert [d["version"] for d in f["torch.dists"]] == [truth["version"]]
    assert f["python.env_kind"] == ("venv" if sys.prefix != sys.base_prefix else f["python.env_kind"])
    assert [s["status"] for s in f["probe.stages"]] == ["ok"] * len(STAGES)
    assert [s["stage"] for s in f["probe.stages"]] == list(STAGES)
    # on this machine (CPU wheel) the build facts are the CPU ones
    if truth["cuda"] is None and truth["hip"] is None:
        assert f["torch.arch_list"] == []
        assert f["torch.backends"]["cuda_built"] is False
        assert f["cuda.init_error"] is None


def test_every_stage_reports_exactly_its_keys(live: ProbeResult) -> None:
    sent = {e["key"] for e in live.events if e["event"] == "fact"}
    assert sent == {k for keys in STAGE_KEYS.values() for k in keys}
    assert not [k for k, v in live.facts.items() if isinstance(v, NotCollected)]


def test_smoke_runs_on_cpu_and_every_accelerator(live: ProbeResult, truth: dict[str, Any]) -> None:
    smoke = {s["device"]: s for s in live.facts["smoke"]}
    assert smoke["cpu"]["alloc"]["ok"] and smoke["cpu"]["matmul"]["ok"] and smoke["cpu"]["conv"]["ok"]
    assert smoke["cpu"]["matmul"]["max_abs_err"] == 0.0
    expected = {"cpu"} | ({f"cuda:{i}" for i in range(truth["count"])} if truth["available"] else set())
    assert expected <= set(smoke)
    assert len(live.facts["devices"]) == len(smoke) - 1


def test_loaded_libraries_are_the_ones_torch_really_mapped(live: ProbeResult, truth: dict[str, Any]) -> None:
    libs = live.facts["libs.loaded"]
    if not sys.platform.startswith("linux"):
        pytest.skip("/proc/self/maps is Linux-only")
    assert libs == sorted(set(libs))
    assert all(Path(p).exists() for p in libs)
    if truth["cuda"] is None:
        assert not [p for p in libs if "cuda" in Path(p).name or "cudnn" in Path(p).name]


def test_recorded_stream_gives_the_same_facts(live: ProbeResult) -> None:
    recorded = json.loads(json.dumps(live.events))
    assert facts_from_events(recorded) == live.facts
    seen: list[dict[str, Any]] = []
    replayed = replay_events(recorded, seen.append, speed=0)
    assert replayed.facts == live.facts
    assert seen == recorded
    assert all(isinstance(e.get("rt"), float) for e in recorded)


def test_selected_stages_only(clean_env: CleanEnv, truth: dict[str, Any]) -> None:
    result = run_probe(stages=["interpreter", "torch_dist"], env=clean_env())
    f = result.facts
    assert f["probe.outcome"] == "ok"
    assert [s["stage"] for s in f["probe.stages"]] == ["interpreter", "torch_dist"]
    assert f["python.executable"] == truth["executable"]
    assert isinstance(f["torch.version"], NotCollected)  # not looked at, not "no torch"
    assert "import_torch" not in [e.get("stage") for e in result.events]


def test_user_code_printing_to_stdout_cannot_corrupt_the_stream(
    clean_env: CleanEnv, tmp_path: Path, truth: dict[str, Any]
) -> None:
    """sitecustomize prints before the probe starts (even fake protocol lines and a partial line), and a
    meta-path hook prints through Python and through fd 1 while torch imports."""
    (tmp_path / "sitecustomize.py").write_text(
        textwrap.dedent("""
        import os, sys
        print('{"event": "hello", "nonce": "forged", "stages": []}')
        print('{"event": "fact", "key": "torch.version", "value": "FORGED"}')
        sys.stdout.write("partial line without newline")

        class Noisy:
            def find_spec(self, name, path=None, target=None):
                if name == "torch":
                    print('{"event": "fact", "key": "torch.version", "value": "FORGED"}', flush=True)
                    os.write(1, b'{"event": "done", "t": 0}\\n')
                return None

        sys.meta_path.insert(0, Noisy())
    """)
    )
    result = run_probe(env=clean_env(PYTHONPATH=str(tmp_path)))
    f = result.facts
    assert f["probe.outcome"] == "ok", f.get("probe.stderr_tail")
    assert f["torch.version"] == truth["version"]
    assert f["probe.garbage_lines"] >= 2
    assert "FORGED" in (f["probe.stderr_tail"] or "")  # what was printed during import went to stderr
    assert all(s["status"] == "ok" for s in f["probe.stages"])


def test_injected_print_fault_goes_to_stderr(clean_env: CleanEnv, truth: dict[str, Any]) -> None:
    result = run_probe(env=clean_env(**{FAULT_ENV: "print:build"}))
    assert result.facts["probe.outcome"] == "ok"
    assert result.facts["torch.version"] == truth["version"]
    assert next(e for e in result.events if e["event"] == "done")["t"] > 0


def test_runner_never_passes_the_fault_knob_on_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(FAULT_ENV, "segv:interpreter")
    result = run_probe(stages=["interpreter"])
    assert result.facts["probe.outcome"] == "ok"


def test_two_torch_copies_on_the_path_are_both_found(
    clean_env: CleanEnv, tmp_path: Path, truth: dict[str, Any]
) -> None:
    """A user-site style second copy (here via PYTHONPATH, which comes before site-packages)."""
    meta = tmp_path / "torch-2.4.0+cu121.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 2.4.0+cu121\n\nbody\n")
    (meta / "INSTALLER").write_text("pip\n")
    other = tmp_path / "torchvision-0.19.0.dist-info"  # a different project: not a torch copy
    other.mkdir()
    (other / "METADATA").write_text("Metadata-Version: 2.1\nName: torchvision\nVersion: 0.19.0\n")
    result = run_probe(stages=["interpreter", "torch_dist"], env=clean_env(PYTHONPATH=str(tmp_path)))
    dists = result.facts["torch.dists"]
    first = dists[0]
    assert (first["version"], first["local_tag"], first["installer"]) == ("2.4.0+cu121", "cu121", "pip")
    assert dists[0]["location"] == str(tmp_path)
    assert [d["version"] for d in dists[1:]] == [truth["version"]]
    assert result.facts["torch.spec_origin"] == truth["file"]


def test_in_target_scripts_stay_python38_compatible() -> None:
    """What runs in the user's interpreter: Python 3.8 syntax, stdlib + torch, never gpuassist; channel.py is
    loaded by path next to the scripts."""
    for name in ("probe_script.py", "runtime_script.py", "audit_script.py", "channel.py"):
        source = probe_script_path().with_name(name).read_text()
        ast.parse(source, feature_version=(3, 8))
        tree = ast.parse(source)
        imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        imported |= {
            n.module.split(".")[0]
            for n in ast.walk(tree)
            if isinstance(n, ast.ImportFrom) and n.module and n.level == 0
        }
        siblings = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level > 0}
        assert "gpuassist" not in imported
        assert imported <= set(sys.stdlib_module_names) | {"__future__", "torch"}
        assert siblings <= {"channel"}, "only channel.py is shipped next to the script"


def test_docs_list_every_probe_fact() -> None:
    doc = (ROOT / "docs" / "facts.md").read_text()
    section = doc.split("## Probe facts", 1)[1]
    documented: set[str] = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            first_cell = line.split("|")[1]
            documented |= {part.strip("` ") for part in first_cell.split(",")}
    keys = {k for keys in STAGE_KEYS.values() for k in keys}
    runner_keys = set(facts_from_events([{"event": "launch", "python": "x"}, {"event": "not_found", "reason": "gone"}]))
    assert keys | runner_keys <= documented


def test_conda_variant_packages_come_from_conda_meta_names(tmp_path: Path) -> None:
    meta = tmp_path / "conda-meta"
    meta.mkdir()
    for name in (
        "pytorch-2.1.0-py3.10_cpu_0.json",
        "pytorch-mutex-1.0-cpu.json",
        "cpuonly-2.0-0.json",
        "numpy-1.26.4-py310h5f9d8c6_0.json",
        "history",
    ):
        (meta / name).write_text("{}")
    build, packages = probe_script.conda_torch_packages(str(tmp_path))
    assert build == "py3.10_cpu_0"
    assert [(p["name"], p["build"]) for p in packages] == [
        ("cpuonly", "0"),
        ("pytorch", "py3.10_cpu_0"),
        ("pytorch-mutex", "cpu"),
    ]
    assert probe_script.conda_torch_packages(str(tmp_path / "not-conda")) == (None, [])


def test_helpers_parse_what_torch_and_pip_write() -> None:
    assert probe_script.normalise_arch_list("sm_50 sm_60 compute_90") == ["sm_50", "sm_60", "compute_90"]
    assert probe_script.normalise_arch_list(["sm_80"]) == ["sm_80"]
    assert probe_script.normalise_arch_list(None) == []
    assert probe_script.local_tag("2.5.1+cu124") == "cu124"
    assert probe_script.local_tag("2.5.1+rocm6.2") == "rocm6.2"
    assert probe_script.local_tag("1.12.0a0+2c916ef.nv22.3") == "2c916ef.nv22.3"
    assert probe_script.local_tag("2.0.0.nv23.05") == "nv23.05"
    assert probe_script.local_tag("2.5.1") is None
    assert probe_script.select_stages("", False) == [s for s in STAGES if s != "smoke"]
    assert probe_script.select_stages("smoke", True) == ["import_torch", "accel_init", "smoke"]
    assert probe_script.parse_faults("hang:accel_init,segv:smoke") == {"accel_init": "hang", "smoke": "segv"}
