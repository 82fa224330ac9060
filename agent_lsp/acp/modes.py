"""Session modes: how much the person wants to be asked, switched from the client's mode picker.

ACP clients show `modes` (from session/new and session/load) as a switcher and change it
with session/set_mode; the agent confirms with a current_mode_update. A mode is a
promise about what happens without a question, so each one is kept where the effect
happens (AcpHost.apply_edit and run_command), not only in the question asked:

- `ask` (the default): every edit and every command no rule covers is asked.
- `accept-edits`: edits are applied without asking (the diff is still shown on the
  tool call); commands are still asked.
- `read-only`: no edit is applied and no command runs, whatever the rules or --yes say;
  the model is told why, so it answers from what it can read.
"""

from __future__ import annotations

from dataclasses import dataclass

from acp.schema import SessionMode, SessionModeState

ASK, ACCEPT_EDITS, READ_ONLY = "ask", "accept-edits", "read-only"
DEFAULT = ASK


@dataclass(frozen=True)
class Mode:
    id: str
    name: str
    description: str


MODES: tuple[Mode, ...] = (
    Mode(ASK, "Ask", "Ask before every edit and every command"),
    Mode(ACCEPT_EDITS, "Accept edits", "Apply edits without asking; still ask before commands"),
    Mode(READ_ONLY, "Read only", "Read and answer only: no edits, no commands"),
)
BY_ID = {m.id: m for m in MODES}

READ_ONLY_EDIT = ("this session is in Read only mode, so no edit is applied; "
                  "say what you would change instead")
READ_ONLY_COMMAND = ("error: this session is in Read only mode, so no command runs; "
                     "answer from what you can read with read_file, list_files and grep")


class ModeError(ValueError):
    """An unknown mode id; the message is written for the person."""


def check(mode_id: object) -> str:
    """The mode id, or ModeError naming the ones there are."""
    if isinstance(mode_id, str) and mode_id in BY_ID:
        return mode_id
    raise ModeError(f"unknown mode {mode_id!r}; the modes are: {', '.join(BY_ID)}")


def state(current: str) -> SessionModeState:
    """What session/new and session/load return as `modes`."""
    return SessionModeState(
        current_mode_id=current,
        available_modes=[SessionMode(id=m.id, name=m.name, description=m.description) for m in MODES],
    )


def asks_edits(mode_id: str) -> bool:
    """Does an edit wait for the person's yes in this mode? (read-only never gets that far)"""
    return mode_id == ASK


def allows_effects(mode_id: str) -> bool:
    """May edits and commands happen at all in this mode?"""
    return mode_id != READ_ONLY
