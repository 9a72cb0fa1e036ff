"""The ingest step registry (gpuassist/ingest/steps.py): each step once, merge between the match and finding steps."""

from __future__ import annotations

from gpuassist.ingest import steps


def test_each_step_and_inference_is_registered_once() -> None:
    names = [s.__name__ for s in steps.STEPS]
    assert len(names) == len(set(names))
    inferences = [i.__name__ for i in steps.INFERENCES]
    assert len(inferences) == len(set(inferences))


def test_the_order_the_docstring_promises() -> None:
    order = {s.__name__: no for no, s in enumerate(steps.STEPS)}
    assert order["path_findings"] == 0 and order["remember_said"] == 1
    assert order["ruled_out_first"] < order["infer"] < order["in_container"] < order["merge"]
    assert order["no_gpu_explains"] < order["kernel_cause_explains"]
    assert order["merge"] < order["driver_fix_names_program"] < order["cite_pasted_lines"]
    assert steps.STEPS[-1] is steps.cite_pasted_lines
