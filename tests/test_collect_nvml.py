"""nvml.*: the one NVML wrapper, N/A handling, init-failure hints, the monitor API and the real backend."""

from __future__ import annotations

import copy
import os
import sys
from pathlib import Path
from typing import Any

import pynvml
import pytest

import hostdata
from gpuassist.collect import nvml
from gpuassist.collect.nvml import NvmlLoadError, NvmlSession, RealNvml, RecordedNvml
from gpuassist.facts import NotCollected

GPU: dict[str, Any] = {
    "name": "NVIDIA A100-SXM4-80GB",
    "uuid": "GPU-11111111-2222-3333-4444-555555555555",
    "pci_bus_id": "00000000:07:00.0",
    "compute_capability": [8, 0],
    "memory_total": 85899345920,
    "memory_used": 4194304,
    "compute_mode": 3,
    "mig_mode": [1, 1],
    "pcie_gen_current": 1,
    "pcie_gen_max": 4,
    "pcie_width_current": 16,
    "pcie_width_max": 16,
    "clocks_event_reasons": 0x24,
    "temperature": 71,
    "power_usage_mw": 250123,
    "power_limit_mw": 400000,
    "utilization": [97, 40],
    "processes": [{"pid": 99, "used_memory": None}],
}


def recording(**device: Any) -> dict[str, Any]:
    return {"driver_version": "535.161.08", "cuda_driver_version": 12020, "devices": [GPU | device]}


def collect(backend: nvml.NvmlBackend, os_name: str = "Linux") -> dict[str, Any]:
    out: dict[str, Any] = {}
    nvml.collect(hostdata.dict_ctx({}, os_name=os_name), out, backend)
    return out


def test_recorded_errors_are_real_pynvml_errors() -> None:
    backend = RecordedNvml({"devices": [{"power_usage_mw": {"error": "NVML_ERROR_NOT_SUPPORTED"}}]})
    h = backend.nvmlDeviceGetHandleByIndex(0)
    with pytest.raises(pynvml.NVMLError_NotSupported):
        backend.nvmlDeviceGetPowerUsage(h)
    with pytest.raises(pynvml.NVMLError_NotSupported):  # not recorded at all = not supported
        backend.nvmlDeviceGetTemperature(h, pynvml.NVML_TEMPERATURE_GPU)
    with pytest.raises(pynvml.NVMLError_InvalidArgument):
        backend.nvmlDeviceGetHandleByIndex(1)


def test_healthy_device_facts() -> None:
    facts = collect(RecordedNvml(recording()))
    assert facts["nvml.status"] == "ok" and facts["nvml.error"] is None
    assert facts["nvml.driver_version"] == "535.161.08"
    assert facts["nvml.cuda_driver_version"] == 12020
    (gpu,) = facts["nvml.gpus"]
    assert gpu == {
        "index": 0,
        "name": "NVIDIA A100-SXM4-80GB",
        "uuid": "GPU-11111111-2222-3333-4444-555555555555",
        "pci_bus_id": "00000000:07:00.0",
        "compute_capability": "8.0",
        "memory_total": 85899345920,
        "memory_used": 4194304,
        "compute_mode": "exclusive_process",
        "mig_mode": "enabled",
        "pcie_gen_current": 1,
        "pcie_gen_max": 4,
        "pcie_width_current": 16,
        "pcie_width_max": 16,
        "throttle_reasons": 0x24,
        "temperature_c": 71,
        "power_w": 250.123,
        "power_limit_w": 400.0,
        "utilization_gpu": 97,
        "processes": [{"pid": 99, "name": None, "used_memory": None}],
        "ecc_mode": None,  # not in the recording: NOT_SUPPORTED, as on a GeForce
        "ecc_uncorrected_volatile": None,
        "remapped_rows_pending": None,
        "remapped_rows_failed": None,
    }


@pytest.mark.parametrize(
    "code",
    [
        "NVML_ERROR_NOT_SUPPORTED",
        "NVML_ERROR_NOT_FOUND",
        "NVML_ERROR_NO_PERMISSION",
        "NVML_ERROR_FUNCTION_NOT_FOUND",
        "NVML_ERROR_NO_DATA",
    ],
)
def test_not_available_answers_become_none_without_error(code: str) -> None:
    na = {"error": code}
    facts = collect(
        RecordedNvml(
            recording(
                temperature=na,
                power_usage_mw=na,
                mig_mode=na,
                processes=na,
                compute_mode=na,
                clocks_event_reasons=na,
            )
        )
    )
    (gpu,) = facts["nvml.gpus"]
    for key in ("temperature_c", "power_w", "mig_mode", "processes", "compute_mode", "throttle_reasons"):
        assert gpu[key] is None, key
    assert "errors" not in gpu
    assert gpu["power_limit_w"] == 400.0  # the neighbours still answer


