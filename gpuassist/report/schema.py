"""The shape of a ``gpuassist.report/1`` document, checked before a reopened report is used.

A report written on another machine (or edited, truncated, fuzzed) may hold anything JSON can: a list where
a severity belongs, a number where the GPU list belongs, nesting hundreds deep. Everything that reads a
report (the renderers, the collect_env layout, the redactor, the app's pages) trusts the shapes checked here,
so a malformed report is refused in one line ("cannot read", exit 2) instead of failing halfway through.

Facts are an open set (new keys are added freely, docs/facts.md); the ones whose *shape* something relies
on are listed in :data:`FACT_KINDS`. Any fact may be ``null`` or ``{"$not_collected": reason}``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

MAX_DEPTH = 40  # a real report nests about 8 deep
MAX_NODES = 2_000_000

Check = Callable[[Any], bool]


def _is_str(v: Any) -> bool:
    return isinstance(v, str)


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _is_bool(v: Any) -> bool:
    return isinstance(v, bool)


def _is_dict(v: Any) -> bool:
    return isinstance(v, dict)


def _list_of(check: Check) -> Check:
    return lambda v: isinstance(v, list) and all(check(x) for x in v)


def _str_map(v: Any) -> bool:
    return isinstance(v, dict) and all(isinstance(k, str) and (x is None or isinstance(x, str)) for k, x in v.items())


def _scalar(v: Any) -> bool:
    return v is None or isinstance(v, (str, int, float, bool))


LIST_OF_DICTS = _list_of(_is_dict)
LIST_OF_STR = _list_of(_is_str)
KIND_NAMES: dict[Check, str] = {
    _is_str: "text",
    _is_num: "a number",
    _is_bool: "true/false",
    _is_dict: "an object",
    LIST_OF_DICTS: "a list of objects",
    LIST_OF_STR: "a list of texts",
    _str_map: "an object of texts",
    _scalar: "a plain value",
}

FACT_KINDS: dict[str, Check] = {
    **dict.fromkeys(
        (
            "nvml.gpus",
            "devices",
            "torch.dists",
            "dev.nodes",
            "driver.userspace_libs",
            "pci.display_devices",
            "torch.conda_packages",
            "smoke",
            "envs.inventory",
            "envs.kernels",
            "placement.checks",
            "placement.devices",
            "sweep.trials",
            "bandwidth.rows",
        ),
        LIST_OF_DICTS,
    ),
    **dict.fromkeys(
        (
            "cuda.init_warnings",
            "driver.cuda_compat_libs",
            "driver.userspace_versions",
            "kernel.modules",
            "kernel.nouveau_blacklisted_by",
            "libs.loaded",
            "platform.wsl_libcuda",
            "python.sys_path",
            "scheduler.gpus",
            "torch.arch_list",
            "torch.import_warnings",
            "envs.notes",
        ),
        LIST_OF_STR,
    ),
    **dict.fromkeys(
        (
            "torch.backends",
            "envs.script",
            "placement.default_device",
            "run.exception",
            "run.stop",
            "run.command",
            "run.snapshot",
            "run.torch",
            "sweep.config",
            "sweep.search",
        ),
        _is_dict,
    ),
    **dict.fromkeys(
        (
            "host.os",
            "host.kernel",
            "host.distro",
            "host.machine",
            "host.cpu_model",
            "python.machine",
            "python.version",
            "python.platform",
            "python.implementation",
            "python.executable",
            "torch.version",
            "torch.cuda_build",
            "torch.hip_build",
            "torch.conda_build",
            "driver.version",
            "probe.outcome",
            "run.outcome",
            "run.fault_traceback",
            "run.stderr_tail",
            "run.signal",
            "run.failed_stage",
            "sweep.dataloader_line",
            "nvml.status",
        ),
        _is_str,
    ),
    **dict.fromkeys(("cuda.available", "mps.available", "xpu.available", "placement.cuda_available"), _scalar),
    **dict.fromkeys(("envs.seconds", "host.cpu_count", "host.ram_bytes", "cuda.device_count"), _is_num),
    "env": _str_map,
}
# Every runtime test's stage table (probe.stages, placement.stages, run.stages ...).
SUFFIX_KINDS: dict[str, Check] = {".stages": LIST_OF_DICTS}

FINDING_TEXT = ("title", "explanation", "fix", "step")
STEP_TEXT = ("id", "title", "status", "question", "note")
META_TEXT = ("generated_at", "gpuassist_version", "source", "source_label", "scenario", "target", "reopened_from")


class SchemaError(ValueError):
    """The document is not a well-formed report; the message names the first place that is wrong."""


def check_depth(value: Any, limit: int = MAX_DEPTH) -> None:
    """Refuse nesting deeper than ``limit`` (iteratively: the check itself cannot overflow the stack)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    nodes = 0
    while stack:
        item, depth = stack.pop()
        nodes += 1
        if depth > limit:
            raise SchemaError(f"it is nested more than {limit} levels deep")
        if nodes > MAX_NODES:
            raise SchemaError("it holds too many values to be a report")
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)


