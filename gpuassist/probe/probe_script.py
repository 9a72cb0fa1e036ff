"""gpuassist probe: runs inside the interpreter being diagnosed and reports what torch sees there.

Run as ``<python> -X faulthandler probe_script.py [--stages a,b] [--device-tests] [--limit STAGE=SECONDS]
[--nonce TOKEN]``, without ``-I``: user site-packages and PYTHONPATH are part of the environment under
diagnosis. Standard library only, Python 3.8+, and it never imports gpuassist (the target interpreter does
not have it).

Protocol (the stream itself is ``channel.py``, shared with the other in-target scripts): one JSON object
per line on the *original* stdout, flushed after each line:

    {"event": "hello", "protocol": 1, "nonce": TOKEN, "pid": N, "stages": [...], "t": 0.0}
    {"event": "stage", "stage": NAME, "status": "start", "limit": SECONDS, "t": T}
    {"event": "fact", "key": KEY, "value": VALUE}
    {"event": "stage", "stage": NAME, "status": "end" | "failed" | "skipped", "t": T [, "error": TEXT]}
    {"event": "done", "t": T}

``t`` is seconds since the probe started. A fact that could not be read is sent as
``{"$not_collected": reason}``. Before anything of the user's runs, the protocol stream is moved to a
private file descriptor and fd 1 is pointed at stderr, so whatever torch or user code prints cannot
corrupt it. Every stage catches its own exceptions; only native crashes and hangs end the process
abnormally, and the host-side runner (which enforces each stage's time limit) turns those into findings.
faulthandler is registered for SIGTERM too, so a stage killed for hanging leaves its Python stack on
stderr.

Test hook (never set by gpuassist in a normal run): ``GPUASSIST_PROBE_TEST_FAULT=KIND:STAGE[,KIND:STAGE]``
injects a fault at the start of STAGE. KIND is ``segv`` (native segmentation fault), ``hang`` (sleeps
forever), ``raise`` (the stage raises RuntimeError), ``exit`` (``os._exit(3)``), or ``print`` (the stage
prints to stdout through Python and through fd 1, which must not reach the protocol).
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import time
import traceback
import warnings
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional

if TYPE_CHECKING or __package__:  # imported as part of gpuassist (host side, tests)
    from .channel import Channel, dump_stacks_on_sigterm, guard_lifetime, parse_limits, sync
else:  # run as a script in the target interpreter: channel.py next to this file, loaded by its path
    import runpy as _runpy

    _channel = _runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "channel.py"))
    guard_lifetime = _channel["guard_lifetime"]
    Channel, dump_stacks_on_sigterm = _channel["Channel"], _channel["dump_stacks_on_sigterm"]
    parse_limits, sync = _channel["parse_limits"], _channel["sync"]

PROTOCOL = 1
FAULT_ENV = "GPUASSIST_PROBE_TEST_FAULT"

# Stage order is the order they run in. Limits are the defaults; the runner passes its own with --limit.
STAGES = ("interpreter", "torch_dist", "import_torch", "build", "accel_init", "devices", "smoke", "libraries")
DEFAULT_LIMITS = {
    "interpreter": 10.0,
    "torch_dist": 15.0,
    "import_torch": 60.0,
    "build": 15.0,
    "accel_init": 30.0,
    "devices": 15.0,
    "smoke": 45.0,
    "libraries": 10.0,
}
# Stages that run on the accelerator (allocation, kernels): only with --device-tests.
DEVICE_TEST_STAGES = ("smoke",)
# Stages that need `import torch` to have worked.
TORCH_STAGES = ("build", "accel_init", "devices", "smoke", "libraries")

# The fact keys each stage reports (docs/facts.md, "Probe facts"); the runner marks the keys of a stage
# that did not finish as not collected.
STAGE_KEYS = {
    "interpreter": (
        "python.executable", "python.version", "python.implementation", "python.prefix", "python.base_prefix",
        "python.env_kind", "python.platform", "python.machine", "python.mac_ver", "python.user_site_enabled",
        "python.user_site", "python.sys_path",
    ),
    "torch_dist": ("torch.dists", "torch.spec_origin", "torch.conda_build", "torch.conda_packages",
                   "libs.ld_path_shadows", "torch.companions"),
    "import_torch": ("torch.import_seconds", "torch.import_error", "torch.import_warnings"),
    "build": (
        "torch.version", "torch.file", "torch.cuda_build", "torch.hip_build", "torch.git_version",
        "torch.debug", "torch.arch_list", "torch.cudnn_version", "torch.backends",
    ),
    "accel_init": (
        "cuda.visible_devices", "cuda.available", "cuda.device_count", "cuda.driver_version",
        "cuda.init_error", "cuda.init_warnings", "mps.built", "mps.available", "xpu.available",
        "xpu.device_count",
    ),
    "devices": ("devices",),
    "smoke": ("smoke",),
    "libraries": ("libs.loaded",),
}

# Libraries worth knowing were actually loaded (from /proc/self/maps), by file name.
LIB_PATTERN = re.compile(
    r"^lib(cudart|cuda|cudnn\w*|cublas\w*|nvidia-ml|torch_cuda\w*|amdhip64|nccl|c10_cuda)([-.]|$)"
)
CONDA_PACKAGES = (
    "pytorch", "pytorch-cuda", "pytorch-mutex", "cpuonly", "pytorch-cpu", "pytorch-gpu", "libtorch",
    "torchvision", "torchaudio",
)
# Packages built against one torch release: a fix that reinstalls torch must reinstall them with it.
COMPANIONS = ("torchvision", "torchaudio")


def not_collected(reason: str) -> Dict[str, str]:
    return {"$not_collected": reason}


def error_text(exc: BaseException) -> str:
    return "%s: %s" % (type(exc).__name__, exc)


class Probe:
    def __init__(self, channel: Channel, faults: Dict[str, str]) -> None:
        self.ch = channel
        self.faults = faults
        self.torch = None  # type: Any
        self.arch_list_read = False
        self.accel_devices = []  # type: List[str]

    def fact(self, key: str, value: Any) -> None:
        self.ch.send({"event": "fact", "key": key, "value": value})

    # ---- stages -------------------------------------------------------------------------------------

    def stage_interpreter(self) -> None:
        import platform
        import site

        self.fact("python.executable", sys.executable)
        self.fact("python.version", platform.python_version())
        self.fact("python.implementation", platform.python_implementation())
        self.fact("python.prefix", sys.prefix)
        base_prefix = getattr(sys, "base_prefix", sys.prefix)
        self.fact("python.base_prefix", base_prefix)
        if os.path.isdir(os.path.join(sys.prefix, "conda-meta")):
            kind = "conda"
        elif sys.prefix != base_prefix or hasattr(sys, "real_prefix"):
            kind = "venv"
        else:
            kind = "system"
        self.fact("python.env_kind", kind)
        self.fact("python.platform", sys.platform)
        self.fact("python.machine", platform.machine())
        self.fact("python.mac_ver", (platform.mac_ver()[0] or None) if sys.platform == "darwin" else None)
        self.fact("python.user_site_enabled", site.ENABLE_USER_SITE)
        try:
            self.fact("python.user_site", site.getusersitepackages())
        except Exception as exc:
            self.fact("python.user_site", not_collected(error_text(exc)))
        self.fact("python.sys_path", list(sys.path))

    def stage_torch_dist(self) -> None:
        self.fact("torch.dists", find_torch_dists(sys.path))
        origin = None  # type: Optional[str]
        try:
            import importlib.util

            spec = importlib.util.find_spec("torch")
            if spec is None:
                origin = None
            elif spec.origin and spec.origin != "namespace":
                origin = spec.origin
            else:  # a namespace package: a directory called torch without __init__.py
                origin = "namespace:" + ",".join(spec.submodule_search_locations or [])
            self.fact("torch.spec_origin", origin)
        except Exception as exc:
            self.fact("torch.spec_origin", not_collected(error_text(exc)))
        build, packages = conda_torch_packages(sys.prefix)
        self.fact("torch.conda_build", build)
        self.fact("torch.conda_packages", packages)
        # Read before `import torch`, so a library that breaks the import is still named.
        try:
            self.fact("libs.ld_path_shadows", ld_path_shadows(origin))
        except Exception as exc:
            self.fact("libs.ld_path_shadows", not_collected(error_text(exc)))
        self.fact("torch.companions", find_companion_dists(sys.path))

    def stage_import_torch(self) -> bool:
        started = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                import torch
            except BaseException as exc:  # SystemExit and friends from a broken install count too
                if isinstance(exc, KeyboardInterrupt):
                    raise
                self.fact("torch.import_seconds", round(time.perf_counter() - started, 4))
                lines = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)).splitlines()
                self.fact("torch.import_error", {
                    "type": type(exc).__name__,
                    "message": str(exc),
                    "traceback": "\n".join(lines[-15:]),
                })
                self.fact("torch.import_warnings", warning_texts(caught))
                return False
        self.fact("torch.import_seconds", round(time.perf_counter() - started, 4))
        self.fact("torch.import_error", None)
        self.fact("torch.import_warnings", warning_texts(caught))
        self.torch = torch
        return True

    def stage_build(self) -> None:
        torch = self.torch
        version = getattr(torch, "version", None)  # type: Any
        self.fact("torch.version", str(getattr(torch, "__version__", None)))
        self.fact("torch.file", getattr(torch, "__file__", None))
        self.fact("torch.cuda_build", getattr(version, "cuda", None))
        self.fact("torch.hip_build", getattr(version, "hip", None))
        self.fact("torch.git_version", getattr(version, "git_version", None))
        self.fact("torch.debug", getattr(version, "debug", None))
        is_gpu_build = bool(getattr(version, "cuda", None) or getattr(version, "hip", None))
        get_flags = getattr(torch._C, "_cuda_getArchFlags", None)
        if get_flags is not None:
            try:
                self.fact("torch.arch_list", normalise_arch_list(get_flags()))
                self.arch_list_read = True
            except Exception as exc:
                self.fact("torch.arch_list", not_collected(error_text(exc)))
        elif not is_gpu_build:
            self.fact("torch.arch_list", [])
            self.arch_list_read = True
        # else: torch.cuda.get_arch_list() initialises CUDA, so accel_init reads it
        cudnn = getattr(torch.backends, "cudnn", None)  # type: Any
        cudnn_available = None  # type: Optional[bool]
        try:
            cudnn_available = bool(cudnn.is_available()) if cudnn is not None else False
            self.fact("torch.cudnn_version", cudnn.version() if cudnn_available else None)
        except Exception as exc:
            self.fact("torch.cudnn_version", not_collected(error_text(exc)))
        self.fact("torch.backends", {
            "cuda_built": guarded(lambda: bool(torch.backends.cuda.is_built())),
            "mps_built": guarded(lambda: bool(torch.backends.mps.is_built())),
            "xpu_built": guarded(lambda: bool(torch._C._has_xpu), default=False),
            "cudnn_available": cudnn_available,
        })

    def stage_accel_init(self) -> None:
        torch = self.torch
        self.fact("cuda.visible_devices", os.environ.get("CUDA_VISIBLE_DEVICES"))
        gpu_build = bool(getattr(torch.version, "cuda", None) or getattr(torch.version, "hip", None))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            available = False
            try:
                available = bool(torch.cuda.is_available())
                self.fact("cuda.available", available)
            except Exception as exc:
                self.fact("cuda.available", not_collected(error_text(exc)))
            try:
                count = int(torch.cuda.device_count())
                self.fact("cuda.device_count", count)
            except Exception as exc:
                self.fact("cuda.device_count", not_collected(error_text(exc)))
            get_driver = getattr(torch._C, "_cuda_getDriverVersion", None)
            if get_driver is None:
                self.fact("cuda.driver_version", None)
            else:
                try:
                    self.fact("cuda.driver_version", int(get_driver()) or None)  # 0: no driver
                except Exception as exc:
                    self.fact("cuda.driver_version", not_collected(error_text(exc)))
            # Lazy init raises the most precise error there is ("Found no NVIDIA driver", "driver too old");
            # on a CPU-only build it would only say "not compiled with CUDA", so it is not attempted there.
            init_error = None  # type: Optional[str]
            if gpu_build:
                try:
                    torch.cuda.init()
                except Exception as exc:
                    init_error = error_text(exc)
            self.fact("cuda.init_error", init_error)
            if not self.arch_list_read:
                try:
                    self.fact("torch.arch_list", normalise_arch_list(torch.cuda.get_arch_list()))
                except Exception as exc:
                    self.fact("torch.arch_list", not_collected(error_text(exc)))
            self.fact("cuda.init_warnings", warning_texts(caught))
        if available:
            self.accel_devices += ["cuda:%d" % i for i in range(torch.cuda.device_count())]
        mps = getattr(torch.backends, "mps", None)  # type: Any
        self.fact("mps.built", guarded(lambda: bool(mps.is_built()), default=False))
        mps_available = guarded(lambda: bool(mps.is_available()), default=False)
        self.fact("mps.available", mps_available)
        if mps_available is True:
            self.accel_devices.append("mps")
        xpu = getattr(torch, "xpu", None)  # type: Any
        xpu_available = guarded(lambda: bool(xpu.is_available()), default=False)
        self.fact("xpu.available", xpu_available)
        xpu_count = guarded(lambda: int(xpu.device_count()), default=0) if xpu_available is True else 0
        self.fact("xpu.device_count", xpu_count)
        if xpu_available is True and isinstance(xpu_count, int):
            self.accel_devices += ["xpu:%d" % i for i in range(xpu_count)]

    def stage_devices(self) -> None:
        torch = self.torch
        found = []  # type: List[Dict[str, Any]]
        for dev in self.accel_devices:
            entry = {"device": dev, "name": None, "capability": None, "total_memory": None,
                     "multi_processor_count": None}  # type: Dict[str, Any]
            try:
                if dev.startswith("cuda:"):
                    p = torch.cuda.get_device_properties(int(dev.split(":")[1]))
                    entry.update(name=p.name, capability="%d.%d" % (p.major, p.minor),
                                 total_memory=int(p.total_memory),
                                 multi_processor_count=int(p.multi_processor_count))
                    arch = getattr(p, "gcnArchName", None)  # ROCm: gfx90a:sramecc+:xnack-
                    if arch:
                        entry["arch"] = arch
                elif dev.startswith("xpu:"):
                    p = torch.xpu.get_device_properties(int(dev.split(":")[1]))
                    entry.update(name=getattr(p, "name", None), total_memory=getattr(p, "total_memory", None))
                elif dev == "mps":
                    entry["name"] = "Apple MPS"
            except Exception as exc:
                entry["error"] = error_text(exc)
            found.append(entry)
        self.fact("devices", found)

    def stage_smoke(self) -> None:
        self.fact("smoke", [smoke_test(self.torch, dev) for dev in [*self.accel_devices, "cpu"]])

    def stage_libraries(self) -> None:
        self.fact("libs.loaded", loaded_libraries())

    # ---- driver -------------------------------------------------------------------------------------

    def inject(self, stage: str) -> None:
        kind = self.faults.get(stage)
        if not kind:
            return
        if kind == "segv":
            import faulthandler

            sigsegv = getattr(faulthandler, "_sigsegv", None)
            if sigsegv is not None:
                sigsegv()
            import signal

            os.kill(os.getpid(), signal.SIGSEGV)
        elif kind == "hang":
            while True:
                time.sleep(3600)
        elif kind == "raise":
            raise RuntimeError("injected fault in stage %s" % stage)
        elif kind == "exit":
            sys.stderr.flush()
            os._exit(3)
        elif kind == "print":
            print('{"event": "fact", "key": "torch.version", "value": "PRINTED"}')
            sys.stdout.flush()
            os.write(1, b'{"event": "done", "t": 0}\n')

    def run(self, stages: List[str], limits: Dict[str, float], nonce: str) -> None:
        self.ch.send({"event": "hello", "protocol": PROTOCOL, "nonce": nonce, "pid": os.getpid(),
                      "stages": stages, "t": self.ch.t()})
        skip_reason = None  # type: Optional[str]
        for stage in stages:
            if skip_reason is not None:
                self.ch.send({"event": "stage", "stage": stage, "status": "skipped", "reason": skip_reason,
                              "t": self.ch.t()})
                continue
            self.ch.send({"event": "stage", "stage": stage, "status": "start",
                          "limit": limits.get(stage, DEFAULT_LIMITS.get(stage, 30.0)), "t": self.ch.t()})
            end = {"event": "stage", "stage": stage, "status": "end"}  # type: Dict[str, Any]
            try:
                self.inject(stage)
                result = getattr(self, "stage_" + stage)()
                if stage == "import_torch" and result is False:
                    end["status"] = "failed"
                    end["error"] = "import torch failed"
                    skip_reason = "import torch failed"
            except Exception as exc:
                end["status"] = "failed"
                end["error"] = error_text(exc)
                tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
                end["traceback"] = "".join(tb)[-3000:]
                if stage == "import_torch":
                    skip_reason = "import torch failed"
            end["t"] = self.ch.t()
            self.ch.send(end)
        self.ch.send({"event": "done", "t": self.ch.t()})


# ---- helpers (module level so tests and the runner can use them without running anything) -----------


def guarded(fn: Callable[[], Any], default: Any = None) -> Any:
    """fn() or, if it raises, ``default`` for a missing attribute and not-collected for a real error."""
    try:
        return fn()
    except AttributeError:
        return default
    except Exception as exc:
        return not_collected(error_text(exc))


def warning_texts(caught: Any) -> List[str]:
    return [str(w.message) for w in (caught or [])]


def normalise_arch_list(value: Any) -> List[str]:
    """``"sm_50 sm_60 compute_90"`` (or a list) → ``["sm_50", "sm_60", "compute_90"]``."""
    if not value:
        return []
    if isinstance(value, str):
        return value.replace(",", " ").split()
    return [str(v) for v in value]


def local_tag(version: str) -> Optional[str]:
    """The build flavour in a torch version: ``cpu``, ``cu124``, ``rocm6.2``, Jetson's ``nv22.3``."""
    if "+" in version:
        return version.split("+", 1)[1] or None
    m = re.search(r"\.(nv\d+\.\d+)", version)
    return m.group(1) if m else None


