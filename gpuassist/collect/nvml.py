"""NVML: the driver's own account of its GPUs (``nvml.*``), through one error-handling wrapper.

Modelled on nvitop: every NVML call goes through :meth:`NvmlSession.query`, which

- turns "this GPU/driver cannot answer that" (``NOT_SUPPORTED``, ``NOT_FOUND``, ``NO_PERMISSION``,
  ``NO_DATA``) into ``None``, because a GeForce without a power sensor is not a problem to report;
- tries the next function name on ``FUNCTION_NOT_FOUND`` or bindings that lack a function
  (``nvmlDeviceGetCurrentClocksEventReasons`` is ``...ThrottleReasons`` on older drivers);
- records any other error (``GPU_IS_LOST``, ``UNKNOWN``) per field, so it becomes evidence, and never
  raises.

A failed ``nvmlInit`` is not an exception either: it becomes ``nvml.status`` (``library_not_found``,
``driver_not_loaded``, ``lib_rm_version_mismatch``, ``no_permission``, ``unknown``) plus ``nvml.error``,
NVML's own message, which rules read as a strong hint ("Driver/library version mismatch").

Backends (:class:`NvmlBackend`): :class:`RealNvml` imports ``pynvml`` (package ``nvidia-ml-py``)
lazily, and on Linux first checks that ``libnvidia-ml.so.1`` can be loaded at all, because importing
pynvml costs ~30 ms and on a machine without a driver there is nothing to ask it.
:class:`RecordedNvml` answers from a recording and raises genuine ``pynvml.NVMLError`` instances, so the
wrapper's error handling under test is the code that runs on a real machine.

Recording format (JSON; ``tests/data/hosts/*/nvml.json``)::

    {"init_error": "NVML_ERROR_LIB_RM_VERSION_MISMATCH"}          # nvmlInit raises this
    {"bindings_missing": true}                                    # `import pynvml` failed
    {"driver_version": "550.54.14",
     "cuda_driver_version": 12040,                                # nvmlSystemGetCudaDriverVersion(_v2)
     "device_count": {"error": "NVML_ERROR_UNKNOWN"},             # optional; default len(devices)
     "devices": [{
        "name": "NVIDIA GeForce RTX 4090", "uuid": "GPU-...", "pci_bus_id": "00000000:01:00.0",
        "compute_capability": [8, 9], "memory_total": 25757220864, "memory_used": 3221225472,
        "compute_mode": 0, "mig_mode": [0, 0],
        "pcie_gen_current": 4, "pcie_gen_max": 4, "pcie_width_current": 16, "pcie_width_max": 16,
        "clocks_event_reasons": 0,        # "throttle_reasons" answers the older function, if given
        "temperature": 45, "power_usage_mw": 30000, "power_limit_mw": 450000,
        "utilization": [3, 1],            # [gpu %, memory %]
        "processes": [{"pid": 1234, "used_memory": 1000, "name": "python"}],
        "ecc_mode": [1, 1], "ecc_uncorrected_volatile": 0,  # [current, pending]; uncorrected, volatile
        "remapped_rows": [0, 0, 0, 0],    # [corrected, uncorrected, pending, failed]
        "handle_error": "NVML_ERROR_GPU_IS_LOST"                  # optional: GetHandleByIndex fails
     }]}

Any value may be ``{"error": "NVML_ERROR_NOT_SUPPORTED"}`` (that call raises that error); a key that is
absent answers ``NVML_ERROR_NOT_SUPPORTED``. Process ``name`` stands in for the psutil lookup the real
backend does (a recorded pid must never be looked up on the machine running the tests).

:class:`NvmlSession` is also the API for the live monitor (10 Hz): open once, then :meth:`sample` reuses
cached handles and skips queries already known to be unsupported.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import sys
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Protocol

from gpuassist.collect.base import HostContext
from gpuassist.facts import NotCollected

KEYS = ("nvml.status", "nvml.error", "nvml.driver_version", "nvml.cuda_driver_version", "nvml.gpus")

# Errors that mean "no answer for this query on this device", not "something is wrong".
NOT_AVAILABLE = frozenset(
    {
        "NVML_ERROR_NOT_SUPPORTED",
        "NVML_ERROR_NOT_FOUND",
        "NVML_ERROR_NO_PERMISSION",
        "NVML_ERROR_FUNCTION_NOT_FOUND",
        "NVML_ERROR_NO_DATA",
    }
)
INIT_STATUS = {
    "NVML_ERROR_LIBRARY_NOT_FOUND": "library_not_found",
    "NVML_ERROR_DRIVER_NOT_LOADED": "driver_not_loaded",
    "NVML_ERROR_LIB_RM_VERSION_MISMATCH": "lib_rm_version_mismatch",
    "NVML_ERROR_NO_PERMISSION": "no_permission",
}
COMPUTE_MODES = {0: "default", 1: "exclusive_thread", 2: "prohibited", 3: "exclusive_process"}
NVML_TEMPERATURE_GPU = 0


class NvmlLoadError(Exception):
    """The NVML bindings or library cannot be loaded; ``status`` is an ``nvml.status`` value."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class NvmlBackend(Protocol):
    """Where NVML answers come from: the real library or a recording."""

    def load(self) -> Any:
        """The pynvml-like API (module-level functions + ``NVMLError``); raises :class:`NvmlLoadError`."""

    def process_name(self, pid: int) -> str | None:
        """Name of a process using a GPU, or None when it cannot be looked up."""


