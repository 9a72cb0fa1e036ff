"""collect_host / collect_this_machine: the key contract, the never-raise guard, other OSes, this machine."""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import hostdata
from gpuassist.collect import HOST_KEYS, collect_host, collect_recorded, collect_this_machine, system
from gpuassist.collect.io import DictFS, FileInfo, RecordedRunner, RootedFS
from gpuassist.collect.nvml import RecordedNvml
from gpuassist.facts import Facts, NotCollected

DOCS = Path(__file__).resolve().parents[1] / "docs" / "facts.md"
EXCEPTION_REASON = re.compile(r"^[A-Z]\w*(Error|Exception)\b")


def documented_host_keys() -> set[str]:
    text = DOCS.read_text()
    section = text.split("## Host facts", 1)[1].split("\n## ", 1)[0]
    keys: set[str] = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            keys.update(re.findall(r"`([a-z_]+(?:\.[a-z_]+)*)`", line.split("|")[1]))
    return keys


def test_keys_are_exactly_the_documented_host_facts() -> None:
    assert set(HOST_KEYS) == documented_host_keys()
    assert len(HOST_KEYS) == len(set(HOST_KEYS))


@pytest.mark.parametrize("host", hostdata.HOST_NAMES)
def test_recorded_hosts_give_every_key_and_survive_json(host: str) -> None:
    facts = collect_recorded(hostdata.HOSTS_DIR / host)
    assert list(facts) == list(HOST_KEYS)
    reasons = [v.reason for v in facts.values() if isinstance(v, NotCollected)]
    assert not [r for r in reasons if EXCEPTION_REASON.match(r)], reasons  # no collector crashed
    data = json.loads(json.dumps(Facts(facts).to_json()))
    assert Facts.from_json(data).to_json() == Facts(facts).to_json()


def test_recorded_verdict_facts_per_host() -> None:
    got = {h: collect_recorded(hostdata.HOSTS_DIR / h) for h in hostdata.HOST_NAMES}
    summary = {
        h: (
            f["pci.nvidia_gpu_count"],
            f["nvml.status"],
            f["driver.version"],
            f["platform.wsl"],
            f["platform.container"],
        )
        for h, f in got.items()
    }
    assert summary == {
        "docker-no-gpu-runtime": (1, "library_not_found", "550.54.14", None, "docker"),
        "driver-mismatch": (1, "lib_rm_version_mismatch", "535.154.05", None, None),
        "nouveau-no-driver": (1, "library_not_found", None, None, None),
        "vm-no-gpu": (0, "library_not_found", None, None, None),
        "workstation-rtx4090": (1, "ok", "550.54.14", None, None),
        "wsl2": (0, "ok", "551.61", "wsl2", None),
    }


# -- the guard -------------------------------------------------------------------------------------------


class ExplodingFS(RootedFS):
    """A filesystem that fails in an unexpected way (not an OSError) for some paths."""

    def __init__(self, root: Path, bad: tuple[str, ...]) -> None:
        super().__init__(root)
        self.bad = bad

    def _check(self, path: str) -> None:
        if path.startswith(self.bad):
            raise RuntimeError(f"boom at {path}")

    def read_text(self, path: str, limit: int = 1 << 20) -> str | None:
        self._check(path)
        return super().read_text(path, limit)

    def listdir(self, path: str) -> list[str]:
        self._check(path)
        return super().listdir(path)

    def info(self, path: str) -> FileInfo | None:
        self._check(path)
        return super().info(path)


def test_an_exception_becomes_not_collected_for_that_collectors_remaining_keys() -> None:
    host = "workstation-rtx4090"
    fs = ExplodingFS(hostdata.HOSTS_DIR / host, ("/sys/bus/pci", "/proc/cpuinfo", "/dev"))
    facts = collect_host(fs, hostdata.runner(host), hostdata.env(host), hostdata.nvml(host), os_name="Linux")
    assert list(facts) == list(HOST_KEYS)
    for key in ("pci.display_devices", "pci.nvidia_gpu_count", "pci.nvswitch_count", "dev.nodes"):
        assert isinstance(facts[key], NotCollected) and facts[key].reason.startswith("RuntimeError: boom")
    # keys written before the failure survive, the rest of that collector does not
    assert facts["host.kernel"] == "6.5.0-26-generic"
    assert facts["host.cpu_model"] == NotCollected("RuntimeError: boom at /proc/cpuinfo")
    # other collectors are untouched
    assert facts["nvml.status"] == "ok" and facts["driver.version"] == "550.54.14"


def test_broken_runner_and_broken_nvml_backend_do_not_escape() -> None:
    class BrokenBackend:
        def load(self) -> Any:
            raise MemoryError("no")

        def process_name(self, pid: int) -> str | None:
            return None

    def broken_runner(argv: list[str], timeout: float = 5.0) -> Any:
        raise ValueError("runner exploded")

    host = "driver-mismatch"
    facts = collect_host(hostdata.fs(host), broken_runner, {}, BrokenBackend(), os_name="Linux")
    assert facts["nvml.status"] == "unknown" and facts["nvml.error"] == "MemoryError: no"
    assert facts["driver.proc_version"].startswith("NVRM version")  # gathered before nvidia-smi ran
    assert facts["smi.status"] == NotCollected("ValueError: runner exploded")


# -- other operating systems ------------------------------------------------------------------------------

