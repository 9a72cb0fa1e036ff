"""scripts/verify-wheels' parsing (gpuassist.knowledge.wheel_inspect) on small wheels built here.

No download: each test writes an ELF64 file with a ``.nv_fatbin`` section laid out like NVIDIA's (16-byte
container headers, 64/80/112-byte entry headers with kind, payload size and target architecture), a
``libtorch_python.so`` holding an arch-list string, and a wheel zip around them.
"""

from __future__ import annotations

import struct
import subprocess
import sys
import zipfile
from collections import Counter
from pathlib import Path

import pytest

from gpuassist.knowledge.wheel_inspect import (
    FATBIN_MAGIC,
    FatbinEntry,
    arch_list_from_binary,
    compare_macos_tag,
    compare_python_tags,
    compare_wheel,
    cuda_from_requires,
    elf_section,
    fatbin_entries,
    inspect_wheel,
    platform_of_wheel,
    python_tags,
    read_version_py,
    requires_dist,
)

ROOT = Path(__file__).resolve().parents[1]
X86_215 = ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120")


def fat_entry(kind: int, arch: int, payload: bytes, header: int = 64) -> bytes:
    padded = payload + b"\0" * (-len(payload) % 8)
    head = struct.pack("<HHIQ", kind, 0x0101, header, len(padded))
    head += struct.pack("<II", len(payload), 0) + struct.pack("<II", 0x00010008, arch)
    head += b"\0" * (header - len(head))
    return head + padded


def container(*entries: bytes) -> bytes:
    body = b"".join(entries)
    return struct.pack("<IHHQ", FATBIN_MAGIC, 1, 16, len(body)) + body


def elf(sections: dict[str, bytes]) -> bytes:
    """A minimal little-endian ELF64 image: the given sections, a name table and the section headers."""
    names = b"\0" + b"".join(n.encode() + b"\0" for n in [*sections, ".shstrtab"])
    data = bytearray(b"\0" * 64)
    placed = []
    for name, blob in sections.items():
        data += b"\0" * (-len(data) % 8)
        placed.append((name, len(data), len(blob)))
        data += blob
    str_off = len(data)
    data += names
    data += b"\0" * (-len(data) % 8)
    shoff = len(data)
    headers = [struct.pack("<IIQQQQIIQQ", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)]
    for name, off, size in [*placed, (".shstrtab", str_off, len(names))]:
        headers.append(struct.pack("<IIQQQQIIQQ", names.index(name.encode() + b"\0"), 1, 0, 0, off, size, 0, 0, 8, 0))
    data += b"".join(headers)
    ident = b"\x7fELF" + bytes([2, 1, 1]) + b"\0" * 9
    header = ident + struct.pack(
        "<HHIQQQIHHHHHH", 3, 62, 1, 0, 0, shoff, 0, 64, 0, 0, 64, len(headers), len(headers) - 1
    )
    data[: len(header)] = header
    return bytes(data)


def cuda_lib(sass: tuple[int, ...], ptx: tuple[int, ...] = (), containers: int = 2) -> bytes:
    blobs = []
    for i in range(containers):
        zstd = b"\x28\xb5\x2f\xfd"  # SASS payloads are zstd frames
        entries = [fat_entry(2, a, zstd + bytes([i, a % 256]) * 3, 112 if a >= 100 else 64) for a in sass]
        entries += [fat_entry(1, a, b".version 9.0\n.target sm_%d\n" % a, 80 if a >= 120 else 64) for a in ptx]
        blobs.append(container(*entries))
    fatbin = b"\0" * 8 + blobs[0] + b"\0" * 8 + b"".join(blobs[1:])  # alignment padding between containers
    return elf({".text": b"\x90" * 40, ".nv_fatbin": fatbin, ".data": b"sm_61 decoy"})


def python_lib(arch: tuple[str, ...]) -> bytes:
    return b"\0junk\0sm_\0" + " ".join(arch).encode() + b"\0compute_90 only a prefix\0CUDA sm_75 text\0tail"


METADATA_215 = (
    "Metadata-Version: 2.4\nName: torch\nVersion: 2.15.0\nRequires-Python: >=3.11\n"
    "Requires-Dist: filelock\n"
    'Requires-Dist: cuda-toolkit[cublas,cudart]==13.2.2; platform_system == "Linux"\n'
    'Requires-Dist: nvidia-cudnn-cu13==9.26.0.51; platform_system == "Linux"\n'
    'Requires-Dist: optree>=0.13.0; extra == "optree"\n'
    "\nRequires-Dist: in the description, not a header\n"
)


