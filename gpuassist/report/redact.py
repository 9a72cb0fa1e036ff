"""Keep secrets and personal data out of reports (docs/architecture.md §6).

Always applied, whatever the user chooses:
- environment variables outside the allow-list are dropped (the collector already keeps only those;
  this is the second lock on the door, because imported reports and scenarios pass through here too);
- credentials inside URLs (``https://user:token@host``) are stripped;
- well-known token shapes (GitHub, Hugging Face, AWS, OpenAI, Slack, GitLab) are masked;
- GPU UUIDs and serial numbers are dropped.
Applied by default (``personal=False`` turns it off, ``--no-redact``): the home directory becomes ``~``,
the user name ``<user>`` and the host name ``<host>``; ``meta.node`` (the node's name) becomes
its stable pseudonym (:mod:`gpuassist.report.node`).

What was redacted (categories and counts, never the values) is recorded in ``meta.redaction``.
"""

from __future__ import annotations

import getpass
import os
import re
import socket
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from gpuassist.collect.env import ALLOWED_ENV, strip_url_credentials
from gpuassist.report.node import node_key, redact_node

TOKEN_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("github token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{8,}|github_pat_[A-Za-z0-9_]{20,})")),
    ("hugging face token", re.compile(r"\bhf_[A-Za-z0-9]{8,}")),
    ("aws access key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("api key", re.compile(r"\bsk-(?:proj-)?[A-Za-z0-9_-]{16,}")),
    ("slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("gitlab token", re.compile(r"\bglpat-[A-Za-z0-9_-]{16,}")),
]
GPU_UUID = re.compile(r"\b(GPU|MIG)-[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}(?:/\d+/\d+)?\b")
DROPPED_KEYS = {"uuid", "serial", "board_serial"}


@dataclass
class Redactor:
    personal: bool = True
    home: str = field(default_factory=lambda: os.path.expanduser("~"))
    user: str = field(default_factory=lambda: _safe(getpass.getuser))
    host: str = field(default_factory=lambda: _safe(socket.gethostname))
    counts: Counter[str] = field(default_factory=Counter)

    def text(self, s: str) -> str:
        out = strip_url_credentials(s)
        if out != s:
            self.counts["credentials in URLs"] += 1
        for label, pattern in TOKEN_PATTERNS:
            out, n = pattern.subn(f"<{label}>", out)
            self.counts[label] += n
        out, n = GPU_UUID.subn(lambda m: f"{m.group(1)}-<redacted>", out)
        self.counts["GPU UUIDs"] += n
        if self.personal:
            out = self._personal(out)
        return out

    def _personal(self, s: str) -> str:
        home = self.home.rstrip("/\\")
        if home and len(home) > 1 and home in s:
            self.counts["home directory"] += s.count(home)
            s = re.sub(re.escape(home) + r"(?=$|[/\\\s\"':;,)\]])", "~", s)
        if self.user and len(self.user) >= 2:
            pat = re.compile(r"([/\\](?:home|Users)[/\\])" + re.escape(self.user) + r"(?=$|[/\\\s])")
            s, n = pat.subn(r"\1<user>", s)
            self.counts["user name"] += n
        if self.host and len(self.host) >= 3:
            s, n = re.subn(r"(?<![\w.-])" + re.escape(self.host) + r"(?![\w-])", "<host>", s)
            self.counts["host name"] += n
        return s

    def value(self, v: Any, key: str = "") -> Any:
        if isinstance(v, str):
            return self.text(v)
        if isinstance(v, dict):
            out = {}
            for k, item in v.items():
                if k in DROPPED_KEYS and not isinstance(item, dict):
                    self.counts["GPU UUIDs and serials"] += 1
                    continue
                out[self.text(k) if self.personal else k] = self.value(item, k)
            return out
        if isinstance(v, list):
            return [self.value(x, key) for x in v]
        return v

    def env(self, env: Any) -> Any:
        if not isinstance(env, dict):
            return self.value(env)
        kept = {}
        for k, v in env.items():
            if k in ALLOWED_ENV:
                kept[k] = self.value(v)
            elif not k.startswith("$"):
                self.counts["environment variables outside the allow-list"] += 1
            else:
                kept[k] = v
        return kept


def _safe(fn: Any) -> str:
    try:
        return str(fn())
    except Exception:
        return ""


def redact_report(data: dict[str, Any], *, personal: bool = True, redactor: Redactor | None = None) -> dict[str, Any]:
    """A redacted copy of a report's JSON form; ``meta.redaction`` says what was removed."""
    r = redactor or Redactor(personal=personal)
    r.personal = personal
    facts = dict(data.get("facts") or {})
    if "env" in facts:
        facts["env"] = r.env(facts["env"])
    out = {
        **data,
        "facts": {k: (v if k == "env" else r.value(v, k)) for k, v in facts.items()},
        "findings": r.value(data.get("findings") or []),
        "steps": r.value(data.get("steps") or []),
        "monitor": r.value(data.get("monitor") or {}),
    }
    raw_meta = dict(data.get("meta") or {})
    node = raw_meta.pop("node", None)
    meta = r.value({k: v for k, v in raw_meta.items() if k != "redaction"})
    if node is not None:  # a pseudonym, not "<host>": a fleet of reports must still tell its nodes apart
        meta["node"] = redact_node(node, node_key(os.environ)) if personal else node
    previous = (data.get("meta") or {}).get("redaction") or {}
    applied = Counter({str(k): int(v) for k, v in (previous.get("applied") or {}).items()})
    applied.update({k: n for k, n in r.counts.items() if n})
    meta["redaction"] = {"personal": personal or bool(previous.get("personal")),
                         "applied": dict(sorted(applied.items()))}
    out["meta"] = meta
    return out
