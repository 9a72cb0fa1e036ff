"""Every fix is runnable blocks (issue #16 item 3): on every simulated machine (diagnosis and every recorded
measurement), every paste and every error text, each finding's ``actions`` are shell commands that parse
with ``bash -n`` or Python that compiles, prose stays out of the blocks, and a reboot is its own last block.

A finding added later without valid actions fails here, whatever its rule."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from gpuassist.findings import Action, Finding, actions_from_fix
from gpuassist.ingest import load
from gpuassist.ingest.text import UnreadableInput
from gpuassist.sim import list_scenarios
from gpuassist.wizard import StepContext, build_flow

DATA = Path(__file__).parent / "data"
SCENARIOS = sorted(s.name for s in list_scenarios())
INPUTS = sorted(
    p for p in [*(DATA / "pastes").glob("*.txt"), *(DATA / "errors").glob("*.txt")] if "rejected" not in p.name
)  # texts gpuassist must refuse have no findings
PROSE = re.compile(r"^(Option \d|Then |Or |Install the |Check |Use |Run )", re.IGNORECASE)


def scenario_findings(name: str) -> list[Finding]:
    """The diagnosis and every step that has a recording, run as a person asking for each step would."""
    flow = build_flow(StepContext(scenario=name, replay_speed=0))
    flow.execute(["environment", "driver", "wheel", "placement", "dataloader", "benchmark"])
    report = flow.report()
    assert report is not None
    return list(report.findings)


def check_actions(finding: Finding, where: str) -> None:
    actions = finding.actions
    assert actions or not finding.fix.strip(), f"{where}: {finding.id} has a fix but no actions"
    for a in actions:
        assert a.title.strip(), f"{where}: {finding.id}: a block without a title"
        if a.commands:
            script = "\n".join(a.commands)
            result = subprocess.run(
                [shutil.which("bash") or "bash", "-n"], input=script, text=True, capture_output=True, timeout=10
            )
            assert result.returncode == 0, f"{where}: {finding.id}: not valid shell:\n{script}\n{result.stderr}"
            for line in a.commands:
                assert not PROSE.match(line), f"{where}: {finding.id}: prose in a command block: {line!r}"
                assert not re.search(r"<[A-Za-z][^<>]*>", line.split(" #")[0]), (
                    f"{where}: {finding.id}: a placeholder cannot run as pasted: {line!r}"
                )
        if a.code:
            compile(a.code, f"<{finding.id} fix>", "exec")
    by_option: dict[int, list[Action]] = {}
    for a in actions:
        by_option.setdefault(a.option, []).append(a)
    for blocks in by_option.values():
        for i, a in enumerate(blocks):
            if a.is_reboot:
                assert a.commands == (a.commands[0],), f"{where}: {finding.id}: reboot shares a block: {a.commands}"
                assert all(not b.text or b.title.startswith("After the reboot") for b in blocks[i + 1 :]), (
                    f"{where}: {finding.id}: reboot is not the last step"
                )


@pytest.mark.parametrize("name", SCENARIOS)
def test_every_scenario_fix_is_runnable_blocks(name: str) -> None:
    for f in scenario_findings(name):
        check_actions(f, name)


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.name)
def test_every_paste_and_error_fix_is_runnable_blocks(path: Path) -> None:
    try:
        report = load(path.read_bytes(), label=path.name)
    except UnreadableInput:
        return  # a refused text has no fix to check; whether it should be refused is test_pastes.py's question
    for f in report.findings:
        check_actions(f, path.name)


def test_the_driver_too_old_fix_is_two_options_and_the_reboot_stands_alone() -> None:
    """The walkthrough's dangerous Copy: prose, both options and `sudo reboot` in one block."""
    f = next(f for f in scenario_findings("driver-too-old-r570-cu130") if f.id == "driver_too_old")
    options = sorted({a.option for a in f.actions})
    assert len(options) == 2
    first = [a for a in f.actions if a.option == options[0]]
    assert first[-1].commands == ("sudo reboot",) and not any(a.is_reboot for a in first[:-1])
    second = [a for a in f.actions if a.option == options[1]]
    assert any("pip install" in c and "cu128" in c for a in second for c in a.commands)
    assert all("sudo reboot" not in a.text for a in second)


def test_actions_survive_json_and_older_reports_get_them_from_the_fix() -> None:
    f = next(f for f in scenario_findings("driver-too-old-r570-cu130") if f.id == "driver_too_old")
    data = f.to_json()
    assert data["fix"] and data["actions"] and set(data["actions"][0]) >= {"title", "commands", "code", "note"}
    assert Finding.from_json(data).actions == f.actions
    del data["actions"]
    assert Finding.from_json(data).actions == actions_from_fix(f.fix)


def test_parser_keeps_prose_out_and_reads_inline_commands() -> None:
    actions = actions_from_fix(
        "Reload the module:\n  sudo modprobe nvidia_uvm   # then\n"
        'Then check: python -c "import torch"\nNothing else to do.\n'
        "See who holds it:\n  kill <pid>\n"
    )
    assert actions[0].commands == ("sudo modprobe nvidia_uvm   # then",)
    assert actions[1].title == "Then check" and actions[1].commands == ('python -c "import torch"',)
    assert actions[2].title == "Nothing else to do." and not actions[2].commands  # prose on its own
    assert actions[3].title == "See who holds it" and not actions[3].commands
    assert len(actions) == 4 and "kill <pid>" in actions[3].note  # a template is prose, not a block


def test_a_prose_line_is_not_the_title_of_the_next_lines_commands() -> None:
    actions = actions_from_fix(
        "Start it with the GPU:\n  docker run --gpus all IMAGE\n"
        "Compose: deploy.resources.reservations.devices: [...]\n"
        "If docker says it cannot select the driver, install the toolkit:\n"
        "  sudo apt-get install -y nvidia-container-toolkit\n"
    )
    assert [a.title for a in actions] == [
        "Start it with the GPU",
        "Compose: deploy.resources.reservations.devices: [...]",
        "If docker says it cannot select the driver, install the toolkit",
    ]
    assert actions[1].commands == () and actions[2].commands == ("sudo apt-get install -y nvidia-container-toolkit",)


@pytest.mark.parametrize("path", sorted((DATA / "audit").glob("*.py")), ids=lambda p: p.name)
def test_every_code_change_of_the_script_audit_is_a_block_that_compiles(path: Path) -> None:
    from gpuassist.audit import audit_paths

    for f in audit_paths([str(path)]).to_findings():
        check_actions(f, path.name)
        assert any(a.code for a in f.actions) or all(a.note.startswith(("Change: ", "Delete: ")) for a in f.actions)
