"""Read a gpuassist JSON report written on another machine, validating it with one-line errors."""

from __future__ import annotations

import json
from typing import Any

from gpuassist.findings import Severity
from gpuassist.ingest.text import UnreadableInput
from gpuassist.report.model import SCHEMA, SCHEMA_PREFIX, Report

SEVERITIES = {s.value for s in Severity}


def looks_like_json(text: str) -> bool:
    return text.lstrip().startswith(("{", "["))


def parse_report(text: str) -> Report:
    try:
        data = json.loads(text)
    except RecursionError:
        raise UnreadableInput("the JSON is nested too deeply to be a gpuassist report") from None
    except ValueError as exc:
        raise UnreadableInput(f"the input is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise UnreadableInput(f"the JSON is a {type(data).__name__}, not a gpuassist report object")
    schema = data.get("schema")
    if not isinstance(schema, str) or not schema.startswith(SCHEMA_PREFIX):
        raise UnreadableInput(f"the JSON is not a gpuassist report (no \"schema\": \"{SCHEMA}\")")
    if schema != SCHEMA:
        raise UnreadableInput(f"the report uses schema {schema}; this gpuassist reads {SCHEMA} (upgrade gpuassist)")
    _validate(data)
    try:
        return Report.from_json(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise UnreadableInput(f"the report is malformed ({type(exc).__name__}: {exc})") from None


def _validate(data: dict[str, Any]) -> None:
    for key, kind in (("facts", dict), ("findings", list), ("steps", list), ("monitor", dict), ("meta", dict)):
        if key in data and not isinstance(data[key], kind):
            raise UnreadableInput(f"the report is malformed: \"{key}\" must be a {kind.__name__}")
    if "findings" not in data or "facts" not in data:
        raise UnreadableInput("the report is malformed: it has no \"facts\" or no \"findings\"")
    for i, f in enumerate(data["findings"]):
        if not isinstance(f, dict) or not isinstance(f.get("id"), str):
            raise UnreadableInput(f"the report is malformed: findings[{i}] has no id")
        if f.get("severity") not in SEVERITIES:
            raise UnreadableInput(
                f"the report is malformed: findings[{i}].severity {f.get('severity')!r} is not one of "
                + "/".join(sorted(SEVERITIES))
            )
        ev = f.get("evidence", [])
        if not isinstance(ev, list) or any(not isinstance(e, dict) or "fact" not in e for e in ev):
            raise UnreadableInput(f"the report is malformed: findings[{i}].evidence must be a list of {{fact, value}}")