def test_real_failures_are_kept_as_evidence_per_field() -> None:
    facts = collect(
        RecordedNvml(
            recording(
                temperature={"error": "NVML_ERROR_GPU_IS_LOST"},
                power_usage_mw={"error": "NVML_ERROR_UNKNOWN"},
            )
        )
    )
    (gpu,) = facts["nvml.gpus"]
    assert gpu["temperature_c"] is None and gpu["power_w"] is None
    assert gpu["errors"] == {"temperature_c": "NVML_ERROR_GPU_IS_LOST", "power_w": "NVML_ERROR_UNKNOWN"}


def test_old_driver_falls_back_to_throttle_reasons() -> None:
    backend = RecordedNvml(
        recording(clocks_event_reasons={"error": "NVML_ERROR_FUNCTION_NOT_FOUND"}, throttle_reasons=0x4)
    )
    (gpu,) = collect(backend)["nvml.gpus"]
    assert gpu["throttle_reasons"] == 0x4
    assert backend.calls.count("throttle_reasons") == 1


def test_cuda_driver_version_v2_falls_back() -> None:
    rec = recording() | {"cuda_driver_version_v2": {"error": "NVML_ERROR_FUNCTION_NOT_FOUND"}}
    assert collect(RecordedNvml(rec))["nvml.cuda_driver_version"] == 12020


def test_handle_failure_keeps_the_other_gpus() -> None:
    rec = recording()
    rec["devices"] = [GPU | {"handle_error": "NVML_ERROR_GPU_IS_LOST"}, GPU]
    gpus = collect(RecordedNvml(rec))["nvml.gpus"]
    assert gpus[0]["name"] is None and gpus[0]["errors"] == {"handle": "NVML_ERROR_GPU_IS_LOST"}
    assert gpus[1]["name"] == GPU["name"] and gpus[1]["index"] == 1


def test_device_count_failure_is_not_collected() -> None:
    rec = recording() | {"device_count": {"error": "NVML_ERROR_UNKNOWN"}}
    facts = collect(RecordedNvml(rec))
    assert facts["nvml.status"] == "ok"
    assert facts["nvml.gpus"] == NotCollected("nvmlDeviceGetCount failed: NVML_ERROR_UNKNOWN")


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("NVML_ERROR_LIBRARY_NOT_FOUND", "library_not_found"),
        ("NVML_ERROR_DRIVER_NOT_LOADED", "driver_not_loaded"),
        ("NVML_ERROR_LIB_RM_VERSION_MISMATCH", "lib_rm_version_mismatch"),
        ("NVML_ERROR_NO_PERMISSION", "no_permission"),
        ("NVML_ERROR_UNKNOWN", "unknown"),
        ("NVML_ERROR_GPU_IS_LOST", "unknown"),
    ],
)
def test_init_failures_become_status_and_message(code: str, status: str) -> None:
    backend = RecordedNvml({"init_error": code, **recording()})
    facts = collect(backend)
    assert facts["nvml.status"] == status
    assert facts["nvml.error"] == str(pynvml.NVMLError(getattr(pynvml, code)))  # NVML's own words
    assert facts["nvml.gpus"] == NotCollected(f"NVML not usable: {status}")
    assert backend.shutdown_calls == 0  # never shut down what did not start


def test_mismatch_hint_text() -> None:
    facts = collect(hostdata.nvml("driver-mismatch"))
    assert facts["nvml.status"] == "lib_rm_version_mismatch"
    assert "mismatch" in facts["nvml.error"]


def test_missing_bindings() -> None:
    facts = collect(RecordedNvml({"bindings_missing": True}))
    assert facts["nvml.status"] == "library_not_found"
    assert "pynvml" in facts["nvml.error"]


def test_session_shuts_nvml_down_once() -> None:
    backend = RecordedNvml(recording())
    collect(backend)
    assert (backend.init_calls, backend.shutdown_calls) == (1, 1)


def test_not_applicable_on_darwin() -> None:
    backend = RecordedNvml(recording())
    assert collect(backend, "Darwin") == dict.fromkeys(nvml.KEYS, NotCollected("not applicable on Darwin"))
    assert backend.calls == []


def test_wsl_recording_has_unsupported_fields() -> None:
    (gpu,) = collect(hostdata.nvml("wsl2"))["nvml.gpus"]
    assert gpu["processes"] is None and gpu["power_w"] is None and gpu["throttle_reasons"] is None
    assert gpu["temperature_c"] == 52 and gpu["compute_capability"] == "8.6"


# -- the monitor API --------------------------------------------------------------------------------------


