"""What a client shows about a session besides the conversation: its title, its context use, its list.

- The title comes from the first prompt (its first line, shortened), sent once as a
  session_info_update, so a client's session list reads "fix the off-by-one in fizzbuzz"
  instead of "New Session". A loaded session gets the title its transcript implies.
- usage_update follows every model call: `used` is what the last call sent and got back
  (the endpoint's own counts; an estimate when it sends none), `size` the context window
  in the settings (`contextWindow`), the number compaction works against.
- session/list lists this folder's earlier sessions from the same transcripts that
  agentLsp.listSessions reads (agent/past_sessions.py), newest first.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from acp.schema import ListSessionsResponse, SessionInfo, SessionInfoUpdate, UsageUpdate

from ..agent.state import past_sessions

TITLE_CHARS = 60
PAGE = 50  # sessions per session/list answer; nextCursor says there are more


def title_from_prompt(text: str) -> str:
    """A short title: the prompt's first non-empty line, cut at a word near TITLE_CHARS."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    line = " ".join(line.split())
    if len(line) <= TITLE_CHARS:
        return line
    cut = line[: TITLE_CHARS - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > TITLE_CHARS // 2 else cut).rstrip(" ,;:.") + "…"


def title_update(title: str) -> SessionInfoUpdate:
    return SessionInfoUpdate(session_update="session_info_update", title=title,
                             updated_at=_now())


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


class UsageMeter:
    """Turns the loop's per-turn running totals (the `usage` event) into each call's own size.

    The loop's counts grow over a turn and start again at the next one; the last call's
    prompt plus completion is what the context holds now.
    """

    def __init__(self) -> None:
        self._prompt = 0
        self._completion = 0

    def update(self, data: dict[str, Any], window: int) -> UsageUpdate | None:
        prompt, completion = data.get("promptTokens"), data.get("completionTokens")
        if not isinstance(prompt, int) or not isinstance(completion, int):
            return None
        if prompt < self._prompt or completion < self._completion:  # a new turn: the totals restarted
            self._prompt = self._completion = 0
        used = (prompt - self._prompt) + (completion - self._completion)
        self._prompt, self._completion = prompt, completion
        return UsageUpdate(session_update="usage_update", used=max(0, used), size=max(0, int(window)))


def list_response(cwd: Path, live: dict[str, str] | None = None, cursor: str | None = None,
                  page: int = PAGE) -> ListSessionsResponse:
    """A page of this folder's sessions, newest first; `live` adds titles of sessions open in
    this process. The cursor is the last id of the page before (opaque to the client)."""
    if cursor is not None and not past_sessions.SESSION_ID.match(cursor):
        raise CursorError(f"not a cursor this agent gave: {cursor!r} (leave it out for the first page)")
    found = past_sessions.list_sessions([cwd], older_than=cursor, limit=page + 1)
    more = len(found) > page
    if more:  # pages are cut by id, as the cursor reads them: the oldest one opens the next page
        oldest = min(s.id for s in found)
        found = [s for s in found if s.id != oldest]
    out: list[SessionInfo] = []
    for s in found:
        title = (live or {}).get(s.id) or title_from_prompt(s.title) or None
        out.append(SessionInfo(session_id=s.id, cwd=str(cwd), title=title, updated_at=_last_activity(s)))
    return ListSessionsResponse(sessions=out, next_cursor=min(s.id for s in found) if more else None)


class CursorError(ValueError):
    """A session/list cursor this agent did not give; the message is written for the person."""


def _last_activity(s: past_sessions.PastSession) -> str | None:
    """The time of the transcript's last record (ISO 8601), or when it started."""
    t = s.records[-1].get("t") if s.records else None
    if isinstance(t, (int, float)) and t > 0:
        return datetime.fromtimestamp(t, timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
    return s.started or None
