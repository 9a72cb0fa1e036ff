"""Environment variables that decide whether torch finds the GPU (``env``), and nothing else.

An allow-list, never a deny-list (docs/architecture.md §6): a report goes into support tickets, and a variable not on
this list is not read into the facts at all. Values are kept with credentials stripped from any URL in
them (``PIP_INDEX_URL=https://alice:tok@host/simple`` → ``https://host/simple``);
:func:`strip_url_credentials` is shared with the report redactor.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from gpuassist.collect.base import HostContext

KEYS = ("env",)

ALLOWED_ENV: frozenset[str] = frozenset(
    {
        "CUDA_VISIBLE_DEVICES",
        "NVIDIA_VISIBLE_DEVICES",
        "NVIDIA_DRIVER_CAPABILITIES",
        "HIP_VISIBLE_DEVICES",
        "ROCR_VISIBLE_DEVICES",
        "HSA_OVERRIDE_GFX_VERSION",
        "LD_LIBRARY_PATH",
        "LD_PRELOAD",
        "PATH",
        "CONDA_PREFIX",
        "CONDA_DEFAULT_ENV",
        "VIRTUAL_ENV",
        "PYTHONPATH",
        "PYTHONNOUSERSITE",
        "PYTHONHOME",
        "CUDA_HOME",
        "CUDA_PATH",
        "CUDA_MODULE_LOADING",
        "CUDA_LAUNCH_BLOCKING",
        "PYTORCH_CUDA_ALLOC_CONF",
        "PYTORCH_MPS_HIGH_WATERMARK_RATIO",
        "TORCH_CUDA_ARCH_LIST",
        "PIP_INDEX_URL",
        "PIP_EXTRA_INDEX_URL",
        "PIP_FIND_LINKS",
        "UV_INDEX_URL",
        "UV_EXTRA_INDEX_URL",
        "SLURM_JOB_ID",
        "SLURM_JOB_GPUS",
        "SLURM_STEP_GPUS",
        "KUBERNETES_SERVICE_HOST",
        "WSL_DISTRO_NAME",
        "DISPLAY",
        "WAYLAND_DISPLAY",
    }
)
# Second lock: even if someone adds such a name to the list above, it is not collected.
_SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|KEY|CREDENTIAL|AUTH", re.IGNORECASE)
# A URL starts where a scheme starts, not inside a longer word (that would rescan the word from every letter).
_URL = re.compile(r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]{0,30}://[^\s\"'<>]+")
_USERINFO = re.compile(r"(//)[^/@\s]*@")


def collect(ctx: HostContext, out: dict[str, Any]) -> None:
    out["env"] = allowed_env(ctx.env)


def allowed_env(env: Mapping[str, str]) -> dict[str, str]:
    return {
        name: strip_url_credentials(str(env[name]))
        for name in sorted(ALLOWED_ENV)
        if name in env and not _SECRET_NAME.search(name)
    }


def strip_url_credentials(text: str) -> str:
    """Remove ``user:password@`` from every URL in ``text`` (space-separated lists, prose, tracebacks),
    whatever the password holds (``#``, ``/``, ``@``, ``?``: unescaped, they make :func:`urlsplit` see
    a fragment or a path where the password is)."""
    if "@" not in text:
        return text
    return _URL.sub(lambda m: _strip_one(m.group(0)), text)


def _strip_one(url: str) -> str:
    scheme, sep, rest = url.partition("://")
    at = rest.rfind("@")
    if at < 0:
        return url
    netloc_end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    in_netloc = rest.rfind("@", 0, netloc_end)
    if in_netloc >= 0:
        # the ordinary case: userinfo ends at the last "@" before the path ("p@ss" included), and an "@"
        # further on is the path's own (repo.git@v1.0)
        at = in_netloc
    userinfo = rest[:at]
    if ":" in userinfo or not any(c in userinfo for c in "/?#"):
        return f"{scheme}{sep}{rest[at + 1 :]}"  # user:password@ (any characters), or a bare token@
    try:  # an "@" in the path (pkg@1.0): only a userinfo before the first "/" counts
        parts = urlsplit(url)
        if "@" not in parts.netloc:
            return url
        host = parts.netloc.rpartition("@")[2]
        return urlunsplit(parts._replace(netloc=host))
    except ValueError:  # e.g. a bad IPv6 literal: fall back to cutting the userinfo textually
        return _USERINFO.sub(r"\1", url, count=1)
