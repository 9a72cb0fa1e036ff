"""Pure logic over the CUDA/driver/wheel tables in ``cuda_compat.json``.

Answers "which driver does this wheel need", "does this build contain code for this GPU" and "which
``pip install`` command fits this driver and these GPUs". Every rule cites its source; the numbers live in
the JSON (sources and an ``as_of`` date there), never in this code. No torch import.

Conventions: a driver's CUDA version is an int ``major*1000 + minor*10`` (torch's "found version 11040",
NVML ``nvmlSystemGetCudaDriverVersion``); a wheel variant is the local tag of the wheel (``cu124``,
``cpu``, ``rocm6.2``); a compute capability is ``"8.9"``; arch lists use ``torch.cuda.get_arch_list()``
form (``sm_86``, ``compute_90``).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cache
from typing import Any, Literal

from packaging.version import InvalidVersion, Version

from gpuassist.knowledge import compat

__all__ = [
    "INDEX_URL",
    "Compat",
    "DriverRow",
    "TorchBuild",
    "WheelBuild",
    "WheelChoice",
    "arch_covers",
    "arch_list_from_spec",
    "capability_from_name",
    "companion_requirements",
    "cuda_int_to_str",
    "cuda_str_to_int",
    "driver_branch",
    "driver_max_cuda",
    "driver_rows",
    "driver_supports_variant",
    "family_min_driver",
    "macos_arm64_newest_release",
    "min_driver_for_variant",
    "nearest_releases",
    "needs_ptx_jit",
    "newest_cuda",
    "newest_driver_branch",
    "newest_known_capability",
    "newest_release",
    "newest_variant_cuda",
    "parse_torch_version",
    "pypi_default_variant",
    "recommend_cpu_wheel",
    "recommend_rocm_wheel",
    "recommend_wheel",
    "release_variants",
    "releases",
    "tables_as_of",
    "variant_cuda",
    "wheel_arch_list",
    "wheel_builds",
    "wheel_platform",
]

INDEX_URL = "https://download.pytorch.org/whl/{variant}"

Kind = Literal["cuda", "cpu", "rocm", "xpu", "jetson", "source", "unknown"]
Via = Literal["native", "minor_version_compat"]
#: Why no wheel fits: the Python version, a GPU newer than every build, the driver, the platform, Jetson.
Blocker = Literal["python", "gpu", "driver", "platform", "jetson"]
Platform = Literal["linux_x86_64", "windows", "linux_aarch64"]


# --------------------------------------------------------------------------- torch versions


@dataclass(frozen=True)
class TorchBuild:
    """What a ``torch.__version__`` string says about the build.

    ``kind`` "unknown" for an untagged version ("2.5.1"): on Linux x86_64 PyPI that is a CUDA build (the
    PyPI default variant), on Windows/macOS a CPU build; callers decide with ``torch.version.cuda``.
    """

    raw: str
    release: str
    local: str | None
    variant: str | None
    kind: Kind
    dev: bool

    @property
    def cuda(self) -> int | None:
        """The CUDA version of a ``cuXYZ`` variant as an int (12040), else None."""
        return variant_cuda(self.variant) if self.variant else None


_VARIANT_RE = re.compile(r"^(cu\d{2,3}|cpu|rocm\d+(?:\.\d+)*|xpu)$")


def parse_torch_version(version: str) -> TorchBuild:
    """Parse ``torch.__version__``: "2.5.1+cu124", "2.6.0.dev20241112+cu126", "2.13.0+cpu",
    "2.4.1+rocm6.1", "1.12.0a0+2c916ef.nv22.3" (NVIDIA Jetson build, pytorch/audio#2731),
    "2.1.0a0+git5f3e2c1" (source build, root_causes.md ``source_build_without_cuda``), "2.5.1"."""
    raw = version.strip()
    try:
        v = Version(raw)
    except InvalidVersion:
        m = re.match(r"^(\d+(?:\.\d+){0,2})", raw)
        local_part = raw.split("+", 1)[1] if "+" in raw else None
        return TorchBuild(raw, m.group(1) if m else raw, local_part, None, "unknown", False)
    local = v.local
    release = v.base_version
    dev = v.is_prerelease or v.is_devrelease
    kind: Kind = "unknown"
    variant: str | None = None
    if local:
        parts = local.split(".")
        # "cpu.cxx11.abi" and similar suffixes: the first segment carries the variant. "rocm6.2.4" is one.
        head = local if local.startswith("rocm") else parts[0]
        if _VARIANT_RE.match(head):
            variant = head
            kind = "cpu" if head == "cpu" else "xpu" if head == "xpu" else "cuda"
            if head.startswith("rocm"):
                kind = "rocm"
        elif any(re.fullmatch(r"nv\d+", p) for p in parts):
            kind = "jetson"
        elif parts[0].startswith("git") or re.fullmatch(r"[0-9a-f]{7,40}", parts[0]):
            kind = "source"
    return TorchBuild(raw=raw, release=release, local=local, variant=variant, kind=kind, dev=dev)


def cuda_int_to_str(value: int) -> str:
    """12040 -> "12.4", 11080 -> "11.8", 9010 -> "9.1" (torch/NVML encoding major*1000 + minor*10)."""
    return f"{value // 1000}.{(value % 1000) // 10}"


def cuda_str_to_int(value: str) -> int:
    """ "12.4" / "12.4.1" / "cu124" -> 12040. Raises ValueError for anything else."""
    text = value.strip().lower()
    if text.startswith("cu"):
        cuda = variant_cuda(text)
        if cuda is None:
            raise ValueError(f"not a CUDA version: {value!r}")
        return cuda
    m = re.fullmatch(r"(\d+)\.(\d+)(?:\.\d+)*", text)
    if not m:
        raise ValueError(f"not a CUDA version: {value!r}")
    return int(m.group(1)) * 1000 + int(m.group(2)) * 10


def variant_cuda(variant: str) -> int | None:
    """ "cu124" -> 12040, "cu118" -> 11080, "cu92" -> 9020 (last digit is the minor, as PyTorch names
    its indexes); None for non-CUDA variants ("cpu", "rocm6.2")."""
    m = re.fullmatch(r"cu(\d)(\d)|cu(\d\d)(\d)", variant.strip().lower())
    if not m:
        return None
    major, minor = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    return int(major) * 1000 + int(minor) * 10


def _variant_name(variant: str) -> str:
    """Accept "cu124", "12.4" or "cu12.4" (what callers build from ``torch.version.cuda``)."""
    text = variant.strip().lower()
    m = re.fullmatch(r"(?:cu)?(\d+)\.(\d+)(?:\.\d+)*", text)
    return f"cu{m.group(1)}{m.group(2)}" if m else text


# --------------------------------------------------------------------------- drivers


@dataclass(frozen=True)
class DriverRow:
    """One row of NVIDIA's Table 3: the minimum driver for a CUDA toolkit release (None = N/A)."""

    toolkit: str
    cuda: int
    linux: str | None
    windows: str | None
    ga: bool


@cache
def driver_rows() -> tuple[DriverRow, ...]:
    """Table 3 rows, newest first (source in cuda_compat.json ``driver_table.source``)."""
    rows = compat()["driver_table"]["rows"]
    return tuple(
        DriverRow(r["toolkit"], cuda_str_to_int(r["cuda"]), r.get("linux"), r.get("windows"), bool(r["ga"]))
        for r in rows
    )


def _driver_key(version: str) -> tuple[int, int, int]:
    """Comparable driver version. Accepts "550.54.14", "570.26", "580" and the Windows WMI form
    "32.0.15.6094" (= 560.94: the last five digits of the last two fields)."""
    parts = [int(p) for p in re.findall(r"\d+", version)]
    if not parts:
        raise ValueError(f"not a driver version: {version!r}")
    if len(parts) == 4 and parts[0] < 100:
        digits = f"{parts[2]}{parts[3]:04d}"[-5:]
        parts = [int(digits[:3]), int(digits[3:])]
    padded = [*parts, 0, 0, 0][:3]
    return padded[0], padded[1], padded[2]


def _os_kind(os: str) -> Literal["linux", "windows", "darwin", "wsl", "other"]:
    text = os.strip().lower()
    if "wsl" in text:
        return "wsl"
    if text.startswith("win") or text in {"nt", "cygwin", "msys"}:
        return "windows"
    if text in {"darwin", "macos", "mac", "osx"} or text.startswith("mac"):
        return "darwin"
    if text.startswith("linux"):
        return "linux"
    return "other"


def _driver_column(os: str) -> Literal["linux", "windows"] | None:
    """Which Table 3 column applies. In WSL2 the driver is the Windows one (its version is what NVML
    reports inside WSL), so the Windows column applies there."""
    kind = _os_kind(os)
    if kind in ("windows", "wsl"):
        return "windows"
    if kind == "linux":
        return "linux"
    return None


def _row_minimum(row: DriverRow, column: Literal["linux", "windows"]) -> str | None:
    value = row.linux if column == "linux" else row.windows
    if value is None and column == "windows":
        # Table 3 has no Windows column from CUDA 13.0; the driver must still be >= R580 (root_causes.md
        # section 2, MVC table "CUDA 13.x >= 580"). Only the family's first minor gets that floor.
        family = compat()["windows_family_minimum"].get(str(row.cuda // 1000))
        first_minor = min(r.cuda for r in driver_rows() if r.cuda // 1000 == row.cuda // 1000)
        if family and row.cuda == first_minor:
            return str(family)
    return value


def driver_max_cuda(driver_version: str, os: str) -> int | None:
    """Highest CUDA toolkit whose Table 3 minimum is <= ``driver_version`` (e.g. "550.54.14" -> 12040).

    A lower bound of what the driver reports: toolkits without a Table 3 row (12.7) are missing, so
    prefer NVML's ``nvmlSystemGetCudaDriverVersion`` when it is available. None when the OS has no
    NVIDIA table (macOS) or the version is older than every row.
    """
    column = _driver_column(os)
    if column is None:
        return None
    try:
        have = _driver_key(driver_version)
    except ValueError:
        return None
    best: int | None = None
    for row in driver_rows():
        minimum = _row_minimum(row, column)
        if minimum is not None and _driver_key(minimum) <= have and (best is None or row.cuda > best):
            best = row.cuda
    return best


def min_driver_for_variant(variant: str, os: str) -> str | None:
    """Minimum driver for a CUDA wheel variant to run natively: the GA row of its major.minor in Table 3.

    The GA row is used because a driver reports its CUDA as major.minor only, so any 12.6.x runtime runs
    on a driver that reports 12.6. Accepts "cu126" or "12.6". None for non-CUDA variants, unknown CUDA
    versions, and Windows + CUDA 13.1+ (Table 3 says N/A; R580 is only the 13.x family floor).
    """
    cuda = variant_cuda(_variant_name(variant))
    column = _driver_column(os)
    if cuda is None or column is None:
        return None
    rows = [r for r in driver_rows() if r.cuda == cuda]
    ga = [r for r in rows if r.ga] or rows
    if not ga:
        return None
    minima = [m for m in (_row_minimum(r, column) for r in ga) if m is not None]
    return min(minima, key=_driver_key) if minima else None


def family_min_driver(variant: str, os: str) -> str | None:
    """The oldest driver that runs a CUDA wheel variant at all: its CUDA major's minor-version-compatibility
    floor (NVIDIA's MVC Table 1: 13.x >= R580, 12.x >= 525.60.13 / 527.41 on Windows, 11.x >= 450.80.02 /
    452.39), or for pre-11 wheels (no MVC) the toolkit's Table 3 row. Windows + 13.x: 580.88 (the PyTorch
    2.12 notice). The toolkit's own Table 3 driver (:func:`min_driver_for_variant`) is only needed for
    the newest features, such as JIT-compiling the toolkit's PTX."""
    cuda = variant_cuda(_variant_name(variant))
    column = _driver_column(os)
    if cuda is None or column is None:
        return None
    if cuda // 1000 < 11:
        return min_driver_for_variant(variant, os)
    for family in compat()["minor_version_compatibility"]["families"]:
        if family["major"] != cuda // 1000:
            continue
        if column == "windows":
            windows = compat()["windows_family_minimum"].get(str(family["major"]))
            return str(family.get("min_driver_windows") or windows or family["min_driver"])
        return str(family.get("min_driver_linux") or family["min_driver"])
    return min_driver_for_variant(variant, os)


@dataclass(frozen=True)
class Compat:
    """Whether a driver (by its max CUDA) runs a wheel variant, and how.

    ``via`` is "native" when the driver supports the wheel's CUDA, "minor_version_compat" when NVIDIA's
    minor-version compatibility (same major, driver at or above the family floor) lets it run, None when
    it cannot run or the variant needs no NVIDIA driver.
    """

    ok: bool
    via: Via | None
    reason: str


def driver_supports_variant(
    driver_cuda: int, variant: str, *, driver_version: str | None = None, os: str = "Linux"
) -> Compat:
    """Apply NVIDIA's compatibility rules (root_causes.md section 2, MVC Table 1): native if the driver's
    CUDA >= the wheel's; from CUDA 11 on, a wheel of the same major also runs on an older driver of that
    family through minor-version compatibility (it cannot cross majors: pytorch#112553, pytorch#162531;
    there is no MVC before 11). When ``driver_version`` is known it must also reach the family floor
    (e.g. 450.80.02 for 11.x: an 11.0 GA driver 450.51 does not). What MVC does not cover is JIT-compiling
    PTX newer than the driver: :func:`needs_ptx_jit` tells when that is in play."""
    name = _variant_name(variant)
    need = variant_cuda(name)
    if need is None:
        if name == "cpu" or name.startswith("rocm") or name == "xpu":
            return Compat(True, None, f"{name} is not a CUDA build; the NVIDIA driver does not matter")
        raise ValueError(f"not a wheel variant: {variant!r}")
    have_s, need_s = cuda_int_to_str(driver_cuda), cuda_int_to_str(need)
    if driver_cuda >= need:
        return Compat(True, "native", f"the driver supports CUDA {have_s} >= {need_s}")
    if need // 1000 < 11:
        return Compat(
            False,
            None,
            f"CUDA {need_s} wheels predate minor version compatibility: the driver must support {need_s} itself",
        )
    if driver_cuda // 1000 != need // 1000:
        return Compat(
            False,
            None,
            f"the driver supports CUDA {have_s}; minor version compatibility cannot cross from CUDA "
            f"{driver_cuda // 1000}.x to {need // 1000}.x",
        )
    floor = family_min_driver(name, os)
    if driver_version and floor:
        try:
            below = _driver_key(driver_version) < _driver_key(floor)
        except ValueError:
            below = False
        if below:
            return Compat(
                False,
                None,
                f"driver {driver_version} is older than {floor}, the oldest driver that runs CUDA "
                f"{need // 1000}.x wheels through minor version compatibility",
            )
    return Compat(
        True,
        "minor_version_compat",
        f"the driver supports CUDA {have_s} < {need_s}; a CUDA {need // 1000}.x wheel runs on any driver of "
        f"the {need // 1000}.x family through NVIDIA minor version compatibility (only JIT-compiling newer "
        "PTX needs the newer driver)",
    )


def needs_ptx_jit(capabilities: Iterable[str], arch_list: Iterable[str]) -> list[str]:
    """The capabilities a build reaches only through its PTX (no SASS of their major at or below them):
    those kernels are JIT-compiled by the driver, which minor-version compatibility does not cover."""
    arch = list(arch_list)
    return [c for c in capabilities if not arch_covers(c, arch, ptx=False) and arch_covers(c, arch, ptx=True)]


# --------------------------------------------------------------------------- architectures

_ARCH_RE = re.compile(r"(sm|compute)_(\d+)([a-z]?)")


def _cc(capability: str) -> tuple[int, int]:
    text = capability.strip().lower()
    m = re.fullmatch(r"(\d+)\.(\d+)", text) or re.fullmatch(r"(?:sm_)?(\d+)(\d)", text)
    if not m:
        raise ValueError(f"not a compute capability: {capability!r}")
    return int(m.group(1)), int(m.group(2))


def arch_list_from_spec(spec: str) -> tuple[str, ...]:
    """TORCH_CUDA_ARCH_LIST ("7.5;8.0;12.0+PTX") -> get_arch_list() form ("sm_75", "sm_80", "sm_120",
    "compute_120")."""
    out: list[str] = []
    for item in re.split(r"[;\s]+", spec.strip()):
        if not item:
            continue
        ptx = item.upper().endswith("+PTX")
        major, minor = _cc(item[:-4] if ptx else item)
        out.append(f"sm_{major}{minor}")
        if ptx:
            out.append(f"compute_{major}{minor}")
    return tuple(out)


def arch_covers(capability: str, arch_list: Iterable[str], *, ptx: bool = True) -> bool:
    """Is a GPU of ``capability`` usable with a build of ``arch_list``?

    root_causes.md section 3: usable iff some ``sm_XY`` has X == major and Y <= minor (SASS runs on
    same-major, higher-minor GPUs), or (when ``ptx``) a ``compute_XY`` PTX entry <= CC (JIT-compiled by
    the driver). Arch-specific entries (``sm_90a``) only match their exact capability.
    """
    major, minor = _cc(capability)
    for arch in arch_list:
        m = _ARCH_RE.fullmatch(arch.strip().lower())
        if not m:
            continue
        kind, digits, suffix = m.groups()
        a_major, a_minor = int(digits[:-1] or 0), int(digits[-1])
        if suffix:
            if (a_major, a_minor) == (major, minor):
                return True
        elif kind == "sm":
            if a_major == major and a_minor <= minor:
                return True
        elif ptx and (a_major, a_minor) <= (major, minor):
            return True
    return False


@cache
def _gpu_table() -> tuple[tuple[re.Pattern[str], str], ...]:
    rows = compat()["gpu_table"]["gpus"]
    return tuple((re.compile(r["pattern"], re.IGNORECASE), str(r["capability"])) for r in rows)


def capability_from_name(name: str) -> str | None:
    """Compute capability of a GPU by its name ("NVIDIA GeForce RTX 4090" -> "8.9"), for when NVML and
    torch cannot report it. One table, NVIDIA's "CUDA GPUs - Compute Capability" list (cuda_compat.json
    ``gpu_table``); look-alike names (Quadro RTX 5000 7.5, RTX 5000 Ada 8.9, GeForce RTX 5090 12.0) are
    told apart there. None when the name is not in the table: no guess beats a wrong one."""
    for candidate in gpu_name_forms(name):
        for regex, cc in _gpu_table():
            if regex.search(candidate):
                return cc
    return None


def first_cuda_for(capability: str) -> str | None:
    """The oldest CUDA toolkit that can build any code for a GPU of ``capability`` ("8.6" -> "11.0"): cubins run
    only within their own major, so a torch built with an older CUDA has no kernel this GPU can run, whatever
    arch list it carries (cuda_compat.json ``first_cuda_for_major``). None for a major the table lacks."""
    major, _minor = _cc(capability)
    needed = compat()["first_cuda_for_major"]["majors"].get(str(major))
    return str(needed) if needed else None


def cuda_predates(cuda_build: str, capability: str) -> str | None:
    """The CUDA version ``capability`` needs when a build made with CUDA ``cuda_build`` ("10.2") is older than
    it, else None (also for versions that are not "X.Y")."""
    needed = first_cuda_for(capability)
    if needed is None or not re.fullmatch(r"\d+\.\d+(?:\.\d+)?", cuda_build.strip()):
        return None
    return needed if Version(cuda_build.strip()) < Version(needed) else None


def cuda_dropped(cuda_build: str, capability: str) -> str | None:
    """The CUDA release that removed ``capability`` when a build made with CUDA ``cuda_build`` ("10.0") is that
    release or newer, else None (also for versions that are not "X.Y"): such a toolkit compiles nothing for the GPU
    (cuda_compat.json ``cuda_capability_floors``)."""
    if not re.fullmatch(r"\d+\.\d+(?:\.\d+)?", cuda_build.strip()):
        return None
    removed = None
    for floor in compat()["cuda_capability_floors"]["floors"]:
        if Version(cuda_build.strip()) >= Version(floor["from_cuda"]) and _cc(capability) < _cc(
            floor["min_capability"]
        ):
            removed = removed or str(floor["from_cuda"])
    return removed


# People write the model without the space the table uses ("GTX950M", "RTX3090", "GT1030", "RTX-3090").
_UNSPACED_MODEL = re.compile(r"\b(GTX|RTX|GT)[\s_-]*(\d{3,4})", re.IGNORECASE)
# ... and the suffix glued or hyphenated to the number ("2080Ti", "2080-Ti", "3090ti", "4070SUPER", "1080_ti").
_GLUED_SUFFIX = re.compile(r"(\d{3,4})[\s_-]*(Ti|SUPER)\b", re.IGNORECASE)
# A GeForce model number typed without its family ("2080Ti", "GeForce 3090", "nvidia 4090 laptop"): NVIDIA's
# GeForce numbering gives the family (GTX 10 and 16 series; RTX 20, 30, 40, 50 series; cuda-gpus list).
_BARE_GEFORCE = re.compile(
    r"(?:nvidia\s*)?(?:geforce\s*)?(?P<model>(?P<series>10|16|20|30|40|50)\d0)"
    r"(?P<rest>(?:\s*(?:Ti|SUPER))?(?:\s+(?:laptop|mobile|max-q)(?:\s+gpu)?)?)",
    re.IGNORECASE,
)
_BARE_FAMILY = {"10": "GTX", "16": "GTX", "20": "RTX", "30": "RTX", "40": "RTX", "50": "RTX"}


def gpu_name_forms(name: str) -> tuple[str, ...]:
    """The GPU name as written and in the table's spacing: family and suffix apart from the model number, and a
    bare GeForce number with its family. Only spacing and the family a GeForce number implies are added."""
    spaced = _GLUED_SUFFIX.sub(r"\1 \2", _UNSPACED_MODEL.sub(r"\1 \2", name))
    forms = [name, spaced]
    bare = _BARE_GEFORCE.fullmatch(spaced.strip())
    if bare:
        forms.append(f"{_BARE_FAMILY[bare['series']]} {bare['model']}{bare['rest']}")
    return tuple(dict.fromkeys(forms))


@cache
def newest_known_capability() -> tuple[int, int]:
    """The highest compute capability the GPU table and the wheel arch lists know (staleness checks)."""
    caps = {_cc(cc) for _regex, cc in _gpu_table()}
    for build in wheel_builds():
        for arch in (build.linux_x86_64 or ()) + (build.linux_aarch64 or ()) + (build.windows or ()):
            m = _ARCH_RE.fullmatch(arch)
            if m:
                digits = m.group(2)
                caps.add((int(digits[:-1]), int(digits[-1])))
    return max(caps)


# --------------------------------------------------------------------------- wheel builds and releases


@dataclass(frozen=True)
class WheelBuild:
    """The arch lists of one variant over a range of releases (cuda_compat.json ``wheel_builds``)."""

    variant: str
    cuda: int
    first: Version
    last: Version
    linux_x86_64: tuple[str, ...] | None
    windows: tuple[str, ...] | None
    linux_aarch64: tuple[str, ...] | None
    notes: str

    def arch_list(self, platform: Platform) -> tuple[str, ...] | None:
        if platform == "windows":
            return self.windows
        return self.linux_aarch64 if platform == "linux_aarch64" else self.linux_x86_64


def _spec(value: Any) -> tuple[str, ...] | None:
    return arch_list_from_spec(value) if isinstance(value, str) else None


@cache
def wheel_builds() -> tuple[WheelBuild, ...]:
    out = []
    for b in compat()["wheel_builds"]["builds"]:
        cuda = variant_cuda(b["variant"])
        if cuda is None:
            raise ValueError(f"cuda_compat.json: bad variant {b['variant']!r}")
        out.append(
            WheelBuild(
                variant=b["variant"],
                cuda=cuda,
                first=Version(b["releases"][0]),
                last=Version(b["releases"][1]),
                linux_x86_64=_spec(b.get("linux_x86_64")),
                windows=_spec(b.get("windows")),
                linux_aarch64=_spec(b.get("linux_aarch64")),
                notes=str(b.get("notes", "")),
            )
        )
    return tuple(out)


def _series(release: str) -> str | None:
    """ "2.5.1" / "2.6.0.dev20241112" / "2.10" -> "2.5" / "2.6" / "2.10"."""
    m = re.match(r"^(\d+)\.(\d+)", release.strip())
    return f"{m.group(1)}.{m.group(2)}" if m else None


def _by_release() -> Mapping[str, Any]:
    by_release: Mapping[str, Any] = compat()["releases"]["by_release"]
    return by_release


@cache
def releases() -> tuple[str, ...]:
    """Release series in the data ("2.0" … "2.14"), oldest first."""
    return tuple(sorted(_by_release(), key=Version))


def tables_as_of() -> str:
    """The date the tables were last checked against the world (cuda_compat.json ``as_of``)."""
    return str(compat()["as_of"])


def newest_release() -> str:
    """The newest torch release series the tables know ("2.15")."""
    return releases()[-1]


@cache
def newest_cuda() -> int:
    """The newest CUDA the tables know anything about: a wheel variant or a Table 3 row (13040)."""
    variants = [variant_cuda(b.variant) or 0 for b in wheel_builds()]
    return max([*variants, *(r.cuda for r in driver_rows())])


@cache
def newest_variant_cuda() -> int:
    """The newest CUDA of any wheel variant in the tables (13020 for cu132)."""
    return max(variant_cuda(b.variant) or 0 for b in wheel_builds())


def newest_driver_branch() -> int:
    """The newest driver branch the driver table knows (616): a newer driver may support a CUDA the
    tables cannot name, so what they derive from its version is only a lower bound."""
    return int(str(compat()["driver_table"]["newest_branch"]))


def driver_branch(driver_version: str) -> int | None:
    """ "580.95.05" -> 580, the WMI form "32.0.15.8088" -> 580; None for anything else."""
    try:
        return _driver_key(driver_version)[0]
    except ValueError:
        return None


def release_variants(release: str) -> tuple[str, ...]:
    """CUDA variants published for a release series (RELEASE.md matrix; see cuda_compat.json notes)."""
    series = _series(release)
    info = _by_release().get(series or "")
    return tuple(info["cuda"]) if info else ()


def wheel_arch_list(release: str, variant: str, platform: Platform) -> tuple[str, ...] | None:
    """Arch list of ``variant`` in ``release`` on ``platform``; None when no such wheel is recorded."""
    series = _series(release)
    if series is None or variant not in release_variants(series):
        return None
    rel = Version(series)
    for build in wheel_builds():
        if build.variant == variant and build.first <= rel <= build.last:
            return build.arch_list(platform)
    return None


def _python_fits(release: str, python_version: str | None) -> bool:
    """RELEASE.md Python column (experimental maxima included). Unknown Python: assume it fits."""
    if not python_version:
        return True
    m = re.match(r"^(\d+)\.(\d+)", python_version.strip())
    info = _by_release().get(release)
    if not m or not info:
        return True
    lo, hi = (tuple(int(x) for x in p.split(".")) for p in info["python"])
    return lo <= (int(m.group(1)), int(m.group(2))) <= hi


def has_wheels_for(release: str, python_version: str) -> bool | None:
    """Whether the release series publishes wheels for this Python (RELEASE.md's column); None when the table does
    not know the release or the Python is unreadable."""
    series = _series(release)
    if series is None or series not in _by_release() or not re.match(r"^\d+\.\d+", python_version.strip()):
        return None
    return _python_fits(series, python_version)


# --------------------------------------------------------------------------- recommendations


def pypi_default_variant(release: str, platform: Platform | Literal["darwin"]) -> str | None:
    """What a bare ``pip install torch==<release>`` from PyPI gives: "cu130" for 2.11-2.14 on Linux,
    "cu132" for 2.15, "cpu" on Windows/macOS and on Linux aarch64 up to 2.10; None when not measured."""
    table = compat()["pypi_default"]
    if platform in ("windows", "darwin"):
        return str(table[platform])
    value = table.get(platform, {}).get(_series(release) or "")
    return str(value) if value else None


def companion_requirements(release: str, installed: Iterable[str]) -> tuple[str, ...]:
    """Requirements for the companion packages of ``release`` that are installed ("torchvision==0.20.*"):
    a reinstall of torch alone would leave a torchvision/torchaudio built for another torch (or for the
    CPU) beside it. Pinned to the companion's minor series: pip then picks the patch whose own pin matches
    the torch it installs (cuda_compat.json ``companions``)."""
    table = compat()["companions"]
    series = _series(release) or ""
    wanted = {n.strip().lower() for n in installed}
    out = []
    for name in ("torchvision", "torchaudio"):
        version = table.get(name, {}).get(series)
        if name in wanted and version:
            out.append(f"{name}=={version}.*")
    return tuple(out)


@dataclass(frozen=True)
class WheelChoice:
    """A wheel to install, or (``variant`` None) why none fits, with ``min_driver`` when a driver
    update would make one fit.

    ``release`` is the exact current release when it is kept ("2.5.1"), else a series ("2.7") pinned
    as ``torch==2.7.*`` (pip ignores local tags when matching, PEP 440). ``via`` tells whether the
    driver runs the wheel natively or through minor-version compatibility. ``min_driver`` is the oldest
    driver that runs the wheel (its CUDA family's floor), ``full_driver`` the toolkit's own Table 3
    driver (all of its features). ``companions`` are torchvision/torchaudio requirements installed with it.
    ``blocker`` says why none fits when ``variant`` is None.
    """

    release: str | None
    variant: str | None
    index_url: str | None
    requirement: str | None
    reason: str
    os: str
    via: Via | None = None
    min_driver: str | None = None
    keeps_current: bool = False
    full_driver: str | None = None
    companions: tuple[str, ...] = ()
    blocker: Blocker | None = None

    @property
    def ok(self) -> bool:
        return self.requirement is not None

    def with_companions(self, installed: Iterable[str]) -> WheelChoice:
        """This choice, also reinstalling the installed torchvision/torchaudio at matching versions."""
        if self.release is None:
            return self
        return replace(self, companions=companion_requirements(self.release, installed))

    def pip_command(self, python_executable: str) -> str:
        """The exact install command, e.g. ``/venv/bin/python -m pip install --force-reinstall
        "torch==2.5.1" "torchvision==0.20.*" --index-url https://download.pytorch.org/whl/cu124``."""
        if self.requirement is None:
            raise ValueError(f"no wheel to install: {self.reason}")
        if _os_kind(self.os) == "windows":
            py = f'"{python_executable}"' if re.search(r"[\s&()^]", python_executable) else python_executable
        else:
            py = shlex.quote(python_executable)
        requirements = " ".join(f'"{r}"' for r in (self.requirement, *self.companions))
        cmd = f"{py} -m pip install --force-reinstall {requirements}"
        return cmd + (f" --index-url {self.index_url}" if self.index_url else "")


def wheel_platform(os: str, machine: str) -> Platform | None:
    """Which wheel platform an OS and machine use ("linux_x86_64" for Linux/WSL on x86_64); None when
    PyTorch publishes no CUDA wheels there (macOS, 32-bit, Windows on Arm)."""
    return _platform(os, machine)


def _platform(os: str, machine: str) -> Platform | None:
    kind = _os_kind(os)
    arch = machine.strip().lower()
    x86 = arch in {"x86_64", "amd64", "x64"}
    arm = arch in {"aarch64", "arm64"}
    if kind in ("linux", "wsl"):
        return "linux_x86_64" if x86 else "linux_aarch64" if arm else None
    if kind == "windows":
        return "windows" if x86 else None
    return None


def _none(os: str, reason: str, blocker: Blocker, min_driver: str | None = None) -> WheelChoice:
    return WheelChoice(None, None, None, None, reason, os, None, min_driver, blocker=blocker)


def _pin(series: str, current_release: str | None) -> tuple[str, str, bool]:
    """(release, requirement, keeps_current) for installing ``series``."""
    if current_release and _series(current_release) == series:
        exact = Version(current_release).base_version if _is_version(current_release) else current_release
        return exact, f"torch=={exact}", True
    return series, f"torch=={series}.*", False


def _is_version(text: str) -> bool:
    try:
        Version(text)
    except InvalidVersion:
        return False
    return True


def nearest_releases(current_release: str | None) -> list[str]:
    """Release series in the order a fix should try them: the user's own first, then the others nearest
    to it (the newer of two equally near ones first), so a fix changes as little as it can; the newest
    first when there is no current release. A current release newer than the tables (2.16) starts
    from the newest known one."""
    newest_first = sorted(releases(), key=Version, reverse=True)
    current = _series(current_release) if current_release else None
    if current is None or not _is_version(current):
        return newest_first
    ladder = sorted(set(newest_first) | {current}, key=Version)
    here = ladder.index(current)
    return sorted(newest_first, key=lambda s: (abs(ladder.index(s) - here), -ladder.index(s)))


def recommend_wheel(
    *,
    os: str,
    machine: str,
    python_version: str | None,
    driver_cuda: int | None,
    capabilities: list[str],
    current_release: str | None,
    jetson: bool = False,
    driver_version: str | None = None,
) -> WheelChoice | None:
    """The CUDA wheel that fits THIS driver and THESE GPUs, or why none does.

    Releases are tried in :func:`nearest_releases` order: the user's release is kept whenever a build of
    it fits, else the nearest release that has one is named (Pascal on 2.15 -> 2.14 with cu126). Within a
    release, the newest variant the driver runs natively wins, else the variant closest above the driver
    that runs through minor-version compatibility (same CUDA major, driver at the family floor: NVIDIA
    MVC Table 1). A variant must contain SASS for every GPU (``arch_covers(..., ptx=False)``): PTX alone
    does not make the toolkit's cuBLAS/cuDNN support a newer GPU (malfet in pytorch#150733: "you'll need
    CUDA-12.8 to support 5090"), and the measured PyPI builds carry none. ``driver_cuda`` None (no driver
    yet, or none reported): the nearest release's fitting variant that asks least of the driver, with the
    driver it needs in ``min_driver``.

    Returns None on macOS (no CUDA there: callers point to MPS). Jetson (``jetson`` or a Tegra
    capability 5.3/6.2/7.2/8.7 on aarch64) gets a no-wheel choice: only NVIDIA's JetPack wheels work.
    """
    kind = _os_kind(os)
    if kind == "darwin":
        return None
    platform = _platform(os, machine)
    if platform is None:
        return _none(os, f"PyTorch publishes no CUDA wheels for {os} on {machine}", "platform")
    caps = [f"{a}.{b}" for a, b in (_cc(c) for c in capabilities if c)]
    tegra = set(compat()["tegra_capabilities"]["capabilities"])
    if platform == "linux_aarch64" and (jetson or any(c in tegra for c in caps)):
        return _none(
            os,
            "this is a Jetson (integrated Tegra GPU): the aarch64 wheels on PyPI and download.pytorch.org "
            "do not support it; install NVIDIA's PyTorch wheel for your JetPack version or an NVIDIA L4T "
            "container",
            "jetson",
        )
    gpus = ", ".join(f"sm_{c.replace('.', '')}" for c in caps) or "your GPU"

    covering: list[tuple[str, str, int]] = []  # (series, variant, cuda) with code for every GPU
    python_fits = False
    for series in nearest_releases(current_release):
        if not _python_fits(series, python_version):
            continue
        python_fits = True
        for variant in sorted(release_variants(series), key=lambda v: variant_cuda(v) or 0, reverse=True):
            arch = wheel_arch_list(series, variant, platform)
            if arch is not None and all(arch_covers(c, arch, ptx=False) for c in caps):
                covering.append((series, variant, variant_cuda(variant) or 0))
    if (
        caps
        and not covering
        and not any(
            (arch := wheel_arch_list(series, variant, platform)) is not None
            and all(arch_covers(c, arch, ptx=False) for c in caps)
            for series in nearest_releases(current_release)
            for variant in release_variants(series)
        )
    ):
        # No release for any Python has code for the GPU (a Tesla-architecture or Fermi card): say that first, a
        # newer Python would not help.
        return _none(os, f"no published CUDA wheel for {platform} contains code for {gpus}", "gpu")
    if not python_fits:
        return _none(os, f"no torch release in the tables has a wheel for Python {python_version}", "python")
    if not covering:
        py = f" and Python {python_version}" if python_version else ""
        return _none(os, f"no published CUDA wheel for {platform}{py} contains code for {gpus}", "gpu")

    def choose(series: str, variant: str, via: Via, why: str) -> WheelChoice:
        release, requirement, keeps = _pin(series, current_release)
        where = "keeps your torch release" if keeps else f"the nearest release with a fitting build is {series}"
        return WheelChoice(
            release=release,
            variant=variant,
            index_url=INDEX_URL.format(variant=variant),
            requirement=requirement,
            reason=f"{why}; {where}",
            os=os,
            via=via,
            min_driver=family_min_driver(variant, os),
            keeps_current=keeps,
            full_driver=min_driver_for_variant(variant, os),
        )

    for series in dict.fromkeys(s for s, _v, _c in covering):
        in_series = [(v, c) for s, v, c in covering if s == series]  # newest CUDA first
        if driver_cuda is None:  # the variant that asks least of the driver
            variant, cuda = in_series[-1]
            return choose(
                series,
                variant,
                "native",
                f"{variant} contains code for {gpus}; it needs a driver of the CUDA {cuda // 1000}.x "
                f"family (>= {family_min_driver(variant, os)})",
            )
        native = [(v, c) for v, c in in_series if c <= driver_cuda]
        if native:
            variant, cuda = native[0]
            return choose(
                series,
                variant,
                "native",
                f"{variant} contains code for {gpus}; CUDA {cuda_int_to_str(cuda)} <= the driver's "
                f"{cuda_int_to_str(driver_cuda)}",
            )
        by_mvc = [
            (v, c)
            for v, c in reversed(in_series)
            if driver_supports_variant(driver_cuda, v, driver_version=driver_version, os=os).ok
        ]
        if by_mvc:
            variant, cuda = by_mvc[0]
            return choose(
                series,
                variant,
                "minor_version_compat",
                f"{variant} contains code for {gpus}; {driver_supports_variant(driver_cuda, variant, os=os).reason}",
            )
    oldest = min(covering, key=lambda f: f[2])
    need = family_min_driver(oldest[1], os)
    return _none(
        os,
        f"the driver supports CUDA {cuda_int_to_str(driver_cuda or 0)}, too old for every wheel containing "
        f"code for {gpus}; the oldest is {oldest[1]} (torch {oldest[0]}), which needs driver >= {need}",
        "driver",
        min_driver=need,
    )


def macos_arm64_newest_release(macos_version: str) -> str | None:
    """The newest release whose macOS arm64 wheels install on ``macos_version`` ("13.6" -> "2.11": from
    2.12 the wheels are tagged macOS 14); None when the newest known release fits or the version is
    unreadable."""
    m = re.match(r"^(\d+)(?:\.(\d+))?", macos_version.strip())
    if not m:
        return None
    have = (int(m.group(1)), int(m.group(2) or 0))
    table = compat()["pypi_default"]["macos_arm64_min"]
    listed = sorted(table, key=Version)

    def minimum(series: str) -> tuple[int, int] | None:
        known = [s for s in listed if Version(s) <= Version(series)]
        if not known:
            return None
        major, minor = table[known[-1]].split(".")[:2]
        return int(major), int(minor)

    fitting = [r for r in releases() if (need := minimum(r)) is not None and need <= have]
    if not fitting or fitting[-1] == releases()[-1]:
        return None
    return fitting[-1]


def recommend_cpu_wheel(
    *,
    os: str,
    machine: str,
    python_version: str | None,
    current_release: str | None,
    macos_version: str | None = None,
) -> WheelChoice:
    """A CPU build, for machines with no usable NVIDIA/AMD GPU.

    Linux/Windows: the ``cpu`` index (on Windows PyPI's wheel is CPU-only anyway, xxyzz/WordDumb#91).
    macOS: PyPI (arm64 wheels include MPS); Intel Macs only up to torch 2.2 (zackees/transcribe-anything#77:
    "PyTorch dropped macOS x86_64 wheels in 2.3+").
    """
    kind = _os_kind(os)
    if kind == "darwin":
        if machine.strip().lower() in {"x86_64", "amd64"}:
            return WheelChoice("2.2", "cpu", None, "torch==2.2.*", "Intel Macs get wheels only up to 2.2", os)
        newest = macos_arm64_newest_release(macos_version) if macos_version else None
        if newest and (current_release is None or Version(_series(current_release) or "0") > Version(newest)):
            return WheelChoice(
                newest,
                "cpu",
                None,
                f"torch=={newest}.*",
                f"PyPI's macOS arm64 wheels need macOS 14 from 2.12; {newest} is the newest for macOS {macos_version}",
                os,
            )
        release = current_release
        requirement = f"torch=={current_release}" if current_release else "torch"
        return WheelChoice(release, "cpu", None, requirement, "PyPI's macOS arm64 wheel (CPU + MPS)", os)
    series = _series(current_release) if current_release else None
    if current_release and series in releases() and _python_fits(series, python_version):
        release, requirement, keeps = _pin(series, current_release)
    else:
        fits = [r for r in sorted(releases(), key=Version, reverse=True) if _python_fits(r, python_version)]
        if not fits:
            return _none(os, f"no torch release in the data supports Python {python_version}", "python")
        release, requirement, keeps = _pin(fits[0], current_release)
    return WheelChoice(
        release,
        "cpu",
        INDEX_URL.format(variant="cpu"),
        requirement,
        "CPU-only build",
        os,
        keeps_current=keeps,
    )


def recommend_rocm_wheel(
    *, os: str, machine: str, python_version: str | None, current_release: str | None
) -> WheelChoice:
    """A ROCm build for AMD GPUs: Linux x86_64 only; the release's stable ROCm index (RELEASE.md matrix)."""
    if _platform(os, machine) != "linux_x86_64":
        return _none(os, f"PyTorch publishes ROCm wheels only for Linux x86_64, not {os} on {machine}", "platform")
    current = _series(current_release) if current_release else None
    newest_first = sorted(releases(), key=Version, reverse=True)
    order = ([current] if current in newest_first else []) + [r for r in newest_first if r != current]
    for series in order:
        rocm = _by_release()[series].get("rocm")
        if rocm and _python_fits(series, python_version):
            release, requirement, keeps = _pin(series, current_release)
            return WheelChoice(
                release,
                rocm,
                INDEX_URL.format(variant=rocm),
                requirement,
                f"ROCm build {rocm}",
                os,
                keeps_current=keeps,
            )
    return _none(os, f"no ROCm wheel in the data fits Python {python_version}", "python")
