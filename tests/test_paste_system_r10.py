"""System-side classes read in round 10: a non-torch CUDA loader that finds no libcuda (per host), a cluster's
container launch without GPU injection (pyxis/enroot, Singularity/Apptainer), and nvidia-smi -q's temperature and
clock-event fields.

Synthetic texts written for these tests, each with a counter-example that must not fire."""

from __future__ import annotations

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.ingest.scheduler_facts import scheduler_facts
from gpuassist.knowledge import messages


def _first(text: str) -> str | None:
    findings = load_text(text).findings
    return findings[0].id if findings else None


def _claimed(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings if f.severity in (Severity.ERROR, Severity.WARNING)]


# ------------------------------------------------------------------ a non-torch loader without libcuda

LOADER_LINES = [
    "thread 'main' panicked at src/driver/sys/mod.rs:61:9:\nUnable to find cuda lib under the names [\"cuda\", "
    '"nvcuda"]. Please open GitHub issue.',
    "thread 'main' panicked at src/lib.rs:98:5:\nUnable to dynamically load the \"cuda\" shared library - searched "
    'for library names: ["libcuda.so", "libcuda.so.1"].',
    "numba.cuda.cudadrv.error.CudaSupportError: Error at driver init:\n\nCUDA driver library cannot be found.\n"
    "If you are sure that a CUDA driver is installed,\ntry setting environment variable NUMBA_CUDA_DRIVER",
    "2024-03-02 10:00:01.1234: W tensorflow/tsl/platform/default/dso_loader.cc:66] Could not load dynamic library "
    "'libcuda.so.1'; dlerror: libcuda.so.1: cannot open shared object file: No such file or directory",
]


@pytest.mark.parametrize("text", LOADER_LINES)
def test_loader_without_libcuda_in_wsl_is_wsls_library_path(text: str) -> None:
    wsl = "Running inside WSL2 on Windows 11 (Ubuntu 22.04 in WSL).\n" + text
    assert _first(wsl) == "wsl_libcuda_problem"


@pytest.mark.parametrize("text", LOADER_LINES)
def test_loader_without_libcuda_on_linux_is_no_wsl_verdict(text: str) -> None:
    # A host the text does not show as WSL: no driver is a possibility, WSL's path is never stated as shown.
    findings = load_text("Ubuntu 22.04 server\n" + text).findings
    assert "no_nvidia_driver" in [f.id for f in findings]
    assert not any(f.id == "wsl_libcuda_problem" and f.severity is Severity.ERROR for f in findings)


def test_every_loader_row_reads_its_example() -> None:
    rows = messages.families()["cuda_loader"].rows
    assert rows and all(r.regex.search(r.example) for r in rows)


def test_loader_that_found_libcuda_is_no_claim() -> None:
    text = (
        "Running inside WSL2.\n"
        "I tensorflow/stream_executor/platform/default/dso_loader.cc:53] Successfully opened dynamic library "
        "libcuda.so.1\nepoch 1/10 loss 0.31"
    )
    assert "wsl_libcuda_problem" not in _claimed(text)


# ------------------------------------------------------------------ a cluster container launch without GPU injection

NO_DRIVER = (
    "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed "
    "a driver from http://www.nvidia.com/Download/index.aspx"
)


@pytest.mark.parametrize(
    "launch",
    [
        "$ srun -p gpu \\\n    --gres=gpu:4 \\\n    --container-image=ghcr.io#acme/trainer:1.2 \\\n    python train.py",
        "srun --gpus-per-node=8 --container-image=/shared/images/py311.sqsh python -c 'import torch'",
        "$ enroot start --rw --mount /data:/data trainer python train.py",
        "$ srun --gres=gpu:1 apptainer exec trainer.sif python train.py",
        "user@login01:~$ singularity run --bind /scratch pytorch.sif",
    ],
)
def test_container_launch_without_injection_is_the_container_runtime(launch: str) -> None:
    text = f"{launch}\n{NO_DRIVER}"
    assert _first(text) == "docker_no_gpu_runtime"
    assert "scheduler_no_gpu_allocated" not in _claimed(text)


@pytest.mark.parametrize(
    "launch",
    [
        # injection asked for: --nv, NVIDIA_VISIBLE_DEVICES set, an NVIDIA image that sets it
        "$ srun --gres=gpu:1 apptainer exec --nv trainer.sif python train.py",
        "$ singularity exec --nvccli pytorch.sif python train.py",
        "$ NVIDIA_VISIBLE_DEVICES=all srun --gpus=2 --container-image=ubuntu:22.04 python train.py",
        "$ srun --gpus=2 --container-image=nvcr.io#nvidia/pytorch:24.01-py3 python train.py",
        "$ enroot start --root --rw --env NVIDIA_VISIBLE_DEVICES=all debian+bookworm-slim python train.py",
    ],
)
def test_container_launch_with_injection_is_no_runtime_verdict(launch: str) -> None:
    findings = load_text(f"{launch}\n{NO_DRIVER}").findings
    assert not any(f.id == "docker_no_gpu_runtime" and "shows this cause directly" in f.explanation for f in findings)


