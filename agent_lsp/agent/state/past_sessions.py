"""Earlier sessions, read back from their JSONL transcripts (transcript.py) so an editor
can list and reopen them, read-only.

A transcript is a record, not state: a line that does not parse, a file that cannot be
read, a session without a task are passed over, never an error. Only sessions whose
`session` line names one of the given workspace folders are shown, so one project never
sees another's history.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

from ..model.messages import message_text
from . import state_dir

SESSION_ID = re.compile(r"^\d{8}-\d{6}-[0-9a-f]{8}$")
MAX_LISTED = 100
MAX_RESULT_CHARS = 4000
MAX_SUMMARY_CHARS = 4000
HEAD_BYTES = 64 * 1024


@dataclass
class PastSession:
    id: str
    started: str
    title: str
    status: str
    workspace: list[str]
    records: list[dict[str, Any]] = field(repr=False)
    t0: float = 0.0  # the first record's time: orders sessions started within the same second

    def brief(self) -> dict[str, Any]:
        return {"id": self.id, "started": self.started, "title": self.title, "status": self.status}


def _records(path: Path) -> list[dict[str, Any]]:
    out = []
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    for line in text.splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict) and isinstance(rec.get("kind"), str):
            out.append(rec)
    return out




def _messages(records: list[dict[str, Any]], role: str) -> list[dict[str, Any]]:
    return [r["data"] for r in records
            if r["kind"] == "message" and isinstance(r.get("data"), dict) and r["data"].get("role") == role]


def _title(task: str) -> str:
    line = next((ln.strip() for ln in task.splitlines() if ln.strip()), "")
    return line if len(line) <= 100 else line[:99] + "…"


def _status(records: list[dict[str, Any]]) -> str:
    """The last turn's status; "unfinished" when its end was never written (a crash, a kill)."""
    status = "unfinished"
    for r in records:
        if r["kind"] == "message" and isinstance(r.get("data"), dict) and r["data"].get("role") == "user":
            status = "unfinished"
        elif r["kind"] == "turn_end" and isinstance(r.get("data"), dict):
            status = str(r["data"].get("status") or "unfinished")
    return status


