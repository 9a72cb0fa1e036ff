"""Real collect_env pastes and error texts from public threads (tests/data/pastes, tests/data/errors),
each checked against the verdict its thread established (index.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuassist.ingest import load
from gpuassist.ingest.corpus import check, entries, held_out_scores

DATA = Path(__file__).parent / "data"
PASTES = DATA / "pastes"
ERRORS = DATA / "errors"


def _params(directory: Path) -> list[object]:
    out: list[object] = []
    for e in entries(directory):
        marks = [pytest.mark.xfail(reason=e["known_rule_bug"], strict=True)] if e.get("known_rule_bug") else []
        out.append(pytest.param(e, id=e["file"].removesuffix(".txt"), marks=marks))
    return out


@pytest.mark.parametrize("entry", _params(PASTES))
def test_collect_env_paste(entry: dict[str, object]) -> None:
    verdict = check(PASTES, entry)
    assert verdict.ok, verdict.problems


@pytest.mark.parametrize("entry", _params(ERRORS))
def test_error_text(entry: dict[str, object]) -> None:
    verdict = check(ERRORS, entry)
    assert verdict.ok, verdict.problems


@pytest.mark.parametrize("directory", [PASTES, ERRORS])
def test_corpus_is_indexed_and_sourced(directory: Path) -> None:
    indexed = {e["file"] for e in entries(directory)}
    on_disk = {p.name for p in directory.glob("*.txt")}
    assert indexed == on_disk
    for e in entries(directory):
        assert str(e["source"]).startswith(("https://", "this machine")), e  # a public thread, or this machine


def test_corpus_size() -> None:
    assert len(entries(PASTES)) >= 25 and len(entries(ERRORS)) >= 25


@pytest.mark.parametrize(
    "entry",
    [e for e in entries(ERRORS) if e.get("expect_first") and not e.get("known_rule_bug")],
    ids=lambda e: e["file"].removesuffix(".txt"),
)
def test_error_finding_cites_line_fix_and_confirm(entry: dict[str, str]) -> None:
    report = load((ERRORS / entry["file"]).read_bytes(), label=entry["file"])
    first = report.findings[0]
    assert first.id == entry["expect_first"]
    lines = [e.value for e in first.evidence if e.fact == "pasted.line"]
    assert lines and all(str(v).startswith("line ") for v in lines)
    if report.meta["source"] == "collect_env":  # a mixed paste around a collect_env: its facts are the evidence
        assert entry["kind"] == "mixed", "only a mixed paste may be read as collect_env"
        return
    assert "To confirm:" in first.fix
    assert report.meta["source"] == "error_text"
    assert report.meta["missing_facts"]


def test_truncated_pastes_list_missing_facts() -> None:
    report = load((PASTES / "microsoft-WSL-9254-wsl2-cu111-truncated.txt").read_bytes())
    missing = report.meta["missing_facts"]
    assert "Is CUDA available" in missing and "GPU models and configuration" in missing
    assert not report.has_error  # cut before the verdict line: nothing to claim


def test_vllm_only_sections_are_collect_env() -> None:
    report = load((PASTES / "vllm-22372-vllm-sections-gpu-topology.txt").read_bytes())
    assert report.meta["source"] == "collect_env"
    assert "PyTorch version" in report.meta["missing_facts"]
    assert report.facts["reported.vllm_version"].startswith("0.1.dev1")


def test_hand_retyped_fullwidth_colons_and_no_colon_label() -> None:
    report = load((PASTES / "pytorch-37212-p100-driver-410-cu102-retyped.txt").read_bytes())
    assert report.facts["torch.version"] == "1.5.0"
    assert [g["name"] for g in report.facts["reported.gpus"]] == ["Tesla P100-PCIE-16GB"] * 4


def test_markdown_bold_fields() -> None:
    report = load((PASTES / "pytorch-32369-conda-env1-cuda100-bold.txt").read_bytes())
    assert report.facts["torch.cuda_build"] == "10.0.130"
    assert report.facts["cuda.available"] is True


def test_conda_develop_row_is_not_a_second_copy() -> None:
    report = load((PASTES / "pytorch-16999-macos-cuda-source-build.txt").read_bytes())
    assert len(report.facts["torch.dists"]) == 1


def test_cudnn_probably_list_is_system_cudnn_not_torch() -> None:
    report = load((PASTES / "vllm-13497-rtx4090-cudnn-probably.txt").read_bytes())
    assert len(report.facts["reported.cudnn"]) == 7
    assert "torch.cudnn_version" not in report.facts.to_json()


def test_no_cuda_fields_are_not_collected_not_absent() -> None:
    report = load((PASTES / "vllm-6635-aws-neuron-no-cuda.txt").read_bytes())
    assert not report.facts.known("driver.version")
    assert not report.has_error
    first = report.findings[0]
    # An AWS Neuron host: the guesses for "Is CUDA available: False" stay listed, as information (round 6,
    # ingest/fitting_build.py): nothing in the report shows an NVIDIA GPU or asks for CUDA.
    assert first.severity.value == "info" and first.title.startswith("If this machine has an NVIDIA GPU")
    assert "Is CUDA available: False" in first.evidence[0].value


@pytest.mark.parametrize(
    "text",
    [
        "I installed cuda 12.1 and my GPU is still not used by pytorch, any idea?",
        "torch.cuda.is_available() returns False on my laptop with an RTX 3060",
        "Warning: torch.cuda.is_available() returned False.\nFalling back to CPU mode.",
    ],
)
def test_prose_about_cuda_is_read_but_claims_nothing(text: str) -> None:
    """Text about the GPU is not refused (exit 2 is for text about none of it), but with no tool output or
    error message in it no cause may be claimed, and the report says what it could not tell."""
    from gpuassist.ingest import load_text

    report = load_text(text)
    assert not report.has_error
    assert report.meta["source"] == "error_text"
    assert any("torch build" in m for m in report.meta["missing_facts"])


@pytest.mark.parametrize(
    "text",
    ["hello world\nthis is not a report\n", "Lorem ipsum dolor sit amet, 42.", "ERROR: disk quota exceeded on /home"],
)
def test_text_about_nothing_gpu_is_refused(text: str) -> None:
    from gpuassist.ingest import UnreadableInput, load_text

    with pytest.raises(UnreadableInput, match="nothing about Python, PyTorch, CUDA, NVIDIA or a GPU"):
        load_text(text)


def test_generic_no_kernel_image_prefers_the_gpu_named() -> None:
    report = load((ERRORS / "pytorch-44828-k80-no-kernel-image.txt").read_bytes())
    ids = [f.id for f in report.findings]
    # A Kepler K80 (3.7) is below sm_70, which every CUDA build of torch carries: never too new for one (round 8).
    assert ids[0] == "gpu_arch_dropped_from_build" and "gpu_arch_too_new_for_build" not in ids
    assert all(f.severity.value == "warning" for f in report.findings)  # a guess, not a verdict


def test_corpus_index_fragments_merge(tmp_path: Path) -> None:
    """Batches collected in parallel each write their own ``index.d/*.json``; entries and held-out scores merge."""
    (tmp_path / "index.json").write_text(json.dumps({"entries": [{"file": "a.txt"}], "held_out_scores": {"b-1": {}}}))
    (tmp_path / "index.d").mkdir()
    fragment = {"entries": [{"file": "b.txt"}], "held_out_scores": {"b-2": {"before_fixes": {"all": "1/1"}}}}
    (tmp_path / "index.d" / "b-2.json").write_text(json.dumps(fragment))
    assert [e["file"] for e in entries(tmp_path)] == ["a.txt", "b.txt"]
    assert set(held_out_scores(tmp_path)) == {"b-1", "b-2"}
    (tmp_path / "index.d" / "c.json").write_text(json.dumps({"entries": [], "held_out_scores": {"b-2": {}}}))
    with pytest.raises(ValueError, match="recorded twice"):
        held_out_scores(tmp_path)
    (tmp_path / "index.d" / "d.json").write_text(json.dumps({"files": []}))
    with pytest.raises(ValueError, match="entries"):
        entries(tmp_path)
