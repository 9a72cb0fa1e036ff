"""Log records pasted as JSON, read back as the log lines they carry.

A user who pastes ``journalctl -k -o json`` (or ``-o json-pretty``), a container's log file under the Docker
``json-file`` driver (``{"log": "...", "stream": "stderr", "time": "..."}``), ``kubectl get events -o json``
or a cloud logging export pastes the same messages as a plain log, each inside a record. A text that starts
with ``{`` or ``[`` would otherwise be taken for a gpuassist report and refused; its messages are what the
readers need. Only records are unwrapped: any other JSON (a report, a config) is left to the report reader.
"""

from __future__ import annotations

import json
from typing import Any

# The field that holds the message, per producer: journald's export (MESSAGE, with SYSLOG_IDENTIFIER naming the
# program: "kernel" for dmesg lines), Docker's json-file driver (log), Kubernetes events and most structured
# loggers (message, msg), Google Cloud Logging's export (textPayload).
MESSAGE_KEYS = ("MESSAGE", "log", "message", "msg", "textPayload")
# Lists of records: kubectl's "items", a logging export's top-level array.
LIST_KEYS = ("items", "entries", "records")
MAX_RECORDS = 20_000


def _message(record: dict[str, Any]) -> str | None:
    for key in MESSAGE_KEYS:
        value = record.get(key)
        if isinstance(value, list) and value and all(isinstance(b, int) and 0 <= b < 256 for b in value):
            value = bytes(value).decode("utf-8", "replace")  # journald exports a non-UTF-8 MESSAGE as a byte array
        if isinstance(value, str):
            ident = record.get("SYSLOG_IDENTIFIER")
            # journald's own short format prints "<identifier>: <message>" ("kernel: NVRM: ..."), which the
            # kernel and unit readers know; other producers' messages stand alone
            prefix = f"{ident}: " if key == "MESSAGE" and isinstance(ident, str) and ident else ""
            return prefix + value.rstrip("\n")
    payload = record.get("jsonPayload")
    if isinstance(payload, dict):
        return _message(payload)
    return None


def _records(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, list):
        return [item for item in value if isinstance(item, dict)]
    if isinstance(value, dict):
        for key in LIST_KEYS:
            if isinstance(value.get(key), list):
                return _records(value[key])
        return [value]
    return []


def _values(text: str) -> list[Any] | None:
    """Every JSON value in the text, one after another (JSON lines, or pretty-printed objects back to back);
    None when something between them is not JSON."""
    decoder = json.JSONDecoder()
    values: list[Any] = []
    at = 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at == len(text):
            return values
        if len(values) >= MAX_RECORDS:
            return None
        try:
            value, at = decoder.raw_decode(text, at)
        except (ValueError, RecursionError):
            return None
        values.append(value)


def log_lines(text: str) -> str | None:
    """The records' messages as a plain log, one line per record (a message's own line breaks kept), or None
    when the JSON is not a list of log records (a gpuassist report, any other document)."""
    values = _values(text)
    if not values:
        return None
    records = [record for value in values for record in _records(value)]
    if not records or any(str(record.get("schema", "")).startswith("gpuassist.") for record in records):
        return None
    messages = [_message(record) for record in records]
    if any(message is None for message in messages):
        return None  # not every value is a log record: some other document
    return "".join(f"{message}\n" for message in messages if message)
