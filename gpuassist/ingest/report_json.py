"""Read a gpuassist JSON report written on another machine, validating it with one-line errors."""

from __future__ import annotations

import json

from gpuassist.findings import Severity
from gpuassist.ingest.text import UnreadableInput
from gpuassist.report.model import SCHEMA, SCHEMA_PREFIX, Report
from gpuassist.report.schema import SchemaError, validate

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
        raise UnreadableInput(f'the JSON is not a gpuassist report (no "schema": "{SCHEMA}")')
    if schema != SCHEMA:
        raise UnreadableInput(f"the report uses schema {schema}; this gpuassist reads {SCHEMA} (upgrade gpuassist)")
    try:
        validate(data, SEVERITIES)
    except SchemaError as exc:
        raise UnreadableInput(f"the report is malformed: {exc}") from None
    try:
        return Report.from_json(data)
    except (KeyError, TypeError, ValueError, RecursionError) as exc:
        raise UnreadableInput(f"the report is malformed ({type(exc).__name__}: {exc})") from None
