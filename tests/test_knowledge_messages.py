"""The authoritative message tables (gpuassist/knowledge/messages.json): every row of every family is recognised in a
line written the way its tool prints it, behind the prefixes real pastes carry, and the ingest turns it into the
right finding at the right severity; look-alike lines that are not the message do not fire."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pytest

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.ingest.os_call_refused import OS_CALL_REFUSED
from gpuassist.knowledge import catalogue, symptom_patterns
from gpuassist.knowledge.messages import FAMILIES, MessageRow, families, lookup, rows

# How a line reaches a ticket: a dmesg timestamp, a journal line, docker compose, a Python exception on Windows.
PREFIXES = (
    "",
    "[ 1234.567890] ",
    "Nov 24 08:00:01 gpu-node kernel: ",
    "webui-1  | ",
    "    ",
)


def _cuda_lines(row: MessageRow) -> list[str]:
    raw = _raw(row)
    code, msg = raw["code"], raw["message"]
    lines = [
        f"RuntimeError: CUDA error: {msg}",
        f"torch.AcceleratorError: CUDA error: {msg}\nCUDA kernel errors might be asynchronously reported",
        f"UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda "
        f"functions before calling NumCudaDevices() that might have already set an error? Error {code}: {msg} "
        "(Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)",
        f"RuntimeError: cuda runtime error ({code}) : {msg} at /pytorch/aten/src/THC/THCGeneral.cpp:47",
        f"CUDA error {code} ({raw['name']}) in kernel launch",
        f"cudaGetDeviceCount returned {code}\n-> {msg}\nResult = FAIL",
    ]
    if raw.get("legacy_code") is not None:  # torch <= 1.0 built with CUDA <= 10.0: the old numbers
        old = raw["legacy_code"]
        lines += [
            f"RuntimeError: cuda runtime error ({old}) : {msg} at /pytorch/aten/src/THC/THCGeneral.cpp:70",
            f"THCudaCheck FAIL file=/pytorch/aten/src/THC/THCGeneral.cpp line=51 error={old} : {msg}",
        ]
    if raw.get("driver_name"):
        short = raw["driver_name"].removeprefix("CUDA_ERROR_").lower().replace("_", " ")
        lines += [
            f"E tensorflow/stream_executor/cuda/cuda_driver.cc:271] failed call to cuInit: {raw['driver_name']}: {msg}",
            f"pycuda._driver.Error: cuInit failed: {short}",
            f"numba.cuda.cudadrv.driver.CudaAPIError: [{code}] Call to cuInit results in {raw['driver_name']}",
        ]
    return lines


def _nvml_lines(row: MessageRow) -> list[str]:
    raw = _raw(row)
    msg = raw["message"]
    if raw.get("handle"):
        return [f"Unable to determine the device handle for GPU0000:3B:00.0: {msg}"]
    return [
        f"Failed to initialize NVML: {msg}",
        f"pynvml.nvml.{raw['pynvml']}: {msg}",
        f"docker: Error response from daemon: nvidia-container-cli: initialization error: nvml error: {msg.lower()}",
        f"nvmlInit returned {raw['name']}",
    ]


def _xid_lines(row: MessageRow) -> list[str]:
    code = row.key
    return [
        f"NVRM: Xid (PCI:0000:3b:00): {code}, pid=2291, name=python3, Ch 00000008",
        f"NVRM: Xid (PCI:0000:01:00.0): {code}, pid='<unknown>', name=<unknown>, {row.message}",
        f"dcgm: XID {code} reported on GPU 0",
    ]


def _example_lines(row: MessageRow) -> list[str]:
    return [row.example]


LINES = {
    "cuda_error": _cuda_lines,
    "nvml": _nvml_lines,
    "nvidia_smi": _example_lines,
    "xid": _xid_lines,
    "nvrm": _example_lines,
    "kmod": _example_lines,
    "torch": _example_lines,
    "nccl": _example_lines,
    "container": _example_lines,
    "cuda_loader": _example_lines,
    "framework": _example_lines,
    "scheduler": _example_lines,
}


def _raw(row: MessageRow) -> Mapping[str, Any]:
    return row.fields


CASES = [
    pytest.param(row, line, id=f"{row.family}-{row.key}-{n}")
    for row in rows()
    for n, line in enumerate(LINES[row.family](row))
]


def test_every_family_has_sources_and_rows() -> None:
    assert set(families()) == set(FAMILIES)
    assert set(FAMILIES) == {
        "cuda_error",
        "nvml",
        "nvidia_smi",
        "xid",
        "nvrm",
        "kmod",
        "torch",
        "nccl",
        "container",
        "cuda_loader",
        "framework",
        "scheduler",
    }
    for fam in families().values():
        assert fam.sources and fam.rows and fam.about, fam.name
    assert len(families()["cuda_error"].rows) >= 30
    assert len(families()["nvml"].rows) >= 15


def test_every_id_is_in_the_catalogue_and_weights_are_sane() -> None:
    for row in rows():
        for fid, weight in row.ids.items():
            assert fid in catalogue(), (row.key, fid)
            assert 0 < weight <= 1, (row.key, fid)
        if row.specific is None:
            assert all(w < 0.8 for w in row.ids.values()), row.key  # a guess never weighs like a verdict


@pytest.mark.parametrize(("row", "line"), CASES)
def test_every_row_is_recognised_as_its_tool_prints_it(row: MessageRow, line: str) -> None:
    for prefix in PREFIXES:
        text = (prefix + line).strip()  # the ingest reads each line stripped
        assert row in lookup(text), (prefix, line)
        ids = {p.id for p in symptom_patterns() if p.regex.search(text)}
        assert set(row.ids) <= ids, (prefix, line, set(row.ids) - ids)
        specific = {p.id for p in symptom_patterns() if p.specific and p.regex.search(text)}
        if row.specific:
            assert row.specific in specific, (prefix, line)


def _first_line(row: MessageRow) -> str:
    return LINES[row.family](row)[0].splitlines()[0]


@pytest.mark.parametrize("row", rows(), ids=lambda r: f"{r.family}-{r.key}")
def test_the_ingest_reports_each_row_at_its_severity(row: MessageRow) -> None:
    line = _first_line(row)
    # An OS-call refusal is read as WSL's only where the text shows WSL (round 12, ingest/os_call_refused.py).
    shown = "Ubuntu 22.04 in WSL2\n" if OS_CALL_REFUSED.search(line) else ""
    report = load_text(shown + "Traceback (most recent call last):\n" + line + "\n")
    by_id = {f.id: f for f in report.findings}
    if row.specific:
        finding = by_id[row.specific]
        expected = Severity.INFO if catalogue()[row.specific].gpu_in_use else Severity.ERROR
        assert finding.severity is expected, (row.key, finding.severity)
    elif row.ids:
        likeliest = max(row.ids, key=lambda k: row.ids[k])
        assert likeliest in by_id, (row.key, list(by_id))
        if catalogue()[likeliest].gpu_in_use:  # an error of a working GPU is info, generic or not (round 9)
            assert by_id[likeliest].severity is Severity.INFO
        else:
            assert by_id[likeliest].severity is Severity.WARNING  # a generic message stays a possibility
            assert by_id[likeliest].title.startswith("Possible cause")
        assert not [f for f in report.findings if f.severity is Severity.ERROR], row.key
    else:  # recognised, blames nothing
        assert not [f for f in report.findings if f.id in catalogue() and f.severity is Severity.ERROR], (
            row.key,
            [f.id for f in report.findings],
        )


@pytest.mark.parametrize(
    "line",
    [
        "PermissionError: [Errno 1] Operation not permitted: '/dev/nvidia0'",  # EPERM, not cudaErrorNotPermitted
        "Out of memory: Killed process 4242 (python) total-vm:81234567kB",  # the kernel's OOM killer
        "MemoryError: out of memory",
        "git: unknown error occurred while fetching",
        "HTTP Error 404: Not Found",
        "docker: Error response from daemon: nvidia-container-cli: initialization error: load library failed",
        "requests.exceptions.ReadTimeout: Timeout",
        "ValueError: invalid argument for scale",
        "the bus is lost in the traffic",
        "Sep 12 kernel: usb 1-1: device not accepting address 5, error -71",
        "No devices were found matching the filter, skipping",  # not nvidia-smi's line
        "cudaMalloc returned 20 bytes",
    ],
)
def test_look_alike_lines_do_not_fire(line: str) -> None:
    for prefix in PREFIXES:
        assert not lookup(prefix + line), (prefix, line, [(r.family, r.key) for r in lookup(prefix + line)])


def test_xid_class_decides_the_reading() -> None:
    app = "NVRM: Xid (PCI:0000:01:00): 13, pid=1234, name=python, Graphics Exception"
    hardware = "NVRM: Xid (PCI:0000:01:00): 79, pid=0, GPU has fallen off the bus."
    unlisted = "NVRM: Xid (PCI:0000:01:00): 1234, pid=0, something new"

    def specific(text: str) -> set[str]:
        return {p.id for p in symptom_patterns() if p.specific and p.regex.search(text)}

    assert specific(app) == {"cuda_illegal_memory_access"}
    assert specific(hardware) == {"gpu_xid_fault"}
    assert not specific(unlisted)  # a number NVIDIA added later: a possible fault, not a verdict
    assert "gpu_xid_fault" in {p.id for p in symptom_patterns() if p.regex.search(unlisted)}
    # Xid 131 is not Xid 13, Xid 8 is not Xid 79
    assert not specific("NVRM: Xid (PCI:0000:01:00): 131, pid=0")
    assert not lookup("NVRM: Xid (PCI:0000:01:00): 8, pid=0")[0].specific


def test_a_wrapped_nvrm_message_is_read_whole() -> None:
    text = (
        "[    2.001] NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:1eb8)\n"
        "[    2.001] NVRM: installed in this system is not supported by open\n"
        "[    2.001] NVRM: nvidia.ko because it does not include the required GPU\n"
        "[    2.001] NVRM: System Processor (GSP).\n"
    )
    report = load_text(text)
    assert report.findings[0].id == "driver_does_not_support_gpu"
    assert report.findings[0].severity is Severity.ERROR


def test_no_catalogue_pattern_repeats_a_table_message() -> None:
    """The ad-hoc patterns the tables cover were removed: no catalogue pattern is an exact table message."""
    messages = {re.escape(r.message).lower() for r in rows()} | {r.message.lower() for r in rows()}
    for entry in catalogue().values():
        for p in entry.patterns:
            assert p.pattern.lower() not in messages, (entry.id, p.pattern)


def test_nvidia_smi_failing_is_a_possibility_the_kernel_message_decides() -> None:
    """ "couldn't communicate with the NVIDIA driver" alone is a guess; with the kernel's legacy-GPU message in the
    same paste, the kernel's reason is the verdict."""
    smi = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest"
    alone = load_text(f"$ nvidia-smi\n{smi}\n")
    assert alone.findings[0].id == "nvidia_module_not_loaded"
    assert alone.findings[0].severity is Severity.WARNING
    both = load_text(
        f"$ nvidia-smi\n{smi}\n$ sudo dmesg | grep NVRM\n"
        "[    4.20] NVRM: The NVIDIA Quadro K2000 GPU installed in this system is\n"
        "[    4.20] NVRM:  supported through the NVIDIA 470.xx Legacy drivers. Please\n"
        "[    4.20] NVRM:  visit http://www.nvidia.com/object/unix.html for more\n"
    )
    assert both.findings[0].id == "driver_does_not_support_gpu"
    assert both.findings[0].severity is Severity.ERROR
    assert "nvidia_module_not_loaded" not in {f.id for f in both.findings if f.severity is Severity.ERROR}


