"""Settings files: the user's, and the project's (which waits for trust where it matters).

- user: `$XDG_CONFIG_HOME/agent-lsp/settings.json` (default `~/.config/agent-lsp/settings.json`);
- project: `.agent-lsp/settings.json` at the workspace root.

Both hold the camelCase keys of `initializationOptions`. Precedence, later winning key by
key: the environment, the user file, the project file, then what the face was given
(CLI flags; initializationOptions and the editor's `agentLsp` section).

A project file comes with the repository, so from it the keys that start programs or
send code elsewhere (PRIVILEGED) apply only once the person trusted the project
(agent/trust.py); until then each is ignored with a log line saying how to trust. Every
other key (maxSteps, commandTimeout, ...) applies at once: it can only make the agent
do less, or ask more.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from . import permissions, trust
from .host import Host
from .settings import Settings, snake_case

PROJECT_DIR = ".agent-lsp"
SETTINGS_NAME = "settings.json"
SUBJECT = "settings"
# keys (snake_case) a project file may set only after trust
PRIVILEGED = frozenset({"diagnostic_servers", "mcp_servers", "base_url", "api_key"})


def user_settings_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "agent-lsp" / SETTINGS_NAME


def project_settings_path(root: Path) -> Path:
    return Path(root) / PROJECT_DIR / SETTINGS_NAME


def read_json_object(path: Path) -> tuple[dict[str, Any], str | None]:
    """The file's object, or {} and a note saying why it was not used (a missing file is no note)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError) as e:
        return {}, f"cannot read {path}: {type(e).__name__}"
    try:
        value = json.loads(text)
    except ValueError as e:
        return {}, f"ignored {path}: not valid JSON ({e})"
    if not isinstance(value, dict):
        return {}, f"ignored {path}: it must hold a JSON object"
    return value, None


@dataclass
class SettingsFiles:
    root: Path | None
    user: dict[str, Any] = field(default_factory=dict)
    project: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    rules: permissions.ProjectRules = field(default_factory=permissions.ProjectRules)

    @property
    def project_privileged(self) -> dict[str, Any]:
        return {k: v for k, v in self.project.items() if snake_case(str(k)) in PRIVILEGED}

    def subjects(self) -> dict[str, str]:
        """What trusting this project covers: subject -> fingerprint (empty: nothing to trust)."""
        privileged = self.project_privileged
        return {**({SUBJECT: trust.fingerprint(privileged)} if privileged else {}), **permissions.trust_subject(self.rules)}

    def trusted(self) -> bool:
        """Is every privileged part of the project file already trusted? (True when there is none.)"""
        if self.root is None:
            return True
        return all(trust.is_trusted(self.root, s, fp) for s, fp in self.subjects().items())

    def trust_question(self) -> str:
        parts = []
        if self.project_privileged:
            lines = [f"The project {self.root} has settings that start programs or send your code elsewhere "
                     f"({project_settings_path(self.root) if self.root else PROJECT_DIR}):"]
            for key, value in self.project_privileged.items():
                shown = "(a key)" if snake_case(str(key)) == "api_key" else json.dumps(value, ensure_ascii=False)
                lines.append(f"  {key}: {shown[:300]}")
            parts.append("\n".join(lines))
        if self.rules.allow:
            where = permissions.permissions_path(self.root) if self.root else permissions.PERMISSIONS_NAME
            parts.append(f"The project {self.root} lets commands run without asking ({where}): "
                         + ", ".join(self.rules.allow)[:600])
        return "\n".join(parts + ["Trust this project and use them?"])


def read(root: Path | None) -> SettingsFiles:
    files = SettingsFiles(root)
    files.user, note = read_json_object(user_settings_path())
    if note:
        files.notes.append(note)
    if root is not None:
        files.project, note = read_json_object(project_settings_path(root))
        if note:
            files.notes.append(note)
        files.rules = permissions.read_rules(root)
        if files.rules.note:
            files.notes.append(files.rules.note)
    return files


async def ensure_trusted(host: Host, files: SettingsFiles) -> bool:
    """Trusted already, or asked now (once: a yes is remembered). Never granted silently."""
    if files.trusted():
        return True
    assert files.root is not None
    if await host.trust_project(files.root, files.trust_question()):
        trust.grant(files.root, files.subjects())
        return True
    return False


def compose(files: SettingsFiles, trusted: bool, face: Mapping[str, Any] | None = None,
            env: Mapping[str, str] | None = None) -> tuple[Settings, list[str]]:
    """Settings from env < user file < project file (privileged keys only if trusted) < face."""
    s = Settings.from_env(env)
    notes = list(files.notes)
    notes += [f"{n} ({user_settings_path()})" for n in s.overlay(files.user)]
    project = dict(files.project)
    if not trusted:
        for key in files.project_privileged:
            project.pop(key)
            notes.append(f"ignored {key} from {project_settings_path(files.root)}: the project is not trusted; "
                         + trust.how_to_trust(files.root))
    if files.root is not None:
        notes += [f"{n} ({project_settings_path(files.root)})" for n in s.overlay(project)]
    notes += s.overlay(face)
    return s, notes


def project_subjects(root: Path) -> dict[str, str]:
    """Everything `agent-lsp trust DIR` grants: each project file's trust subject and fingerprint.

    Other project files that start programs (MCP servers, permission rules) add their
    subjects here, so one `trust` covers the whole project as it is now.
    """
    from . import mcp_config  # (it reads settings files itself)

    return {**read(root).subjects(), **mcp_config.project_subjects(root)}