LINUX_ONLY = (
    "pci.display_devices",
    "pci.nvidia_gpu_count",
    "pci.nvswitch_count",
    "kernel.modules",
    "kernel.secure_boot",
    "dev.nodes",
    "driver.proc_version",
    "driver.userspace_versions",
    "platform.container",
    "platform.jetson",
    "platform.wsl_libcuda",
)


def test_simulated_macos() -> None:
    sysctl = (
        "kern.osrelease: 24.3.0\nkern.osproductversion: 15.3\nhw.machine: x86_64\n"
        "machdep.cpu.brand_string: Apple M2 Pro\nhw.logicalcpu: 12\nhw.memsize: 34359738368\n"
    )
    run = RecordedRunner(
        {
            " ".join(system._DARWIN_SYSCTL): {"stdout": sysctl},
            "sysctl -n sysctl.proc_translated": {"stdout": "1\n"},
        }
    )
    nvml = RecordedNvml({"driver_version": "1"})
    facts = collect_host(DictFS({}), run, {"PATH": "/usr/bin"}, nvml, os_name="Darwin")
    assert list(facts) == list(HOST_KEYS)
    assert facts["host.distro"] == "macOS 15.3" and facts["host.cpu_model"] == "Apple M2 Pro"
    assert facts["platform.rosetta"] is True
    for key in (*LINUX_ONLY, "nvml.status", "smi.status", "driver.version"):
        assert facts[key] == NotCollected("not applicable on Darwin"), key
    assert nvml.calls == [] and ["nvidia-smi"] not in run.calls


def test_simulated_windows_with_a_gpu() -> None:
    nvml = RecordedNvml(
        {
            "driver_version": "551.61",
            "cuda_driver_version": 12040,
            "devices": [{"name": "NVIDIA GeForce RTX 4070", "compute_capability": [8, 9]}],
        }
    )
    run = RecordedRunner({})
    facts = collect_host(DictFS({}), run, {"CUDA_PATH": "C:\\CUDA"}, nvml, os_name="Windows")
    assert facts["host.os"] == "Windows"
    assert (facts["driver.version"], facts["driver.cuda_version"]) == ("551.61", 12040)
    assert facts["nvml.gpus"][0]["compute_capability"] == "8.9"
    assert facts["platform.wsl"] is None and facts["platform.rosetta"] is None
    assert facts["env"] == {"CUDA_PATH": "C:\\CUDA"}
    for key in LINUX_ONLY:
        assert facts[key] == NotCollected("not applicable on Windows"), key
    assert run.calls == []


# -- this machine, for real --------------------------------------------------------------------------------


def _sysfs_nvidia_gpus() -> int | None:
    root = Path("/sys/bus/pci/devices")
    if not root.exists():
        return None
    count = 0
    for dev in root.iterdir():
        try:
            vendor, cls = (dev / "vendor").read_text().strip(), (dev / "class").read_text().strip()
        except OSError:
            continue
        count += vendor == "0x10de" and cls.startswith("0x03")
    return count


@pytest.mark.skipif(platform.system() != "Linux", reason="compares against Linux sysfs")
def test_this_machine_matches_what_sys_shows() -> None:
    facts = collect_this_machine()
    assert list(facts) == list(HOST_KEYS)
    reasons = [v.reason for v in facts.values() if isinstance(v, NotCollected)]
    assert not [r for r in reasons if EXCEPTION_REASON.match(r)], reasons
    json.dumps(Facts(facts).to_json())

    assert facts["host.os"] == "Linux"
    assert facts["host.kernel"] == platform.release()
    assert facts["host.machine"] == platform.machine()
    assert facts["host.cpu_count"] == os.cpu_count()

    nvidia = _sysfs_nvidia_gpus()
    if nvidia is None:
        assert isinstance(facts["pci.nvidia_gpu_count"], NotCollected)
    else:
        assert facts["pci.nvidia_gpu_count"] == nvidia
        if nvidia == 0 and not facts["platform.wsl"]:
            assert facts["nvml.status"] != "ok" or facts["nvml.gpus"] == []
    if facts["nvml.status"] == "ok":
        assert facts["driver.version_source"] == "nvml"
        assert isinstance(facts["smi.status"], NotCollected)  # nvidia-smi not run when NVML answered
    else:
        assert facts["smi.status"] in ("ok", "not_found", "timeout", "failed")

    proc = Path("/proc/driver/nvidia/version")
    assert (facts["driver.proc_version"] is None) == (not proc.exists())
    expected_nodes = sorted(str(p) for p in Path("/dev").glob("nvidia*") if not p.is_dir())
    assert (
        sorted(
            n["path"]
            for n in facts["dev.nodes"]
            if n["path"].startswith("/dev/nvidia") and not n["path"].startswith("/dev/nvidia-caps/")
        )
        == expected_nodes
    )
    assert set(facts["env"]) <= set(os.environ)


@pytest.mark.slow
@pytest.mark.skipif(platform.system() != "Linux", reason="dlopen check is Linux-only")
def test_this_machine_does_not_import_pynvml_without_the_library() -> None:
    code = (
        "import sys, ctypes\n"
        "from gpuassist.collect import collect_this_machine\n"
        "collect_this_machine()\n"
        "try:\n    ctypes.CDLL('libnvidia-ml.so.1'); lib = True\nexcept OSError:\n    lib = False\n"
        "print(lib, 'pynvml' in sys.modules, 'torch' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    lib, pynvml_loaded, torch_loaded = out.stdout.split()
    assert torch_loaded == "False"
    if lib == "False":
        assert pynvml_loaded == "False"
