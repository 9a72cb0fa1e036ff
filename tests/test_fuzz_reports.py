"""Property-based fuzzing (Hypothesis) of everything that reads what a user hands us (issue #12, item 9).

Reopened reports: real reports (every simulated scenario, a runtime report, an envs report, an audit run)
with one value anywhere replaced by arbitrary JSON, or one key removed, go through exactly what
``gpuassist diagnose --from`` does (load, redact, render in every format). The only acceptable outcomes
are a rendered report or :class:`UnreadableInput` (the one-line "cannot read", exit 2): never another
exception, which would be exit 3 in the CLI and "Something went wrong" in the app.

Pastes: arbitrary text, and text built from collect_env labels, error lines and pathological whitespace,
goes through the paste parsers with the same rule.

The runs are derandomized (the same examples on every machine) and small enough for a loaded 2-core CI box.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuassist.ingest import UnreadableInput, load, load_text
from gpuassist.report.model import Report
from gpuassist.report.redact import Redactor, redact_report
from gpuassist.report.render import FORMATS, render

FUZZ = settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

JSON_LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=True, allow_infinity=False),
    st.text(max_size=30),
)
JSON_VALUE = st.recursive(
    JSON_LEAF,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)),
    max_leaves=12,
)


@lru_cache(maxsize=1)
def base_reports() -> tuple[str, ...]:
    """Real reports as JSON text: every scenario, plus reports of the other kinds."""
    from gpuassist.sim import list_scenarios, simulate

    out = [json.dumps(simulate(s.name).to_json(), default=str) for s in list_scenarios()]
    out.append(json.dumps(_runtime_like_report(), default=str))
    return tuple(out)


def _runtime_like_report() -> dict[str, Any]:
    """A report with the structured facts the runtime, envs and audit-run views read."""
    from gpuassist.facts import Facts
    from gpuassist.report.build import build_report

    facts = Facts(
        {
            "placement.outcome": "crashed",
            "placement.signal": "SIGSEGV",
            "placement.failed_stage": "devices",
            "placement.stages": [{"stage": "devices", "status": "crashed", "seconds": 1.0, "limit": 30}],
            "placement.devices": [{"device": "cuda:0", "name": "GPU"}],
            "placement.checks": [{"device": "cuda:0"}],
            "sweep.trials": [{"num_workers": 2, "batches_per_second": 3.0}],
            "sweep.config": {"num_workers": 2},
            "envs.inventory": [{"name": "base", "python": "/usr/bin/python3", "status": "ok"}],
            "envs.kernels": [{"name": "python3", "python": "/usr/bin/python3", "exists": True}],
            "run.exception": {"type": "ValueError", "message": "x", "site": {"file": "a.py", "line": 3}},
            "run.stop": {"steps": 2, "seconds": 1.0},
            "torch.version": "2.5.1",
            "cuda.available": False,
            "devices": [{"device": "cpu", "name": "cpu"}],
            "nvml.gpus": [{"index": 0, "name": "RTX"}],
            "torch.dists": [{"version": "2.5.1", "installer": "pip"}],
            "env": {"PATH": "/usr/bin"},
        }
    )
    return build_report(facts, source="live", ran={"placement", "dataloader"}).to_json()


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:6]):
            out += _paths(v, (*prefix, i))
    return out


def _replace(doc: Any, path: tuple[Any, ...], new: Any, delete: bool) -> Any:
    if not path:
        return new
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    if delete and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = new
    return doc


def reopen_everywhere(text: str) -> None:
    """What `diagnose --from` and the app's Open do with the text: refuse it in one line, or show it."""
    try:
        report = load(text.encode("utf-8", "surrogatepass"), label="fuzzed.json")
    except UnreadableInput:
        return
    redacted = Report.from_json(
        redact_report(report.to_json(), personal=True, redactor=Redactor(home="/home/alice", user="alice", host="box"))
    )
    for fmt in FORMATS:
        assert render(redacted, fmt)


@st.composite
def mutated_reports(draw: st.DrawFn) -> str:
    doc = json.loads(draw(st.sampled_from(base_reports())))
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(doc)
        path = draw(st.sampled_from(paths[1:] or paths))
        doc = _replace(doc, path, draw(JSON_VALUE), delete=draw(st.booleans()))
    return json.dumps(doc)


