"""env: the allow-list and credential stripping (docs/architecture.md §6: never a secret in a report)."""

from __future__ import annotations

import re

import pytest

import hostdata
from gpuassist.collect import env as env_collector
from gpuassist.collect.env import ALLOWED_ENV, allowed_env, strip_url_credentials

PLANTED = {
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE",
    "HF_TOKEN": "hf_abcdefghijklmnopqrstuvwxyz",
    "GITHUB_TOKEN": "ghp_0123456789abcdef",
    "DB_PASSWORD": "hunter2",
    "HOME": "/home/alice",
    "PIP_INDEX_URL": "https://alice:tok3n@pypi.corp.example/simple",
    "PIP_EXTRA_INDEX_URL": "https://download.pytorch.org/whl/cu124 https://bob:pw@mirror.example:8443/simple/",
    "CUDA_VISIBLE_DEVICES": "",
    "LD_LIBRARY_PATH": "/usr/local/cuda/lib64",
}


def test_only_allow_listed_names_with_credentials_stripped() -> None:
    kept = allowed_env(PLANTED)
    assert kept == {
        "CUDA_VISIBLE_DEVICES": "",  # empty is a value that matters (hides every GPU)
        "LD_LIBRARY_PATH": "/usr/local/cuda/lib64",
        "PIP_EXTRA_INDEX_URL": "https://download.pytorch.org/whl/cu124 https://mirror.example:8443/simple/",
        "PIP_INDEX_URL": "https://pypi.corp.example/simple",
    }
    dumped = repr(kept)
    for secret in ("tok3n", "pw@", "hunter2", "hf_", "wJalr", "AKIA", "ghp_", "alice", "bob"):
        assert secret not in dumped


def test_recorded_workstation_env() -> None:
    facts = hostdata.run(env_collector.collect, hostdata.ctx("workstation-rtx4090"))
    assert facts["env"]["PIP_INDEX_URL"] == "https://pypi.example.com/simple"
    assert "HF_TOKEN" not in facts["env"] and "AWS_SECRET_ACCESS_KEY" not in facts["env"]
    assert "HOME" not in facts["env"] and "USER" not in facts["env"]
    assert facts["env"]["CUDA_VISIBLE_DEVICES"] == "0"


def test_allow_list_has_no_secret_looking_name() -> None:
    assert not [n for n in ALLOWED_ENV if re.search(r"TOKEN|SECRET|PASSWORD|KEY", n)]


def test_secret_looking_name_is_dropped_even_if_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(env_collector, "ALLOWED_ENV", ALLOWED_ENV | {"PIP_API_TOKEN"})
    assert env_collector.allowed_env({"PIP_API_TOKEN": "x", "PATH": "/bin"}) == {"PATH": "/bin"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("https://alice:tok@host/simple", "https://host/simple"),
        ("https://tok@host/simple", "https://host/simple"),
        ("https://user:p@ss@host:8080/simple?x=1#f", "https://host:8080/simple?x=1#f"),
        (
            "git+https://oauth2:glpat-xyz@gitlab.example/grp/repo.git@v1.0",
            "git+https://gitlab.example/grp/repo.git@v1.0",
        ),
        ("https://a:b@one/simple https://c:d@two/simple", "https://one/simple https://two/simple"),
        ("--extra-index-url=https://u:p@h/simple", "--extra-index-url=https://h/simple"),
        (
            "Looking in indexes: https://u:p@h/simple, https://pypi.org/simple",
            "Looking in indexes: https://h/simple, https://pypi.org/simple",
        ),
        ("https://pypi.org/simple", "https://pypi.org/simple"),
        ("https://npm.example/@scope/pkg", "https://npm.example/@scope/pkg"),
        ("mail alice@example.com", "mail alice@example.com"),
        ("https://u:p@[::1/x", "https://[::1/x"),  # malformed IPv6: still stripped
        ("", ""),
    ],
)
def test_strip_url_credentials(text: str, expected: str) -> None:
    assert strip_url_credentials(text) == expected
