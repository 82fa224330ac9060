"""Which settings a project may set before it is trusted: an allowlist, not a blocklist.

A project's settings (`.agent-lsp/settings.json`, and values an editor read from the
workspace folder, e.g. VS Code's `.vscode/settings.json`) come with `git clone`. Before
the person trusts the project, only the keys in UNTRUSTED apply: each of them can at
most make the agent do less, stop sooner or ask more; none starts a program, sends
code or keys elsewhere, or lets anything run unasked. Every other key waits for trust
(`rgPath`, `baseUrl`, `apiKey`, `webTools`, `diagnosticServers`, `mcpServers`, any key
added later), and the trust question shows each of them whole. `autoApprove` and
`allowMetadataWrites` (NEVER) never come from a project, trusted or not: approving is
the person's own choice. The sandbox settings (NARROW_ONLY) apply untrusted only where
they narrow what the person's own settings allow; a widening waits for trust.

Keys are matched however they are spelled (`autoApprove`, `auto_approve`,
`AUTO-APPROVE`, `AutoApprove`): the comparison drops case and separators, so no
spelling slips past the list while another part of the code still understands it.
Values are type-checked before they apply; `${VAR}` is never expanded here (a waiting
value is shown as written).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from ..settings import INVALID, Settings, coerce_setting, setting_kinds

# snake_case keys a project may set untrusted, with the type each must have
UNTRUSTED: dict[str, type | tuple[type, ...]] = {
    "model": str,
    "max_steps": int,
    "max_task_tokens": int,
    "command_timeout": (int, float),
    "context_window": int,
    "compact_share": (int, float),
    "max_retries": int,
    "request_timeout": (int, float),
    "temperature": (int, float),
    "stream": bool,
    "diagnostics_timeout": (int, float),
    "mcp_timeout": (int, float),
    "subagent_max_steps": int,
    # the language server's own options (server/config.py)
    "detach_commands": bool,
    "edit_confirm_timeout": (int, float),
    "show_answer": bool,
    "review": str,
}
NEVER = frozenset({"auto_approve", "allow_metadata_writes"})
NARROW_ONLY = frozenset({"sandbox", "sandbox_network", "sandbox_writable", "sandbox_env"})
# Keys that are known but wait for trust are everything else a Settings (or a face) knows.
KNOWN_EXTRA = frozenset({"detach_commands", "edit_confirm_timeout", "show_answer", "review"})
SANDBOX_RANK = {"off": 0, "workspace-write": 1, "read-only": 2}


def canonical(key: str) -> str:
    """A key's spelling-free form: `autoApprove`, `auto_approve`, `AUTO-APPROVE` -> `autoapprove`."""
    return re.sub(r"[^a-z0-9]", "", str(key).lower())


def known_names() -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(Settings)) | KNOWN_EXTRA | NEVER | NARROW_ONLY


def _by_canonical() -> dict[str, str]:
    return {canonical(n): n for n in known_names()}


@dataclass
class Split:
    """A project's settings, sorted by what they may do before trust."""

    applies: dict[str, Any] = field(default_factory=dict)  # snake_case -> value: apply now
    waiting: dict[str, Any] = field(default_factory=dict)  # key as written -> value: after trust
    never: dict[str, Any] = field(default_factory=dict)  # key as written -> value: ignored always
    narrowing: dict[str, Any] = field(default_factory=dict)  # snake_case -> value: sandbox settings
    notes: list[str] = field(default_factory=list)

    def waiting_snake(self) -> dict[str, Any]:
        """The waiting keys under the names Settings knows (for applying them after trust)."""
        names = _by_canonical()
        return {names[canonical(k)]: v for k, v in self.waiting.items() if canonical(k) in names}


def _type_ok(value: Any, want: type | tuple[type, ...]) -> bool:
    wants = want if isinstance(want, tuple) else (want,)
    if isinstance(value, bool):
        return bool in wants
    return isinstance(value, wants)


def split(values: Mapping[str, Any] | None, where: str) -> Split:
    """Sort a project's keys: the allowlisted (type-checked), the waiting, the never-from-a-project."""
    out = Split()
    names = _by_canonical()
    for raw_key, value in (values or {}).items():
        key = str(raw_key)
        name = names.get(canonical(key))
        if value is None:
            continue
        if name is None:
            continue  # unknown: nothing reads it (a later version's key is judged by that version)
        if name in NEVER:
            out.never[key] = value
            out.notes.append(f"ignored {key} from {where}: it is never taken from a project's settings "
                             "(set it in your own settings or with a flag)")
        elif name in NARROW_ONLY:
            out.narrowing[name] = value  # applies at once where it narrows ...
            out.waiting[key] = value  # ... and as written once trusted
        elif name in UNTRUSTED:
            if _type_ok(value, UNTRUSTED[name]):
                out.applies[name] = value
            else:
                out.notes.append(f"ignored setting {key}={value!r} from {where}: wrong type")
        else:
            out.waiting[key] = value
    return out


Clamp = Callable[[str, Any, Any], Any]


def narrow_only(name: str, current: Any, value: Any) -> Any:
    """The project's sandbox value if it narrows `current` (the person's), else INVALID.

    (The sandbox module may supply its own clamp with the same signature.)
    """
    if name == "sandbox":
        if isinstance(value, str) and value in SANDBOX_RANK and SANDBOX_RANK[value] >= SANDBOX_RANK.get(str(current), 1):
            return value
        return INVALID
    if name == "sandbox_network":
        return False if value is False else INVALID
    if name == "sandbox_writable":
        have = set(current or [])
        if isinstance(value, list) and all(isinstance(v, str) for v in value) and set(value) <= have:
            return list(value)
        return INVALID
    return INVALID


def apply_untrusted(settings: Settings, part: Split, where: str, clamp: Clamp = narrow_only) -> list[str]:
    """Overlay the allowlisted keys, and the sandbox keys that narrow, onto `settings`; notes for the rest."""
    notes = list(part.notes)
    kinds = setting_kinds(type(settings))
    for name, value in part.applies.items():
        if name not in kinds:
            continue  # a face option: the face applies it (server/config.py)
        coerced = coerce_setting(value, *kinds[name])
        if coerced is INVALID:
            notes.append(f"ignored setting {name}={value!r} from {where}: wrong type")
        else:
            setattr(settings, name, coerced)
    for name, value in part.narrowing.items():
        current = getattr(settings, name, None)
        narrowed = clamp(name, current, value)
        if narrowed is not INVALID and hasattr(settings, name):
            setattr(settings, name, narrowed)
    return notes