def _read_metadata_header(path: str) -> Dict[str, str]:
    headers = {}  # type: Dict[str, str]
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.strip():
                break
            if ":" in line and not line[0].isspace():
                k, v = line.split(":", 1)
                headers.setdefault(k.strip().lower(), v.strip())
    return headers


DIST_RE = re.compile(r"^torch-[^-]+(-.*)?\.(dist-info|egg-info)$", re.IGNORECASE)


def find_torch_dists(path_entries: List[str]) -> List[Dict[str, Any]]:
    """Every torch distribution on the path, in path order, so a shadowed second copy is found too.

    Reads the metadata directories directly (what importlib.metadata would do, but for every entry rather
    than the first hit, and without its import cost)."""
    found = []  # type: List[Dict[str, Any]]
    seen = set()
    for entry in path_entries:
        directory = os.path.abspath(entry or os.curdir)
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            continue  # zip files, missing directories
        for name in names:
            if not DIST_RE.match(name):
                continue
            meta_dir = os.path.join(directory, name)
            real = os.path.realpath(meta_dir)
            if real in seen:
                continue
            seen.add(real)
            if os.path.isdir(meta_dir):
                is_wheel = name.lower().endswith(".dist-info")
                meta = os.path.join(meta_dir, "METADATA" if is_wheel else "PKG-INFO")
            else:
                meta = meta_dir  # a single-file .egg-info
            try:
                headers = _read_metadata_header(meta)
            except OSError:
                headers = {}
            if headers and headers.get("name", "").lower() != "torch":
                continue
            version = headers.get("version") or name.split("-")[1]
            installer = None
            try:
                with open(os.path.join(meta_dir, "INSTALLER"), encoding="utf-8", errors="replace") as f:
                    installer = f.read().strip() or None
            except OSError:
                pass
            found.append({"version": version, "location": directory, "installer": installer,
                          "local_tag": local_tag(version), "metadata": meta_dir})
    return found


