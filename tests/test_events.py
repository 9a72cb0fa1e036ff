"""The typed events of the in-target scripts' protocol: every line is checked at the boundary (a live stream,
a recording, a scenario's stream) and a malformed one is named with what is wrong."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from gpuassist.probe.events import MalformedEvent, parse_event, parse_events, parse_line
from gpuassist.probe.runner import StageLimits, facts_from_events, run_script
from gpuassist.runtime.common import load_recording
from gpuassist.sim.streams import runtime_stream

DATA = Path(__file__).parent / "data"


def test_a_scripts_line_becomes_a_typed_event_stamped_with_rt() -> None:
    ev = parse_line('{"event": "stage", "stage": "smoke", "status": "start", "limit": 30, "t": 1.5}', 2.25)
    assert ev == {"event": "stage", "stage": "smoke", "status": "start", "limit": 30, "t": 1.5, "rt": 2.25}
    # noise printed before the event on the same line is dropped; fields the protocol does not name are kept
    ev = parse_line('warning: x{"event": "done", "t": 3, "extra": [1]}', 4.0)
    assert ev == {"event": "done", "t": 3, "extra": [1], "rt": 4.0}


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("not json at all", "not a JSON object"),
        ("[1, 2]", "not a JSON object"),
        ('{"key": "x"}', 'no "event" name'),
        ('{"event": "launch", "python": "x"}', "unknown event 'launch'"),  # only the runner says that
        ('{"event": "surprise", "t": 1}', "unknown event 'surprise'"),
        ('{"event": "stage", "status": "start", "t": 1}', 'stage event without "stage"'),
        ('{"event": "stage", "stage": "s", "status": "begun", "t": 1}', '"status" must be one of start, end'),
        ('{"event": "fact", "key": 3, "value": 1}', '"key" must be a string, not 3'),
        ('{"event": "progress", "stage": "s", "done": "1", "total": 2, "message": "", "t": 0}', '"done" must be an'),
        ('{"event": "hello", "protocol": 1, "nonce": "n", "pid": 1, "stages": [1], "t": 0}', "a list of strings"),
        ('{"event": "done", "t": true}', '"t" must be a number, not True'),
    ],
)
def test_a_malformed_line_says_what_is_wrong(line: str, why: str) -> None:
    with pytest.raises(MalformedEvent, match="^.*" + why.replace("(", r"\(").replace("[", r"\[")):
        parse_line(line, 0.0)


def test_a_recorded_stream_is_checked_with_the_place_of_the_bad_event(tmp_path: Path) -> None:
    good = [{"event": "launch", "python": "py", "rt": 0.0}, {"event": "not_found", "reason": "gone", "rt": 0.1}]
    assert parse_events(good) == good
    with pytest.raises(MalformedEvent, match=r'^events\[1\]: not_found event without "rt"$'):
        parse_events([good[0], {"event": "not_found", "reason": "gone"}])
    with pytest.raises(MalformedEvent, match="a list of events, not dict"):
        parse_events({"event": "launch"})
    with pytest.raises(MalformedEvent, match=r'killed event: "reason" must be one of timeout, overall'):
        parse_event({"event": "killed", "reason": "bored", "stage": None, "limit": 1.0, "rt": 1.0})
    # a recording file: the error names the file and the run
    data = json.loads((DATA / "runtime" / "x1_riser_hot.json").read_text())
    data["runs"]["placement"][3].pop("rt")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(MalformedEvent, match=r"^bad\.json: runs\.placement\[3\]: \w+ event without \"rt\"$"):
        load_recording(bad)


def test_every_recorded_and_simulated_stream_is_well_formed() -> None:
    for path in sorted((DATA / "runtime").glob("*.json")):
        load_recording(path)  # raises on a malformed event
    for path in sorted((DATA / "audit_run").glob("*.json")):
        parse_events(json.loads(path.read_text())["events"], path.name)
    # a scenario describing an impossible stream is named, not replayed
    spec = {"stages": [{"stage": "cpu", "status": "failed", "error": 3}]}
    why = r'^the bench stream\[\d+\]: stage event: "error" must be a string, not 3$'
    with pytest.raises(MalformedEvent, match=why):
        runtime_stream({"runtime": {"bench": spec}}, "bench")


@pytest.mark.slow
def test_the_runner_counts_malformed_lines_as_garbage_and_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    """A line that breaks the protocol is not passed on (nothing downstream could read it): it is counted
    with the other lines that are not the protocol, the first one is logged with what is wrong, and the run
    goes on."""
    code = textwrap.dedent(
        """
        import json, sys
        nonce = sys.argv[1]
        send = lambda obj: print(json.dumps(obj), flush=True)
        send({"event": "hello", "protocol": 1, "nonce": nonce, "pid": 1, "stages": ["a"], "t": 0.0})
        send({"event": "stage", "stage": "a", "status": "start", "limit": 5, "t": 0.0})
        send({"event": "fact", "key": 7, "value": "a fact without a name"})
        send({"event": "progress", "stage": "a"})
        send({"event": "fact", "key": "a.value", "value": 1})
        send({"event": "stage", "stage": "a", "status": "end", "t": 0.1})
        send({"event": "done", "t": 0.1})
        """
    )
    result = run_script(
        sys.executable,
        "probe_script.py",
        lambda python, script, nonce: [python, "-c", code, nonce],
        limits=StageLimits(startup=10.0),
        to_facts=lambda evs: facts_from_events(evs, prefix="t", stage_keys={"a": ("a.value",)}),
    )
    assert [e["event"] for e in result.events] == ["launch", "hello", "stage", "fact", "stage", "done", "exit"]
    assert result.facts["t.outcome"] == "ok" and result.facts["a.value"] == 1
    assert result.facts["t.garbage_lines"] == 2
    assert 'a protocol line was ignored (fact event: "key" must be a string, not 7)' in caplog.text