def test_container_launch_without_a_failure_is_no_claim() -> None:
    text = "$ srun --gpus=2 --container-image=ubuntu:22.04 python train.py\nepoch 1 loss 0.53 (cuda:0)"
    assert "docker_no_gpu_runtime" not in _claimed(text)


def test_continued_launch_line_carries_its_gpu_request() -> None:
    lines = ["srun \\", "  --nodes=1 --gpus=2 \\", "  --container-image=img \\", "  python train.py  # cuda"]
    assert scheduler_facts(lines, {}).get("scheduler.gpus")
    # a launch that does not ask, over several lines, still has no request
    assert not scheduler_facts(["srun \\", "  --nodes=1 \\", "  python train.py  # cuda"], {}).get("scheduler.gpus")


# ------------------------------------------------------------------ nvidia-smi -q temperature and clock events

SMI_HEADER = (
    "==============NVSMI LOG==============\n\nTimestamp                                 : Mon Jan  6 10:00:00 2025\n"
    "Driver Version                            : 550.54.14\nCUDA Version                              : 12.4\n\n"
    "Attached GPUs                             : 1\nGPU 00000000:01:00.0\n"
)


def _temperature(current: int, max_operating: str = "87 C", slowdown: str = "95 C") -> str:
    return SMI_HEADER + (
        "    Temperature\n"
        f"        GPU Current Temp                  : {current} C\n"
        "        GPU Shutdown Temp                 : 100 C\n"
        f"        GPU Slowdown Temp                 : {slowdown}\n"
        f"        GPU Max Operating Temp            : {max_operating}\n"
        "        Memory Current Temp               : N/A\n"
        "        Memory Max Operating Temp         : N/A\n"
    )


def _events(**active: bool) -> str:
    names = [
        "Idle",
        "Applications Clocks Setting",
        "SW Power Cap",
        "HW Slowdown",
        "HW Thermal Slowdown",
        "HW Power Brake Slowdown",
        "Sync Boost",
        "SW Thermal Slowdown",
        "Display Clock Setting",
    ]
    rows = "".join(f"        {n:<34}: {'Active' if active.get(n.replace(' ', '_')) else 'Not Active'}\n" for n in names)
    return SMI_HEADER + "    Performance State                     : P0\n    Clocks Event Reasons\n" + rows


@pytest.mark.parametrize("current,max_operating", [(86, "87 C"), (88, "87 C"), (93, "N/A")])
def test_gpu_at_its_temperature_limit_is_throttling(current: int, max_operating: str) -> None:
    assert _first(_temperature(current, max_operating)) == "thermal_power_throttling"


@pytest.mark.parametrize(
    "reason", ["HW_Slowdown", "HW_Thermal_Slowdown", "HW_Power_Brake_Slowdown", "SW_Thermal_Slowdown"]
)
def test_active_hardware_or_thermal_slowdown_is_throttling(reason: str) -> None:
    assert _first(_events(**{reason: True})) == "thermal_power_throttling"


def test_t_limit_margin_at_zero_is_throttling() -> None:
    text = (
        SMI_HEADER
        + "    Temperature\n        GPU Current Temp                  : 83 C\n"
        + ("        GPU T.Limit Temp                  : 0 C\n")
    )
    assert _first(text) == "thermal_power_throttling"


@pytest.mark.parametrize(
    "text",
    [
        _temperature(45),  # far below every limit
        _temperature(60, "N/A", "N/A"),  # no limit shown
        _events(Idle=True),  # idle clocks are expected
        _events(SW_Power_Cap=True),  # the power limit under full load is expected
        _events(Applications_Clocks_Setting=True, Display_Clock_Setting=True),
    ],
)
def test_healthy_smi_query_is_no_claim(text: str) -> None:
    assert "thermal_power_throttling" not in _claimed(text)


def test_pyxis_launch_without_gpu_request_is_no_runtime_verdict() -> None:
    # The job asked for no GPU: the scheduler's allocation is as likely as the container's injection.
    text = "$ srun -p cpu --container-image=ubuntu:22.04 python train.py\n" + NO_DRIVER
    findings = load_text(text).findings
    assert not any(f.id == "docker_no_gpu_runtime" and "shows this cause directly" in f.explanation for f in findings)


