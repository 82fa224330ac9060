"""Start-up, the same in every face: settings files -> trust -> Settings -> Session -> MCP servers.

The terminal, the language server and the ACP agent all start a task this way; only
where the face's own values come from differs (flags, initializationOptions and the
editor's section, ACP's flags). Trust is asked through the face's Host at most once per
process for the same entries: a "no" is remembered in `TrustDecisions` (the project's
privileged keys then stay unused, its MCP servers unstarted) and asked again only when
the entries change. A "yes" is remembered for good in the trust store (policy/trust.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from .host import Host
from .policy import settings_files
from .policy.settings_files import SettingsFiles
from .settings import Settings

if TYPE_CHECKING:
    from .loop import Session


class TrustDecisions:
    """The "no"s to trust this process heard, per project root: subject -> fingerprint."""

    def __init__(self) -> None:
        self.declined: dict[Path, dict[str, str]] = {}

    def of(self, root: Path) -> dict[str, str]:
        """The root's record, which the MCP start-up updates itself (mcp/config.runnable)."""
        return self.declined.setdefault(Path(root), {})

    def said_no_to(self, root: Path, subjects: dict[str, str]) -> bool:
        mine = self.declined.get(Path(root), {})
        return bool(subjects) and all(mine.get(s) == fp for s, fp in subjects.items())

    def decline(self, root: Path, subjects: dict[str, str]) -> None:
        self.of(root).update(subjects)


async def settings_files_for(host: Host, root: Path, decisions: TrustDecisions,
                             workspace: Mapping[str, Any] | None = None) -> tuple[SettingsFiles, bool]:
    """The project's settings files, and whether their privileged parts may be used (asked once).

    `workspace`: values an editor read from the workspace folder (VS Code's
    `.vscode/settings.json`); they came with the repository, so they are the project's too.
    """
    files = settings_files.read(root)
    files.workspace = dict(workspace or {})
    if files.trusted():
        return files, True
    subjects = files.subjects()
    if decisions.said_no_to(root, subjects):
        return files, False
    if await settings_files.ensure_trusted(host, files):
        return files, True
    decisions.decline(root, subjects)
    return files, False


async def start_settings(host: Host, root: Path, face: Mapping[str, Any] | None,
                         decisions: TrustDecisions) -> tuple[Settings, list[str]]:
    """Settings for a task in `root`: env < user file < project file (trusted parts) < the face's values."""
    files, trusted = await settings_files_for(host, root, decisions)
    return settings_files.compose(files, trusted, face)


def open_session(root: Path | str, host: Host, settings: Settings, *, transcript: bool = True) -> Session:
    """A session on one folder, with a transcript under the state dir."""
    from .loop import Session  # the engine: imported when a task starts, not when a face does
    from .state.transcript import Transcript
    from .workspace.paths import Workspace

    ws = Workspace([Path(root)])
    tr = Transcript(scrub=settings.scrub, roots=ws.roots) if transcript else None
    return Session(ws, host, settings, transcript=tr)


async def attach_mcp(session: Session, root: Path, decisions: TrustDecisions) -> list[str]:
    """Start the MCP servers the session's settings and the workspace configure (the project's once trusted)."""
    from .mcp.source import attach

    return await attach(session, root, decisions.of(root))
