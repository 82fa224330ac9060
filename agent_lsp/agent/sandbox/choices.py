"""The four sandbox settings, checked for type, and the rule that a project file may only narrow them.

`sandbox` ("workspace-write" | "read-only" | "off"), `sandboxNetwork` (bool),
`sandboxWritable` (extra writable paths) and `sandboxEnv` (names of variables that look
like credentials but may reach commands). They are parsed here, not by the generic
settings overlay, because two of them are lists and because a project file (which comes
with a cloned repository) must never widen them: it can make the sandbox stricter, never
turn it off, add network, add writable paths or let more secrets through. Only a project
the person trusts may set them freely.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any, Mapping

MODES = ("workspace-write", "read-only", "off")
# how strict each mode is: a project may move only up this scale
STRICTNESS = {"off": 0, "workspace-write": 1, "read-only": 2}
KEYS = {"sandbox": "mode", "sandboxnetwork": "network", "sandboxwritable": "writable", "sandboxenv": "env"}


@dataclass(frozen=True)
class SandboxConfig:
    """What the person chose; turned into a concrete Policy for one set of workspace roots."""

    mode: str = "workspace-write"
    network: bool = False
    writable: tuple[str, ...] = ()
    env: tuple[str, ...] = ()


def key_name(raw: str) -> str:
    """`sandboxNetwork`, `sandbox_network`, `SANDBOX-NETWORK` all name one setting."""
    return "".join(ch for ch in str(raw).lower() if ch.isalnum())


def _strings(value: Any) -> tuple[str, ...] | None:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and v for v in value):
        return None
    return tuple(value)


def parse_value(field: str, value: Any) -> Any:
    """The checked value for one field, or None when it has the wrong type or is unknown."""
    if field == "mode":
        return value if isinstance(value, str) and value in MODES else None
    if field == "network":
        return value if isinstance(value, bool) else None
    if field in ("writable", "env"):
        return _strings(value)
    return None


def overlay(config: SandboxConfig, values: Mapping[str, Any] | None) -> tuple[SandboxConfig, list[str]]:
    """Apply the sandbox keys found in `values` (any spelling); a note per rejected value."""
    notes: list[str] = []
    for raw, value in (values or {}).items():
        field = KEYS.get(key_name(raw))
        if field is None or value is None:
            continue
        checked = parse_value(field, value)
        if checked is None:
            notes.append(f"ignored setting {raw}={value!r}: {_expected(field)}")
            continue
        config = replace(config, **{field: checked})
    return config, notes


def _expected(field: str) -> str:
    return {
        "mode": 'expected one of "workspace-write", "read-only", "off"',
        "network": "expected true or false",
        "writable": "expected a list of paths",
        "env": "expected a list of variable names",
    }[field]


def _within(path: str, allowed: tuple[str, ...]) -> bool:
    p = os.path.realpath(os.path.expanduser(path))
    for a in allowed:
        base = os.path.realpath(os.path.expanduser(a))
        if p == base or p.startswith(base.rstrip(os.sep) + os.sep):
            return True
    return False


def clamp_project(user: SandboxConfig, project: Mapping[str, Any] | None, *,
                  trusted: bool) -> tuple[SandboxConfig, list[str]]:
    """The user's config with a project file's sandbox keys applied, narrowing only unless trusted.

    Untrusted, a project may choose a stricter mode, turn network off, keep a subset of the
    user's writable paths (or paths inside them) and pass fewer variables. Everything wider
    is dropped with a note naming it, so the person can see what the repository asked for.
    """
    if trusted:
        return overlay(user, project)
    wanted, notes = overlay(SandboxConfig(mode=user.mode, network=user.network), project)
    present = {KEYS[k] for k in (key_name(r) for r in (project or {})) if k in KEYS}
    out = user
    if "mode" in present and wanted.mode != user.mode:
        if STRICTNESS[wanted.mode] > STRICTNESS[user.mode]:
            out = replace(out, mode=wanted.mode)
        else:
            notes.append(f'ignored the project\'s sandbox "{wanted.mode}": an untrusted project can only narrow the sandbox')
    if "network" in present and wanted.network != user.network:
        if not wanted.network:
            out = replace(out, network=False)
        else:
            notes.append("ignored the project's sandboxNetwork true: an untrusted project cannot turn the network on")
    if "writable" in present:
        kept = tuple(p for p in wanted.writable if _within(p, user.writable))
        dropped = [p for p in wanted.writable if p not in kept]
        if dropped:
            notes.append(f"ignored the project's sandboxWritable {', '.join(dropped)}: an untrusted project "
                         "cannot add writable paths")
        out = replace(out, writable=kept)
    if "env" in present:
        allowed = set(user.env)
        kept_env = tuple(v for v in wanted.env if v in allowed)
        dropped_env = [v for v in wanted.env if v not in allowed]
        if dropped_env:
            notes.append(f"ignored the project's sandboxEnv {', '.join(dropped_env)}: an untrusted project "
                         "cannot pass more variables")
        out = replace(out, env=kept_env)
    return out, notes


def from_settings(settings: Any) -> SandboxConfig:
    """The config held by a Settings object (its fields sandbox, sandbox_network, ...).

    Read by attribute so this package never imports the settings module (which imports
    nothing of ours either): the engine's Settings stays the one place values live.
    """
    raw = {"sandbox": getattr(settings, "sandbox", "workspace-write"),
           "sandboxNetwork": getattr(settings, "sandbox_network", False),
           "sandboxWritable": list(getattr(settings, "sandbox_writable", None) or []),
           "sandboxEnv": list(getattr(settings, "sandbox_env", None) or [])}
    config, _ = overlay(SandboxConfig(), {k: v for k, v in raw.items() if v != []})
    return config


FIELDS = {"sandbox": "sandbox", "sandbox_network": "sandboxNetwork", "sandbox_writable": "sandboxWritable",
          "sandbox_env": "sandboxEnv"}


def narrow_sandbox(name: str, current: Any, value: Any, *, invalid: Any) -> Any:
    """policy/project_keys' clamp: an untrusted project's value for one Settings field
    (`sandbox`, `sandbox_network`, ...) if it only narrows `current` (the person's), else `invalid`.

    `sandboxWritable` keeps the project's paths that lie inside the person's (a subfolder
    of an allowed path narrows it too); `sandboxEnv` keeps the names the person passes.
    (`invalid` is the settings module's INVALID, passed in: this package imports no settings.)"""
    key = FIELDS.get(name)
    if key is None:
        return invalid
    field = KEYS[key_name(key)]
    user = replace(SandboxConfig(), **{field: _as_config_value(field, current)})
    narrowed, notes = clamp_project(user, {key: value}, trusted=False)
    if notes:
        return invalid
    got = getattr(narrowed, field)
    return list(got) if isinstance(got, tuple) else got


def _as_config_value(field: str, current: Any) -> Any:
    if field in ("writable", "env"):
        return tuple(current or ())
    if field == "mode":
        return current if current in MODES else "workspace-write"
    return bool(current)