def test_cuda_named_image_sets_its_own_visible_devices() -> None:
    text = "$ srun --gres=gpu:1 --container-image=cuda-12.2.0 nvidia-smi\nNo devices were found\n" + NO_DRIVER
    assert "docker_no_gpu_runtime" not in [f.id for f in load_text(text).findings][:1]


def test_cuda_in_the_program_is_not_an_nvidia_image() -> None:
    text = (
        "$ srun --gpus=1 --container-image=ubuntu:22.04 python -c 'import torch; print(torch.cuda.is_available())'\n"
        + NO_DRIVER
    )
    assert _first(text) == "docker_no_gpu_runtime"


def _power(enforced: str, default: str, cap: bool) -> str:
    return (
        _events(SW_Power_Cap=cap)
        + "    GPU Power Readings\n        Power Draw                        : 99.10 W\n"
        + f"        Current Power Limit               : {enforced}\n"
        + f"        Default Power Limit               : {default}\n"
        + "        Max Power Limit                   : 450.00 W\n"
    )


def test_power_cap_under_a_lowered_limit_is_throttling() -> None:
    assert _first(_power("100.00 W", "450.00 W", cap=True)) == "thermal_power_throttling"


@pytest.mark.parametrize(("enforced", "cap"), [("450.00 W", True), ("100.00 W", False)])
def test_power_cap_at_the_default_limit_or_inactive_is_no_claim(enforced: str, cap: bool) -> None:
    assert "thermal_power_throttling" not in _claimed(_power(enforced, "450.00 W", cap))


CSV_HEADER = (
    "index, temperature.gpu, clocks_event_reasons.active, clocks_event_reasons.sw_power_cap, "
    "clocks_event_reasons.hw_thermal_slowdown, clocks_event_reasons.sw_thermal_slowdown"
)


@pytest.mark.parametrize(
    "row",
    [
        "0, 91, 0x0000000000000060, Not Active, Active, Active",
        "0, 88, 0x0000000000000020, Not Active, Not Active, Active",
    ],
)
def test_query_csv_slowdown_is_throttling(row: str) -> None:
    assert _first(f"$ nvidia-smi --query-gpu=... --format=csv\n{CSV_HEADER}\n{row}") == "thermal_power_throttling"


@pytest.mark.parametrize(
    "row",
    [
        "0, 38, 0x0000000000000001, Not Active, Not Active, Not Active",
        "0, 71, 0x0000000000000004, Active, Not Active, Not Active",
    ],
)
def test_query_csv_idle_or_power_cap_is_no_claim(row: str) -> None:
    assert "thermal_power_throttling" not in _claimed(f"{CSV_HEADER}\n{row}")


@pytest.mark.parametrize(
    "line",
    [
        "System.DllNotFoundException: Unable to load DLL 'nvcuda': The specified module could not be found.",
        "FileNotFoundError: Could not find module 'nvcuda.dll' (or one of its dependencies).",
    ],
)
def test_windows_without_nvcuda_is_no_driver(line: str) -> None:
    assert _first("Windows 11, GeForce RTX 3060 laptop\n" + line) == "no_nvidia_driver"


def test_old_tensorflow_loader_forms_are_read() -> None:
    text = (
        "Running in WSL2 (Ubuntu 20.04)\n"
        "I tensorflow/stream_executor/dso_loader.cc:119] Couldn't open CUDA library libcuda.so.1. LD_LIBRARY_PATH:\n"
        "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:189] libcuda reported version is: Not found: was "
        "unable to find libcuda.so DSO loaded into this program"
    )
    assert _first(text) == "wsl_libcuda_problem"


def test_cluster_launch_fix_is_the_runtimes_own() -> None:
    pyxis = load_text("$ srun --gpus=2 --container-image=ubuntu:22.04 python train.py\n" + NO_DRIVER).findings[0]
    assert pyxis.fix.startswith("Let enroot inject the GPU") and "NVIDIA_VISIBLE_DEVICES=all" in pyxis.fix
    apptainer = load_text("$ apptainer exec trainer.sif python train.py\n" + NO_DRIVER).findings[0]
    assert "--nv" in apptainer.fix.splitlines()[0]
    # a plain docker run keeps the toolkit's fix
    docker = load_text("$ docker run --rm ubuntu:22.04 python train.py\n" + NO_DRIVER).findings
    assert not any("enroot" in f.fix for f in docker)


def test_platform_set_temperature_limit_is_named() -> None:
    found = load_text(_temperature(56, "57 C", "97 C")).findings[0]
    assert found.id == "thermal_power_throttling"
    assert any("platform" in str(e.value) for e in found.evidence)
