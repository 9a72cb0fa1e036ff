"""Read what a torch wheel really contains, and compare it with the tables (``scripts/verify-wheels``).

The tables in ``cuda_compat.json`` say which CUDA variant PyPI serves, which GPU architectures each build
carries (SASS, and PTX the driver could JIT) and which Pythons get a wheel. This module reads those facts
from a downloaded wheel without importing it: ``torch/version.py``, the ``Requires-Dist`` lines of its
METADATA, the arch list string compiled into ``libtorch_python.so`` (what ``torch.cuda.get_arch_list()``
returns) and the entries of the ``.nv_fatbin`` section of ``libtorch_cuda.so``.

The fatbin layout (one or more containers, each a 16-byte header followed by entries whose headers say
their kind, size and target architecture) is NVIDIA's, undocumented; the offsets used here follow the
public descriptions of ``fatbinary_section.h`` and were checked against the torch 2.15.0 wheel. Pure
parsing, no downloads: the tests build small fixture files with the same layout.
"""

from __future__ import annotations

import mmap
import re
import shutil
import struct
import tempfile
import zipfile
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import InvalidWheelFilename, parse_wheel_filename
from packaging.version import Version

from gpuassist.knowledge import compat
from gpuassist.knowledge.wheels import (
    Platform,
    parse_torch_version,
    pypi_default_variant,
    wheel_builds,
)

__all__ = [
    "FATBIN_MAGIC",
    "FatbinEntry",
    "WheelFacts",
    "arch_list_from_binary",
    "compare_macos_tag",
    "compare_python_tags",
    "compare_wheel",
    "cuda_from_requires",
    "elf_section",
    "fatbin_entries",
    "inspect_wheel",
    "platform_of_wheel",
    "python_tags",
    "read_version_py",
    "requires_dist",
]

FATBIN_MAGIC = 0xBA55ED50
_CONTAINER = struct.Struct("<IHHQ")  # magic, version, header size, size of the entries that follow
_ENTRY = struct.Struct("<HHIQ")  # kind, version, header size, payload size (padded)
_ENTRY_ARCH_OFFSET = 28  # u32 target architecture (75 = sm_75) inside an entry header
_ENTRY_MIN = 64
_KINDS = {1: "ptx", 2: "sass", 16: "sass"}
_ARCH_STRING = re.compile(rb"(?:(?:sm|compute)_\d+[a-z]? )*(?:sm|compute)_\d+[a-z]?")


@dataclass(frozen=True)
class FatbinEntry:
    """One code object in a fatbin: ``kind`` "ptx", "sass" or "other", ``arch`` 120 for sm_120."""

    kind: str
    arch: int


def elf_section(data: bytes | mmap.mmap, name: str) -> tuple[int, int] | None:
    """(file offset, size) of section ``name`` in a little-endian ELF64 image, None when absent.

    Raises ValueError for anything that is not such an image (a truncated download, a Mach-O)."""
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a little-endian ELF64 file")
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    entsize, count, strndx = struct.unpack_from("<HHH", data, 0x3A)
    if entsize < 64 or shoff + entsize * count > len(data) or strndx >= count:
        raise ValueError("ELF section header table out of bounds")

    def header(i: int) -> tuple[int, int, int]:
        base = shoff + i * entsize
        name_off = struct.unpack_from("<I", data, base)[0]
        offset, size = struct.unpack_from("<QQ", data, base + 24)
        return name_off, offset, size

    _, str_off, str_size = header(strndx)
    if str_off + str_size > len(data):
        raise ValueError("ELF section name table out of bounds")
    names = bytes(data[str_off : str_off + str_size])
    wanted = name.encode()
    for i in range(count):
        name_off, offset, size = header(i)
        end = names.find(b"\0", name_off)
        if names[name_off : end if end >= 0 else None] == wanted:
            if offset + size > len(data):
                raise ValueError(f"ELF section {name} out of bounds")
            return offset, size
    return None