def make_wheel(
    tmp_path: Path,
    name: str,
    version: str,
    cuda: str | None,
    metadata: str = METADATA_215,
    arch: tuple[str, ...] = X86_215,
    sass: tuple[int, ...] = (75, 80, 86, 90, 100, 120),
    ptx: tuple[int, ...] = (),
) -> Path:
    path = tmp_path / name
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(
            "torch/version.py",
            f"from typing import Optional\n__version__ = '{version}'\ndebug = False\n"
            f"cuda: Optional[str] = {cuda!r}\nhip: Optional[str] = None\n",
        )
        z.writestr(f"torch-{version.split('+')[0]}.dist-info/METADATA", metadata)
        if cuda:
            z.writestr("torch/lib/libtorch_python.so", python_lib(arch))
            z.writestr("torch/lib/libtorch_cuda.so", cuda_lib(sass, ptx))
    return path


# ---------------------------------------------------------------- the binary formats


def test_elf_section_is_found_and_bounds_checked() -> None:
    image = cuda_lib((75,))
    offset, _size = elf_section(image, ".nv_fatbin") or (0, 0)
    assert image[offset + 8 : offset + 12] == struct.pack("<I", FATBIN_MAGIC)  # after the 8 padding bytes
    assert elf_section(image, ".nv_fatbin_not") is None
    with pytest.raises(ValueError):
        elf_section(b"MZ" + b"\0" * 100, ".nv_fatbin")
    with pytest.raises(ValueError):
        elf_section(image[:200], ".nv_fatbin")  # truncated: the section headers are gone


def test_fatbin_entries_kinds_and_architectures() -> None:
    image = cuda_lib((75, 90, 120), ptx=(120,), containers=3)
    offset, size = elf_section(image, ".nv_fatbin") or (0, 0)
    counts = Counter(fatbin_entries(image, offset, size))
    assert counts == {
        FatbinEntry("sass", 75): 3,
        FatbinEntry("sass", 90): 3,
        FatbinEntry("sass", 120): 3,
        FatbinEntry("ptx", 120): 3,
    }


def test_fatbin_walk_stops_at_a_broken_entry_and_at_the_section_end() -> None:
    good = container(fat_entry(2, 80, b"x" * 13))
    broken = struct.pack("<IHHQ", FATBIN_MAGIC, 1, 16, 200) + struct.pack("<HHIQ", 2, 0, 0, 0) + b"\0" * 48
    assert list(fatbin_entries(good + broken)) == [FatbinEntry("sass", 80)]
    # a container that claims more than the section holds yields only what fits
    assert list(fatbin_entries(good, 0, len(good) - 1)) == []
    assert list(fatbin_entries(b"")) == []


def test_arch_list_string_is_the_whole_nul_terminated_list() -> None:
    assert arch_list_from_binary(python_lib(X86_215)) == X86_215
    assert arch_list_from_binary(b"\0sm_80 sm_90 compute_90\0") == ("sm_80", "sm_90", "compute_90")
    assert arch_list_from_binary(b"no arch here") == ()


def test_version_py_and_metadata() -> None:
    text = "__version__ = '2.15.0+cu132'\ncuda: Optional[str] = '13.2'\nhip: Optional[str] = None\n"
    assert read_version_py(text) == {"version": "2.15.0+cu132", "cuda": "13.2"}
    assert read_version_py("__version__ = '2.15.0+cpu'\ncuda: Optional[str] = None\n")["cuda"] is None
    reqs = requires_dist(METADATA_215)
    assert len(reqs) == 4 and reqs[0] == "filelock"  # the description's line is not a header
    assert cuda_from_requires(reqs) == "13.2"
    assert cuda_from_requires(reqs, "Windows") is None  # the CUDA lines are Linux-only
    assert cuda_from_requires(["nvidia-cuda-runtime-cu12==12.4.127; platform_system == 'Linux'"]) == "12.4"
    assert cuda_from_requires(["filelock", "not a requirement ("]) is None
    # 2.10's aarch64 wheel is CPU-only: its CUDA lines are for x86_64 machines
    cu12 = ["nvidia-cuda-runtime-cu12==12.8.90; platform_system == 'Linux' and platform_machine == 'x86_64'"]
    assert cuda_from_requires(cu12, "Linux", "aarch64") is None
    assert cuda_from_requires(cu12, "Linux", "x86_64") == "12.8"


def test_wheel_names_give_platform_and_python_tags() -> None:
    names = [
        "torch-2.15.0-cp311-cp311-manylinux_2_28_x86_64.whl",
        "torch-2.15.0-cp315-cp315-win_amd64.whl",
        "torch-2.15.0-cp314-cp314t-manylinux_2_28_aarch64.whl",
        "torch-2.15.0-cp312-cp312-macosx_14_0_arm64.whl",
        "not-a-wheel.tar.gz",
    ]
    assert [platform_of_wheel(n) for n in names] == ["linux_x86_64", "windows", "linux_aarch64", "macos_arm64", None]
    assert python_tags(names) == {"3.11", "3.15", "3.12"}  # cp314t is free-threaded: not counted