COMPANION_RE = re.compile(r"^(torchvision|torchaudio)-([^-]+)\.(dist-info|egg-info)$", re.IGNORECASE)


def find_companion_dists(path_entries: List[str]) -> List[Dict[str, Any]]:
    """The torchvision/torchaudio that import (the first copy of each on the path), with the version in
    their metadata directory's name: a torch reinstall must bring matching versions of them along."""
    found = {}  # type: Dict[str, Dict[str, Any]]
    for entry in path_entries:
        directory = os.path.abspath(entry or os.curdir)
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            continue
        for name in names:
            m = COMPANION_RE.match(name)
            if not m or m.group(1).lower() in found:
                continue
            installer = None
            try:
                with open(os.path.join(directory, name, "INSTALLER"), encoding="utf-8", errors="replace") as f:
                    installer = f.read().strip() or None
            except OSError:
                pass
            found[m.group(1).lower()] = {"name": m.group(1).lower(), "version": m.group(2),
                                         "local_tag": local_tag(m.group(2)), "location": directory,
                                         "installer": installer}
    return [found[n] for n in COMPANIONS if n in found]


def conda_torch_packages(prefix: str) -> Any:
    """Build string of conda's pytorch package and the packages that choose the variant (cpuonly,
    pytorch-mutex, pytorch-cuda), from conda-meta file names (``name-version-build.json``)."""
    meta = os.path.join(prefix, "conda-meta")
    try:
        names = os.listdir(meta)
    except OSError:
        return None, []
    packages = []
    build = None
    for fname in sorted(names):
        if not fname.endswith(".json"):
            continue
        parts = fname[: -len(".json")].rsplit("-", 2)
        if len(parts) != 3 or parts[0] not in CONDA_PACKAGES:
            continue
        packages.append({"name": parts[0], "version": parts[1], "build": parts[2]})
        if parts[0] == "pytorch":
            build = parts[2]
    return build, packages


