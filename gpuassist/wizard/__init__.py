"""The wizard as Qt-free data: steps, dependencies, statuses, navigation and execution (issue 4, item 1).

The GUI (:mod:`gpuassist.ui`) renders a :class:`Flow` and calls its methods from buttons and workers;
tests drive the same Flow directly.
"""

from gpuassist.step_table import SUMMARY
from gpuassist.wizard.flow import Flow, StepState, split_report
from gpuassist.wizard.model import Step, StepContext, StepResult, StepStatus
from gpuassist.wizard.steps import build_flow, build_steps, run_diagnosis

__all__ = [
    "SUMMARY",
    "Flow",
    "Step",
    "StepContext",
    "StepResult",
    "StepState",
    "StepStatus",
    "build_flow",
    "build_steps",
    "run_diagnosis",
    "split_report",
]