class RealNvml:
    """The machine's NVML through ``pynvml`` (nvidia-ml-py), imported only when the library exists."""

    def load(self) -> Any:
        if sys.platform.startswith("linux"):
            try:  # what pynvml's nvmlInit would dlopen; failing here saves importing pynvml at all
                ctypes.CDLL("libnvidia-ml.so.1")
            except OSError as exc:
                raise NvmlLoadError("library_not_found", f"NVML Shared Library Not Found ({exc})") from None
        try:  # start-up: only after the library check, and only on machines that have NVML
            import pynvml
        except ImportError as exc:
            message = f"Python NVML bindings not importable (pip install nvidia-ml-py): {exc}"
            raise NvmlLoadError("library_not_found", message) from None
        return pynvml

    def process_name(self, pid: int) -> str | None:
        # NVML reports host pids; inside a container with its own pid namespace the lookup may miss.
        try:
            import psutil  # start-up: psutil (~20 ms) only when NVML lists a process

            return str(psutil.Process(pid).name())
        except Exception:  # NoSuchProcess, AccessDenied, ZombieProcess, psutil missing
            return None


_ERROR_NAMES: dict[str, dict[int, str]] = {}


def error_name(exc: BaseException) -> str:
    """``NVML_ERROR_NOT_SUPPORTED`` for an NVMLError, from the constants of the module that defines it."""
    value = getattr(exc, "value", None)
    module_name = type(exc).__module__
    names = _ERROR_NAMES.get(module_name)
    if names is None:
        module = sys.modules.get(module_name)
        names = {}
        for attr in dir(module) if module is not None else []:
            if attr.startswith("NVML_ERROR_"):
                code = getattr(module, attr)
                if isinstance(code, int):
                    names.setdefault(code, attr)
        _ERROR_NAMES[module_name] = names
    return names.get(value, f"NVML_ERROR_{value}") if isinstance(value, int) else type(exc).__name__


def _text(value: Any) -> Any:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _scaled(value: Any, divisor: float) -> float | None:
    return round(value / divisor, 3) if isinstance(value, (int, float)) else None


@dataclass(frozen=True)
class GpuSample:
    """One live reading of one GPU (what the monitor plots). A field the GPU cannot report is None."""

    index: int
    utilization_gpu: int | None
    utilization_memory: int | None
    memory_used: int | None
    memory_total: int | None
    power_w: float | None
    temperature_c: int | None