def fatbin_entries(data: bytes | mmap.mmap, offset: int = 0, size: int | None = None) -> Iterator[FatbinEntry]:
    """Every code object in the fatbin containers found in ``data[offset:offset+size]``.

    Containers follow each other, 8-byte aligned; anything between them that does not start with the
    magic is skipped 8 bytes at a time. An entry that would run past its container ends it."""
    end = len(data) if size is None else min(len(data), offset + size)
    pos = offset
    while pos + _CONTAINER.size <= end:
        magic, _version, header_size, body = _CONTAINER.unpack_from(data, pos)
        if magic != FATBIN_MAGIC:
            pos += 8
            continue
        container_end = min(end, pos + header_size + body)
        entry = pos + header_size
        while entry + _ENTRY_MIN <= container_end:
            kind, _v, entry_header, payload = _ENTRY.unpack_from(data, entry)
            if entry_header < _ENTRY_MIN or entry + entry_header + payload > container_end:
                break  # a zeroed or truncated entry: nothing after it can be trusted
            arch = struct.unpack_from("<I", data, entry + _ENTRY_ARCH_OFFSET)[0]
            yield FatbinEntry(_KINDS.get(kind, "other"), arch)
            entry += entry_header + payload
        pos = max(container_end, pos + 8)


def arch_list_from_binary(data: bytes | mmap.mmap) -> tuple[str, ...]:
    """The arch list compiled into ``libtorch_python.so`` ("sm_75 sm_80 ... sm_120"): the longest
    NUL-terminated string made only of ``sm_XY`` / ``compute_XY`` words (what ``strings | grep`` finds)."""
    best: tuple[str, ...] = ()
    for m in _ARCH_STRING.finditer(data):
        start, stop = m.span()
        if (start and data[start - 1] != 0) or (stop < len(data) and data[stop] != 0):
            continue
        words = tuple(m.group(0).decode().split())
        if len(words) > len(best):
            best = words
    return best


def read_version_py(text: str) -> dict[str, str | None]:
    """``__version__`` and ``cuda`` from ``torch/version.py`` (``cuda: Optional[str] = '13.2'``)."""

    def value(name: str) -> str | None:
        m = re.search(rf"^{name}\s*(?::[^=\n]*)?=\s*(?:'([^']*)'|\"([^\"]*)\"|None)", text, re.MULTILINE)
        return (m.group(1) or m.group(2)) if m and (m.group(1) or m.group(2)) else None

    return {"version": value("__version__"), "cuda": value("cuda")}


def requires_dist(metadata: str) -> list[str]:
    """The ``Requires-Dist`` values of a METADATA file, in order."""
    out = []
    for line in metadata.splitlines():
        if not line.strip():
            break  # the body (long description) starts after the first empty line
        if line.lower().startswith("requires-dist:"):
            out.append(line.split(":", 1)[1].strip())
    return out


def cuda_from_requires(
    requires: Iterable[str], platform_system: str = "Linux", platform_machine: str = "x86_64"
) -> str | None:
    """The CUDA toolkit a wheel depends on, as "13.2": ``cuda-toolkit[...]==13.2.2`` (CUDA 13 wheels) or
    ``nvidia-cuda-runtime-cu12==12.4.127`` (CUDA 12 wheels); None for a CPU wheel. Requirements whose
    marker excludes this platform (the wheels of a release share their METADATA, with
    ``; platform_system == "Linux"`` or ``platform_machine == "x86_64"`` on the CUDA lines) do not count."""
    for text in requires:
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        env = {"platform_system": platform_system, "platform_machine": platform_machine, "extra": ""}
        if req.marker and not req.marker.evaluate(env):
            continue
        if req.name.lower() in (
            "cuda-toolkit",
            "nvidia-cuda-runtime-cu12",
            "nvidia-cuda-runtime-cu11",
            "nvidia-cuda-runtime",
        ):
            for spec in req.specifier:
                if spec.operator in ("==", "==="):
                    v = Version(spec.version.rstrip(".*"))
                    return f"{v.major}.{v.minor}"
    return None


