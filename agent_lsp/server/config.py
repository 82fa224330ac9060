"""Server configuration: engine Settings plus what only an editor face needs.

Sources, later ones winning key by key: the environment, the settings files (user,
then the project's, whose privileged keys wait for trust: agent/policy/settings_files.py),
`initializationOptions`, then the `agentLsp` section from
`workspace/didChangeConfiguration` or `workspace/configuration`. A payload that names nothing (eglot sends
`{settings: {}}` right after connecting) changes nothing; a value of the wrong type
is ignored with a note in the log instead of breaking the server. The payload's
`workspaceSettings` object holds values the editor read from the workspace folder (they
came with the repository): they go through the project allowlist and wait for trust.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Mapping

from ..agent.settings import INVALID, Settings, coerce_setting, setting_kinds, snake_case
from ..agent.policy.settings_files import SettingsFiles, compose
from ..jsonish import plain

SECTION = "agentLsp"
# values the editor read from the workspace folder (they came with the repository): the
# VS Code extension sends them apart, and they go through the project allowlist and trust
WORKSPACE_KEY = "workspaceSettings"


@dataclass
class ServerOptions:
    # Commands answer at once with {status: "started"}; progress and showMessage carry the rest.
    # For clients that run executeCommand synchronously with a short timeout (eglot).
    detach_commands: bool = False
    # How long to wait for the editor's didChange after it says an edit was applied.
    edit_confirm_timeout: float = 3.0
    # Show the final answer with window/showMessage.
    show_answer: bool = True
    # How a person reviews an edit: "preview" (the client shows needsConfirmation edits),
    # "inline" (pending edits as diagnostics with Accept/Reject code actions), or "auto":
    # inline when the client lacks workspace.workspaceEdit.changeAnnotationSupport.
    review: str = "auto"
    # Seconds to wait for the editor's answer to a question, an edit or agentLsp/askUser:
    # after it the person is told the editor did not answer and the step counts as a no.
    answer_timeout: float = 300.0


CHOICES = {"review": ("auto", "inline", "preview")}


@dataclass
class ServerConfig:
    settings: Settings = field(default_factory=Settings.from_env)
    options: ServerOptions = field(default_factory=ServerOptions)
    # what the editor sent (initializationOptions, then its agentLsp section), merged key by key
    editor: dict[str, Any] = field(default_factory=dict)
    files: SettingsFiles = field(default_factory=lambda: SettingsFiles(None))
    trusted: bool = False
    workspace: dict[str, Any] = field(default_factory=dict)  # the editor's workspace-folder values

    def use_files(self, files: SettingsFiles, trusted: bool) -> list[str]:
        """Put the settings files under the editor's values (a task's workspace root is known now)."""
        files.workspace = dict(self.workspace)
        self.files, self.trusted = files, trusted
        return self._recompose()

    def _recompose(self) -> list[str]:
        # In place: the running session and its model client hold this very object.
        new, notes = compose(self.files, self.trusted, self.editor)
        for f in dataclasses.fields(Settings):
            setattr(self.settings, f.name, getattr(new, f.name))
        return notes

    def update(self, payload: Any) -> list[str]:
        """Overlay a settings payload; accepts the bare keys or a {agentLsp: {...}} wrapper."""
        values = dict(_section(payload))
        if not values:
            return []
        notes: list[str] = []
        if WORKSPACE_KEY in values:
            from_repo = plain(values.pop(WORKSPACE_KEY))
            if isinstance(from_repo, Mapping) or from_repo is None:
                self.workspace = dict(from_repo or {})
                self.files.workspace = dict(self.workspace)
                self.trusted = self.trusted and self.files.trusted()  # new values: not trusted yet
            else:
                notes.append(f"ignored setting {WORKSPACE_KEY}: expected an object")
        notes += Settings().overlay(values)  # the payload's own problems, named once
        self.editor.update({k: v for k, v in values.items() if v is not None})
        self._recompose()
        kinds = setting_kinds(ServerOptions)
        for raw_key, value in values.items():
            key = snake_case(str(raw_key))
            if key not in kinds or value is None:
                continue
            coerced = coerce_setting(value, *kinds[key])
            if key in CHOICES and coerced not in CHOICES[key]:
                notes.append(f"ignored setting {raw_key}={value!r}: expected one of {', '.join(CHOICES[key])}")
                continue
            if coerced is INVALID:
                notes.append(f"ignored setting {raw_key}={value!r}: wrong type")
            else:
                setattr(self.options, key, coerced)
        return notes


def _section(payload: Any) -> Mapping[str, Any]:
    if payload is None:
        return {}
    if not isinstance(payload, Mapping):
        payload = plain(payload)
        if not isinstance(payload, Mapping):
            return {}
    inner = payload.get(SECTION)
    if isinstance(inner, Mapping):
        return inner
    if "settings" in payload and isinstance(payload.get("settings"), Mapping):
        return _section(payload["settings"])
    return payload