# ---------------------------------------------------------------- whole wheels against the tables


def test_a_wheel_like_the_measured_215_has_no_difference(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path, "torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl", "2.15.0+cu132", "13.2")
    facts = inspect_wheel(wheel, tmp_path)
    assert (facts.version, facts.cuda, facts.toolkit, facts.arch_list) == ("2.15.0+cu132", "13.2", "13.2", X86_215)
    assert facts.sass == {75, 80, 86, 90, 100, 120} and facts.ptx == set()
    assert compare_wheel(facts) == []
    assert list(tmp_path.iterdir()) == [wheel]  # the extracted library is removed


def test_differences_are_reported(tmp_path: Path) -> None:
    # a 2.15 wheel that carried PTX, dropped sm_75 SASS and listed another arch string
    wheel = make_wheel(
        tmp_path,
        "torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl",
        "2.15.0+cu132",
        "13.2",
        arch=(*X86_215, "compute_120"),
        sass=(80, 86, 90, 100, 120),
        ptx=(120,),
    )
    out = compare_wheel(inspect_wheel(wheel, tmp_path))
    assert any("get_arch_list() is" in d and "compute_120" in d for d in out), out
    assert any("no SASS for sm_75" in d for d in out), out
    assert any("PTX in libtorch_cuda.so for [120]" in d for d in out), out


def test_a_changed_pypi_default_is_reported(tmp_path: Path) -> None:
    meta = METADATA_215.replace("13.2.2", "13.0.2")
    wheel = make_wheel(tmp_path, "torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl", "2.15.0+cu130", "13.0", meta)
    assert compare_wheel(inspect_wheel(wheel, tmp_path)) == [
        "2.15.0 linux_x86_64: PyPI serves cu130, the tables say cu132"
    ]


def test_aarch64_and_windows_defaults(tmp_path: Path) -> None:
    arm = make_wheel(
        tmp_path,
        "torch-2.13.0-cp312-cp312-manylinux_2_28_aarch64.whl",
        "2.13.0+cu130",
        "13.0",
        METADATA_215.replace("13.2.2", "13.0.2"),
        arch=("sm_80", "sm_90", "sm_100", "sm_110", "sm_120"),
        sass=(80, 90, 100, 110, 120),
    )
    assert compare_wheel(inspect_wheel(arm, tmp_path)) == []
    old_arm = make_wheel(tmp_path, "torch-2.10.0-cp312-cp312-manylinux_2_28_aarch64.whl", "2.10.0+cpu", None)
    assert compare_wheel(inspect_wheel(old_arm, tmp_path)) == []  # PyPI aarch64 is CPU-only up to 2.10
    win = make_wheel(tmp_path, "torch-2.15.0-cp312-cp312-win_amd64.whl", "2.15.0+cpu", None)
    facts = inspect_wheel(win, tmp_path)
    assert facts.toolkit is None and compare_wheel(facts) == []


def test_python_and_macos_tags_against_the_tables() -> None:
    assert compare_python_tags("2.15.0", {"3.11", "3.12", "3.13", "3.14", "3.15"}) == []
    assert compare_python_tags("2.14.1", {"3.10", "3.11", "3.12", "3.13", "3.14"}) == []
    assert compare_python_tags("2.14.1", {"3.10", "3.15"}) == [
        "2.14.1: PyPI ships Python 3.10-3.15, the tables say 3.10-3.14"
    ]
    assert "not in the tables" in compare_python_tags("2.16.0", {"3.12"})[0]
    assert compare_macos_tag("2.12.1", ["torch-2.12.1-cp312-cp312-macosx_14_0_arm64.whl"]) == []
    assert compare_macos_tag("2.11.0", ["torch-2.11.0-cp312-cp312-macosx_11_0_arm64.whl"]) == []
    mixed = ["torch-2.10.0-cp312-none-macosx_11_0_arm64.whl", "torch-2.10.0-cp314-cp314-macosx_14_0_arm64.whl"]
    assert compare_macos_tag("2.10.0", mixed) == []  # Python 3.12 still installs on macOS 11
    assert compare_macos_tag("2.13.0", ["torch-2.13.0-cp312-cp312-macosx_11_0_arm64.whl"]) == [
        "2.13.0 macOS arm64: wheels are tagged macOS 11.0, the tables say 14.0"
    ]


@pytest.mark.slow
def test_script_help_runs_without_network() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "verify-wheels"), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "--platform" in proc.stdout and "PyPI" in proc.stdout