@pytest.mark.parametrize(
    "row", [r for r in families()["cuda_error"].rows if r.fields.get("cut_words")], ids=lambda r: r.key
)
def test_a_cuda_message_cut_off_by_the_paste_is_still_read(row: MessageRow) -> None:
    words = row.message.split()
    kept = int(row.fields["cut_words"])
    cut = " ".join(words[:kept]) + (" " + words[kept][:2] if kept < len(words) else "")
    assert lookup(f"RuntimeError: CUDA error: {cut}") == [row]
    assert not lookup(cut)  # without its prefix a cut-off message is not enough


def test_a_kernel_that_fails_to_launch_is_the_gpu_in_use() -> None:
    report = load_text(
        "RuntimeError: CUDA error: unspecified launch failure\nCUDA kernel errors might be asynchronously"
    )
    assert report.findings[0].id == "cuda_kernel_launch_failed"
    assert report.findings[0].severity is Severity.INFO
    assert not [f for f in report.findings if f.severity is Severity.ERROR]


def test_a_number_that_changed_meaning_is_read_only_with_its_message() -> None:
    """CUDA 10.1 renumbered cudaError: 4 was the launch failure, is now 'driver shutting down'."""
    assert not lookup("RuntimeError: cuda runtime error (4)")
    assert [r.key for r in lookup("cuda runtime error (4) : unspecified launch failure")] == ["cudaErrorLaunchFailure"]
    assert [r.key for r in lookup("RuntimeError: cuda runtime error (30) : unknown error at THCGeneral.cpp:70")] == [
        "cudaErrorUnknown"
    ]
    assert [r.key for r in lookup("cudaGetDeviceCount returned 38")] == ["cudaErrorNoDevice"]