@st.composite
def mutated_sections(draw: st.DrawFn) -> str:
    """Aimed at what readers rely on: one fact, step or meta entry (or an element inside it) replaced."""
    doc = json.loads(draw(st.sampled_from(base_reports())))
    section = draw(st.sampled_from(["facts", "facts", "facts", "steps", "meta", "findings"]))
    body = doc.get(section)
    keys = sorted(body) if isinstance(body, dict) else list(range(len(body or [])))
    if not keys:
        return json.dumps(doc)
    key = draw(st.sampled_from(keys))
    inner = body[key]
    if isinstance(inner, (list, dict)) and inner and draw(st.booleans()):
        sub = draw(st.sampled_from(sorted(inner) if isinstance(inner, dict) else list(range(len(inner)))))
        target = inner[sub]
        if isinstance(target, dict) and target and draw(st.booleans()):
            target[draw(st.sampled_from(sorted(target)))] = draw(JSON_VALUE)
        else:
            inner[sub] = draw(JSON_VALUE)
    else:
        body[key] = draw(JSON_VALUE)
    return json.dumps(doc)


@FUZZ
@given(mutated_reports())
def test_a_reopened_report_is_read_or_refused_in_one_line_never_a_crash(text: str) -> None:
    reopen_everywhere(text)


@settings(FUZZ, max_examples=300)
@given(mutated_sections())
def test_wrong_types_in_facts_steps_and_meta_are_refused_or_shown(text: str) -> None:
    reopen_everywhere(text)


@FUZZ
@given(
    st.recursive(
        JSON_LEAF,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3),
            st.dictionaries(
                st.sampled_from(
                    [
                        "schema",
                        "facts",
                        "findings",
                        "steps",
                        "meta",
                        "monitor",
                        "id",
                        "severity",
                        "evidence",
                        "fact",
                        "redaction",
                        "applied",
                        "nvml.gpus",
                        "env",
                    ]
                ),
                inner,
                max_size=4,
            ),
        ),
        max_leaves=20,
    )
)
def test_arbitrary_json_shaped_like_a_report_is_never_a_crash(doc: Any) -> None:
    if isinstance(doc, dict):
        doc.setdefault("schema", "gpuassist.report/1")
    reopen_everywhere(json.dumps(doc))


@pytest.mark.parametrize("depth", [41, 500, 5000, 100_000])
def test_deep_nesting_is_refused_in_one_line(depth: int) -> None:
    text = '{"schema":"gpuassist.report/1","facts":{"x":' + "[" * depth + "]" * depth + '},"findings":[]}'
    with pytest.raises(UnreadableInput, match=r"nested|malformed|deep"):
        load(text.encode())


COLLECT_ENV_LINES = [
    "PyTorch version: 2.5.1+cu124",
    "Is CUDA available: False",
    "CUDA used to build PyTorch: 12.4",
    "OS: Ubuntu 22.04 (x86_64)",
    "GPU models and configuration: GPU 0: NVIDIA A100",
    "Nvidia driver version: 550.54.14",
    "Versions of relevant libraries:",
    "[pip3] torch==2.5.1",
    "Python platform: Linux-5.15-x86_64-with-glibc2.35",
    "Python version: 3.11.7 (main)",
    "RuntimeError: CUDA error: no kernel image is available for execution on the device",
    "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible",
    "UserWarning: CUDA initialization: found version 11040",
    "```",
    "> quoted",
    "%time x = 1",
]


@FUZZ
@given(
    st.lists(
        st.one_of(
            st.sampled_from(COLLECT_ENV_LINES),
            st.text(max_size=60),
            st.builds(
                lambda a, n, b: a + " " * n + b,
                st.sampled_from(COLLECT_ENV_LINES),
                st.integers(0, 2000),
                st.text(max_size=5),
            ),
        ),
        max_size=12,
    )
)
def test_paste_parsers_read_or_refuse_any_text(lines: list[str]) -> None:
    try:
        report = load_text("\n".join(lines), label="fuzzed paste")
    except UnreadableInput:
        return
    assert render(report, "text")
