"""Project trust: what a cloned repository may make the agent do before a person says so.

A project file (`.agent-lsp/settings.json`, `.mcp.json`, `.agent-lsp/permissions.json`)
arrives with `git clone`, so whoever wrote it is not the person running the agent. The
parts of it that start programs or send code elsewhere take effect only after the
person trusted them. Trust is kept per project folder and per *subject* (for example
`settings` or `mcp:git`), together with a fingerprint of exactly what was trusted:
when the file changes, the fingerprint no longer matches and the person is asked again.

The record lives in the state dir (`$XDG_STATE_HOME/agent-lsp/trust.json`), never in the
repository, so a repository cannot trust itself.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

from ..workspace.textio import write_text_atomic
from ..state import state_dir

TRUST_FILE = "trust.json"
# The folder a repository carries agent-lsp files in (settings, rules): they came with the clone.
PROJECT_DIR = ".agent-lsp"


def fingerprint(value: Any) -> str:
    """A stable hash of a JSON value: key order and whitespace do not matter."""
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _store_path() -> Path:
    return state_dir() / TRUST_FILE


def _key(root: Path) -> str:
    return str(Path(root).resolve())


def _load() -> dict[str, Any]:
    try:
        data = json.loads(_store_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def is_trusted(root: Path, subject: str, fp: str) -> bool:
    entry = _load().get(_key(root), {})
    granted = entry.get(subject) if isinstance(entry, dict) else None
    return isinstance(granted, dict) and granted.get("fingerprint") == fp


def grant(root: Path, subjects: dict[str, str]) -> None:
    """Trust each subject -> fingerprint for the project at `root` (the rest stay as they were)."""
    data = _load()
    entry = data.get(_key(root))
    if not isinstance(entry, dict):
        entry = {}
    now = time.strftime("%Y-%m-%dT%H:%M:%S")
    for subject, fp in subjects.items():
        entry[subject] = {"fingerprint": fp, "granted": now}
    data[_key(root)] = entry
    write_text_atomic(_store_path(), json.dumps(data, indent=1, sort_keys=True) + "\n")


def how_to_trust(root: Path) -> str:
    return f"run `agent-lsp trust {root}` (or answer yes when the agent asks) to trust this project"
