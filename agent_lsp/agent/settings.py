"""Typed, defaulted settings shared by every face (terminal, language server, tests).

Values come from the environment first, then each face overlays what it was given
(CLI flags, initializationOptions, workspace/configuration). Overlaying ignores keys
it does not know and values of the wrong type, so a partial or empty payload changes
nothing it does not name.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Mapping

from .sandbox.choices import MODES

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "gpt-4o-mini"


@dataclass
class Settings:
    base_url: str = DEFAULT_BASE_URL
    api_key: str = field(default="", repr=False)  # never printed, logged or stored
    model: str = DEFAULT_MODEL
    max_steps: int = 50
    command_timeout: float = 60.0
    auto_approve: bool = False
    stream: bool = True
    context_window: int = 128_000  # tokens
    compact_share: float = 0.75
    max_retries: int = field(default=4, metadata={"zero_ok": True})  # attempts after the first (0: none)
    request_timeout: float = 300.0  # seconds without a byte from the model
    temperature: float | None = None
    web_tools: bool = False
    max_task_tokens: int = field(default=0, metadata={"zero_ok": True})  # prompt + completion tokens one task may use; 0: no budget
    # glob -> command line of a language server the agent runs itself for diagnostics
    diagnostic_servers: dict = field(default_factory=dict)
    diagnostics_timeout: float = 3.0  # seconds an edit may wait for the problems it caused
    # name -> {command, args, env} | {type: "http", url, headers}, as in Claude Code's .mcp.json
    mcp_servers: dict = field(default_factory=dict)
    rg_path: str = ""  # an rg to use before any other (the VS Code extension passes VS Code's own)
    mcp_timeout: float = 60.0  # seconds an MCP tool call (or a server's start) may take
    subagent_max_steps: int = 15  # tool rounds of one spawn_agent child
    # the OS sandbox every command runs in (agent/sandbox/; README, Security model)
    sandbox: str = "workspace-write"  # | "read-only" | "off"
    sandbox_network: bool = False  # commands may use the network (the host's, loopback included)
    sandbox_writable: list[str] = field(default_factory=list)  # more writable paths (absolute)
    sandbox_env: list[str] = field(default_factory=list)  # variables passed although they look like credentials
    # may write_file/edit_file change .git/ and .agent-lsp/? (never from a project file)
    allow_metadata_writes: bool = False

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Settings":
        """Defaults plus the AGENT_* variables (the base every other source overlays)."""
        env = os.environ if env is None else env
        s = cls()
        s.base_url = env.get("AGENT_BASE_URL") or DEFAULT_BASE_URL
        s.api_key = env.get("AGENT_API_KEY") or env.get("OPENAI_API_KEY") or ""
        s.model = env.get("AGENT_MODEL") or DEFAULT_MODEL
        return s

    def overlay(self, values: Mapping[str, Any] | None) -> list[str]:
        """Apply known keys (camelCase or snake_case); return a note per ignored value."""
        notes: list[str] = []
        if not values:
            return notes
        kinds = setting_kinds(type(self))
        for raw_key, value in values.items():
            key = snake_case(str(raw_key))
            if key not in kinds or value is None:
                continue
            coerced = coerce_setting(value, *kinds[key])
            if coerced is INVALID:
                notes.append(f"ignored setting {raw_key}={value!r}: wrong type")
                continue
            if key in CHOICES and coerced not in CHOICES[key]:
                shown = ", ".join(f'"{c}"' for c in CHOICES[key])
                notes.append(f"ignored setting {raw_key}={value!r}: expected one of {shown}")
                continue
            setattr(self, key, coerced)
        return notes

    def scrub(self, text: str) -> str:
        """Remove the API key from text that may reach a person, the model or a file."""
        key = self.api_key
        return text.replace(key, "[redacted]") if key and len(key) >= 4 else text

    def public(self) -> dict[str, Any]:
        """The settings as they may be shown to a person: the key reduced to set/unset."""
        d = dataclasses.asdict(self)
        d["api_key"] = "(set)" if self.api_key else "(unset)"
        return d


INVALID = object()
CHOICES = {"sandbox": MODES}  # string settings with a fixed set of values


def snake_case(name: str) -> str:
    out = []
    for ch in name:
        if ch.isupper():
            out.append("_" + ch.lower())
        else:
            out.append(ch)
    return "".join(out).lstrip("_")


@functools.cache
def setting_kinds(cls: type) -> dict[str, tuple[type, bool]]:
    """Each field of a settings dataclass: its value type (None stripped) and whether 0 is a valid count."""
    hints = typing.get_type_hints(cls)
    out: dict[str, tuple[type, bool]] = {}
    for f in dataclasses.fields(cls):
        ann = hints[f.name]
        if typing.get_origin(ann) in (typing.Union, types.UnionType):
            ann = next(a for a in typing.get_args(ann) if a is not type(None))
        out[f.name] = (typing.get_origin(ann) or ann, bool(f.metadata.get("zero_ok")))
    return out


def coerce_setting(value: Any, kind: type, zero_ok: bool = False) -> Any:
    """`value` as a `kind`, or INVALID. Counts must be positive (0 too where `zero_ok`), times not negative."""
    if kind is dict:
        return dict(value) if isinstance(value, Mapping) else INVALID
    if kind is list:  # lists of names or paths: every item a non-empty string
        ok = isinstance(value, (list, tuple)) and all(isinstance(v, str) and v for v in value)
        return list(value) if ok else INVALID
    if kind is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false", "1", "0", "yes", "no"):
            return value.lower() in ("true", "1", "yes")
        return INVALID
    if isinstance(value, bool):  # True is an int to Python, never a count or a time to a person
        return INVALID
    if kind is int:
        if isinstance(value, (int, float)) and (value > 0 or (zero_ok and value == 0)):
            return int(value)
        return INVALID
    if kind is float:
        if isinstance(value, (int, float)) and value >= 0:
            return float(value)
        return INVALID
    if kind is str:
        return value if isinstance(value, str) else INVALID
    return INVALID