class NvmlSession:
    """An initialised NVML (or the reason it could not be initialised). Use as a context manager.

    ``status``/``error`` are set by :meth:`open`; every query on a session that is not ``ok`` returns
    None, so callers never need a try/except.
    """

    def __init__(self, backend: NvmlBackend) -> None:
        self.backend = backend
        self.status: str | None = None
        self.error: str | None = None
        self._api: Any = None
        self._error_class: type[BaseException] | None = None
        self._handles: dict[int, Any] = {}
        self._unsupported: set[Hashable] = set()

    # -- lifecycle ---------------------------------------------------------------------------------
    def open(self) -> bool:
        if self._api is not None:
            return True
        try:
            api = self.backend.load()
        except NvmlLoadError as exc:
            self.status, self.error = exc.status, exc.message
            return False
        except Exception as exc:
            self.status, self.error = "unknown", f"{type(exc).__name__}: {exc}"
            return False
        error_class = getattr(api, "NVMLError", None)
        try:
            api.nvmlInit()
        except Exception as exc:
            if error_class is not None and isinstance(exc, error_class):
                self.status = INIT_STATUS.get(error_name(exc), "unknown")
                self.error = str(exc) or error_name(exc)
            else:
                self.status, self.error = "unknown", f"{type(exc).__name__}: {exc}"
            return False
        self._api, self._error_class = api, error_class
        self.status, self.error = "ok", None
        return True

    def close(self) -> None:
        api, self._api = self._api, None
        self._handles.clear()
        if api is not None:
            with contextlib.suppress(Exception):  # a failed shutdown is nothing anyone can act on
                api.nvmlShutdown()

    def __enter__(self) -> NvmlSession:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def ok(self) -> bool:
        return self._api is not None

    # -- the one wrapper ----------------------------------------------------------------------------
    def query(
        self,
        names: str | Sequence[str],
        *args: Any,
        errors: dict[str, str] | None = None,
        field: str | None = None,
        cache: Hashable | None = None,
    ) -> Any:
        """Call the first NVML function in ``names`` that exists; None for N/A (see module docstring).

        ``errors[field]`` receives the error name of a real failure; ``cache`` remembers an N/A answer
        so the monitor does not ask again at 10 Hz.
        """
        if self._api is None or (cache is not None and cache in self._unsupported):
            return None
        for name in (names,) if isinstance(names, str) else names:
            fn = getattr(self._api, name, None)
            if fn is None:
                continue  # bindings older than this function
            try:
                return _text(fn(*args))
            except Exception as exc:
                is_nvml = self._error_class is not None and isinstance(exc, self._error_class)
                code = error_name(exc) if is_nvml else f"{type(exc).__name__}: {exc}"
                if code == "NVML_ERROR_FUNCTION_NOT_FOUND":
                    continue  # driver older than this function: try the older name
                if code in NOT_AVAILABLE:
                    if cache is not None:
                        self._unsupported.add(cache)
                elif errors is not None:
                    errors[field or name] = code
                return None
        if cache is not None:
            self._unsupported.add(cache)
        return None

    # -- system ------------------------------------------------------------------------------------
    def driver_version(self) -> str | None:
        v = self.query("nvmlSystemGetDriverVersion")
        return str(v) if v else None

    def cuda_driver_version(self) -> int | None:
        v = self.query(("nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"))
        return int(v) if isinstance(v, int) and v > 0 else None

    def device_count(self, errors: dict[str, str] | None = None) -> int | None:
        v = self.query("nvmlDeviceGetCount", errors=errors, field="device_count")
        return int(v) if isinstance(v, int) else None

    def handle(self, index: int, errors: dict[str, str] | None = None) -> Any:
        if index not in self._handles:
            h = self.query("nvmlDeviceGetHandleByIndex", index, errors=errors, field="handle")
            if h is None:
                return None
            self._handles[index] = h
        return self._handles[index]

    # -- per device --------------------------------------------------------------------------------
    def device_facts(self, index: int) -> dict[str, Any]:
        """Everything ``nvml.gpus`` holds for one GPU (docs/facts.md)."""
        errors: dict[str, str] = {}
        d: dict[str, Any] = dict.fromkeys(
            (
                "name",
                "uuid",
                "pci_bus_id",
                "compute_capability",
                "memory_total",
                "memory_used",
                "compute_mode",
                "mig_mode",
                "pcie_gen_current",
                "pcie_gen_max",
                "pcie_width_current",
                "pcie_width_max",
                "throttle_reasons",
                "temperature_c",
                "power_w",
                "power_limit_w",
                "utilization_gpu",
                "processes",
                "ecc_mode",
                "ecc_uncorrected_volatile",
                "remapped_rows_pending",
                "remapped_rows_failed",
            )
        )
        d["index"] = index
        h = self.handle(index, errors)
        if h is None:
            d["errors"] = errors or {"handle": "unavailable"}
            return d

        def q(field: str, names: str | Sequence[str], *args: Any) -> Any:
            return self.query(names, h, *args, errors=errors, field=field)

        d["name"] = q("name", "nvmlDeviceGetName")
        d["uuid"] = q("uuid", "nvmlDeviceGetUUID")
        pci = q("pci_bus_id", "nvmlDeviceGetPciInfo")
        d["pci_bus_id"] = _text(getattr(pci, "busId", None)) if pci is not None else None
        cc = q("compute_capability", "nvmlDeviceGetCudaComputeCapability")
        if isinstance(cc, (tuple, list)) and len(cc) == 2:
            d["compute_capability"] = f"{cc[0]}.{cc[1]}"
        mem = q("memory", "nvmlDeviceGetMemoryInfo")
        if mem is not None:
            d["memory_total"], d["memory_used"] = getattr(mem, "total", None), getattr(mem, "used", None)
        mode = q("compute_mode", "nvmlDeviceGetComputeMode")
        d["compute_mode"] = COMPUTE_MODES.get(mode, f"unknown ({mode})") if isinstance(mode, int) else None
        mig = q("mig_mode", "nvmlDeviceGetMigMode")
        if isinstance(mig, (tuple, list)) and mig:
            d["mig_mode"] = "enabled" if mig[0] == 1 else "disabled"
        d["pcie_gen_current"] = q("pcie_gen_current", "nvmlDeviceGetCurrPcieLinkGeneration")
        d["pcie_gen_max"] = q("pcie_gen_max", "nvmlDeviceGetMaxPcieLinkGeneration")
        d["pcie_width_current"] = q("pcie_width_current", "nvmlDeviceGetCurrPcieLinkWidth")
        d["pcie_width_max"] = q("pcie_width_max", "nvmlDeviceGetMaxPcieLinkWidth")
        d["throttle_reasons"] = q(
            "throttle_reasons", ("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons")
        )
        d["temperature_c"] = q("temperature_c", "nvmlDeviceGetTemperature", self._temperature_sensor())
        d["power_w"] = _scaled(q("power_w", "nvmlDeviceGetPowerUsage"), 1000)
        d["power_limit_w"] = _scaled(q("power_limit_w", "nvmlDeviceGetEnforcedPowerLimit"), 1000)
        util = q("utilization_gpu", "nvmlDeviceGetUtilizationRates")
        d["utilization_gpu"] = getattr(util, "gpu", None) if util is not None else None
        ecc = q("ecc_mode", "nvmlDeviceGetEccMode")  # (current, pending); None on GPUs without ECC
        if isinstance(ecc, (tuple, list)) and ecc:
            d["ecc_mode"] = "enabled" if ecc[0] == 1 else "disabled"
        if d["ecc_mode"] == "enabled":  # uncorrected errors since the driver loaded (1: uncorrected, 0: volatile)
            d["ecc_uncorrected_volatile"] = q("ecc_uncorrected_volatile", "nvmlDeviceGetTotalEccErrors", 1, 0)
        rows = q("remapped_rows", "nvmlDeviceGetRemappedRows")  # (corrected, uncorrected, pending, failed)
        if isinstance(rows, (tuple, list)) and len(rows) == 4:
            d["remapped_rows_pending"], d["remapped_rows_failed"] = bool(rows[2]), bool(rows[3])
        procs = q("processes", "nvmlDeviceGetComputeRunningProcesses")
        if isinstance(procs, (list, tuple)):
            d["processes"] = [
                {
                    "pid": int(p.pid),
                    "name": self.backend.process_name(int(p.pid)),
                    "used_memory": getattr(p, "usedGpuMemory", None),
                }
                for p in procs
            ]
        if errors:
            d["errors"] = errors
        return d

    def sample(self, index: int) -> GpuSample:
        """Cheap live reading for the monitor: cached handle, N/A queries skipped after the first try."""
        h = self.handle(index)
        if h is None:
            return GpuSample(index, None, None, None, None, None, None)
        util = self.query("nvmlDeviceGetUtilizationRates", h, cache=(index, "util"))
        mem = self.query("nvmlDeviceGetMemoryInfo", h, cache=(index, "mem"))
        power = self.query("nvmlDeviceGetPowerUsage", h, cache=(index, "power"))
        temp = self.query("nvmlDeviceGetTemperature", h, self._temperature_sensor(), cache=(index, "temp"))
        return GpuSample(
            index,
            getattr(util, "gpu", None),
            getattr(util, "memory", None),
            getattr(mem, "used", None),
            getattr(mem, "total", None),
            _scaled(power, 1000),
            temp if isinstance(temp, int) else None,
        )

    def sample_all(self) -> list[GpuSample]:
        return [self.sample(i) for i in range(self.device_count() or 0)]

    def _temperature_sensor(self) -> int:
        return int(getattr(self._api, "NVML_TEMPERATURE_GPU", NVML_TEMPERATURE_GPU))