def test_sample_is_cheap_and_skips_unsupported_queries() -> None:
    rec = recording(power_usage_mw={"error": "NVML_ERROR_NOT_SUPPORTED"})
    backend = RecordedNvml(rec)
    with NvmlSession(backend) as session:
        assert session.ok
        first = session.sample_all()
        calls_after_first = len(backend.calls)
        second = session.sample(0)
        third = session.sample(0)
    assert first == [second] == [third]
    assert second == nvml.GpuSample(0, 97, 40, 4194304, 85899345920, None, 71)
    per_sample = (len(backend.calls) - calls_after_first) / 2
    assert per_sample == 4  # util, memory (2 calls in the recording), temperature; power no longer asked
    assert backend.shutdown_calls == 1


def test_sample_on_a_failed_session_is_empty_not_an_error() -> None:
    with NvmlSession(RecordedNvml({"init_error": "NVML_ERROR_DRIVER_NOT_LOADED"})) as session:
        assert not session.ok
        assert session.status == "driver_not_loaded"
        assert session.sample_all() == []
        assert session.sample(0) == nvml.GpuSample(0, None, None, None, None, None, None)


def test_recorded_process_names_never_come_from_this_machine() -> None:
    rec = recording(processes=[{"pid": os.getpid(), "used_memory": 1}])
    (gpu,) = collect(RecordedNvml(rec))["nvml.gpus"]
    assert gpu["processes"] == [{"pid": os.getpid(), "name": None, "used_memory": 1}]


def test_recording_file_roundtrip(tmp_path: Path) -> None:
    path = tmp_path / "nvml.json"
    path.write_text('{"driver_version": "550.54.14", "devices": []}')
    facts = collect(RecordedNvml.from_file(path))
    assert facts["nvml.driver_version"] == "550.54.14" and facts["nvml.gpus"] == []


# -- the real backend --------------------------------------------------------------------------------------


def test_real_backend_without_bindings(monkeypatch: pytest.MonkeyPatch) -> None:
    import ctypes

    monkeypatch.setattr(ctypes, "CDLL", lambda *a, **k: None)  # pretend libnvidia-ml.so.1 is there
    monkeypatch.setitem(sys.modules, "pynvml", None)  # and `import pynvml` fails
    with pytest.raises(NvmlLoadError) as info:
        RealNvml().load()
    assert info.value.status == "library_not_found"
    assert "nvidia-ml-py" in info.value.message


def test_real_backend_process_names() -> None:
    real = RealNvml()
    assert real.process_name(os.getpid())
    assert real.process_name(2**22 + 12345) is None  # beyond pid_max: no such process


def _libnvidia_ml_loadable() -> bool:
    import ctypes

    try:
        ctypes.CDLL("libnvidia-ml.so.1")
    except OSError:
        return False
    return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux dlopen check")
def test_real_session_on_this_machine() -> None:
    with NvmlSession(RealNvml()) as session:
        if _libnvidia_ml_loadable():
            assert session.status in (
                "ok",
                "driver_not_loaded",
                "lib_rm_version_mismatch",
                "no_permission",
                "unknown",
            )
            if session.ok:
                assert (session.device_count() or 0) >= 0
        else:
            assert session.status == "library_not_found"
            assert "libnvidia-ml.so.1" in str(session.error)


def test_recorded_deepcopy_safety() -> None:
    rec = recording()
    before = copy.deepcopy(rec)
    collect(RecordedNvml(rec))
    assert rec == before  # a backend never mutates its recording


def test_ecc_errors_and_row_remapping() -> None:
    """ECC state per GPU (issue 18: the fleet view compares it): uncorrected errors since the driver loaded,
    and a row remap pending (needs a GPU reset) or failed (the GPU needs replacing)."""
    (gpu,) = collect(RecordedNvml(recording(ecc_mode=[1, 1], ecc_uncorrected_volatile=3, remapped_rows=[2, 1, 1, 0])))[
        "nvml.gpus"
    ]
    assert (gpu["ecc_mode"], gpu["ecc_uncorrected_volatile"]) == ("enabled", 3)
    assert (gpu["remapped_rows_pending"], gpu["remapped_rows_failed"]) == (True, False)
    (off,) = collect(RecordedNvml(recording(ecc_mode=[0, 0], ecc_uncorrected_volatile=7)))["nvml.gpus"]
    assert off["ecc_mode"] == "disabled" and off["ecc_uncorrected_volatile"] is None  # not asked with ECC off
    (lost,) = collect(
        RecordedNvml(recording(ecc_mode=[1, 1], ecc_uncorrected_volatile={"error": "NVML_ERROR_GPU_IS_LOST"}))
    )["nvml.gpus"]
    assert lost["ecc_uncorrected_volatile"] is None
    assert lost["errors"] == {"ecc_uncorrected_volatile": "NVML_ERROR_GPU_IS_LOST"}
