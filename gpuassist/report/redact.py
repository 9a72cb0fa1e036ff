"""Keep secrets and personal data out of reports (docs/architecture.md §6).

Always applied, whatever the user chooses:
- environment variables outside the allow-list are dropped (the collector already keeps only those;
  this is the second lock on the door, because imported reports and scenarios pass through here too);
- credentials inside URLs (``https://user:token@host``, whatever characters the password holds) are
  stripped, and so are tokens in URL paths and queries: Anaconda's ``/t/<token>/``, Gemfury's
  ``pypi.fury.io/<token>/``, ``?token=…``; in the package-index variables (``PIP_INDEX_URL`` …) every path
  segment of a private index that is not a plain index word (``simple``, ``whl``, ``cu124`` …) too;
- ``name=value`` / ``name: value`` where the name says key, token, secret, password, auth or credential
  (``WANDB_API_KEY=…``, ``password=…``), ``Bearer …`` / ``Basic …`` credentials and JSON Web Tokens;
- well-known token shapes (GitHub, Hugging Face, AWS, OpenAI, Slack, GitLab) are masked;
- GPU UUIDs and serial numbers are dropped.
Applied by default (``personal=False`` turns it off, ``--no-redact``): the home directory (as given and as
its real path behind symbolic links: ``/home/bob`` → ``/gpfs/u/bob``) becomes ``~``, the user name becomes
``<user>`` wherever it is a path component (``/scratch/alice/…``), and the host name ``<host>``;
``meta.node`` (the node's name) becomes its stable pseudonym (:mod:`gpuassist.report.node`).

What no rule can catch: a secret that looks like ordinary text where nothing marks it as one, e.g. a
directory named after a token (``/data/3f9a…/train.py``) or a password passed as a bare positional argument.

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
# name=value / name: value where the name ends in a secret word (bounded, so linear on any input)
SECRET_ASSIGNMENT = re.compile(
    r"(?i)((?:key|token|secret|passw(?:or)?d|pwd|auth|credentials?|api_?key|access_?key)s?)"
    r"(?![A-Za-z0-9])([\"']?\s{0,3}[=:]\s{0,3}[\"']?)(?![\"'<\s])([^\s\"'&,;<>]{1,4096})"
)
AUTH_SCHEME = re.compile(r"(?i)\b(Bearer|Basic|Token)(\s{1,3})(?!<)([A-Za-z0-9._~+/=-]{8,4096})")
# A run of URL-safe characters: JWTs are recognised within such runs, found once each (linear).
_WORDISH = re.compile(r"[A-Za-z0-9_.\-]+")
ANACONDA_TOKEN = re.compile(r"(anaconda\.(?:org|com)(?::\d+)?/t/)([^/\s\"'<>]{1,4096})")
FURY_TOKEN = re.compile(r"((?:pypi|repo|npm-proxy|gem)\.fury\.io/)([^/\s\"'<>]{1,4096})")
INDEX_VARS = frozenset({"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "UV_INDEX_URL", "UV_EXTRA_INDEX_URL"})
PUBLIC_INDEX_HOSTS = frozenset(
    {
        "pypi.org",
        "files.pythonhosted.org",
        "download.pytorch.org",
        "pypi.nvidia.com",
        "pypi.ngc.nvidia.com",
        "conda.anaconda.org",
        "repo.anaconda.com",
        "data.pyg.org",
        "test.pypi.org",
    }
)
INDEX_WORDS = re.compile(
    r"(?i)simple|whl|wheels?|packages?|pypi|index|nightly|test|stable|repository|api|v\d+|"
    r"(?:cu|rocm|cpu|xpu)[\d.]*|torch\w*|latest|main|public|\d+(?:\.\d+)*"
)
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
        out = self._secrets(out)
        for label, pattern in TOKEN_PATTERNS:
            out, n = pattern.subn(f"<{label}>", out)
            self.counts[label] += n
        out, n = GPU_UUID.subn(lambda m: f"{m.group(1)}-<redacted>", out)
        self.counts["GPU UUIDs"] += n
        if self.personal:
            out = self._personal(out)
        return out

    def _secrets(self, s: str) -> str:
        """Tokens in URL paths and queries, ``name=value`` secrets, ``Bearer`` credentials, JWTs."""
        for label, pattern in (("URL path tokens", ANACONDA_TOKEN), ("URL path tokens", FURY_TOKEN)):
            s, n = pattern.subn(lambda m: f"{m.group(1)}<redacted>", s)
            self.counts[label] += n
        s, n = SECRET_ASSIGNMENT.subn(lambda m: f"{m.group(1)}{m.group(2)}<redacted>", s)
        self.counts["key=value secrets"] += n
        s, n = AUTH_SCHEME.subn(lambda m: f"{m.group(1)}{m.group(2)}<redacted>", s)
        self.counts["authorization headers"] += n
        if "eyJ" in s:
            before = s.count("<jwt>")
            s = _WORDISH.sub(self._jwt, s)
            self.counts["JSON web tokens"] += s.count("<jwt>") - before
        return s

    @staticmethod
    def _jwt(m: re.Match[str]) -> str:
        word = m.group(0)
        start = word.find("eyJ")
        if start < 0:
            return word
        parts = word[start:].split(".")
        if len(parts) >= 3 and all(len(p) >= 4 for p in parts[:2]):
            return word[:start] + "<jwt>"
        return word

    def index_url(self, value: str) -> str:
        """A package-index variable (space-separated URLs): every path segment and query of a private
        index that is not a plain index word is a possible token (``/simple/<token>/``)."""
        words = []
        for word in self.text(value).split(" "):
            scheme, sep, rest = word.partition("://")
            if not sep:
                words.append(word)
                continue
            rest, _, query = rest.partition("?")
            if query:
                self.counts["URL queries"] += 1
            host, _, path = rest.partition("/")
            if host.split(":")[0].lower() not in PUBLIC_INDEX_HOSTS:
                segments = []
                for seg in path.split("/"):
                    keep = not seg or seg == "<redacted>" or INDEX_WORDS.fullmatch(seg)
                    segments.append(seg if keep else "<redacted>")
                    self.counts["URL path tokens"] += not keep
                path = "/".join(segments)
            words.append(
                f"{scheme}{sep}{host}"
                + (f"/{path}" if path or rest.endswith("/") else "")
                + ("?<redacted>" if query else "")
            )
        return " ".join(words)

    def _homes(self) -> list[str]:
        """The home directory as given and as its real path (an HPC home on /gpfs behind /home/bob)."""
        homes = [self.home.rstrip("/\\")]
        try:
            real = os.path.realpath(self.home).rstrip("/\\")
        except (OSError, ValueError):
            real = ""
        if real and real not in homes:
            homes.append(real)
        return sorted((h for h in homes if h and len(h) > 1), key=len, reverse=True)

    def _personal(self, s: str) -> str:
        for home in self._homes():
            if home in s:
                s, n = re.subn(re.escape(home) + r"(?=$|[/\\\s\"':;,)\]])", "~", s)
                self.counts["home directory"] += n
        if self.user and len(self.user) >= 2 and self.user in s:
            # the user name as a whole path component anywhere (/scratch/alice, /gpfs/u/alice, C:\\Users\\alice)
            pat = re.compile(r"(?<=[/\\])" + re.escape(self.user) + r"(?=$|[/\\\s\"':;,)\]])")
            s, n = pat.subn("<user>", s)
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
            if k in INDEX_VARS and isinstance(v, str):
                kept[k] = self.index_url(v)
            elif k in ALLOWED_ENV:
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
    meta["redaction"] = {
        "personal": personal or bool(previous.get("personal")),
        "applied": dict(sorted(applied.items())),
    }
    out["meta"] = meta
    return out