def ld_library_dirs() -> List[str]:
    """The directories of LD_LIBRARY_PATH, resolved (as /proc/self/maps shows them), at most 64."""
    raw = os.environ.get("LD_LIBRARY_PATH", "") if sys.platform.startswith("linux") else ""
    return [os.path.realpath(d) for d in raw.split(os.pathsep) if d][:64]


def ld_path_shadows(torch_origin: Optional[str]) -> List[Dict[str, str]]:
    """Libraries in an LD_LIBRARY_PATH directory with the file name of one the torch wheel ships (torch/lib,
    site-packages/nvidia/*/lib): the dynamic loader searches LD_LIBRARY_PATH before the wheel's RUNPATH, so
    these are loaded instead of the wheel's own copies."""
    dirs = ld_library_dirs()
    if not dirs or not torch_origin or torch_origin.startswith("namespace:"):
        return []
    torch_dir = os.path.dirname(os.path.realpath(torch_origin))
    site_dir = os.path.dirname(torch_dir)
    wheel_dirs = [os.path.join(torch_dir, "lib")]
    try:
        packages = os.listdir(os.path.join(site_dir, "nvidia"))
    except OSError:
        packages = []
    wheel_dirs += sorted(os.path.join(site_dir, "nvidia", p, "lib") for p in packages)
    shipped = {}  # type: Dict[str, str]
    for libdir in wheel_dirs:
        try:
            names = sorted(os.listdir(libdir))[:5000]
        except OSError:
            continue
        for name in names:
            if ".so" in name:
                shipped.setdefault(name, os.path.join(libdir, name))
    own = set(os.path.realpath(d) for d in wheel_dirs)
    found = []  # type: List[Dict[str, str]]
    for d in dirs:
        if d in own:
            continue
        try:
            names = sorted(os.listdir(d))[:5000]
        except OSError:
            continue
        for name in names:
            if name in shipped and len(found) < 50:
                found.append({"path": os.path.join(d, name), "dir": d, "shadows": shipped[name]})
    return found