def collect(ctx: HostContext, out: dict[str, Any], backend: NvmlBackend) -> None:
    if ctx.os_name == "Darwin":
        for key in KEYS:
            out[key] = ctx.not_applicable()
        return
    with NvmlSession(backend) as session:
        out["nvml.status"], out["nvml.error"] = session.status, session.error
        if not session.ok:
            reason = NotCollected(f"NVML not usable: {session.status}")
            for key in KEYS[2:]:
                out[key] = reason
            return
        out["nvml.driver_version"] = session.driver_version()
        out["nvml.cuda_driver_version"] = session.cuda_driver_version()
        errors: dict[str, str] = {}
        count = session.device_count(errors)
        out["nvml.gpus"] = (
            [session.device_facts(i) for i in range(count)]
            if count is not None
            else NotCollected(f"nvmlDeviceGetCount failed: {errors.get('device_count')}")
        )


# --------------------------------------------------------------------------------------------------
# Recorded backend


def _pynvml() -> Any:
    import pynvml  # start-up: NVML's bindings load only where a session opened

    return pynvml


@dataclass(frozen=True)
class RecordedHandle:
    index: int


_MISSING = object()


class RecordedNvml:
    """A pynvml look-alike answering from a recording (format in the module docstring).

    It is its own API object (``load()`` returns ``self``); errors are real ``pynvml.NVMLError``
    instances. ``calls`` lists the functions called, ``init_calls``/``shutdown_calls`` count the
    lifecycle, so tests can check the session cleans up.
    """

    def __init__(self, recording: Mapping[str, Any]) -> None:
        self.recording = dict(recording)
        self.calls: list[str] = []
        self.init_calls = 0
        self.shutdown_calls = 0

    @classmethod
    def from_file(cls, path: str | Path) -> RecordedNvml:
        return cls(json.loads(Path(path).read_text()))

    # -- backend protocol --------------------------------------------------------------------------
    def load(self) -> RecordedNvml:
        if self.recording.get("bindings_missing"):
            raise NvmlLoadError("library_not_found", "No module named 'pynvml' (recorded)")
        return self

    def process_name(self, pid: int) -> str | None:
        for dev in self._devices():
            procs = dev.get("processes")
            for p in procs if isinstance(procs, list) else []:
                if p.get("pid") == pid:
                    name = p.get("name")
                    return None if name is None else str(name)
        return None

    @property
    def NVMLError(self) -> type[Exception]:
        error: type[Exception] = _pynvml().NVMLError
        return error

    def __getattr__(self, name: str) -> Any:
        if name.startswith("NVML_"):  # constants (NVML_TEMPERATURE_GPU, NVML_ERROR_*) as pynvml has them
            return getattr(_pynvml(), name)
        raise AttributeError(name)

    # -- helpers -----------------------------------------------------------------------------------
    def _raise(self, code: str) -> None:
        pynvml = _pynvml()
        raise pynvml.NVMLError(getattr(pynvml, code, pynvml.NVML_ERROR_UNKNOWN))

    def _devices(self) -> list[dict[str, Any]]:
        devices = self.recording.get("devices")
        return devices if isinstance(devices, list) else []

    def _answer(self, source: Mapping[str, Any], *keys: str) -> Any:
        value: Any = _MISSING
        for key in keys:
            value = source.get(key, _MISSING)
            if value is not _MISSING:
                break
        if value is _MISSING:
            self._raise("NVML_ERROR_NOT_SUPPORTED")
        if isinstance(value, dict) and "error" in value:
            self._raise(str(value["error"]))
        return value

    def _device(self, handle: RecordedHandle, *keys: str) -> Any:
        self.calls.append(keys[0])
        return self._answer(self._devices()[handle.index], *keys)

    # -- pynvml API --------------------------------------------------------------------------------
    def nvmlInit(self) -> None:
        self.calls.append("init")
        if self.recording.get("init_error"):
            self._raise(str(self.recording["init_error"]))
        self.init_calls += 1

    def nvmlShutdown(self) -> None:
        self.shutdown_calls += 1

    def nvmlSystemGetDriverVersion(self) -> str:
        return str(self._answer(self.recording, "driver_version"))

    def nvmlSystemGetCudaDriverVersion(self) -> int:
        return int(self._answer(self.recording, "cuda_driver_version"))

    def nvmlSystemGetCudaDriverVersion_v2(self) -> int:
        return int(self._answer(self.recording, "cuda_driver_version_v2", "cuda_driver_version"))

    def nvmlDeviceGetCount(self) -> int:
        if "device_count" in self.recording:
            return int(self._answer(self.recording, "device_count"))
        return len(self._devices())

    def nvmlDeviceGetHandleByIndex(self, index: int) -> RecordedHandle:
        devices = self._devices()
        if not 0 <= index < len(devices):
            self._raise("NVML_ERROR_INVALID_ARGUMENT")
        if devices[index].get("handle_error"):
            self._raise(str(devices[index]["handle_error"]))
        return RecordedHandle(index)

    def nvmlDeviceGetName(self, h: RecordedHandle) -> str:
        return str(self._device(h, "name"))

    def nvmlDeviceGetUUID(self, h: RecordedHandle) -> str:
        return str(self._device(h, "uuid"))

    def nvmlDeviceGetPciInfo(self, h: RecordedHandle) -> SimpleNamespace:
        return SimpleNamespace(busId=str(self._device(h, "pci_bus_id")))

    def nvmlDeviceGetCudaComputeCapability(self, h: RecordedHandle) -> tuple[int, int]:
        major, minor = self._device(h, "compute_capability")
        return int(major), int(minor)

    def nvmlDeviceGetMemoryInfo(self, h: RecordedHandle) -> SimpleNamespace:
        total = self._device(h, "memory_total")
        used = self._device(h, "memory_used")
        return SimpleNamespace(total=total, used=used, free=total - used)

    def nvmlDeviceGetComputeMode(self, h: RecordedHandle) -> int:
        return int(self._device(h, "compute_mode"))

    def nvmlDeviceGetMigMode(self, h: RecordedHandle) -> list[int]:
        return list(self._device(h, "mig_mode"))

    def nvmlDeviceGetCurrPcieLinkGeneration(self, h: RecordedHandle) -> int:
        return int(self._device(h, "pcie_gen_current"))

    def nvmlDeviceGetMaxPcieLinkGeneration(self, h: RecordedHandle) -> int:
        return int(self._device(h, "pcie_gen_max"))

    def nvmlDeviceGetCurrPcieLinkWidth(self, h: RecordedHandle) -> int:
        return int(self._device(h, "pcie_width_current"))

    def nvmlDeviceGetMaxPcieLinkWidth(self, h: RecordedHandle) -> int:
        return int(self._device(h, "pcie_width_max"))

    def nvmlDeviceGetCurrentClocksEventReasons(self, h: RecordedHandle) -> int:
        return int(self._device(h, "clocks_event_reasons"))

    def nvmlDeviceGetCurrentClocksThrottleReasons(self, h: RecordedHandle) -> int:
        return int(self._device(h, "throttle_reasons", "clocks_event_reasons"))

    def nvmlDeviceGetTemperature(self, h: RecordedHandle, sensor: int) -> int:
        return int(self._device(h, "temperature"))

    def nvmlDeviceGetPowerUsage(self, h: RecordedHandle) -> int:
        return int(self._device(h, "power_usage_mw"))

    def nvmlDeviceGetEnforcedPowerLimit(self, h: RecordedHandle) -> int:
        return int(self._device(h, "power_limit_mw"))

    def nvmlDeviceGetUtilizationRates(self, h: RecordedHandle) -> SimpleNamespace:
        gpu, memory = self._device(h, "utilization")
        return SimpleNamespace(gpu=int(gpu), memory=int(memory))

    def nvmlDeviceGetEccMode(self, h: RecordedHandle) -> list[int]:
        return list(self._device(h, "ecc_mode"))

    def nvmlDeviceGetTotalEccErrors(self, h: RecordedHandle, error_type: int, counter_type: int) -> int:
        return int(self._device(h, "ecc_uncorrected_volatile"))

    def nvmlDeviceGetRemappedRows(self, h: RecordedHandle) -> list[int]:
        return list(self._device(h, "remapped_rows"))

    def nvmlDeviceGetComputeRunningProcesses(self, h: RecordedHandle) -> list[SimpleNamespace]:
        return [
            SimpleNamespace(pid=int(p["pid"]), usedGpuMemory=p.get("used_memory")) for p in self._device(h, "processes")
        ]