def _started(records: list[dict[str, Any]]) -> str:
    t = records[0].get("t") if records else None
    if not isinstance(t, (int, float)):
        return ""
    return datetime.fromtimestamp(t, timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def _workspace(records: list[dict[str, Any]]) -> list[str]:
    roots: list[str] = []
    for r in records:
        if r["kind"] == "session" and isinstance(r.get("data"), dict):
            roots += [w for w in r["data"].get("workspace") or [] if isinstance(w, str) and w not in roots]
    return roots


def _maybe_ours(path: Path, folders: set[str]) -> bool:
    """A cheap first look: transcript.py writes the `session` line first, so another
    workspace's transcript is passed over without reading it all (folders added later
    are recorded too, but a session is listed by the folders it started with)."""
    try:
        with open(path, "rb") as f:
            head = f.read(HEAD_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return False
    for line in head.splitlines()[:1]:
        try:
            rec = json.loads(line)
        except ValueError:
            return True  # not what transcript.py writes first: look at all of it
        if isinstance(rec, dict) and rec.get("kind") == "session" and isinstance(rec.get("data"), dict):
            first = {w for w in rec["data"].get("workspace") or [] if isinstance(w, str)}
            return bool(folders & first)
    return True


def _load(path: Path, folders: set[str]) -> PastSession | None:
    if not _maybe_ours(path, folders):
        return None
    records = _records(path)
    roots = _workspace(records)
    if not folders.intersection(roots):
        return None
    users = _messages(records, "user")
    if not users:
        return None
    t0 = records[0].get("t") if isinstance(records[0].get("t"), (int, float)) else 0.0
    return PastSession(path.stem, _started(records), _title(message_text(users[0])), _status(records), roots, records, t0)


def _folders(roots: Iterable[Path]) -> set[str]:
    return {str(Path(r).resolve()) for r in roots}


def list_sessions(roots: Iterable[Path], directory: Path | None = None, *,
                  older_than: str | None = None, limit: int = MAX_LISTED) -> list[PastSession]:
    """This workspace's sessions, newest first (at most `limit`).

    `older_than` (a session id) starts after that session, for a client that pages: ids
    begin with the time, so a page goes on from where the last one stopped even while new
    sessions are being written.
    """
    folders = _folders(roots)
    base = directory or state_dir()
    try:
        files = sorted((p for p in base.glob("*.jsonl") if SESSION_ID.match(p.stem)
                        and (older_than is None or p.stem < older_than)), reverse=True)
    except OSError:
        return []
    out: list[PastSession] = []
    for path in files:
        s = _load(path, folders)
        if s is not None:
            out.append(s)
            if len(out) >= limit:
                break
    # file names have whole seconds; two sessions of one second go by their first record
    return sorted(out, key=lambda s: (s.id[:15], s.t0), reverse=True)


def find_session(session_id: str, roots: Iterable[Path], directory: Path | None = None) -> PastSession | None:
    """The session with this id if it belongs to this workspace; None otherwise."""
    if not SESSION_ID.match(session_id):
        return None
    path = (directory or state_dir()) / f"{session_id}.jsonl"
    return _load(path, _folders(roots)) if path.is_file() else None


def _first_line(text: str) -> str:
    return next((ln for ln in text.splitlines() if ln.strip()), "")


def events(session: PastSession) -> list[dict[str, Any]]:
    """The session as the `agentLsp/event`s a live task sends ({kind, text, data}), plus
    `task` for each request; the system prompt is left out."""
    out: list[dict[str, Any]] = []
    names: dict[str, str] = {}
    last_text = ""
    for r in session.records:
        data = r.get("data")
        if r["kind"] == "message" and isinstance(data, dict):
            role = data.get("role")
            if role == "user":
                out.append({"kind": "task", "text": message_text(data), "data": None})
                last_text = ""
            elif role == "assistant":
                last_text = message_text(data)
                if last_text:
                    out.append({"kind": "text", "text": last_text, "data": None})
                for call in data.get("tool_calls") or []:
                    if not isinstance(call, dict):
                        continue
                    fn = call.get("function") or {}
                    name, raw = str(fn.get("name", "")), fn.get("arguments", "")
                    names[str(call.get("id", ""))] = name
                    out.append({"kind": "tool", "text": name, "data": {"id": call.get("id", ""), "name": name, "arguments": raw}})
                    if name == "todo_write":
                        try:
                            todos = json.loads(raw).get("todos") if isinstance(raw, str) else None
                        except (ValueError, AttributeError):
                            todos = None
                        if isinstance(todos, list):
                            out.append({"kind": "todo", "text": "", "data": {"todos": todos}})
            elif role == "tool":
                result = message_text(data)
                call_id = str(data.get("tool_call_id", ""))
                out.append({"kind": "tool_result", "text": _first_line(result), "data": {
                    "id": call_id, "name": names.get(call_id, ""), "ok": not result.startswith("error"),
                    "result": result[:MAX_RESULT_CHARS]}})
        elif r["kind"] == "turn_end" and isinstance(data, dict):
            status = str(data.get("status", "done"))
            if status == "error":
                out.append({"kind": "error", "text": str(data.get("error") or "the turn failed"), "data": None})
            else:
                ended = {"status": status, "steps": data.get("steps", 0)}
                # token counts, when the transcript has them (the turn's totals)
                ended.update({k: data[k] for k in ("prompt_tokens", "completion_tokens") if isinstance(data.get(k), int)})
                out.append({"kind": "answer", "text": last_text, "data": ended})
        elif r["kind"] == "compaction" and isinstance(data, dict):
            out.append({"kind": "status", "text": f"the conversation was compacted ({data.get('removed', 0)} messages summarised)",
                        "data": None})
    return out


def summary(session: PastSession) -> str:
    """What a new session is told about this one: each request and how it ended."""
    parts: list[str] = []
    task = ""
    answer = ""
    for ev in events(session):
        if ev["kind"] == "task":
            task = ev["text"].strip()
        elif ev["kind"] in ("answer", "error") and task:
            answer = ev["text"].strip()
            status = ev["data"]["status"] if ev["kind"] == "answer" else "error"
            parts.append(f"- Request: {task[:600]}\n  Outcome ({status}): {answer[:800] or '(no answer)'}")
            task = ""
    if task:
        parts.append(f"- Request: {task[:600]}\n  Outcome: unfinished")
    text = f"Session {session.id} (started {session.started}):\n" + "\n".join(parts)
    return text if len(text) <= MAX_SUMMARY_CHARS else text[: MAX_SUMMARY_CHARS - 1] + "…"