def loaded_libraries() -> Any:
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError as exc:
        return not_collected("no /proc/self/maps on this platform (%s)" % exc.__class__.__name__)
    ld_dirs = set(ld_library_dirs())
    found = set()
    for line in text.splitlines():
        parts = line.split(None, 5)
        if len(parts) == 6 and parts[5].startswith("/"):
            path = parts[5].replace(" (deleted)", "")
            # Any library mapped from an LD_LIBRARY_PATH directory counts: it may shadow the wheel's copy.
            if LIB_PATTERN.match(os.path.basename(path)) or (
                    ".so" in path and os.path.dirname(path) in ld_dirs):
                found.add(path)
    return sorted(found)


def smoke_test(torch: Any, device: str) -> Dict[str, Any]:
    """Allocate, multiply and convolve on ``device``; results are checked against the CPU."""
    result = {"device": device}  # type: Dict[str, Any]
    gen = torch.Generator().manual_seed(0)
    a = torch.randn(256, 256, generator=gen)
    b = torch.randn(256, 256, generator=gen)
    x = torch.randn(1, 3, 32, 32, generator=gen)
    w = torch.randn(8, 3, 3, 3, generator=gen)

    def timed(name: str, fn: Callable[[], Any], reference: Any = None) -> None:
        entry = {"ok": False}  # type: Dict[str, Any]
        try:
            sync(torch, device)
            started = time.perf_counter()
            out = fn()
            sync(torch, device)
            entry["seconds"] = round(time.perf_counter() - started, 6)
            if reference is None:
                entry["ok"] = True
            else:
                err = float((out.to("cpu") - reference).abs().max().item())
                # TF32/reduced-precision kernels are fine; garbage, NaN or zeros are not
                tolerance = 1e-2 * max(1.0, float(reference.abs().max().item()))
                entry["max_abs_err"] = err
                entry["ok"] = err <= tolerance
        except Exception as exc:
            entry["error"] = error_text(exc)[:500]
        result[name] = entry

    with torch.no_grad():
        timed("alloc", lambda: torch.ones(1 << 18, device=device))
        timed("matmul", lambda: a.to(device) @ b.to(device), a @ b)
        conv = torch.nn.functional.conv2d
        timed("conv", lambda: conv(x.to(device), w.to(device), padding=1), conv(x, w, padding=1))
    return result


