"""A runtime test that crashed, hung or could not start is a finding, never "No problem found".

The placement test, the DataLoader sweep and the CNN benchmark run in the target interpreter like the probe
(``gpuassist.runtime``). When that process dies by a signal, is stopped at its time limit, exits before it
finished, or cannot import torch, nothing was measured: the step is an error, with the stage, the signal and
the stack, on the screen, in every export and in the exit status alike. A run the user cancelled is not one.
"""

from __future__ import annotations

from dataclasses import replace

from gpuassist.facts import Facts
from gpuassist.findings import Finding, Severity
from gpuassist.rules import view
from gpuassist.rules.make import finding
from gpuassist.rules.registry import rule

# test → (wizard step, what it measures); the steps are the report's (gpuassist.report.model.STEPS)
TESTS = {
    "placement": ("placement", "the device-placement test"),
    "sweep": ("dataloader", "the DataLoader sweep"),
    "bench": ("benchmark", "the CNN benchmark"),
}


def _one(facts: Facts, test: str) -> Finding | None:
    step, what = TESTS[test]
    outcome = facts.value(f"{test}.outcome")
    stage = facts.value(f"{test}.failed_stage") or "startup"
    python = facts.value(f"{test}.python") or view.python_executable(facts)
    keys = [
        f"{test}.outcome",
        f"{test}.failed_stage",
        f"{test}.signal",
        f"{test}.returncode",
        f"{test}.limit_seconds",
        f"{test}.fault_traceback",
        f"{test}.stderr_tail",
        f"{test}.error",
    ]
    found: Finding | None = None
    if outcome == "crashed":
        sig = facts.value(f"{test}.signal") or f"exit status {facts.value(f'{test}.returncode')}"
        found = finding(
            "probe_crashed",
            Severity.ERROR,
            title=f"Python crashed ({sig}) during {what} (stage {stage})",
            explanation=(
                f"The process running {what} in {python} died with {sig} in stage {stage}, so nothing "
                "was measured there. A native crash in `import torch` points at mismatched native "
                "libraries; in a device stage, at the driver or the GPU."
            ),
            fix=(
                f'Reproduce it outside gpuassist: {python} -X faulthandler -c "import torch; '
                'print(torch.cuda.is_available())"\nThen run `gpuassist diagnose --python '
                f"{python}`, which names the cause in the environment, driver or wheel."
            ),
            evidence=view.ev(facts, *keys),
        )
    elif outcome == "timeout":
        limit = facts.value(f"{test}.limit_seconds")
        secs = f"{float(limit):.0f} s" if isinstance(limit, (int, float)) else "its time limit"
        found = finding(
            "probe_timeout",
            Severity.ERROR,
            title=f"{what[0].upper()}{what[1:]} hung in stage {stage} and was stopped after {secs}",
            explanation=(
                f"The process running {what} in {python} made no progress in stage {stage} within "
                f"{secs} and was killed; its stack at that moment is in the evidence. A hang in "
                "CUDA initialisation or a device stage points at the driver (a wedged GPU, Xid errors)."
            ),
            fix=(
                "Check that the driver answers: nvidia-smi   (if it also hangs, the driver is wedged: reboot)\n"
                "Look for Xid errors: sudo dmesg | grep -i -E 'NVRM|Xid'\n"
                f"Reproduce it: {python} -X faulthandler -c 'import torch; torch.zeros(1).cuda()' and press "
                "Ctrl+\\ while it hangs to see where"
            ),
            evidence=view.ev(facts, *keys),
        )
    elif outcome == "failed":
        error = facts.value(f"{test}.error") or "it exited before finishing"
        found = finding(
            "probe_crashed",
            Severity.ERROR,
            title=f"{what[0].upper()}{what[1:]} stopped in stage {stage}: {str(error)[:120]}",
            explanation=(
                f"The process running {what} in {python} ended in stage {stage} before it finished "
                f"({error}), so the step measured nothing."
            ),
            fix=(
                f"Run `gpuassist diagnose --python {python}` to check the environment, then run the test "
                "again; the stderr tail in the evidence shows what the process printed last."
            ),
            evidence=view.ev(facts, *keys),
        )
    else:
        error = facts.value(f"{test}.import_error")
        if isinstance(error, (str, dict)) and error:
            message = error.get("message") if isinstance(error, dict) else error
            found = finding(
                "torch_import_error",
                Severity.ERROR,
                title=f"`import torch` fails, so {what} could not run",
                explanation=f"{what[0].upper()}{what[1:]} needs torch, and `import torch` in {python} raised: "
                f"{str(message)[:500]}",
                fix=f"`gpuassist diagnose --python {python}` names the cause and the exact install command.",
                evidence=view.ev(facts, f"{test}.import_error", f"{test}.outcome"),
            )
    return replace(found, step=step) if found is not None else None


@rule("runtime_outcome")
def runtime_outcome(facts: Facts) -> list[Finding]:
    """One finding per runtime test that did not run to the end on its own."""
    return [f for test in TESTS if (f := _one(facts, test)) is not None]
