"""Facts: everything gpuassist knows about a machine, as one flat, JSON-able mapping.

Keys are dotted names (``driver.version``, ``torch.cuda_build``, ``nvml.gpus``); values are plain JSON
data. A fact that could not be gathered is not an exception and not a missing key: it is a
:class:`NotCollected` value that carries the reason, so rules can tell "no driver" (``None``) apart from
"could not look" and a report can say *why* a fact is missing (the collect_env idea: "could not collect"
is a value, rendered only at print time).

The keys themselves are documented in ``docs/facts.md``; rules cite them as evidence, so they are part of
the report contract and must stay stable.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

NOT_COLLECTED_TAG = "$not_collected"


@dataclass(frozen=True)
class NotCollected:
    """A fact gpuassist tried to gather and could not; ``reason`` says why (one line)."""

    reason: str

    def __bool__(self) -> bool:  # a missing fact is never "true"
        return False

    def __str__(self) -> str:
        return f"could not collect ({self.reason})"

    def to_json(self) -> dict[str, str]:
        return {NOT_COLLECTED_TAG: self.reason}


def is_known(value: Any) -> bool:
    """True when ``value`` is an actual observation (``None`` counts: it means "looked, found nothing")."""
    return not isinstance(value, NotCollected)


def to_jsonable(value: Any) -> Any:
    """Turn facts (with NotCollected inside) into plain JSON data."""
    if isinstance(value, NotCollected):
        return value.to_json()
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    return value


def from_jsonable(value: Any) -> Any:
    """Inverse of :func:`to_jsonable`."""
    if isinstance(value, dict):
        if len(value) == 1 and NOT_COLLECTED_TAG in value:
            return NotCollected(str(value[NOT_COLLECTED_TAG]))
        return {k: from_jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_jsonable(v) for v in value]
    return value


class Facts(Mapping[str, Any]):
    """Read-mostly mapping of fact key → value, with helpers rules need.

    ``facts[key]`` raises KeyError for a key nobody tried to collect; ``facts.get(key)`` returns a
    :class:`NotCollected` for it instead, which is what rules almost always want.
    """

    def __init__(self, data: Mapping[str, Any] | None = None) -> None:
        self._data: dict[str, Any] = dict(data or {})

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def get(self, key: str, default: Any = None) -> Any:
        if key in self._data:
            return self._data[key]
        return default if default is not None else NotCollected("not gathered in this run")

    def known(self, key: str) -> bool:
        return key in self._data and is_known(self._data[key])

    def value(self, key: str, default: Any = None) -> Any:
        """The observed value, or ``default`` when the fact is missing or could not be collected."""
        v = self._data.get(key, default)
        return default if isinstance(v, NotCollected) else v

    def set(self, key: str, value: Any) -> None:
        self._data[key] = value

    def update(self, other: Mapping[str, Any]) -> None:
        self._data.update(other)

    def with_prefix(self, prefix: str) -> dict[str, Any]:
        return {k: v for k, v in self._data.items() if k.startswith(prefix)}

    def to_json(self) -> dict[str, Any]:
        return {k: to_jsonable(v) for k, v in sorted(self._data.items())}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Facts:
        return cls({str(k): from_jsonable(v) for k, v in data.items()})

    def __repr__(self) -> str:
        return f"Facts({len(self._data)} keys)"