def parse_args(argv: List[str]) -> Any:
    import argparse

    parser = argparse.ArgumentParser(prog="probe_script.py")
    parser.add_argument("--stages", default="", help="comma-separated subset of: " + ",".join(STAGES))
    parser.add_argument("--device-tests", action="store_true", help="also run work on the devices (smoke)")
    parser.add_argument("--limit", action="append", default=[], metavar="STAGE=SECONDS")
    parser.add_argument("--nonce", default="")
    return parser.parse_args(argv)


def select_stages(requested: str, device_tests: bool) -> List[str]:
    wanted = [s.strip() for s in requested.split(",") if s.strip()] if requested else None
    stages = []
    for s in STAGES:
        if wanted is not None and s not in wanted:
            continue
        if s in DEVICE_TEST_STAGES and not device_tests:
            continue
        stages.append(s)
    if any(s in TORCH_STAGES for s in stages) and "import_torch" not in stages:
        stages.append("import_torch")
    if "devices" in stages or "smoke" in stages:  # they use what accel_init found
        stages.append("accel_init")
    return [s for s in STAGES if s in set(stages)]


def parse_faults(text: str) -> Dict[str, str]:
    faults = {}
    for item in text.split(","):
        if ":" in item:
            kind, stage = item.split(":", 1)
            faults[stage.strip()] = kind.strip()
    return faults


def main(argv: Optional[List[str]] = None) -> None:
    # Python puts this script's directory first on sys.path; it is not part of the user's environment
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or os.curdir) == here:
        del sys.path[0]
    args = parse_args(sys.argv[1:] if argv is None else argv)
    channel = Channel()
    guard_lifetime()
    dump_stacks_on_sigterm()
    limits = parse_limits(args.limit, DEFAULT_LIMITS)
    probe = Probe(channel, parse_faults(os.environ.get(FAULT_ENV, "")))
    probe.run(select_stages(args.stages, args.device_tests), limits, args.nonce)
    with contextlib.suppress(Exception):
        sys.stderr.flush()
    # skip interpreter teardown: torch/driver atexit handlers can hang, and everything has been reported
    os._exit(0)


if __name__ == "__main__":
    main()
