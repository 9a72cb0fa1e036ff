"""Which node a report describes (``meta.node``), and the stable pseudonym that stands in for its name.

A fleet of reports is only readable when each one names its node, but host names are personal data the
report redacts by default (design §6). So a redacted report keeps a *pseudonym*: ``node-`` and 12 hex
digits of HMAC-SHA256(key, name). The same host gets the same pseudonym on every run and on every node
that computes it (no coordination needed), so merged views and reports from different days line up.

The key is ``$GPUASSIST_NODE_KEY`` when set (a cluster secret: without it nobody can turn a pseudonym
back into a name by hashing guessed names like ``node001``), else a fixed public key, which still keeps
names out of tickets but only hides them from a casual reader. 48 bits keep collisions unlikely even for
100,000 nodes (about 2e-5).

The name itself, first of: ``$GPUASSIST_NODE_NAME`` (a Kubernetes manifest sets it from the pod's
``spec.nodeName``, since a pod's host name is the pod's own), ``$SLURMD_NODENAME`` (the node Slurm ran the
task on), the host name.
"""

from __future__ import annotations

import hashlib
import hmac
import socket
from collections.abc import Callable, Mapping
from typing import Any, TypedDict

NAME_ENV = "GPUASSIST_NODE_NAME"
KEY_ENV = "GPUASSIST_NODE_KEY"
DEFAULT_KEY = b"gpuassist.node/1"
PSEUDONYM_PREFIX = "node-"
MAX_NAME = 255


class NodeInfo(TypedDict):
    name: str
    source: str  # env / slurm / hostname (where the name came from)
    pseudonym: bool  # True: ``name`` is a pseudonym, not the real name
    keyed: bool  # True: the pseudonym was made with a site key ($GPUASSIST_NODE_KEY)


def node_info(env: Mapping[str, str], hostname: Callable[[], str] = socket.gethostname) -> NodeInfo | None:
    """This node's real name and where it came from; None when nothing names it."""
    for var, source in ((NAME_ENV, "env"), ("SLURMD_NODENAME", "slurm")):
        value = (env.get(var) or "").strip()
        if value:
            return {"name": value[:MAX_NAME], "source": source, "pseudonym": False, "keyed": False}
    try:
        name = hostname().strip()
    except OSError:
        return None
    if not name:
        return None
    return {"name": name[:MAX_NAME], "source": "hostname", "pseudonym": False, "keyed": False}


def node_key(env: Mapping[str, str]) -> bytes | None:
    value = env.get(KEY_ENV) or ""
    return value.encode("utf-8") if value else None


def pseudonym(name: str, key: bytes | None = None) -> str:
    """The stable stand-in for ``name``: same name and key, same pseudonym, on any machine."""
    digest = hmac.new(key or DEFAULT_KEY, name.strip().lower().encode("utf-8"), hashlib.sha256).hexdigest()
    return PSEUDONYM_PREFIX + digest[:12]


def redact_node(node: Any, key: bytes | None) -> Any:
    """``meta.node`` with its name replaced by the pseudonym (already pseudonymous or malformed: as is)."""
    if not isinstance(node, dict) or node.get("pseudonym") or not isinstance(node.get("name"), str):
        return node
    return {**node, "name": pseudonym(node["name"], key), "pseudonym": True, "keyed": key is not None}