def platform_of_wheel(filename: str) -> Platform | str | None:
    """ "linux_x86_64", "linux_aarch64", "windows", "macos_arm64" or "macos_x86_64" from a wheel name."""
    try:
        _name, _version, _build, tags = parse_wheel_filename(filename)
    except InvalidWheelFilename:
        return None
    plats = {t.platform for t in tags}
    if any(p.endswith("_x86_64") and p.startswith(("manylinux", "linux")) for p in plats):
        return "linux_x86_64"
    if any(p.endswith("_aarch64") for p in plats):
        return "linux_aarch64"
    if any(p.startswith("win_amd64") for p in plats):
        return "windows"
    if any(p.startswith("macosx") and p.endswith("arm64") for p in plats):
        return "macos_arm64"
    if any(p.startswith("macosx") and p.endswith("x86_64") for p in plats):
        return "macos_x86_64"
    return None


def python_tags(filenames: Iterable[str]) -> set[str]:
    """CPython versions ("3.12") with a regular (GIL) wheel among ``filenames``; free-threaded cp313t and
    abi3 wheels do not count."""
    out = set()
    for name in filenames:
        try:
            _n, _v, _b, tags = parse_wheel_filename(name)
        except InvalidWheelFilename:
            continue
        for tag in tags:
            m = re.fullmatch(r"cp3(\d+)", tag.interpreter)
            if m and tag.abi == tag.interpreter:
                out.add(f"3.{m.group(1)}")
    return out


@dataclass
class WheelFacts:
    """What one wheel contains."""

    filename: str
    platform: str | None
    version: str | None
    cuda: str | None
    requires: list[str] = field(default_factory=list)
    toolkit: str | None = None
    arch_list: tuple[str, ...] = ()
    fatbin: Counter[FatbinEntry] = field(default_factory=Counter)

    @property
    def sass(self) -> set[int]:
        return {e.arch for e in self.fatbin if e.kind == "sass"}

    @property
    def ptx(self) -> set[int]:
        return {e.arch for e in self.fatbin if e.kind == "ptx"}


def _member(z: zipfile.ZipFile, suffix: str) -> str | None:
    return next((n for n in z.namelist() if n.endswith(suffix)), None)


