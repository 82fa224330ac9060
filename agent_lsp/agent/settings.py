"""Typed, defaulted settings shared by every face (terminal, language server, tests).

Values come from the environment first, then each face overlays what it was given
(CLI flags, initializationOptions, workspace/configuration). Overlaying ignores keys
it does not know and values of the wrong type, so a partial or empty payload changes
nothing it does not name.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any, Mapping

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
    max_retries: int = 4  # attempts after the first
    request_timeout: float = 300.0  # seconds without a byte from the model
    temperature: float | None = None
    web_tools: bool = False
    max_task_tokens: int = 0  # prompt + completion tokens one task may use; 0: no budget
    # glob -> command line of a language server the agent runs itself for diagnostics
    diagnostic_servers: dict = field(default_factory=dict)
    diagnostics_timeout: float = 3.0  # seconds an edit may wait for the problems it caused
    # name -> {command, args, env} | {type: "http", url, headers}, as in Claude Code's .mcp.json
    mcp_servers: dict = field(default_factory=dict)
    rg_path: str = ""  # an rg to use before any other (the VS Code extension passes VS Code's own)
    mcp_timeout: float = 60.0  # seconds an MCP tool call (or a server's start) may take
    subagent_max_steps: int = 15  # tool rounds of one spawn_agent child

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
        fields = {f.name: f for f in dataclasses.fields(self)}
        for raw_key, value in values.items():
            key = snake_case(str(raw_key))
            if key not in fields or value is None:
                continue
            current = getattr(self, key)
            coerced = coerce_setting(value, current, fields[key].type)
            if key in ("max_retries", "max_task_tokens") and value == 0 and not isinstance(value, bool):
                coerced = 0  # no retries / no budget is a valid choice; other counts must be positive
            if coerced is INVALID:
                notes.append(f"ignored setting {raw_key}={value!r}: wrong type")
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


def snake_case(name: str) -> str:
    out = []
    for ch in name:
        if ch.isupper():
            out.append("_" + ch.lower())
        else:
            out.append(ch)
    return "".join(out).lstrip("_")


def coerce_setting(value: Any, current: Any, annotation: Any) -> Any:
    ann = str(annotation)
    if ann.startswith("dict"):
        return dict(value) if isinstance(value, Mapping) else INVALID
    if "bool" in ann:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false", "1", "0", "yes", "no"):
            return value.lower() in ("true", "1", "yes")
        return INVALID
    if ann.startswith("int"):
        if isinstance(value, bool):
            return INVALID
        if isinstance(value, (int, float)) and value > 0:
            return int(value)
        return INVALID
    if "float" in ann:
        if isinstance(value, bool):
            return INVALID
        if isinstance(value, (int, float)) and value >= 0:
            return float(value)
        return INVALID
    if ann.startswith("str"):
        return value if isinstance(value, str) else INVALID
    return INVALID