def _fact_ok(key: str, value: Any) -> Check | None:
    """None when ``value`` is fine for fact ``key``, else the check it failed."""
    if value is None or (isinstance(value, dict) and set(value) == {"$not_collected"}):
        return None
    check = FACT_KINDS.get(key) or next((c for suffix, c in SUFFIX_KINDS.items() if key.endswith(suffix)), None)
    if check is None or check(value):
        return None
    return check


def _kind_of(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "text", bool: "true/false", type(None): "null"}.get(
        type(value), "a number" if _is_num(value) else type(value).__name__
    )


def validate(data: Mapping[str, Any], severities: set[str]) -> None:
    """Raise SchemaError at the first thing a reader of the report could not use."""
    check_depth(data)
    for key, kind in (("facts", dict), ("findings", list), ("steps", list), ("monitor", dict), ("meta", dict)):
        if key in data and not isinstance(data[key], kind):
            raise SchemaError(f'"{key}" must be {"an object" if kind is dict else "a list"}')
    if "findings" not in data or "facts" not in data:
        raise SchemaError('it has no "facts" or no "findings"')
    for key, value in data["facts"].items():
        failed = _fact_ok(key, value)
        if failed is not None:
            raise SchemaError(f"facts.{key} must be {KIND_NAMES.get(failed, 'another kind')}, not {_kind_of(value)}")
    for i, f in enumerate(data["findings"]):
        _finding(i, f, severities)
    for i, s in enumerate(data.get("steps") or []):
        if not isinstance(s, dict):
            raise SchemaError(f"steps[{i}] must be an object")
        for name in STEP_TEXT:
            if s.get(name) is not None and not isinstance(s[name], str):
                raise SchemaError(f"steps[{i}].{name} must be text")
        if not LIST_OF_STR(s.get("findings", [])):
            raise SchemaError(f"steps[{i}].findings must be a list of finding ids")
    _meta(data.get("meta") or {})


def _finding(i: int, f: Any, severities: set[str]) -> None:
    if not isinstance(f, dict) or not isinstance(f.get("id"), str):
        raise SchemaError(f"findings[{i}] has no id")
    severity = f.get("severity")
    if not isinstance(severity, str) or severity not in severities:
        raise SchemaError(f"findings[{i}].severity {severity!r} is not one of " + "/".join(sorted(severities)))
    for name in FINDING_TEXT:
        if f.get(name) is not None and not isinstance(f[name], str):
            raise SchemaError(f"findings[{i}].{name} must be text")
    ev = f.get("evidence", [])
    if not isinstance(ev, list) or any(not isinstance(e, dict) or not isinstance(e.get("fact"), str) for e in ev):
        raise SchemaError(f"findings[{i}].evidence must be a list of {{fact, value}}")
    if not LIST_OF_STR(f.get("explains", [])):
        raise SchemaError(f"findings[{i}].explains must be a list of finding ids")


def _meta(meta: Mapping[str, Any]) -> None:
    for name in META_TEXT:
        if meta.get(name) is not None and not isinstance(meta[name], str):
            raise SchemaError(f"meta.{name} must be text")
    if "simulated" in meta and not isinstance(meta["simulated"], (bool, type(None))):
        raise SchemaError("meta.simulated must be true/false")
    if meta.get("missing_facts") is not None and not LIST_OF_STR(meta["missing_facts"]):
        raise SchemaError("meta.missing_facts must be a list of texts")
    if meta.get("plots") is not None and not isinstance(meta["plots"], list):
        raise SchemaError("meta.plots must be a list")
    redaction = meta.get("redaction")
    if redaction is not None:
        applied = redaction.get("applied", {}) if isinstance(redaction, dict) else None
        if not isinstance(applied, dict) or not all(
            isinstance(k, str) and _is_num(n) and not isinstance(n, float) for k, n in applied.items()
        ):
            raise SchemaError('meta.redaction must be {"personal": true/false, "applied": {what: count}}')
