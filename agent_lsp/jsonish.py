"""Between pygls' objects and plain JSON values, for payloads lsprotocol does not type."""

from __future__ import annotations

from typing import Any


def plain(value: Any) -> Any:
    """pygls hands untyped payloads over as namedtuple-like objects: make them dicts and lists."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def jsonable(value: Any) -> Any:
    """Anything an event may carry, reduced to what a JSON notification can hold."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)
