"""The catalogue data: every id of root_causes.md is present, fields are sane, patterns work."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpuassist.knowledge import catalogue, compat, entry, symptom_patterns
from gpuassist.step_table import REPORT_STEP_IDS as STEPS

ROOT_CAUSES = Path(__file__).resolve().parents[1] / "docs" / "knowledge" / "root-causes.md"

RUNTIME_ONLY = {
    "tensors_on_different_devices",
    "workload_left_on_cpu",
    "dataloader_starvation",
    "host_device_sync_in_loop",
    "small_batch_launch_bound",
    "amp_tf32_not_used",
    "cudnn_benchmark_off",
    "multi_gpu_unused",
}
CORE = {
    "interpreter_not_found",
    "torch_not_installed",
    "torch_import_error",
    "probe_crashed",
    "probe_timeout",
    "cpu_only_build",
    "no_nvidia_gpu",
    "no_nvidia_driver",
    "nvidia_module_not_loaded",
    "driver_too_old",
    "driver_library_mismatch",
    "gpu_arch_too_new_for_build",
    "gpu_arch_dropped_from_build",
    "cuda_visible_devices_hides_gpus",
    "stale_or_shadowed_torch",
    "macos_no_cuda_use_mps",
}


def markdown_ids(text: str) -> set[str]:
    """Ids are the backticked first cells of the tables in sections 0 and 1."""
    return set(re.findall(r"^\| `([a-z0-9_]+)` \|", text, re.MULTILINE))


def test_every_markdown_id_is_in_the_catalogue_and_no_other() -> None:
    ids = markdown_ids(ROOT_CAUSES.read_text(encoding="utf-8"))
    assert len(ids) >= 40  # the parser found the tables
    assert ids == set(catalogue())  # a new id gets its row in docs/knowledge/root-causes.md too


def test_core_and_runtime_only_flags() -> None:
    cat = catalogue()
    assert {i for i, e in cat.items() if e.core} == CORE
    runtime = {i for i, e in cat.items() if e.runtime_only}
    assert runtime >= RUNTIME_ONLY
    assert not runtime & CORE


def test_fields_are_filled_and_steps_valid() -> None:
    for e in catalogue().values():
        assert e.step in STEPS, e.id
        assert e.title and e.summary and e.detection and e.fix and e.confirm and e.sources, e.id
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", e.explanation.strip()) if s]
        assert 2 <= len(sentences) <= 4, (e.id, len(sentences))


def test_priority_is_causal_order() -> None:
    p = {i: e.priority for i, e in catalogue().items()}
    # hardware < platform/container < driver < install/wheel < env < libraries < runtime/code/perf
    assert p["no_nvidia_gpu"] < p["macos_no_cuda_use_mps"] < p["docker_no_gpu_runtime"] < p["no_nvidia_driver"]
    assert p["no_nvidia_driver"] < p["driver_too_old"] < p["cpu_only_build"] < p["cuda_visible_devices_hides_gpus"]
    assert p["cuda_visible_devices_hides_gpus"] < p["ld_library_path_shadowing"] < p["tensors_on_different_devices"]
    # a shadowing install explains the CPU build it loads
    assert p["wrong_interpreter_or_kernel"] < p["stale_or_shadowed_torch"] < p["cpu_only_build"]
    for e in catalogue().values():
        if e.runtime_only:
            assert e.priority >= 700, e.id


def test_every_pattern_compiles_and_matches_one_of_its_symptoms() -> None:
    for e in catalogue().values():
        for p in e.patterns:
            re.compile(p.pattern, re.IGNORECASE)
            assert any(p.regex.search(s) for s in e.symptoms), (e.id, p.pattern)
            assert 0 < p.weight <= 1


def test_generic_messages_point_at_every_cause_they_can_mean_with_low_weight() -> None:
    def ids_for(text: str, *, specific: bool | None = None) -> set[str]:
        return {
            p.id for p in symptom_patterns() if p.regex.search(text) and (specific is None or p.specific == specific)
        }

    no_gpus = ids_for("RuntimeError: No CUDA GPUs are available")
    assert {
        "cuda_visible_devices_hides_gpus",
        "no_nvidia_gpu",
        "docker_no_gpu_runtime",
        "scheduler_no_gpu_allocated",
    } <= no_gpus
    assert not ids_for("RuntimeError: No CUDA GPUs are available", specific=True)
    assert {
        "gpu_arch_too_new_for_build",
        "gpu_arch_dropped_from_build",
        "source_build_without_cuda",
    } <= ids_for("CUDA error: no kernel image is available for execution on the device")
    # cudaErrorUnknown from cudaGetDeviceCount: UVM after suspend is the likeliest of several readings (a driver
    # installed without a reboot, nvidia-uvm not loaded), so a guess, not a verdict.
    unknown = "CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env variable"
    assert {"uvm_wedged_after_suspend", "nvidia_module_not_loaded"} <= ids_for(unknown)
    assert not ids_for(unknown, specific=True)
    assert all(p.weight < 0.8 for p in symptom_patterns() if not p.specific)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("AssertionError: Torch not compiled with CUDA enabled", "cpu_only_build"),
        (
            "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch "
            "installation.",
            "gpu_arch_too_new_for_build",
        ),
        (
            "Tesla P100-PCIE-16GB with CUDA capability sm_60 is not compatible with the current PyTorch installation.",
            "gpu_arch_dropped_from_build",
        ),
        ("The NVIDIA driver on your system is too old (found version 12080).", "driver_too_old"),
        ("Failed to initialize NVML: Driver/library version mismatch", "driver_library_mismatch"),
        (
            "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, "
            "cuda:1 and cpu!",
            "tensors_on_different_devices",
        ),
        (
            "Error 804: forward compatibility was attempted on non supported HW",
            "forward_compat_unsupported_hw",
        ),
        ("cudaGetDeviceCount() ... Error 802: system not yet initialized", "fabric_manager_missing"),
        ("PyTorch version: 2.13.0+cpu", "cpu_only_build"),
    ],
)
def test_specific_messages_name_their_cause(text: str, expected: str) -> None:
    specific = {p.id for p in symptom_patterns() if p.specific and p.regex.search(text)}
    assert specific == {expected}


def test_arch_direction_patterns_split_by_capability() -> None:
    def ids(sm: int) -> set[str]:
        text = f"GPU with CUDA capability sm_{sm} is not compatible with the current PyTorch installation"
        return {p.id for p in symptom_patterns() if p.specific and p.regex.search(text)}

    for old in (37, 50, 61, 70):
        assert ids(old) == {"gpu_arch_dropped_from_build"}, old
    for new in (75, 86, 89, 90, 100, 120):
        assert ids(new) == {"gpu_arch_too_new_for_build"}, new


def test_entry_lookup() -> None:
    assert entry("driver_too_old").step == "driver"
    with pytest.raises(KeyError, match="nope"):
        entry("nope")


def test_compat_has_sources_and_date() -> None:
    data = compat()
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", data["as_of"])
    for key in (
        "driver_table",
        "minor_version_compatibility",
        "wheel_builds",
        "releases",
        "gpu_table",
        "pypi_default",
        "companions",
    ):
        assert data[key]["source"], key
    # releases the catalogue does not list are marked as such
    for series in ("2.12", "2.13", "2.14"):
        assert "NOT in root_causes.md" in data["releases"]["by_release"][series]["notes"], series
