"""Tools as decorated functions: the schema is derived from the signature.

Writing a JSON schema by hand next to each function lets the two drift apart, so
`@tool` builds it: the JSON type comes from the annotation, a parameter without a
default is required, and every parameter must have one help line — a missing one
fails at import, before a model ever sees a broken schema. Registration order is
the order of `TOOLS`, so the tool list is byte-identical on every request (prompt
caching depends on that).
"""

from __future__ import annotations

import inspect
import reprlib
import types
import typing
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

ToolFn = Callable[..., Awaitable[str]]

_JSON_TYPES: dict[Any, str] = {str: "string", int: "integer", bool: "boolean", float: "number"}


@dataclass(frozen=True)
class Tool:
    name: str
    fn: ToolFn
    schema: dict[str, Any]
    params: dict[str, inspect.Parameter]
    read_only: bool
    gated: bool
    optional_group: str | None  # e.g. "web": only offered when that group is enabled
    # Tools from elsewhere (MCP servers) have a schema but no Python signature: they check
    # their own arguments and say what a person is asked to approve.
    check: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    describe: Callable[[dict[str, Any]], str] | None = None

    @property
    def required(self) -> list[str]:
        return list(self.schema["function"]["parameters"]["required"])


TOOLS: dict[str, Tool] = {}


def _json_type(annotation: Any) -> tuple[dict[str, Any], bool]:
    """Schema for an annotation, and whether None is allowed."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) != 1:
            raise TypeError(f"unsupported union annotation {annotation!r}")
        schema, _ = _json_type(args[0])
        return schema, True
    if origin is list:
        (item,) = typing.get_args(annotation) or (str,)
        item_schema = {"type": "object"} if item is dict or typing.get_origin(item) is dict else _json_type(item)[0]
        return {"type": "array", "items": item_schema}, False
    if annotation in _JSON_TYPES:
        return {"type": _JSON_TYPES[annotation]}, False
    raise TypeError(f"unsupported annotation {annotation!r}")


def tool(
    description: str,
    *,
    read_only: bool = False,
    gated: bool = False,
    group: str | None = None,
    schemas: dict[str, dict[str, Any]] | None = None,
    **help_lines: str,
) -> Callable[[ToolFn], ToolFn]:
    """Register an async tool `fn(ctx, **params) -> str`.

    `schemas` overrides the derived schema of a parameter (for nested structures like
    the todo list); the help line is still required.
    """

    def register(fn: ToolFn) -> ToolFn:
        if not inspect.iscoroutinefunction(fn):
            raise TypeError(f"tool {fn.__name__} must be async")
        hints = typing.get_type_hints(fn)
        sig = inspect.signature(fn)
        params = list(sig.parameters.values())[1:]  # the first one is the ToolContext
        properties: dict[str, Any] = {}
        required: list[str] = []
        for p in params:
            if p.name not in help_lines:
                raise KeyError(f"tool {fn.__name__}: parameter {p.name!r} has no help line")
            if schemas and p.name in schemas:
                prop = dict(schemas[p.name])
            else:
                prop, _nullable = _json_type(hints[p.name])
            prop["description"] = help_lines[p.name]
            properties[p.name] = prop
            if p.default is inspect.Parameter.empty:
                required.append(p.name)
        extra = set(help_lines) - {p.name for p in params}
        if extra:
            raise KeyError(f"tool {fn.__name__}: help for unknown parameters {sorted(extra)}")
        if fn.__name__ in TOOLS:
            raise KeyError(f"tool {fn.__name__} registered twice")
        schema = {
            "type": "function",
            "function": {
                "name": fn.__name__,
                "description": description,
                "parameters": {"type": "object", "properties": properties, "required": required},
            },
        }
        TOOLS[fn.__name__] = Tool(
            name=fn.__name__,
            fn=fn,
            schema=schema,
            params={p.name: p for p in params},
            read_only=read_only,
            gated=gated,
            optional_group=group,
        )
        return fn

    return register


def check_arguments(t: Tool, args: dict[str, Any]) -> dict[str, Any]:
    """Validate and coerce arguments against the schema; raise ValueError with a model-facing message."""
    if t.check is not None:
        return t.check(args)
    unexpected = sorted(set(args) - set(t.params))
    if unexpected:
        raise ValueError(
            f"error: unexpected parameter(s) {', '.join(unexpected)} for {t.name}; "
            f"it takes: {', '.join(t.params) or 'no parameters'}"
        )
    missing = [n for n in t.required if n not in args]
    if missing:
        raise ValueError(f"error: missing required parameter(s) {', '.join(missing)} for {t.name}")
    out: dict[str, Any] = {}
    props = t.schema["function"]["parameters"]["properties"]
    for name, value in args.items():
        out[name] = _coerce(t.name, name, value, props[name], t.params[name])
    return out


def _coerce(tool_name: str, name: str, value: Any, prop: dict[str, Any], param: inspect.Parameter) -> Any:
    kind = prop.get("type")
    if value is None and param.default is not inspect.Parameter.empty:
        return param.default
    bad = _BadArgument(tool_name, name, kind, value)
    if kind == "string":
        if isinstance(value, str):
            return value
        raise bad
    if kind == "integer":
        if isinstance(value, bool):
            raise bad
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            return int(value.strip())
        raise bad
    if kind == "number":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return value
        raise bad
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        raise bad
    if kind == "array":
        if isinstance(value, list):
            return value
        raise bad
    return value


class _BadArgument(ValueError):
    """The message is written only when raised: most values are fine, and some are megabytes."""

    def __init__(self, tool_name: str, name: str, kind: str | None, value: Any) -> None:
        self.parts = (tool_name, name, kind, value)

    def __str__(self) -> str:
        tool_name, name, kind, value = self.parts
        return f"error: parameter {name} of {tool_name} must be {_article(kind)}, got {type(value).__name__} {_short(value)}"


def _article(kind: str | None) -> str:
    return {"integer": "an integer", "array": "an array"}.get(kind or "", f"a {kind}")


def _short(value: Any) -> str:
    text = reprlib.repr(value)  # bounded: repr() of a 3 MB write_file content took ~0.1 s
    return text if len(text) <= 40 else text[:37] + "..."