def inspect_wheel(path: Path, workdir: Path | None = None) -> WheelFacts:
    """Read a torch wheel: version.py, METADATA, the arch list in libtorch_python.so and the fatbin of
    libtorch_cuda.so (extracted to ``workdir``, a temporary directory by default, then removed)."""
    with zipfile.ZipFile(path) as z:
        version_py = _member(z, "torch/version.py")
        versions = read_version_py(z.read(version_py).decode()) if version_py else {"version": None, "cuda": None}
        meta = _member(z, ".dist-info/METADATA")
        requires = requires_dist(z.read(meta).decode("utf-8", "replace")) if meta else []
        platform = platform_of_wheel(path.name)
        system = "Windows" if platform == "windows" else "Darwin" if str(platform).startswith("macos") else "Linux"
        machine = "aarch64" if platform == "linux_aarch64" else "arm64" if platform == "macos_arm64" else "x86_64"
        toolkit = cuda_from_requires(requires, system, machine)
        facts = WheelFacts(path.name, platform, versions["version"], versions["cuda"], requires, toolkit)
        python_lib = _member(z, "torch/lib/libtorch_python.so")
        cuda_lib = _member(z, "torch/lib/libtorch_cuda.so")
        with tempfile.TemporaryDirectory(dir=workdir) as tmp:
            if python_lib:
                facts.arch_list = arch_list_from_binary(z.read(python_lib))  # ~35 MB: read in memory
            if cuda_lib:
                target = Path(tmp) / "libtorch_cuda.so"
                with z.open(cuda_lib) as src, target.open("wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 22)
                with target.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as image:
                    section = elf_section(image, ".nv_fatbin")
                    if section:
                        facts.fatbin = Counter(fatbin_entries(image, *section))
    return facts


# --------------------------------------------------------------------------- comparison with the tables


def _sm(spec_list: Iterable[str]) -> tuple[set[int], set[int]]:
    sass: set[int] = set()
    ptx: set[int] = set()
    for arch in spec_list:
        kind, digits = arch.split("_", 1)
        number = int(re.sub(r"[a-z]$", "", digits))
        (ptx if kind == "compute" else sass).add(number)
    return sass, ptx


def _table_arch(series: str, variant: str, platform: Platform) -> tuple[str, ...] | None:
    rel = Version(series)
    for build in wheel_builds():
        if build.variant == variant and build.first <= rel <= build.last:
            return build.arch_list(platform)
    return None


def compare_wheel(facts: WheelFacts) -> list[str]:
    """Every difference between one wheel and the tables, as sentences ("2.15 linux_x86_64: ...")."""
    if not facts.version:
        return [f"{facts.filename}: no torch/version.py"]
    build = parse_torch_version(facts.version)
    series = ".".join(build.release.split(".")[:2])
    where = f"{build.release} {facts.platform}"
    out: list[str] = []
    variant = build.variant or ("cpu" if not facts.cuda else None)
    if facts.platform in ("linux_x86_64", "linux_aarch64", "windows"):
        platform: Platform = facts.platform  # type: ignore[assignment]
        expected = pypi_default_variant(build.release, platform)
        if expected is None:
            out.append(f"{where}: PyPI serves {variant}; the tables have no PyPI default for this release")
        elif expected != variant:
            out.append(f"{where}: PyPI serves {variant}, the tables say {expected}")
        if facts.cuda and variant and variant.startswith("cu"):
            if facts.toolkit and f"cu{facts.toolkit.replace('.', '')}" != variant:
                out.append(f"{where}: {variant} wheel depends on CUDA toolkit {facts.toolkit}")
            table = _table_arch(series, variant, platform)
            if table is None:
                out.append(
                    f"{where}: the tables have no {variant} arch list; the wheel has "
                    f"{' '.join(facts.arch_list) or '(none)'}"
                )
            else:
                t_sass, t_ptx = _sm(table)
                if facts.arch_list and set(facts.arch_list) != set(table):
                    out.append(
                        f"{where}: get_arch_list() is {' '.join(facts.arch_list)}, the tables say {' '.join(table)}"
                    )
                missing = t_sass - facts.sass if facts.fatbin else set()
                if missing:
                    out.append(f"{where}: no SASS for sm_{', sm_'.join(map(str, sorted(missing)))} in libtorch_cuda.so")
                if facts.fatbin and facts.ptx != t_ptx:
                    out.append(
                        f"{where}: PTX in libtorch_cuda.so for {sorted(facts.ptx) or 'none'}, the tables say "
                        f"{sorted(t_ptx) or 'none'}"
                    )
    return out


def compare_python_tags(release: str, tags: set[str]) -> list[str]:
    """The CPython versions PyPI ships for ``release`` against the tables' Python range."""
    series = ".".join(release.split(".")[:2])
    info = compat()["releases"]["by_release"].get(series)
    if info is None:
        return [f"{release}: not in the tables (PyPI has cp{', cp'.join(sorted(tags))})"]
    lo, hi = (tuple(int(x) for x in p.split(".")) for p in info["python"])
    have = sorted(tuple(int(x) for x in t.split(".")) for t in tags)
    if not have:
        return [f"{release}: no CPython wheel on PyPI"]
    if (have[0], have[-1]) != (lo, hi):
        return [
            f"{release}: PyPI ships Python {have[0][0]}.{have[0][1]}-{have[-1][0]}.{have[-1][1]}, the tables "
            f"say {info['python'][0]}-{info['python'][1]}"
        ]
    return []


def compare_macos_tag(release: str, filenames: Iterable[str]) -> list[str]:
    """The oldest macOS the arm64 wheels install on (the lowest platform tag among them; 2.10.0's cp314
    wheels alone need 14.0) against the tables."""
    mins = set()
    for name in filenames:
        m = re.search(r"macosx_(\d+)_(\d+)_arm64", name)
        if m:
            mins.add(f"{m.group(1)}.{m.group(2)}")
    if not mins:
        return []
    table = compat()["pypi_default"]["macos_arm64_min"]
    series = ".".join(release.split(".")[:2])
    known = sorted(table, key=Version)
    expected = None
    for s in known:  # the entry of the newest listed series <= this one
        if Version(s) <= Version(series):
            expected = table[s]
    lowest = min(mins, key=Version)  # the oldest macOS any Python of the release installs on
    if expected != lowest:
        return [f"{release} macOS arm64: wheels are tagged macOS {', '.join(sorted(mins))}, the tables say {expected}"]
    return []
