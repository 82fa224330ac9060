"""Settings files: the user's, and the project's (which waits for trust where it matters).

- user: `$XDG_CONFIG_HOME/agent-lsp/settings.json` (default `~/.config/agent-lsp/settings.json`);
- project: `.agent-lsp/settings.json` at the workspace root;
- the editor's workspace-folder values (`workspaceSettings` in the agentLsp payload: the
  VS Code extension sends there what `.vscode/settings.json` set): the project's too.

All hold the camelCase keys of `initializationOptions`. Precedence, later winning key by
key: the environment, the user file, the project file, what the face was given (CLI flags;
initializationOptions and the editor's `agentLsp` section), then the editor's
workspace-folder values.

A project's settings come with the repository, so they are read through the allowlist of
policy/project_keys.py: its keys apply at once; every other key waits until the person
trusted the project (policy/trust.py), and the trust question shows each one whole, with
the content hash of every project file it would run; `autoApprove` never comes from a
project. Until then each waiting key is ignored with a log line saying how to trust.
"""

from __future__ import annotations

import json
import os
from functools import partial
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from . import permissions, project_keys, repo_programs, trust
from ..host import Host
from ..mcp import config as mcp_config
from ..sandbox.choices import narrow_sandbox
from ..settings import INVALID, Settings
from ..workspace.textio import read_json_object
from ..workspace.visible import visible
from .trust import PROJECT_DIR

SETTINGS_NAME = "settings.json"
SUBJECT = "settings"
WORKSPACE_SUBJECT = "editor-workspace"
WORKSPACE_WHERE = "the editor's workspace-folder settings"


def user_settings_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "agent-lsp" / SETTINGS_NAME


def project_settings_path(root: Path) -> Path:
    return Path(root) / PROJECT_DIR / SETTINGS_NAME


@dataclass
class SettingsFiles:
    root: Path | None
    user: dict[str, Any] = field(default_factory=dict)
    project: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    rules: permissions.ProjectRules = field(default_factory=permissions.ProjectRules)
    workspace: dict[str, Any] = field(default_factory=dict)  # the editor's workspace-folder values

    def where(self) -> str:
        return str(project_settings_path(self.root)) if self.root else PROJECT_DIR

    def project_part(self) -> project_keys.Split:
        return project_keys.split(self.project, self.where())

    def workspace_part(self) -> project_keys.Split:
        return project_keys.split(self.workspace, WORKSPACE_WHERE)

    @property
    def project_privileged(self) -> dict[str, Any]:
        """The project file's keys that wait for trust, as written."""
        return self.project_part().waiting

    def _fingerprint(self, waiting: dict[str, Any]) -> str:
        return trust.fingerprint({"values": waiting, "programs": repo_programs.programs(self.root, waiting)})

    def subjects(self) -> dict[str, str]:
        """What trusting this project covers: subject -> fingerprint (empty: nothing to trust)."""
        out: dict[str, str] = {}
        if waiting := self.project_privileged:
            out[SUBJECT] = self._fingerprint(waiting)
        if waiting := self.workspace_part().waiting:
            out[WORKSPACE_SUBJECT] = self._fingerprint(waiting)
        return {**out, **permissions.trust_subject(self.rules)}

    def trusted(self) -> bool:
        """Is every privileged part of the project already trusted? (True when there is none.)"""
        if self.root is None:
            return not self.workspace_part().waiting
        return all(trust.is_trusted(self.root, s, fp) for s, fp in self.subjects().items())

    def trust_question(self) -> str:
        """Every waiting value, whole and with its control characters visible, and what it runs."""
        parts = []
        layers = ((self.where(), self.project_privileged), (WORKSPACE_WHERE, self.workspace_part().waiting))
        for where, waiting in layers:
            if not waiting:
                continue
            lines = [f"The project {self.root} has settings that start programs, send your code elsewhere "
                     f"or widen what runs unasked ({where}):"]
            for key, value in waiting.items():
                secret = project_keys.canonical(key) == "apikey"
                shown = "(a key)" if secret else json.dumps(value, ensure_ascii=False)
                lines.append(f"  {visible(str(key))}: {visible(shown)}")
            for rel, digest in repo_programs.programs(self.root, waiting).items():
                lines.append(f"  runs the project's own file {visible(rel)} (sha256 {digest[:12]})")
            parts.append("\n".join(lines))
        if self.rules.allow:
            where = permissions.permissions_path(self.root) if self.root else permissions.PERMISSIONS_NAME
            parts.append(f"The project {self.root} lets commands run without asking ({where}): "
                         + visible(", ".join(self.rules.allow)))
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
    """Settings from env < user file < project file < face < the editor's workspace values.

    The project's values and the editor's workspace values go through the allowlist;
    their waiting keys apply only if `trusted`.
    """
    s = Settings.from_env(env)
    notes = list(files.notes)
    notes += [f"{n} ({user_settings_path()})" for n in s.overlay(files.user)]
    if files.root is not None:
        notes += _layer(s, files.project_part(), trusted, files.where(), files.root)
    notes += s.overlay(face)
    if files.workspace:
        notes += _layer(s, files.workspace_part(), trusted, WORKSPACE_WHERE, files.root)
    return s, notes


def _layer(s: Settings, part: project_keys.Split, trusted: bool, where: str, root: Path | None) -> list[str]:
    """One project-sourced layer: the allowlisted keys always, the waiting ones once trusted."""
    notes = project_keys.apply_untrusted(s, part, where, clamp=partial(narrow_sandbox, invalid=INVALID))
    if trusted:
        waiting = {k: v for k, v in part.waiting_snake().items() if k not in project_keys.NEVER}
        notes += [f"{n} ({where})" for n in s.overlay(waiting)]
        return notes
    narrowing = {project_keys.canonical(n) for n in part.narrowing}
    for key in part.waiting:
        if project_keys.canonical(key) not in narrowing:  # a sandbox key applied where it narrows
            notes.append(f"ignored {key} from {where}: the project is not trusted; "
                         + (trust.how_to_trust(root) if root else "answer yes when the agent asks"))
    return notes


def project_subjects(root: Path) -> dict[str, str]:
    """Everything `agent-lsp trust DIR` grants: each project file's trust subject and fingerprint
    (this file's, the permission rules', and each of the project's MCP servers)."""
    return {**read(root).subjects(), **mcp_config.project_subjects(root)}
