"""Reading transcripts back (agent/past_sessions.py): what a crash, a torn line or an
older transcript leaves behind is passed over, never an error."""

from __future__ import annotations

import json
from pathlib import Path

from agent_lsp.agent.state import past_sessions
from agent_lsp.agent.state.transcript import Transcript


def test_a_transcript_records_its_workspace_and_reads_back(tmp_path: Path):
    ws = tmp_path / "ws"
    ws.mkdir()
    tr = Transcript(directory=tmp_path / "state", roots=[ws])
    tr.record("message", {"role": "system", "content": "sys"})
    tr.record("message", {"role": "user", "content": "fix it\n\nContext: a.py"})
    tr.record("message", {"role": "assistant", "content": "Fixed."})
    tr.record("turn_end", {"status": "done", "steps": 1, "prompt_tokens": 120, "completion_tokens": 8})
    tr.record("message", {"role": "user", "content": "and the tests?"})  # then the server died
    with open(tr.path, "a") as f:
        f.write('{"t": 1, "kind": "message", "data": {"role": "assis')  # a torn last line

    lines = [json.loads(line) for line in tr.path.read_text().splitlines()[:1]]
    assert lines[0]["kind"] == "session" and lines[0]["data"] == {"workspace": [str(ws)]}

    (s,) = past_sessions.list_sessions([ws], tmp_path / "state")
    assert (s.id, s.title, s.status) == (tr.session_id, "fix it", "unfinished")
    events = past_sessions.events(s)
    assert [e["kind"] for e in events] == ["task", "text", "answer", "task"]
    assert events[2]["data"] == {"status": "done", "steps": 1, "prompt_tokens": 120, "completion_tokens": 8}
    assert "Outcome: unfinished" in past_sessions.summary(s)

    assert past_sessions.list_sessions([tmp_path / "elsewhere"], tmp_path / "state") == []
    assert past_sessions.find_session(tr.session_id, [tmp_path / "elsewhere"], tmp_path / "state") is None
    assert past_sessions.find_session("../" + tr.session_id, [ws], tmp_path / "state") is None


def test_older_transcripts_without_a_workspace_and_empty_sessions_are_not_listed(tmp_path: Path):
    state = tmp_path / "state"
    state.mkdir()
    (state / "20260101-000000-0123abcd.jsonl").write_text(
        json.dumps({"t": 1, "kind": "message", "data": {"role": "user", "content": "old"}}) + "\n")
    tr = Transcript(directory=state, roots=[tmp_path])
    tr.record("message", {"role": "system", "content": "sys"})  # a session nobody asked anything yet
    assert past_sessions.list_sessions([tmp_path], state) == []
    assert past_sessions.list_sessions([tmp_path], tmp_path / "missing") == []
